"""Arrays whose size is no known constant (``frontends/lucent/check/symarrays.py``): a free
constant or the ``const`` parameter of a node analysed for every value of it sizes them, and
they are SMT arrays read, compared, refined and defined element by element up to that size."""

from __future__ import annotations

import json

import pytest

from kinduct.frontends.lucent.pipeline import load_systems
from kinduct.kernel.errors import UnsupportedError
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from tests.conftest import run_cli
from tests.frontends.lucent.helpers import place, refusal, write

SOLVERS = ["z3", "cvc5"]


def answers(path, solver: str, timeout: float = 30) -> dict[str, str]:
    return {v.property: v.answer.value for system in load_systems(path, LoadOptions())
            for v in run(system, RunOptions(timeout=timeout, solver=solver))}


@pytest.mark.parametrize("solver", SOLVERS)
def test_element_wise_definition_equality_and_reads(tmp_path, solver):
    model = write(tmp_path, """
node main(const n: int; A, B: int^n) returns (ok: bool);
(*@contract assume n > 1; *)
var S: int^n;
let
  S[k] = if A = B then A[k] - B[k] else A[k] + B[k];
  ok = S[0] = S[1];
  check "same" A = B => ok;
  check "differ" A <> B => S[0] = A[0] + B[0];
tel
""")
    assert answers(model, solver) == {"same": "valid", "differ": "valid"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_refinement_of_elements_and_caret(tmp_path, solver):
    model = write(tmp_path, """
type Nat = subtype { x: int | x >= 0 };
const N: subrange [2, *] of int;
node M(z: int^N) returns (y: Nat^N; f: bool^N);
let
  y = any@<Nat^N>;
  f = false ^ N;
  check "elem" y[1] >= 0 and not f[N - 1];
  check "all" forall (i: subrange [0, N-1] of int) y[i] >= 0;
tel
""")
    assert answers(model, solver) == {"elem": "valid", "all": "valid",
                                      "SubType[L4C27]": "valid"}


def test_falsified_refinement_replays_with_the_elements(tmp_path):
    model = write(tmp_path, """
type Nat = subtype { n: int | n >= 0 };
node M(const m: Nat; z: int^m) returns (y: Nat^m);
let
  y = z;
tel
""")
    (system,) = load_systems(model, LoadOptions())
    (v,) = run(system, RunOptions(timeout=60, solver="z3"))
    assert v.answer.value == "falsifiable"


def test_out_of_range_reads_are_arbitrary_per_index(tmp_path):
    """``A[i + N]`` is out of range for every ``i``: one arbitrary value per index, not one
    for all of them."""
    model = write(tmp_path, """
const N: subrange [2, *] of int;
node M(A: int^N) returns (B: int^N);
let
  B[i] = A[i + N];
  check "same" B[0] = B[1];
tel
""")
    assert answers(model, "cvc5") == {"same": "falsifiable"}
    # z3's model of B may be unreadable: it may search until its time is up
    assert answers(model, "z3", timeout=3)["same"] != "valid"


@pytest.mark.parametrize("solver", SOLVERS)
def test_inductive_definition_under_pre(tmp_path, solver):
    model = write(tmp_path, """
node slide(const n: int; s: int) returns (A: int^n);
let
  A[i] = if i = 0 then s else (-1 -> pre A[i-1]);
  check "first" n > 0 => A[0] = s;
  check "second" n > 1 => A[1] = (-1 -> pre s);
tel
""")
    assert answers(model, solver) == {"first": "valid", "second": "valid"}


def test_current_self_read_is_refused(tmp_path):
    """No well-founded order is checked on a symbolic size: a circular definition could make
    the constraints unsatisfiable."""
    model = write(tmp_path, """
const N: int;
node M() returns (A: int^N);
let
  A[i] = if i = 0 then 0 else A[i - 1] + 1;
tel
""")
    e = refusal(model, UnsupportedError)
    assert "reads it at the current step" in str(e)
    assert place(e) == (5, 31)


def test_choice_per_element_is_refused(tmp_path):
    model = write(tmp_path, """
const N: int;
node M() returns (A: int^N);
let
  A[i] = any@<int>;
tel
""")
    e = refusal(model, UnsupportedError)
    assert place(e) == (5, 10)


@pytest.mark.parametrize("solver", SOLVERS)
def test_function_call_per_element_owes_its_types_at_every_index(tmp_path, solver):
    """A function of its inputs is inlined per element; its input types (at the call site)
    and output type (while those hold) are owed at an arbitrary index in range."""
    model = write(tmp_path, """
type nat = subrange [0, *] of int;
const N: subrange [1, *] of int;
function F(x: nat) returns (o: int | o <= N);
let
  o = x + 1;
tel
node Obs(k: int) returns (A: int^N; B: int^N)
let
  A[i] = F(i);
  B[i] = F(i + k);
tel
""")
    got = answers(model, solver)
    assert got == {"F[L10C10].SubRange[L4C12]": "valid", "F[L10C10].SubType[L4C29]": "valid",
                   "F[L11C10].SubRange[L4C12]": "falsifiable",
                   "F[L11C10].SubType[L4C29]": "falsifiable"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_quantified_read_in_a_refinement_applied_to_two_streams(tmp_path, solver):
    """The predicate is translated once per stream; its read ``G[i]`` (memoized) names the
    quantifier's own variable in both (it once named the first one's, freed in the second:
    a counterexample that did not replay)."""
    model = write(tmp_path, """
const N: subrange [1, *] of int;
const G: int^N;
type P = subtype { x: int | forall (i: int) 0 <= i and i < N => G[i] <= x };
node M(a, b: P) returns ();
let
  check "b" b >= G[0];
  check "a" a >= G[0];
tel
""")
    assert answers(model, solver) == {"a": "valid", "b": "valid"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_any_of_an_empty_element_type_is_arbitrary(tmp_path, solver):
    """No array of ``Neg^n`` exists for ``n > 0``: the choice is arbitrary there, as Kind 2's,
    and constrains nothing (it was assumed: ``n <= 0`` was proved)."""
    empty = write(tmp_path, """
type Neg = subtype { x: int | x < 0 and x > 0 };
node M(const n: int) returns (A: int^n)
let
  A = any@<Neg^n>;
  check n <= 0;
tel
""", "empty.lus")
    assert answers(empty, solver) == {"n <= 0": "falsifiable"}
    quantified = write(tmp_path, """
node M(const n: int) returns (A: int^n)
let
  A = any { A: int^n | forall (i: int) 0 <= i and i < n => A[i] > A[i] + 0 * i };
  check n <= 0;
tel
""", "quantified.lus")
    assert answers(quantified, solver, timeout=3)["n <= 0"] != "valid"  # may search to the end


@pytest.mark.parametrize("solver", SOLVERS)
def test_undefined_function_output_of_symbolic_size(tmp_path, solver):
    """An undefined output of a function is a function of its inputs, arrays included."""
    model = write(tmp_path, """
const M: subrange [1, *] of int;
function F(x: int) returns (A: int^M);
let
  check "zero" A[0] = 0;
tel
node G(y: int) returns (B: int^M);
let
  B = F(y);
  check "same" B[0] = F(y)[0];
tel
""")
    assert answers(model, solver) == {"F[L9C7].zero": "falsifiable",
                                      "F[L10C23].zero": "falsifiable", "same": "valid"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_calls_records_and_memories(tmp_path, solver):
    """Verdicts as Kind 2's on the same model."""
    model = write(tmp_path, """
const N: subrange [2, *] of int;
type R = struct { f: int; g: bool };
node G(x: int^N) returns (y: int^N);
let
  y = x;
tel
node M(a: int^N; r: R^N; c: bool) returns (b: int^N; s: R^N; p: int^N; t: int^N^N);
let
  b = G(a);
  s[i] = R { f = r[i].f + 1; g = not r[i].g };
  p = 0^N -> pre b;
  t[i][j] = if i = j then 1 else 0;
  check "call" b = a;
  check "recs" forall (i: subrange [0, N-1] of int) s[i].g <> r[i].g;
  check "pre" true -> p = pre a;
  check "diag" t[1][1] = 1 and t[0][1] = 0;
  check "ite" (if c then a else b) = a;
tel
""")
    assert answers(model, solver) == {"call": "valid", "recs": "valid", "pre": "valid",
                                      "diag": "valid", "ite": "valid"}


@pytest.mark.parametrize("solver", ["cvc5", pytest.param("z3", marks=pytest.mark.slow)])
def test_frame_block_keeps_the_array(tmp_path, solver):
    """Not redefined, the array keeps its last value (z3's model of it may be unreadable:
    then unknown at the time limit)."""
    model = write(tmp_path, """
const N: subrange [2, *] of int;
node M(a: int^N; c: bool) returns (d: int^N);
let
  frame (d)
    d[i] = a[i];
  let
    if c then
      d[i] = a[i] + 1;
    fi
  tel
  check "kept" not c => d = a;
  check "set" c => d[0] = a[0] + 1;
tel
""")
    got = answers(model, solver)
    assert got["set"] == "valid"
    assert got["kept"] == "falsifiable" if solver == "cvc5" else got["kept"] != "valid"


def test_concatenation_and_slices_are_refused(tmp_path):
    model = write(tmp_path, """
const N: subrange [2, *] of int;
node M(a: int^N) returns (b: int^2);
let
  b = a[0..1];
tel
""")
    e = refusal(model, UnsupportedError)
    assert "a slice of an array of symbolic size" in str(e)
    assert place(e) == (5, 7)


def test_division_in_a_refinement_of_symbolic_elements_is_refused(tmp_path):
    """One ``forall`` cannot hold a quotient per element."""
    model = write(tmp_path, """
type Odd = subtype { x: int | x mod 2 = 1 };
const N: subrange [1, *] of int;
node M(a: Odd^N) returns ();
let
  check a[0] mod 2 = 1;
tel
""")
    e = refusal(model, UnsupportedError, analyse=True)
    assert "refinement of the elements of an array of symbolic size" in str(e)
    assert place(e) == (2, 31)


#: ``kept`` needs, at the step it proves, the hypothesis about the same index one step
#: earlier: a property's ``forall`` witness is held from the first step (a witness chosen
#: anew at each step makes every hypothesis speak of another index, and ``kept`` is then not
#: k-inductive for any k).  ``lost`` reads an element's own memory by its index: the
#: simulator replays that ``pre`` per element.
HELD_INDEX = """
node Stick(const n: int; x: int) returns (stick: bool^n; lost: bool^n);
let
  stick[i] = true -> pre stick[i];
  lost[i] = (i <> 3) -> pre lost[i];
  check "kept" forall (i: int) 0 <= i and i < n => stick[i];
  check "lost" forall (i: int) 0 <= i and i < n => lost[i];
tel
"""


@pytest.mark.parametrize("solver", SOLVERS)
def test_forall_witness_is_held_and_element_memories_replay(tmp_path, solver):
    model = write(tmp_path, HELD_INDEX)
    assert answers(model, solver) == {"kept": "valid", "lost": "falsifiable"}


def test_element_wise_definition_of_size_zero_simulates(tmp_path):
    model = write(tmp_path, """
node Z(const n: int) returns (a: int^n);
let
  a[i] = 0 -> pre a[i] + i;
tel
""")
    inputs = tmp_path / "in.csv"
    inputs.write_text("n\n0\n0\n")
    proc = run_cli("simulate", model, "--input", inputs)
    assert proc.returncode == 0, proc.stderr
    inputs.write_text("n\n3\n3\n3\n")
    proc = run_cli("simulate", model, "--input", inputs, "--json")
    assert proc.returncode == 0, proc.stderr
    (block,) = json.loads(proc.stdout)
    (a,) = [s for s in block["streams"] if s["name"] == "a"]
    assert [v for _, v in a["instantValues"]] == [[0, 0, 0], [0, 1, 2], [0, 2, 4]]
