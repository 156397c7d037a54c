"""Kind 2 forms newer than v3.0.0 that kinduct accepts (kind2-tests' typecheck-pass): ``in`` and
``set`` as names, undefined outputs and locals (unconstrained), braces as tuples where a tuple
is expected, an equation's width, array concatenation ``a | b``, and a ``const`` parameter given
a varying stream."""

from __future__ import annotations

import pytest

from kinduct.frontends.lucent.pipeline import load_checked
from kinduct.kernel.runner import RunOptions, run
from tests.frontends.lucent.helpers import place, refusal, write

SOLVERS = ["z3", "cvc5"]


def _answers(path, solver: str) -> dict[str, str]:
    from kinduct.frontends.lucent.pipeline import load_systems
    from kinduct.kernel.frontend import LoadOptions
    out = {}
    for system in load_systems(path, LoadOptions()):
        for v in run(system, RunOptions(solver=solver, timeout=30)):
            out[v.property] = v.answer.value
    return out


def test_in_and_set_are_names_where_a_name_is_expected(tmp_path):
    path = write(tmp_path, "node N(in: int; set: bool; s: set<int>) returns (out: bool);\n"
                 "let\n  out = set and in in s;\n  check out => in in s;\ntel\n")
    assert _answers(path, "z3") == {"out => in in s": "valid"}


def test_set_is_a_type_only_before_a_bracket(tmp_path):
    e = refusal(write(tmp_path, "node N(x: set) returns (y: int);\nlet\n  y = 1;\ntel\n"))
    assert place(e) == (1, 14)


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_undefined_output_or_local_is_unconstrained(tmp_path, solver):
    path = write(tmp_path, "node N(x: int) returns (y: subrange [0, 5] of int; z: int);\n"
                 "var l: bool;\nlet\n  z = x;\n  check y <= 5;\n  check y >= 1;\n  check l;\n"
                 "  check z = x;\ntel\n")
    assert _answers(path, solver) == {"SubRange[L1C25]": "valid", "y <= 5": "valid",
                                      "y >= 1": "falsifiable", "l": "falsifiable", "z = x": "valid"}
    checked = load_checked(path)
    assert any("output 'y' is not defined" in str(w) for w in checked.warnings)


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_undefined_function_output_is_a_function_of_the_inputs(tmp_path, solver):
    path = write(tmp_path, "function f(x: int) returns (y: int);\nlet tel\n"
                 "node N(x: int) returns (z: int);\nlet\n  z = f(x);\n"
                 "  check true -> (x = pre x => z = pre z);\n  check f(x) = f(x);\n"
                 "  check z < 10;\ntel\n")
    got = _answers(path, solver)
    assert got == {"true -> (x = pre x => z = pre z)": "valid", "f(x) = f(x)": "valid",
                   "z < 10": "falsifiable"}


def test_braces_are_a_tuple_where_a_tuple_is_expected(tmp_path):
    path = write(tmp_path, "type C = [real, real];\nconst t: [int, bool] = {1, true};\n"
                 "node N(a: int; b: bool) returns (x: C; f: [int, bool, int]; y: int);\nlet\n"
                 "  x = {0.0, 1.0};\n  f, y = ({a, b, a}, 2);\n  check f[1] = b and x[1] = 1.0;\n"
                 "  check t[0] = 1;\ntel\n")
    assert _answers(path, "z3") == {"f[1] = b and x[1] = 1.0": "valid", "t[0] = 1": "valid"}


@pytest.mark.parametrize("text,where", [
    ("node N(a, b: int) returns (x: [int, int]);\nlet\n  x = (a, b);\ntel\n", (3, 7)),
    ("node N(a, b: int) returns (x: [int, int]; y: int);\nlet\n  x, y = ((a, b), a);\ntel\n",
     (3, 10)),
    ("node M(a, b: int) returns (x, y: int);\nlet\n  x, y = (a, b);\ntel\n"
     "node N(a, b: int) returns (x: [int, int]);\nlet\n  x = M(a, b);\ntel\n", (7, 7)),
])
def test_a_group_is_not_a_tuple(tmp_path, text, where):
    e = refusal(write(tmp_path, text))
    assert place(e) == where and "side by side" in str(e)


@pytest.mark.parametrize("solver", SOLVERS)
def test_array_concatenation(tmp_path, solver):
    path = write(tmp_path, "const arr = false ^ 3 | true ^ 3;\n"
                 "datatype D = A | B (v: int^2);\n"
                 "node N(x: int^2; y: int^3; d: D) returns (z: int^5; w: int);\nlet\n"
                 "  z = x | y;\n  w = match d with | A: 1 | B(v): (v | x)[3] end;\n"
                 "  check z[4] = y[2] and z[1] = x[1];\n  check arr[3] and not arr[2];\n"
                 "  check z[2] = x[0];\n  check w = 1 or w = x[1];\ntel\n")
    assert _answers(path, solver) == {"z[4] = y[2] and z[1] = x[1]": "valid",
                                      "arr[3] and not arr[2]": "valid",
                                      "z[2] = x[0]": "falsifiable",
                                      "w = 1 or w = x[1]": "valid"}  # arms end at a bar


def test_concatenation_needs_arrays_of_one_element_type(tmp_path):
    e = refusal(write(tmp_path, "node N(x: int^2; y: bool^3) returns (z: int^5);\nlet\n"
                      "  z = x | y;\ntel\n"))
    assert place(e) == (3, 11)


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_activation_may_give_a_const_parameter_a_stream_owed_constant(tmp_path, solver):
    path = write(tmp_path, "node Acc(const k: int; x: int) returns (s: int);\nlet\n  s = x + k;\n"
                 "tel\nnode N(x, v: int; c: bool) returns (y, u: int);\nvar k: int;\nlet\n"
                 "  k = 5 -> pre k;\n  y = condact(c, Acc(k, x), 0);\n"
                 "  u = (activate Acc every c initial default 0)(v, x);\n"
                 "  check c => y = x + 5;\ntel\n")
    got = _answers(path, solver)
    assert got == {"Acc[L9C7].const_input[k]": "valid", "Acc[L10C7].const_input[k]": "falsifiable",
                   "c => y = x + 5": "valid"}


@pytest.mark.parametrize("call", ["Acc(v, x)", "merge(c; Acc(v, x) when c; 0 when not c)"])
def test_a_plain_call_needs_a_constant_argument(tmp_path, call):
    e = refusal(write(tmp_path, "node Acc(const k: int; x: int) returns (s: int);\nlet\n"
                      "  s = x + k;\ntel\nnode N(x, v: int; c: bool) returns (u: int);\nlet\n"
                      f"  u = {call};\ntel\n"))
    assert "the argument of the const parameter 'k' of Acc must be a constant" in str(e)


@pytest.mark.parametrize("solver", SOLVERS)
def test_array_slices(tmp_path, solver):
    path = write(tmp_path, "const A = [1, 2, 3, 4, 5, 6];\n"
                 "node N(a: int^5) returns (d: int^2; e: int);\nlet\n  d = a[2..3];\n"
                 "  e = A[2..4][0] + a[1..1][0]; // Kind 2's line comment\n"
                 "  check d[0] = a[2] and e = 3 + a[1];\n  check d[1] = a[2];\ntel\n")
    assert _answers(path, solver) == {"d[0] = a[2] and e = 3 + a[1]": "valid",
                                      "d[1] = a[2]": "falsifiable"}


@pytest.mark.parametrize("body,where,what", [
    ("d = a[3..1];", (3, 7), "unsupported: a slice whose upper bound"),
    ("d = a[3..5];", (3, 12), "out of the bounds"),
])
def test_bad_slices_are_refused(tmp_path, body, where, what):
    e = refusal(write(tmp_path, f"node N(a: int^5) returns (d: int^3);\nlet\n  {body}\ntel\n"))
    assert place(e) == where and what in str(e)
