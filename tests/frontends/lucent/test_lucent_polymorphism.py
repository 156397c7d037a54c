"""Polymorphic nodes, elaborated per instance (``tests/data/kind2/agree/polymorphic_nodes.lus``
compares them with Kind 2)."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli
from tests.frontends.lucent.helpers import answers, write


def test_type_argument_keeps_its_refinement(tmp_path):
    """Regression: N2@<Nat>() instantiated T with int alone, and the caller's Nat output was
    falsified by a negative 'any@<T>'."""
    model = write(tmp_path, """
type Nat = subtype { n: int | 0 <= n };
node N2<T>() returns (r: T);
let
  r = any@<T>;
tel
node N1() returns (z: Nat);
let
  z = N2@<Nat>();
tel
""")
    assert set(answers(model).values()) == {"valid"}


def test_instances_are_elaborated_apart(tmp_path):
    model = write(tmp_path, """
node Id<T>(x: T) returns (y: T);
let
  y = x;
tel
node M(i: int; r: real; b: bool) returns ();
let
  check "int" Id(i) = i;
  check "real" Id(r) = r;
  check "bool" Id@<bool>(b) = b;
tel
""")
    assert answers(model) == {"int": "valid", "real": "valid", "bool": "valid"}


@pytest.mark.parametrize("call, message", [
    ("Pick()", "call requires explicit annotation; type variable T of Pick cannot be inferred "
     "bottom-up"),
    ("Pick@<int; bool>()", "node Pick has 1 type parameter(s), 2 given"),
    ("Id@<bool>(1)", "type mismatch in argument 1 of Id: expected bool, got int"),
    ("Two(1, true)", "type mismatch in argument 2 of Two: expected int, got bool"),
    ("M2@<int>()", "node M2 has no type parameters"),
])
def test_bad_instantiations_are_located_errors(tmp_path, call, message):
    model = write(tmp_path, f"""
node Pick<T>() returns (r: T);
let r = any@<T>; tel
node Id<T>(x: T) returns (y: T);
let y = x; tel
node Two<T>(x, y: T) returns (z: T);
let z = x; tel
node M2() returns (z: int);
let z = 0; tel
node M() returns ();
var v: int;
let
  v = {call};
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3, proc.stderr
    assert "m.lus:13:" in proc.stderr and message in proc.stderr, proc.stderr


def test_instances_of_an_instance_follow_its_binding(tmp_path):
    """Regression: M@<T, int> inside N<<int>> and N<<bool>> was one instance (named by the
    text 'T'), typed by whichever N came first."""
    model = write(tmp_path, """
node M<T1, T2>() returns (y1: T1; y2: T2);
let
  y1 = any@<T1>;
  y2 = any@<T2>;
tel
node N<T>(c: bool) returns (y1: T; y2: int);
let
  if c then
    y1, y2 = M@<T, int>();
  else
    y1 = any@<T>;
    y2 = 0;
  fi
tel
node Top(c: bool) returns (a, b, a2: int; p: bool);
let
  a, b = N@<int>(c);
  p, a2 = N@<bool>(c);
  check "mult_assign" not c => b = 0;
tel
""")
    assert answers(model) == {"mult_assign": "valid"}
