"""A node call inside an array definition, ``y[i] = n(a[i])``, or inside a quantifier expanded
over a finite range, is one instance per element.

It was one instance for all elements (the same state symbols at every index), which forced the
calls' inputs equal and answered ``valid`` for ``a[1] = a[0]``: a wrong verdict, found while
certifying Kind 2's ``success/array_node.lus``.  By hand: the inputs are free, so both
properties fail at step 0 (``a = [0, 1, ...]``), and each instance keeps its own memory
(``memory`` holds); Kind 2 v3.0.0 says so too.
"""

from __future__ import annotations

import json
import subprocess

from tests.conftest import properties, run_cli

MODEL = """node n (x : int) returns (y : int); let y = x + (0 -> pre y); tel
node top (a: int^4) returns (x: int)
var y: int^4;
let
  y[i] = n(a[i]);
  x = y[0];
  check "inputs" a[1] = a[0];
  check "outputs" y[1] = y[0];
  check "memory" y[2] = a[2] + (0 -> pre y[2]);
tel
"""


def _ours(tmp_path) -> dict[str, dict]:
    path = tmp_path / "m.lus"
    path.write_text(MODEL)
    proc = run_cli("check", path, "--json", "--timeout", "30")
    assert "Traceback" not in proc.stderr, proc.stderr
    return properties(json.loads(proc.stdout))


def test_each_element_has_its_own_instance(tmp_path):
    props = _ours(tmp_path)
    assert {n: p["answer"]["value"] for n, p in props.items()} == {
        "inputs": "falsifiable", "outputs": "falsifiable", "memory": "valid"}
    # the counterexample shows one block per element, each with its own input
    [top] = props["outputs"]["counterExample"]
    assert [b["name"] for b in top["subnodes"]] == ["n"] * 4
    xs = [b["streams"][0]["instantValues"][0][1] for b in top["subnodes"]]
    a = top["streams"][0]["instantValues"][0][1]
    assert xs == a and xs[0] != xs[1]


def _kind2(kind2: str, tmp_path, text: str) -> dict[str, str]:
    """Kind 2's answers by property name, its candidate invariants left out."""
    path = tmp_path / "k.lus"
    path.write_text(text)
    proc = subprocess.run([kind2, "-json", "--timeout", "30", str(path)], capture_output=True,
                          text=True, timeout=120)
    return {o["name"]: o["answer"]["value"] for o in json.loads(proc.stdout, strict=False)
            if o.get("objectType") == "property" and o.get("isCandidate") not in (True, "true")}


def test_kind2_agrees(kind2, tmp_path):
    assert _kind2(kind2, tmp_path, MODEL) == {
        "inputs": "falsifiable", "outputs": "falsifiable", "memory": "valid"}


#: A function called under a quantifier over a finite range: an instance per value.  By hand:
#: ``f(a[i]) = a[0] + 1`` fails for ``a = [0, 1, 0]`` at ``i = 1``; ``f(a[i]) > a[i]`` holds.
QUANTIFIED = """function f (x: int) returns (y: int); let y = x + 1; tel
node top (a: int^3) returns (x: int)
let
  x = 0;
  check "greater" forall (i: subrange [0, 2] of int) f(a[i]) > a[i];
  check "same" forall (i: subrange [0, 2] of int) f(a[i]) = a[0] + 1;
tel
"""


def test_a_quantifier_calls_an_instance_per_value(tmp_path):
    path = tmp_path / "q.lus"
    path.write_text(QUANTIFIED)
    proc = run_cli("check", path, "--json", "--timeout", "30")
    answers = {n: p["answer"]["value"] for n, p in properties(json.loads(proc.stdout)).items()}
    assert answers == {"greater": "valid", "same": "falsifiable"}


def test_kind2_agrees_on_the_quantifier(kind2, tmp_path):
    assert _kind2(kind2, tmp_path, QUANTIFIED) == {"greater": "valid", "same": "falsifiable"}
