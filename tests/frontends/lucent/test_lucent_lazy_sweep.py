"""A sweep of small models a reader of the primer's "Lazy Operators", "Lazy Blocks" and "Frame
Blocks" (``last``) sections and of Kind 2's clocks would write (issue 15), each property named
by its answer, worked out by hand (and compared with Kind 2 v3.0.0 wherever it reads the
model): ``V_`` valid, ``F_`` falsifiable (a trace that replays), ``R_`` reachable, ``U_``
unreachable.  The other properties (obligations of selectors, ascriptions, callees) are listed
in :data:`OBLIGATIONS`.  Every model runs on z3 and on cvc5 (the default suite: one of them
per model, in turn).

Model files (``tests/data/lucent/lazy_sweep``) by prefix: ``op`` lazy operators, ``blk`` lazy
blocks and frame blocks, ``adv`` combinations (``last`` against ``pre`` in branches, calls in
branches, reachability), ``clk`` clocks and activations, ``sym`` element-wise definitions of
arrays of symbolic size calling a function in a lazy branch, ``quant`` quantifiers over calls
of functions (Kind 2's ``lazy_ops_with_quantified_vars``); ``b2_`` a second round: ``f`` frame
blocks (initial values, locals, enumerations, arrays), ``g`` restarts and activations of nodes
with lazy branches, ``p`` precedence of the lazy operators, ``c`` more clocks; ``b3_``
selectors of datatypes guarded by lazy blocks and operators."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.verdict import Answer
from tests.conftest import BENCH, run_cli
from tests.frontends.lucent.helpers import cli_refusal, write

SWEEP = Path(__file__).parents[2] / "data" / "lucent" / "lazy_sweep"
MODELS = sorted(SWEEP.glob("*.lus"))

PREFIXES = {"V_": Answer.VALID, "F_": Answer.FALSIFIABLE, "R_": Answer.REACHABLE,
            "U_": Answer.UNREACHABLE}

#: The answers of the properties whose names carry none.
OBLIGATIONS: dict[str, dict[str, Answer]] = {
    "blk05_when_selector": {"Selector[L5C9]": Answer.VALID},
    # 'check A provided B': B => A, and B reachable
    "adv06_provided": {"V_prov (provided)": Answer.REACHABLE},
    "op05_selector": {"Selector[L4C26]": Answer.VALID},
    # the eager 'if' reads x.val where x is None: the primer's example, falsified
    "op06_selector_eager": {"Selector[L4C24]": Answer.FALSIFIABLE},
    "op07_selector_implies": {"Selector[L4C21]": Answer.VALID, "Selector[L6C36]": Answer.VALID},
    "op13_ascription_andthen": {
        "N.type_ascription_L4C23[L4C23].SubRange[L4C23]": Answer.VALID},
    "op14_ascription_eager": {
        "N.type_ascription_L4C18[L4C18].SubRange[L4C18]": Answer.FALSIFIABLE},
    "adv22_when_block_call_lazy_input": {"Dec[L12C9].guarantee[L4C3]": Answer.VALID,
                                         "Dec[L12C9].assume[L3C3]": Answer.VALID},
    # AddOne(i) only where i <> 0: its input type i: Pos holds
    "sym_lazy_function": {"AddOne[L9C34].SubRange[L3C17]": Answer.VALID,
                          "AddOne[L9C34].SubRange[L3C34]": Answer.VALID},
    # AddOne(i) where i < 1: its input type fails at i = 0
    "sym_lazy_function_broken": {"AddOne[L9C27].SubRange[L3C17]": Answer.FALSIFIABLE,
                                 "AddOne[L9C27].SubRange[L3C34]": Answer.VALID},
    "sym_lazy_function_nested": {"AddOne[L9C45].SubRange[L3C17]": Answer.VALID,
                                 "AddOne[L9C45].SubRange[L3C34]": Answer.VALID,
                                 "AddOne[L9C96].SubRange[L3C17]": Answer.VALID,
                                 "AddOne[L9C96].SubRange[L3C34]": Answer.VALID},
    "b3_d01_cond_testers": {"Selector[L5C30]": Answer.VALID, "Selector[L5C36]": Answer.VALID,
                            "Selector[L6C24]": Answer.VALID, "Selector[L6C30]": Answer.VALID},
    # x.val under Some?(x) in the branch; the property's eager '=>' reads it where x is None
    "b3_d02_when_sel_pre": {"Selector[L5C9]": Answer.VALID,
                            "Selector[L10C31]": Answer.FALSIFIABLE},
    # a cond branch guarded by c, not by Some?(x)
    "b3_d03_selector_unguarded_cond": {"Selector[L5C14]": Answer.FALSIFIABLE},
    "b3_d04_frame_datatype_last": {"Selector[L7C28]": Answer.VALID,
                                   "Selector[L8C14]": Answer.VALID},
    "b3_d05_nested_option": {"Selector[L4C46]": Answer.VALID, "Selector[L4C54]": Answer.VALID,
                             "Selector[L4C65]": Answer.VALID},
    # an eager 'if' inside a lazy branch: still guarded by the branch
    "b3_d06_ite_eager_in_lazy": {"Selector[L4C37]": Answer.VALID},
    # the witnesses of the forall properties call AddOne: its input type holds there
    "quant_function_exists_and_forall": {"AddOne[L12C33].SubRange[L4C17]": Answer.VALID,
                                         "AddOne[L13C33].SubRange[L4C17]": Answer.VALID},
    "quant_function_output_type": {"AddOne[L12C33].SubRange[L4C17]": Answer.VALID,
                                   "AddOne[L12C33].SubRange[L4C34]": Answer.VALID,
                                   "AddOne[L13C33].SubRange[L4C17]": Answer.VALID,
                                   "AddOne[L13C33].SubRange[L4C34]": Answer.VALID},
}

#: z3 gives the symbolic array of these counterexamples as a lambda kinduct cannot read back
#: (``If(1 <= k, 2, 0)``: no default value), so z3 answers unknown there (after its timeout);
#: they are left to cvc5.
Z3_UNREADABLE = {("sym_lazy_function", "F_b1"),
                 ("sym_lazy_function_broken", "AddOne[L9C27].SubRange[L3C17]")}


def expected(model: Path, name: str) -> Answer:
    listed = OBLIGATIONS.get(model.stem, {})
    if name in listed:
        return listed[name]
    for prefix, answer in PREFIXES.items():
        if name.startswith(prefix):
            return answer
    return listed[name]


def sweep_cases() -> list:
    """Every model on both solvers; the default suite takes one solver per model, z3 and cvc5
    in turn (the slow suite the other)."""
    return [pytest.param(model, solver, id=f"{model.stem}-{solver}",
                         marks=() if (i + j) % 2 == 0 else (pytest.mark.slow,))
            for i, model in enumerate(MODELS) for j, solver in enumerate(("z3", "cvc5"))]


@pytest.mark.parametrize(("model", "solver"), sweep_cases())
def test_sweep_answers(model: Path, solver: str) -> None:
    got = {}
    for system in load_systems(model, LoadOptions()):
        names = tuple(p.name for p in system.properties
                      if solver != "z3" or (model.stem, p.name) not in Z3_UNREADABLE)
        for v in run(system, RunOptions(timeout=60, solver=solver, properties=names)):
            got[v.property] = v
            if v.answer is Answer.FALSIFIABLE or v.answer is Answer.REACHABLE:
                assert v.trace is not None, (model.stem, v.property)
    assert got, model.stem
    for name, v in got.items():
        assert v.answer is expected(model, name), (model.stem, name, v.answer, v.message)
    if solver == "cvc5":
        assert set(OBLIGATIONS.get(model.stem, {})) <= set(got)


def test_last_of_an_input_is_refused(tmp_path: Path) -> None:
    model = write(tmp_path, "node n(i: int; m: bool) returns (o: int);\nlet\n  frame (o)\n"
                  "    o = 0;\n  let\n    if m then\n      o = last i;\n    fi\n  tel\ntel\n")
    err = cli_refusal(model)
    assert ":7:11: error: 'last' applies to a variable of the enclosing frame block" in err


def test_simulate_frame_with_omitting_branch() -> None:
    """``kinduct simulate``: a frame variable a lazy branch leaves undefined holds its value."""
    csv = SWEEP.parent / "lazy_sweep_inputs.csv"
    proc = run_cli("simulate", SWEEP / "blk06_frame_when_omit.lus", "--input", csv, "--json")
    assert proc.returncode == 0, proc.stderr
    (block,) = json.loads(proc.stdout)
    streams = {s["name"]: [v for _, v in s["instantValues"]] for s in block["streams"]}
    assert streams["out"] == [3, 3, 3, 6]
    assert streams["n"] == [1, 2, 3, 4]


def test_a_function_whose_output_type_does_not_follow_stays_refused(tmp_path: Path) -> None:
    """``r = i - 5`` with ``r: Pos`` may break its output type: inlining it in a quantifier
    would lose that obligation, so the quantifier is refused (located)."""
    model = write(tmp_path, "type Pos = subrange [1,*] of int;\n"
                  "function Sub(i: Pos) returns (r: Pos);\nlet\n  r = i - 5;\ntel\n"
                  "node N(x: int) returns (y: int);\nlet\n  y = x;\n"
                  "  check exists (i: Pos) i = Sub(i) + 5;\ntel\n")
    assert ":9:29: error: unsupported:" in cli_refusal(model)


LAZY_QUANTIFIED = BENCH / "lustre" / "kind2-tests" / "success" / "lazy_ops_with_quantified_vars.lus"


@pytest.mark.skipif(not LAZY_QUANTIFIED.exists(), reason="no kind2-tests")
@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_kind2_lazy_ops_with_quantified_vars(solver: str) -> None:
    """``B[i] = when i=0 then 0 else AddOne(i)`` of a symbolic size and ``exists (i: Pos)
    i+1=AddOne(i)``: AddOne's input type is owed only where i <> 0; every property holds."""
    (system,) = load_systems(LAZY_QUANTIFIED, LoadOptions())
    got = {v.property: v.answer for v in run(system, RunOptions(timeout=60, solver=solver))}
    assert got["P1"] is Answer.VALID and len(got) == 3
    assert set(got.values()) == {Answer.VALID}


def test_a_function_call_on_a_block_clock_stays_refused_in_a_symbolic_definition(
        tmp_path: Path) -> None:
    """In a lazy block, the call's clock holds the block's condition too, which the
    element-wise definition does not see: inlining it with the branch's condition alone would
    owe AddOne's input type where the block is not selected; it stays refused (located)."""
    model = write(tmp_path, "type Pos = subrange [1,*] of int;\nconst N: Pos;\n"
                  "function AddOne(i: Pos) returns (r: Pos);\nlet\n  r = i + 1;\ntel\n"
                  "node M(c: bool) returns (B: int^N);\nlet\n  when c then\n"
                  "    B[i] = when i = 0 then 0 else AddOne(i);\n  else\n    B[i] = 1;\n  end\n"
                  "tel\n")
    assert ":10:35: error: unsupported:" in cli_refusal(model)


def test_a_cond_block_without_branches_is_located(tmp_path: Path) -> None:
    model = write(tmp_path, "node N(c: bool) returns (x: int);\nlet\n  cond\n"
                  "    otherwise: x = 0;\n  end\ntel\n")
    assert ":4:5: error: expected '|' before 'otherwise'" in cli_refusal(model)
