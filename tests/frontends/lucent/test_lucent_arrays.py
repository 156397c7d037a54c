"""Array definitions ``A[i] = e`` (element by element, inductive, several dimensions, in frame
blocks), the left-associative array types and constructors (``int^2^3`` is ``(int^2)^3``), and
eager if blocks.  Models Kind 2 v3.0.0 also decides are compared with it in
``tests/data/kind2/agree`` (``test_real_kind2.py``)."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli
from tests.frontends.lucent.helpers import answers, cli_refusal, simulate, write


def test_inductive_definition_reads_earlier_and_later_elements(tmp_path):
    model = write(tmp_path, """
node N(x: int) returns (A, B: int^4);
let
  A[i] = if i = 0 then x else A[i-1] + x;
  B[i] = if i = 3 then x else B[i+1] - 1;
  check "A3" A[3] = 4 * x;
  check "B0" B[0] = x - 3;
  check "wrong" A[1] = B[1];
tel
""")
    assert answers(model) == {"A3": "valid", "B0": "valid", "wrong": "falsifiable"}


def test_definition_simulates_element_by_element(tmp_path):
    model = write(tmp_path, """
node N(x: int) returns (A: int^3; G: int^2^3);
let
  A[i] = 0 -> pre A[i] + i * x;
  G[i][j] = 10 * i + j;
tel
""")
    steps = simulate(model, [{"x": 2}, {"x": 5}, {"x": 1}])
    assert [s["A"] for s in steps] == [[0, 0, 0], [0, 5, 10], [0, 6, 12]]
    assert steps[0]["G"] == [[0, 1], [10, 11], [20, 21]]


def test_array_types_and_constructors_are_left_associative(tmp_path):
    model = write(tmp_path, """
const c: int^2^3 = [[1, 2], [3, 4], [5, 6]];
node N() returns (z: int^2^3);
let
  z = 7^2^3;
  check "c" c[2][1] = 6;
  check "z" z[2][1] = 7;
tel
""")
    assert answers(model) == {"c": "valid", "z": "valid"}


def test_definitions_in_frame_blocks_and_last_of_an_element(tmp_path):
    model = write(tmp_path, """
node N(m: bool) returns (C: int^3);
let
  frame (C)
    C[i] = i;
  let
    when m then
      C[i] = last C[i] + 1;
    end
  tel
  check "grows" C[2] >= 2;
  check "wrong" C[0] = 0;
tel
""")
    assert answers(model) == {"grows": "valid", "wrong": "falsifiable"}


@pytest.mark.parametrize("body, message", [
    ("A[i] = A[i];", "circular definition: A[0] -> A[0]"),
    ("A[i] = if i = 0 then A[1] else A[0];", "circular definition: A[0] -> A[1] -> A[0]"),
    ("A[i] = A[x];", "reads 'A' at the current step other than at constant indices"),
    ("A[i][j] = 0;", "fewer than 2 array dimensions"),
    ("B[i] = 0;", "unknown name 'B'"),
])
def test_bad_definitions_are_located_errors(tmp_path, body, message):
    model = write(tmp_path, f"""
node N(x: int) returns (A: int^3);
let
  {body}
tel
""")
    stderr = cli_refusal(model)
    assert "m.lus:4:" in stderr and message in stderr, stderr


def test_definition_that_doubles_at_each_index_is_refused(tmp_path):
    model = write(tmp_path, """
node N(x: int) returns (A: int^40);
let
  A[i] = if i = 0 then x else A[i-1] + A[i-1];
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3 and "unsupported: an array definition whose elements" in \
        proc.stderr, proc.stderr


def test_definition_beside_other_variables_is_unsupported(tmp_path):
    model = write(tmp_path, """
node N(x: int) returns (A: int^3; y: int);
let
  A[i], y = (x, x);
tel
""")
    proc = run_cli("check", model)
    assert proc.returncode == 3 and "unsupported: an array definition beside" in proc.stderr


def test_if_block_branches_are_eager(tmp_path):
    model = write(tmp_path, """
node Count() returns (n: int);
let
  n = 0 -> pre n + 1;
tel

node N(c: bool; x: int) returns (y, z: int);
var k: int;
let
  k = 0 -> pre k + 1;
  if c then
    y = 0 -> pre x;
    z = Count();
  else
    y = x;
    z = -1;
  fi
  check "pre" true -> (c => y = pre x);
  check "call" c => z = k;
tel
""")
    assert answers(model) == {"pre": "valid", "call": "valid"}
