"""Compositional and modular analysis as Kind 2 v3.0.0 does it, compared with the real binary.

Kind 2's rules (established by running it, see docs/design.md §14): ``opaque`` callees are read
by their contracts in every analysis; under ``--compositional`` every callee with a contract
is, except ``transparent`` ones, and a counterexample of that abstraction is the answer
(falsifiable); under ``--modular --compositional`` a node whose property the abstraction
falsifies is analysed again with the callees whose own analysis proved them (never an opaque
one) read by their implementations, one level at a time, each analysis its own block.

Each case runs both tools on one small model and compares, analysis by analysis, the top node,
the abstract and concrete lists and every property's answer, and the exit codes.  The tests skip
where no Kind 2 exists (CI sets ``KINDUCT_REQUIRE_KIND2`` and builds it).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import properties, run_cli

WEAK = """
{modifier}node Callee(x: int) returns (y: int);
(*@contract guarantee y >= 0; *)
let y = if x > 0 then x else 0; tel

node Top(x: int) returns (ok: bool);
let
  ok = Callee(x) = (if x > 0 then x else 0);
  check "ok" ok;
tel
"""

#: Bad's contract is false (its analysis falsifies it), Good's holds.
TWO = """
node Good(x: int) returns (y: int);
(*@contract guarantee y >= 0; *)
let y = if x > 0 then x else 0; tel

node Bad(x: int) returns (y: int);
(*@contract guarantee y > 0; *)
let y = if x > 0 then x else 0; tel

node Top(x: int) returns (ok1, ok2: bool);
let
  ok1 = Good(x) = (if x > 0 then x else 0);
  ok2 = Bad(x) = (if x > 0 then x else 0);
  check "ok1" ok1;
  check "ok2" ok2;
  check "nonneg" Good(x) >= 0;
tel
"""

#: Two levels of contracts: refinement goes one level at a time; a node without a contract is
#: always read by its implementation.
DEEP = """
{modifier}node Leaf(x: int) returns (y: int);
(*@contract guarantee y > x; *)
let y = x + 1; tel

node Mid(x: int) returns (y: int);
(*@contract guarantee y > x; *)
let y = Leaf(x) + 1; tel

node Plain(x: int) returns (y: int);
let y = x; tel

node Top(x: int) returns (ok: bool);
let
  ok = Mid(Plain(x)) = x + 2;
  check "ok" ok;
tel
"""


#: Two proved callees: refined one at a time, the first called first.
TWO_PROVED = """
node A(x: int) returns (y: int);
(*@contract guarantee y >= 0; *)
let y = if x > 0 then x else 0; tel

node B(x: int) returns (y: int);
(*@contract guarantee y >= 0; *)
let y = if x > 0 then x else 0; tel

node Top(x: int) returns (ok: bool);
let
  ok = B(x) = A(x);
  check "ok" ok;
tel
"""

#: The caller breaks the callee's assumption: no refinement (Kind 2: its requirements fail).
BROKEN_ASSUMPTION = """
node Callee(x: int) returns (y: int);
(*@contract assume x > 0; guarantee y >= 0; *)
let y = x; tel

node Top(x: int) returns (ok: bool);
let
  ok = Callee(x) = x;
  check "ok" ok;
tel
"""

#: A contract of assumptions only, or of ghosts only, abstracts nothing: read by the body; an
#: output of a refinement type is a guarantee.
NOTHING_TO_ABSTRACT = """
type Nat = subrange [0, *] of int;
node A(x: int) returns (y: int);
(*@contract assume x >= 0; *)
let y = x; tel
node G(x: int) returns (y: int);
(*@contract var g: int = x + 1; *)
let y = x; tel
node R(x: int) returns (y: Nat);
let y = if x > 0 then x else 0; tel
node Top(x: int) returns (ok: bool);
let
  ok = A(if x >= 0 then x else 0) >= 0 and G(x) = x and R(x) = (if x > 0 then x else 0);
  check "ok" ok;
tel
"""


def kind2_analyses(binary: str, path: Path, flags: list[str]) -> tuple[int, list]:
    spelled = [w for f in flags for w in (f, "true")]
    proc = subprocess.run([binary, "-json", "--timeout", "60", *spelled, str(path)],
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, analyses(json.loads(proc.stdout, strict=False))


def kinduct_run(path: Path, flags: list[str]) -> tuple[int, list, list[dict]]:
    proc = run_cli("check", path, "--json", "--timeout", "60", *flags)
    assert "Traceback" not in proc.stderr, proc.stderr
    objects = json.loads(proc.stdout)
    return proc.returncode, analyses(objects), objects


def analyses(objects: list[dict]) -> list[tuple[str, list[str], list[str], dict[str, str]]]:
    """Per analysis: its top node, abstract and concrete lists, and the answer of each property."""
    out: list = []
    for o in objects:
        if o.get("objectType") == "analysisStart":
            out.append((o["top"], sorted(o["abstract"]), sorted(o["concrete"]), {}))
        elif o.get("objectType") == "property":
            out[-1][3][o["name"]] = o["answer"]["value"]
    return out


def same_as_kind2(kind2: str, tmp_path: Path, text: str, flags: list[str]) -> list[dict]:
    """Run both tools; they must agree analysis by analysis; kinduct's objects are returned."""
    path = tmp_path / "m.lus"
    path.write_text(text)
    k2_code, k2 = kind2_analyses(kind2, path, flags)
    code, ours, objects = kinduct_run(path, flags)
    assert ours == k2
    assert code == k2_code
    return objects


def stream(prop: dict, block_name: str, name: str) -> list:
    """A stream's values in the node block ``block_name`` (the top one or a subnode)."""
    blocks = list(prop["counterExample"])
    while blocks:
        block = blocks.pop()
        if block["name"] == block_name:
            for s in block["streams"]:
                if s["name"] == name:
                    return [v for _, v in s["instantValues"]]
        blocks.extend(block.get("subnodes") or [])
    raise AssertionError(f"no stream {block_name}.{name}")


def test_compositional_answer_is_the_abstractions(kind2, tmp_path):
    """The caller's property does not follow from the callee's contract: falsifiable, with a
    trace of the abstraction (the callee's output meets its contract only), and kinduct says
    that the implementation does not give it."""
    objects = same_as_kind2(kind2, tmp_path, WEAK.format(modifier=""), ["--compositional"])
    ok = properties(objects)["ok"]
    (x,) = stream(ok, "Top", "x")
    (y,) = stream(ok, "Callee", "y")
    assert y >= 0 and y != max(x, 0)  # the contract holds, the body's value is not taken
    assert ok["onImplementations"] is False


def test_opaque_callee_is_abstract_without_any_flag(kind2, tmp_path):
    same_as_kind2(kind2, tmp_path, WEAK.format(modifier="opaque "), [])


def test_modular_compositional_refines_a_proved_callee(kind2, tmp_path):
    same_as_kind2(kind2, tmp_path, WEAK.format(modifier=""), ["--modular", "--compositional"])


@pytest.mark.slow
@pytest.mark.parametrize("modifier, flags", [
    ("opaque ", ["--modular", "--compositional"]),  # never refined
    ("opaque ", ["--compositional"]),
    ("transparent ", ["--compositional"]),  # never abstract
    ("transparent ", ["--modular", "--compositional"]),
    ("", ["--modular"]),
])
def test_weak_contract(kind2, tmp_path, modifier, flags):
    same_as_kind2(kind2, tmp_path, WEAK.format(modifier=modifier), flags)


@pytest.mark.slow
@pytest.mark.parametrize("flags", [["--compositional"], ["--modular", "--compositional"]])
def test_only_proved_callees_are_refined(kind2, tmp_path, flags):
    same_as_kind2(kind2, tmp_path, TWO, flags)


@pytest.mark.slow
@pytest.mark.parametrize("modifier, flags", [
    ("", ["--compositional"]),
    ("", ["--modular", "--compositional"]),
    ("opaque ", []),
    ("opaque ", ["--modular", "--compositional"]),
])
def test_refinement_goes_one_level_at_a_time(kind2, tmp_path, modifier, flags):
    same_as_kind2(kind2, tmp_path, DEEP.format(modifier=modifier), flags)


def test_a_counterexample_of_the_abstraction_may_be_real(kind2, tmp_path):
    """Whatever the callee returns within its contract, ``x >= 5`` violates the property, with
    the implementation too."""
    text = WEAK.format(modifier="").replace('check "ok" ok;', 'check "small" x < 5 or Callee(x) < 0;')
    objects = same_as_kind2(kind2, tmp_path, text, ["--compositional"])
    small = properties(objects)["small"]
    assert stream(small, "Top", "x")[-1] >= 5
    assert small["onImplementations"] is True


@pytest.mark.slow
@pytest.mark.parametrize("text", [TWO_PROVED, BROKEN_ASSUMPTION, NOTHING_TO_ABSTRACT])
@pytest.mark.parametrize("flags", [["--compositional"], ["--modular", "--compositional"]])
def test_which_callees_are_abstract_and_refined(kind2, tmp_path, text, flags):
    same_as_kind2(kind2, tmp_path, text, flags)


#: Every invariant holds, but ``pos`` is reached on Callee's contract only (its body returns 0):
#: Kind 2 reads every proved callee by its body and checks the targets again (it then reports
#: ``pos`` reachable in one block, unreachable in the next). Kind 2 checks modes in an analysis
#: of their own first, which kinduct does not: the last blocks are compared.
REACHED_ON_THE_ABSTRACTION = """
node Callee(x: int) returns (y: int);
(*@contract guarantee y >= 0; *)
let y = 0; tel

node Top(x: int) returns (z: int);
(*@contract
  guarantee z >= 0;
  mode pos (require false -> pre z > 0;);
  mode other (require true -> pre z <= 0;);
*)
let z = Callee(x); tel
"""


@pytest.mark.slow
def test_a_target_reached_on_the_abstraction_is_checked_on_the_implementations(kind2, tmp_path):
    path = tmp_path / "m.lus"
    path.write_text(REACHED_ON_THE_ABSTRACTION)
    flags = ["--modular", "--compositional"]
    _, k2 = kind2_analyses(kind2, path, flags)
    _, ours, _ = kinduct_run(path, flags)
    assert ours[-1] == k2[-1] == ("Top", [], ["Callee"], {"pos[L9C3]": "unreachable",
                                                         "other[L10C3]": "reachable"})
    assert ours[-2][:2] == ("Top", ["Callee"]) and ours[-2][3]["pos[L9C3]"] == "reachable"
