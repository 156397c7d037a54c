"""Quantifiers over finite domains (expanded by the checker) and ``any@<T>``.  Models Kind 2
also decides are compared with it in ``tests/data/kind2/agree/finite_quantifiers.lus``."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli
from tests.frontends.lucent.helpers import answers, write


def test_bounded_quantifiers_over_arrays(tmp_path):
    model = write(tmp_path, """
const N: int = 3;
node Sorted(a: int^3) returns (ok: bool);
let
  ok = a[0] <= a[1] and a[1] <= a[2];
  check "first_is_least" ok => forall (i: int) 0 <= i and i < N => a[0] <= a[i];
  check "adjacent" ok => forall (i, k: int | 0 <= i and i < N and 0 <= k and k < N)
                          i <= k => a[i] <= a[k];
  check "wrong" forall (i: int) 0 <= i and i < N => a[0] <= a[i];
tel
""")
    assert answers(model) == {"first_is_least": "valid", "adjacent": "valid", "wrong": "falsifiable"}


def test_any_of_a_type(tmp_path):
    model = write(tmp_path, """
type T = subrange [0, 1] of int;
node N() returns (b: bool; v: T);
let
  b = any@<bool>;
  v = any@<T>;
  check "in_range" v <= 1;
  check "b" b;
tel
""")
    assert answers(model) == {"in_range": "valid", "b": "falsifiable",
                              "SubRange[L3C28]": "valid"}


def test_quantifiers_over_infinite_domains_are_smt_quantifiers(tmp_path):
    """Where a quantifier cannot be expanded, it is kept as an SMT quantifier
    (:mod:`kinduct.frontends.lucent.unbounded`)."""
    model = write(tmp_path, """
node N(x: int) returns ();
let
  check "bounded_by_stream" forall (i: int) 0 <= i and i < x => i + 1 > 0;
  check "real" forall (y: real) y = y;
  check "exists" exists (i: int) i > x;
  check "wrong" forall (i: int) i > x;
tel
""")
    assert answers(model) == {"bounded_by_stream": "valid", "real": "valid", "exists": "valid",
                              "wrong": "falsifiable"}


@pytest.mark.parametrize("prop, message", [
    ("forall (s: set<int>) 1 in s", "a quantifier over set<int> other than a finite range"),
    ("forall (i: int) pre x = i", "'pre', '->' or a node call in a quantifier over an infinite"),
    ("forall (i: int) 0 <= i and i < 100000 => true", "a quantifier of more than 4096 instances"),
])
def test_unbounded_quantifiers_are_unsupported_and_located(tmp_path, prop, message):
    model = write(tmp_path, f"""
node N(x: int) returns ();
let
  check {prop};
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3, proc.stderr
    assert "m.lus:4:" in proc.stderr and f"unsupported: {message}" in proc.stderr, proc.stderr
