"""Datatype terms that crashed the translation: a selector in the predicate of ``any``
(its obligation read the unbound variable), constructors and testers on the variable of a
quantifier kept as such, and a definition cycle through a constructor's argument (missed)."""

from __future__ import annotations

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.errors import InputError, UnsupportedError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from tests.frontends.lucent.helpers import place, refusal, write

SOLVERS = ["z3", "cvc5"]
D = "datatype D = A (x: int) | B;\n"


def _answers(path, solver: str) -> dict[str, str]:
    return {v.property: v.answer.value for system in load_systems(path, LoadOptions())
            for v in run(system, RunOptions(timeout=60, solver=solver))}


@pytest.mark.parametrize("solver", SOLVERS)
def test_selector_in_any_predicate_is_owed_by_the_value_picked(tmp_path, solver):
    guarded = write(tmp_path, D + """node N() returns (y: D);
let
  y = any { v: D | A?(v) and v.x > 3 };
  check "a" A?(y);
  check "big" y.x > 3;
tel
""")
    assert _answers(guarded, solver) == {"Selector[L4C30]": "valid", "a": "valid",
                                         "Selector[L6C15]": "valid", "big": "valid"}
    # without the tester, B with an arbitrary field satisfies the predicate
    bare = write(tmp_path, D + """node N() returns (y: D);
let
  y = any { v: D | v.x > 3 };
  check "a" A?(y);
tel
""", "bare.lus")
    assert _answers(bare, solver) == {"Selector[L4C20]": "falsifiable", "a": "falsifiable"}


def test_obligation_on_the_past_of_an_any_variable_is_refused(tmp_path):
    model = write(tmp_path, D + """node N() returns (y: D);
let
  y = any { v: D | A?(v) and (true -> (pre v).x > 0) };
tel
""")
    assert place(refusal(model, UnsupportedError)) == (4, 39)


@pytest.mark.parametrize("solver", SOLVERS)
def test_constructors_on_a_kept_quantifier_variable(tmp_path, solver):
    model = write(tmp_path, D + """node N(a: int) returns (ok: bool);
(*@contract
  guarantee "apart" forall (i: int) A(i) <> A(a) or i = a;
  guarantee "same" forall (i: int) A(i) <> A(a);
  guarantee "test" forall (i: int) A?(if i > a then A(i) else B);
  guarantee "nb" forall (i: int) A(i) <> B and not B?(A(i));
*)
let
  ok = true;
  assert forall (i: int) A(i) <> B;
  check "ok" ok;
tel
""")
    assert _answers(model, solver) == {"apart": "valid", "same": "falsifiable",
                                       "test": "falsifiable", "nb": "valid", "ok": "valid"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_constructor_equality_in_a_kept_quantifier_ignores_other_fields(tmp_path, solver):
    model = write(tmp_path, """datatype E = P (p: int) | Q (q: bool);
node N(d: E) returns (ok: bool);
(*@contract
  guarantee "some" Q?(d) => exists (b: bool) Q(b) = d;
  guarantee "none" exists (i: int) P(i) = d;
*)
let
  ok = true;
tel
""")
    assert _answers(model, solver) == {"some": "valid", "none": "falsifiable"}


def test_selector_and_recursive_terms_in_a_kept_quantifier_are_refused(tmp_path):
    sel = write(tmp_path, D + """node N(a: int) returns (ok: bool);
(*@contract
  guarantee forall (i: int) A(i).x = i;
*)
let
  ok = true;
tel
""")
    assert place(refusal(sel, UnsupportedError)) == (4, 29)
    rec = write(tmp_path, """datatype L = Nil | Cons (h: int, t: L);
node N(a: int) returns (ok: bool);
(*@contract
  guarantee forall (i: int) Cons(i, Nil) <> Nil;
*)
let
  ok = true;
tel
""", "rec.lus")
    assert place(refusal(rec, UnsupportedError)) == (4, 29)


def test_cycle_through_a_constructor_is_an_error(tmp_path):
    # Regression: the constructor's argument was not walked, the cycle went unnoticed and the
    # unsatisfiable definitions made 'z > 100' valid.
    model = write(tmp_path, D + """node N() returns (y: D; z: int);
let
  y = A(z);
  z = if A?(y) then y.x + 1 else 0;
  check z > 100;
tel
""")
    err = refusal(model, InputError)
    assert "circular" in str(err) and place(err) == (4, 7)


@pytest.mark.parametrize("solver", SOLVERS)
def test_selectors_of_a_recursive_datatype_in_any_predicate(tmp_path, solver):
    model = write(tmp_path, """datatype L = Nil | Cons (h: int, t: L);
node N() returns (y: L);
let
  y = any { v: L | Cons?(v) and v.h > 0 and Cons?(v.t) };
  check "c" Cons?(y) and y.h > 0;
  check "d" Nil?(y.t);
tel
""")
    got = _answers(model, solver)
    assert got.pop("d") == "falsifiable"
    assert set(got.values()) == {"valid"} and len(got) == 5
