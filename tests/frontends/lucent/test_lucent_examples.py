"""Done-when 1: every example of the primer gives the primer's stated result (one test each)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kinduct.frontends.lucent.pipeline import load_checked
from kinduct.kernel.errors import InputError
from tests.conftest import run_cli
from tests.frontends.lucent.helpers import LUCENT, answers, simulate


def ints(rows, name):
    return [r[name] for r in rows]


def test_combine_properties():
    # "y > 0 => l > y would be proven invariant ... z > 0 would be disproven"
    got = answers(LUCENT / "combine.lus")
    assert got == {"y > 0 => l > y": "valid", "z > 0": "falsifiable"}


def test_combine_simulation():
    rows = simulate(LUCENT / "combine_simple.lus", [{"x": 1, "y": 4}, {"x": 2, "y": 5}, {"x": 3, "y": 6}])
    assert ints(rows, "z") == [9, 12, 15]


def test_combine_with_constant_and_local():
    rows = simulate(LUCENT / "combine_const.lus", [{"x": 1, "y": 4}, {"x": -2, "y": 5}])
    assert ints(rows, "l") == [8, 10]
    assert ints(rows, "z") == [9, 8]


def test_two_outs():
    rows = simulate(LUCENT / "two_outs.lus", [{"x": 3}, {"x": -4}])
    assert ints(rows, "double") == [6, -8]
    assert ints(rows, "square") == [9, 16]


def test_sign_if_blocks():
    rows = simulate(LUCENT / "sign.lus", [{"x": -3}, {"x": 0}, {"x": 7}])
    assert ints(rows, "neg") == [True, False, False]
    assert ints(rows, "pos") == [False, False, True]


def test_max():
    rows = simulate(LUCENT / "max.lus", [{"x": 1, "y": 5}, {"x": 9, "y": 2}])
    assert ints(rows, "m") == [5, 9]


def test_counter():
    rows = simulate(LUCENT / "counter.lus", [{"init": 10}, {"init": 0}, {"init": 0}])
    assert ints(rows, "out") == [10, 11, 12]


def test_one_two_three():
    rows = simulate(LUCENT / "one_two_three.lus", [{}] * 5)
    assert ints(rows, "y") == [1, 2, 3, 3, 3]


@pytest.mark.parametrize("name", ["fibonacci.lus", "fibonacci_locals.lus"])
def test_fibonacci(name):
    rows = simulate(LUCENT / name, [{}] * 7)
    assert ints(rows, "Fib") == [1, 1, 2, 3, 5, 8, 13]


def test_hold_frame_block():
    steps = [{"latch": False, "v": 5}, {"latch": True, "v": 7}, {"latch": False, "v": 9}]
    rows = simulate(LUCENT / "hold.lus", steps)
    assert ints(rows, "out") == [0, 7, 7]


def test_factorial():
    rows = simulate(LUCENT / "factorial.lus", [{}] * 6)
    assert ints(rows, "F") == [1, 1, 2, 6, 24, 120]


@pytest.mark.parametrize("name", ["circular.lus", "circular_satisfiable.lus"])
def test_circular_definitions_rejected(name):
    with pytest.raises(InputError) as exc:
        load_checked(LUCENT / name)
    assert "circular definition: out1 -> out2 -> out1" in str(exc.value)
    assert ":3:10:" in str(exc.value)


def test_records():
    data = {"speed": Fraction(3), "height": Fraction(-2), "direction": 4}
    rows = simulate(LUCENT / "records.lus", [{"data": data}])
    assert rows[0]["out"] == {"speed": 3, "height": 0, "direction": 4}


def test_arrays():
    rows = simulate(LUCENT / "arrays.lus", [{}], main="TwoArrays")
    assert rows[0]["out1"] == [True, True, False, True, False]
    assert rows[0]["out2"] == [1, 1, 1, 1]
    a = list(range(10, 20))
    rows = simulate(LUCENT / "arrays.lus", [{"a": a, "k": 3}, {"a": a, "k": 12}], main="Nth")
    assert ints(rows, "out") == [13, 10]


def test_tuples():
    rows = simulate(LUCENT / "tuples.lus", [{"p": [4, True]}])
    assert rows[0]["q"] == [True, 4]


def test_enumeration():
    assert answers(LUCENT / "enum.lus") == {"cycle": "valid"}


def test_subrange_obligation_of_add_falsified():
    got = answers(LUCENT / "subrange_add.lus")
    assert list(got.values()) == ["falsifiable"]
    (name,) = got
    assert name == "SubRange[L3C34]"


def test_refinement_types():
    # Abs's output is a Nat and Sqrt keeps y >= 0 given x >= 0: both obligations hold
    got = answers(LUCENT / "refinement_sqrt.lus")
    assert got and set(got.values()) == {"valid"}


def test_abstract_type():
    assert answers(LUCENT / "abstract_type.lus") == {"y = x": "valid"}


def test_composition():
    assert answers(LUCENT / "composition.lus") == {"P1": "valid"}


def test_multiple_outputs():
    assert answers(LUCENT / "multi_outputs.lus") == {"P1": "valid"}


def test_function():
    assert answers(LUCENT / "function_abs.lus") == {"y >= 0.0": "valid"}


def test_imported_node_without_contract_is_arbitrary():
    assert answers(LUCENT / "imported.lus") == {"anything": "falsifiable"}


def test_any_odd():
    assert answers(LUCENT / "any_odd.lus") == {"odd": "valid", "never equal": "valid"}


def test_auxiliary_nodes():
    got = answers(LUCENT / "auxiliary.lus")
    assert got == {"sofar implies once": "valid", "initially and sofar": "valid"}


def test_count_properties_and_reachability():
    got = answers(LUCENT / "count.lus")
    assert got == {"nonneg": "valid", "small": "falsifiable", "can reach ten": "reachable",
                   "ten within 5": "unreachable"}


def test_count_counterexample_via_cli():
    proc = run_cli("check", LUCENT / "count.lus", "--property", "small", "--json")
    assert proc.returncode == 40, proc.stderr
    import json
    (prop,) = [o for o in json.loads(proc.stdout) if o.get("objectType") == "property"]
    block = prop["counterExample"][0]
    n = next(s for s in block["streams"] if s["name"] == "n")
    assert n["instantValues"][-1][1] == 11


def test_provided():
    got = answers(LUCENT / "provided.lus")
    assert got == {"positive": "valid", "positive (provided)": "reachable"}


def test_divide_contract():
    assert answers(LUCENT / "divide_contract.lus") == {"exact": "valid"}


def test_ghost_variable_contract():
    assert answers(LUCENT / "ghost_contract.lus") == {"counted": "valid"}


def test_modes():
    got = answers(LUCENT / "modes.lus")
    ensures = {k: v for k, v in got.items() if ".ensure" in k}
    assert len(ensures) == 2 and set(ensures.values()) == {"valid"}
    # the modes are not exhaustive (lhs < 0 is in no mode)
    assert got["_one_mode_active"] == "falsifiable"


def test_contract_node_import():
    got = answers(LUCENT / "contract_node.lus")
    assert list(got.values()) == ["valid"]


def test_compositional_and_modular():
    plain = answers(LUCENT / "compositional.lus")
    assert plain == {"Abs[L11C7].nonneg": "valid", "positive": "valid"}
    comp = answers(LUCENT / "compositional.lus", compositional=True)
    assert comp == {"positive": "valid"}
    modular = answers(LUCENT / "compositional.lus", modular=True, compositional=True)
    assert modular == {"nonneg": "valid", "positive": "valid"}


def test_lazy_unwrap_discharges_the_selectors_obligation():
    assert answers(LUCENT / "lazy_unwrap.lus") == {"Selector[L5C26]": "valid"}


def test_polymorphic_node_without_properties_is_accepted():
    proc = run_cli("check", LUCENT / "polymorphic.lus")
    assert proc.returncode == 0 and "no property" in proc.stderr, proc.stderr
