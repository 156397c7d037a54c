"""Invariant generation beside datatype- and array-sorted state: candidates and samples over
the scalar state only, proofs on the full relation (quantified set/map constraints included),
on both backends."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.backend import Solver, SolverUnknown
from kinduct.kernel.frontend import LoadOptions
from kinduct.plugins.engines.analysis import opaque
from kinduct.plugins.engines.discovery import discover, houdini
from tests.conftest import properties, run_json
from tests.frontends.lucent.helpers import write
from tests.plugins.engines.systems import context, twin_counters

#: Each property needs the scalar invariant ``n >= 1`` (after the first step) that
#: k-induction alone does not find; ``{n}`` is where the property's ``n = 1`` goes.
MODELS = {
    "list": """
datatype IntList = Cons (head: int, tail: IntList) | Nil;
node Acc(x: int) returns (l: IntList; n: int);
let
  l = Cons(x, Nil) -> Cons(x, pre l);
  n = 1 -> pre n + 1;
  check "p" n = {n} => l.tail = Nil;
tel
""",
    "map": """
node MapAcc(x: int) returns (m: map<int, int>; n: int);
let
  m = map[0 := x] -> (pre m)[pre n := x];
  n = 1 -> pre n + 1;
  check "p" n = {n} => m = map[0 := x];
tel
""",
    "set": """
node SetAcc(x: int) returns (s: set<int>; n: int);
let
  s = {{x}} -> pre s + {{x}};
  n = 1 -> pre n + 1;
  check "p" n = {n} => s = {{x}};
tel
""",
}


def _invgen(path: Path, solver: str) -> dict:
    _, objects = run_json("check", path, "--engine", "invgen", "--solver", solver,
                          "--timeout", "60")
    return properties(objects)["p"]


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_invgen_proves_scalar_invariant_beside_opaque_state(tmp_path, kind, solver):
    path = write(tmp_path, MODELS[kind].format(n=1))
    prop = _invgen(path, solver)
    assert prop["answer"]["value"] == "valid"
    assert prop["answer"]["source"] == "invgen"


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_invgen_does_not_prove_false_property_beside_opaque_state(tmp_path, kind, solver):
    path = write(tmp_path, MODELS[kind].format(n=2))
    assert _invgen(path, solver)["answer"]["value"] != "valid"


def _is_opaque_equality(f) -> bool:
    """``a = b`` over array- or datatype-sorted state, possibly under guards (``g -> a = b``,
    ``first | a = b``)."""
    while f.is_implies() or f.is_or():
        f = f.args()[-1]
    return f.is_equals() and all(a.is_symbol() and opaque(a) for a in f.args())


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_sampled_candidates_mention_only_scalar_state(tmp_path, solver):
    path = write(tmp_path, MODELS["set"].format(n=1))
    (system,) = load_systems(path, LoadOptions())
    assert any(opaque(v) for v in system.state_vars)
    facts, proved = discover(system, context(system, solver), budget=4.0)
    fv = system.env.fvo.get_free_variables
    assert proved
    assert all(not any(opaque(v) for v in fv(f)) or _is_opaque_equality(f) for f in proved)


#: A map held while the call that writes it is frozen (a ``when`` block without ``else``):
#: ``ones`` needs ``seen -> held = frozen`` (the held map equals the frozen instance's memory
#: once the clock has ticked), an equality between map-sorted registers that no sample holds.
HELD_CALL = """
node Ones(k: int) returns (m: map<int, int>);
let
  m = map[]@<int, int> -> (pre m)[k := 1];
tel

node Top(c: bool; k: int) returns (m: map<int, int>);
let
  frame (m)
    m = map[]@<int, int>;
  let
    when c then
      m = Ones(k);
    end
  tel
  check "ones" forall (i: int) i in m => m[i] = 1;
  check "twos" forall (i: int) i in m => m[i] = 2;
tel
"""


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_invgen_proves_held_map_equals_frozen_call_memory(tmp_path, solver):
    path = write(tmp_path, HELD_CALL)
    (system,) = load_systems(path, LoadOptions())
    _, proved = discover(system, context(system, solver), budget=4.0)
    guarded = [f for f in proved if _is_opaque_equality(f)]
    assert guarded, "no equality between the held and the frozen map"


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_property_of_held_call_output_is_proved_and_a_false_one_falsified(tmp_path, solver):
    """k-induction alone cannot decide the step (quantified map state): it goes on to deeper
    steps, and the equality invgen publishes makes ``ones`` 1-inductive."""
    path = write(tmp_path, HELD_CALL)
    code, objects = run_json("check", path, "--solver", solver, "--timeout", "60")
    props = properties(objects)
    assert props["ones"]["answer"]["value"] == "valid", props["ones"]
    assert props["twos"]["answer"]["value"] == "falsifiable"
    assert code == 40


class _Undecided(Solver):
    """A solver that answers unknown whenever a query asks about several candidates at once
    (a disjunction or a negated conjunction), as solvers do on quantified set/map state."""

    def __init__(self, inner: Solver) -> None:
        super().__init__(inner.env)
        self.inner = inner

    def add(self, formula):
        self.inner.add(formula)

    def push(self):
        self.inner.push()

    def pop(self):
        self.inner.pop()

    def check(self, assumptions=()):
        if any(a.is_or() or (a.is_not() and a.arg(0).is_and()) for a in assumptions):
            raise SolverUnknown("undecided (test)")
        return self.inner.check(assumptions)

    def values(self, symbols):
        return self.inner.values(symbols)

    def unsat_core(self):
        return self.inner.unsat_core()

    def reset(self):
        self.inner.reset()


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_houdini_proves_one_candidate_at_a_time_when_the_solver_is_undecided(solver):
    system = twin_counters()
    m = system.env.formula_manager
    x, y = system.state_vars
    cands = [m.Equals(x, y), m.GE(x, m.Int(0)), m.LE(y, m.Int(3)),
             m.Equals(x, m.Plus(y, m.Int(1))), m.Implies(m.LE(x, m.Int(3)), m.LE(y, m.Int(3)))]
    plain = context(system, solver)
    undecided = attrs.evolve(plain, make_solver=lambda: _Undecided(plain.make_solver()))
    expected = houdini(system, plain, [], cands)
    assert expected == [cands[0], cands[1], cands[4]]
    assert houdini(system, undecided, [], cands) == expected
