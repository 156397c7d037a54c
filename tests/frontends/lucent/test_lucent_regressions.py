"""Regressions found by probing kinduct against Kind 2 with models written from the primer:
each test is the smallest model of one difference that was found and fixed."""

from __future__ import annotations

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.frontend import LoadOptions
from tests.conftest import ROOT
from tests.frontends.lucent.helpers import answers, verdicts


def write(tmp_path, text, name="m.lus"):
    p = tmp_path / name
    p.write_text(text)
    return p


UNRELATED = """
node Helper(x: int) returns (y: int);
let
  y = x + 1;
  check "helper" y > x;
tel

node Main(x: int) returns (y: int);
let
  y = Helper(x);
  check "main" y > x;
  --%MAIN;
tel

node Other(x: int) returns (y: int);
let
  y = x;
  check "other" y = x;
tel
"""


def test_modular_analyses_start_at_the_main_node(tmp_path):
    """``--modular`` analyses the main node (``--%MAIN`` here) and what it calls, callees
    first, as Kind 2 does; an unrelated node is not analysed."""
    src = write(tmp_path, UNRELATED)
    systems = load_systems(src, LoadOptions(modular=True))
    assert [s.name for s in systems] == ["Helper", "Main"]
    got = answers(src, modular=True)
    assert got["helper"] == got["main"] == "valid" and "other" not in got
    assert [s.name for s in load_systems(src, LoadOptions(modular=True, main="Other"))] == ["Other"]


KIND2_NAMES = ROOT / "tests" / "data" / "kind2" / "names"  # each also compared with Kind 2


def test_a_subrange_bound_may_name_a_free_constant():
    """``subrange [0, N]`` with ``const N: int;`` was refused ("expected a constant integer
    expression"); Kind 2 reads it as a subtype whose predicate names N."""
    got = answers(KIND2_NAMES / "free_constant_bound.lus")
    assert got == {"SubType[L3C23]": "valid", "SubType[L3C29]": "falsifiable", "le": "valid"}


def test_ghost_obligations_of_abstracted_and_imported_callees():
    """With ``--compositional`` a callee with a body owes its contract's ghost obligations in
    its own analysis, not at the call site; an imported callee owes them at the call site."""
    body = answers(KIND2_NAMES / "ghost_of_abstracted_callee.lus", compositional=True)
    imported = answers(KIND2_NAMES / "ghost_of_imported_callee.lus", compositional=True)
    assert body == {"nonneg": "valid"}
    assert imported == {"Callee[L12C7].SubRange[L3C7]": "falsifiable", "nonneg": "valid"}


def test_one_obligation_per_constrained_component_and_declaration():
    got = answers(KIND2_NAMES / "record_and_section_obligations.lus")
    assert got == {"SubRange[L2C33]_1": "falsifiable", "SubRange[L2C33]_2": "valid",
                   "SubRange[L3C3]_1": "valid", "SubRange[L3C3]_2": "falsifiable",
                   "SubRange[L5C3]_1": "valid", "SubRange[L5C3]_2": "falsifiable"}


def test_a_named_predicate_with_mod_is_applied_to_each_value_on_its_own():
    """Wrong verdicts once: a named type's predicate is one expression, and its ``x mod 2``
    was translated once (by its uid) and handed to every later value of the type, so a false
    obligation was proved and an impossible counterexample printed."""
    folder = KIND2_NAMES
    assert answers(folder / "shared_predicate_mod_two_outputs.lus") == {
        "SubType[L2C27]": "valid", "SubType[L2C33]": "falsifiable"}
    assert answers(folder / "shared_predicate_mod_any_named.lus") == {
        "SubType[L2C27]": "valid", "z": "valid"}
    assert answers(folder / "shared_predicate_array_elem_mod.lus") == {"SubType[L2C25]": "falsifiable"}
    assert answers(folder / "shared_predicate_mod_second_input_free.lus") == {"b": "valid"}


def test_a_division_by_the_bound_variable_of_a_predicate_is_refused(tmp_path):
    """Each application of such a predicate would need quotient streams of its own: refused,
    located, rather than sharing one quotient between all values of the type."""
    from kinduct.kernel.errors import UnsupportedError

    src = write(tmp_path, """

type E = subtype { x: int | 100 div x > 0 };
node N(a: E) returns (b: E);
let b = a; tel
""")
    try:
        load_systems(src, LoadOptions())
    except UnsupportedError as exc:
        assert "reads the bound variable" in str(exc) and ":3:29:" in str(exc)
    else:
        raise AssertionError("expected an unsupported-feature error")


def test_unary_minus_binds_like_binary_minus():
    """Wrong verdicts once: kinduct read ``-x mod 3`` as ``(-x) mod 3``; Kind 2's grammar gives
    unary minus the precedence of binary +/-, so it is ``-(x mod 3)`` (and ``-7 div 3 = -2``)."""
    got = answers(KIND2_NAMES / "unary_minus_precedence.lus")
    assert set(got.values()) == {"valid"} and "negmod" in got and "negdiv" in got


def test_division_by_zero_is_a_function(tmp_path):
    """Wrong verdict once: each occurrence of ``i div j`` had its own result for ``j = 0``, so
    ``i div j = i div j`` was falsified (Kind 2 proves it: division is a function). Division
    is now a function of its arguments at every distance in time, so ``steps`` is proved too,
    as Kind 2 does (it was unknown while the function held within a step only)."""
    src = write(tmp_path, """
node N(i, j: int) returns (z: int);
let
  z = i div 0;
  check "self" i div j = i div j;
  check "steps" true -> (i = pre i => z = pre z);
tel
""")
    got = verdicts(src, timeout=20)
    assert got["self"].answer.value == "valid"
    assert got["steps"].answer.value == "valid"


def test_a_branch_whose_condition_holds_a_clocked_arrow_starts_at_its_first_selection(tmp_path):
    """Found by the random simulator-vs-translation test: the simulator marked the clocks
    that ticked one by one, so the else branch's condition, read last, saw the ``->`` of the
    ``and then`` operand's clock as already past its first tick and selected the branch at
    step 0."""
    from tests.frontends.lucent.helpers import simulate

    src = write(tmp_path, """
node Main(a: int; c: bool) returns (u: int);
let
  when true and then (true -> pre c) then
    u = a;
  else
    u = a -> (a + a);
  end
tel
""")
    steps = [{"a": 0, "c": False}, {"a": 1, "c": False}, {"a": 5, "c": False}]
    assert [s["u"] for s in simulate(src, steps)] == [0, 1, 10]


def test_any_with_no_possible_value_does_not_rule_the_step_out():
    """Wrong verdict once: ``z = any { v: int | v < x and v >= x }`` was assumed, which left no
    execution with x = 3, so ``x <> 3`` was proved; Kind 2 lets ``any`` pick an arbitrary value
    where none satisfies the predicate and falsifies it."""
    assert answers(KIND2_NAMES / "any_without_a_value.lus") == {"p": "falsifiable"}


def test_any_whose_predicate_does_not_read_its_variable_assumes_nothing_where_it_fails():
    """Wrong verdict once: ``x = any { y: int | m > 0 }`` counted as always possible (its
    predicate does not read ``y``), so ``m > 0`` was assumed and ``check m > 0`` proved; where
    ``m <= 0`` no value satisfies the predicate, and Kind 2 falsifies the check."""
    assert answers(KIND2_NAMES / "any_predicate_without_its_variable.lus") == {"p": "falsifiable"}
