"""Inductive validity cores and minimal cut sets (``kinduct FILE --ivc true``, ``--enable MCS``),
checked without the code that computes them: every reported set is re-decided here on the
model's elements, switched on and off by substituting the activation literals directly, and
compared with the real Kind 2 where it is installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kinduct.kernel.decide import decide
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.loading import load_systems
from kinduct.kernel.runner import RunOptions
from kinduct.kernel.verdict import Answer
from tests.conftest import run_json

#: The issue's three-equation node: Kind 2's core is {x, z}; y is not needed.
THREE = """node Top (a: int; b: bool) returns (x, y, z: int);
let
  x = 0 -> pre x + 1;
  y = if b then a else 0;
  z = x + 1;
  check x >= 0;
  check z > 0;
tel
"""

#: A call with a contract, an assertion and a register.
CALL = """node Sub (a: int) returns (r: int);
(*@contract
  assume a >= 0;
  guarantee r >= a;
  mode pos (require a > 0; ensure r > 0;);
  mode zero (require a = 0; ensure r >= 0;);
*)
let
  r = a + 1;
tel

node Top (a: int) returns (x, y, z: int);
let
  assert a >= 0;
  x = Sub(a);
  y = 0 -> pre y + 1;
  z = x + y;
  check z >= 0;
tel
"""

#: A main node's contract assumption is an element; its guarantee is the property.
ASSUME = """node Top (a: int) returns (x: int);
(*@contract
  assume a > 0;
  guarantee x > 0;
*)
let
  x = a + (0 -> pre x);
  check true -> x >= pre x;
tel
"""

#: Locals: Kind 2 inlines the definition of one no ``pre`` reads (``v``): no element.
LOCALS = """node N(b: bool) returns (y, w: int);
var x, v: int;
let
  x = 0 -> pre x + 1;
  v = if b then x else 0;
  y = x + 1;
  w = v + x;
  check y > 0;
  check w >= 0;
tel
"""

#: A record equation is one element per field, as Kind 2 splits it (``r.x``, ``r.y``).
RECORD = """type R = struct { x: int; y: int };
node Top (a: int) returns (r: R; o: int);
let
  r = R { x = 0 -> pre r.x + 1; y = if a > 0 then a else 1 };
  o = r.x + r.y;
  check o > 0;
  check r.x >= 0;
tel
"""

MODELS = {"three": THREE, "call": CALL, "assume": ASSUME, "locals": LOCALS, "record": RECORD}


#: The default suite runs the first model; the others are ``slow`` (each several re-proofs).
CASES = [n if n == "three" else pytest.param(n, marks=pytest.mark.slow) for n in MODELS]


def _file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.lus"
    path.write_text(MODELS[name])
    return path


def _key(element: dict, node: str) -> tuple:
    return (node, element["category"], element["name"], element["line"], element["column"])


def _sets(objects: list[dict], kind: str) -> list[tuple[dict, set[tuple]]]:
    return [(o, {_key(e, n["name"]) for n in o["nodes"] for e in n["elements"]})
            for o in objects if o.get("objectType") == "modelElementSet" and o["class"] == kind]


class Model:
    """The model's system with its elements, decided here with some of them on."""

    def __init__(self, path: Path, index: int = 0, count: int = 1) -> None:
        """The ``index``-th of the ``count`` analyses of ``path``."""
        systems = load_systems(path, None, LoadOptions(elements=True))
        assert len(systems) == count
        self.system = systems[index]
        self.keys = {(e.node, e.category, e.name, e.location.line, e.location.column): e
                     for e in self.system.elements}

    def answers(self, on: set[tuple], props: list[str]) -> dict[str, Answer]:
        mgr, s = self.system.env.formula_manager, self.system
        values = {e.act: mgr.TRUE() if k in on else mgr.FALSE() for k, e in self.keys.items()}

        def sub(f):  # pysmt's own substitution and simplification (what is off disappears)
            return s.env.simplifier.simplify(s.env.substituter.substitute(f, values))

        reduced = s.evolve(init=sub(s.init), trans=sub(s.trans),
                           assumptions=tuple(sub(a) for a in s.assumptions), replay=None, lift=None)
        got = {v.property: v.answer for v in decide(reduced, RunOptions(timeout=20), None, props)}
        # z3 may leave one unknown where its model of an array cannot be read (a lambda with
        # no default): cvc5 is asked again about those
        again = [p for p, a in got.items() if a is Answer.UNKNOWN]
        if again:
            got |= {v.property: v.answer for v in
                    decide(reduced, RunOptions(timeout=20, solver="cvc5"), None, again)
                    if v.answer is not Answer.UNKNOWN}
        return got


def _analyses(objects: list[dict]) -> list[list[dict]]:
    """The objects of each analysis (one per main node), from its ``analysisStart`` on."""
    starts = [i for i, o in enumerate(objects) if o.get("objectType") == "analysisStart"]
    return [objects[i:j] for i, j in zip(starts, [*starts[1:], len(objects)], strict=True)]


def _valid(objects: list[dict]) -> list[str]:
    return [o["name"] for o in objects if o.get("objectType") == "property"
            and o["answer"]["value"] == "valid"]


def test_the_issues_example_has_kind2s_core(tmp_path):
    code, objects = run_json(_file(tmp_path, "three"), "--ivc", "true")
    assert code == 0
    [(core, keys)] = _sets(objects, "ivc")
    assert keys == {("Top", "equation", "x", 3, 7), ("Top", "equation", "z", 5, 7)}
    assert core["size"] == 2


@pytest.mark.parametrize("name", CASES)
def test_each_core_is_sufficient_and_minimal(tmp_path, name):
    path = _file(tmp_path, name)
    code, objects = run_json(path, "--ivc", "true")
    assert code == 0
    model, props = Model(path), _valid(objects)
    [(core, keys)] = _sets(objects, "ivc")
    assert keys <= set(model.keys)
    # sufficient: every property proved with every other element off
    assert set(model.answers(keys, props).values()) == {Answer.VALID}
    # minimal: without any one of its elements some property is falsified (the models are
    # small enough that no answer is left unknown)
    for k in keys:
        answers = model.answers(keys - {k}, props)
        assert Answer.FALSIFIABLE in answers.values(), (k, answers)
    assert not core["approximate"]


@pytest.mark.parametrize("name", ["three", pytest.param("call", marks=pytest.mark.slow)])
def test_each_cut_set_is_a_cut_and_minimal(tmp_path, name):
    path = _file(tmp_path, name)
    code, objects = run_json(path, "--enable", "MCS", "--mcs_all", "true")
    assert code == 0
    model = Model(path)
    everything = set(model.keys)
    found = _sets(objects, "mcs")
    assert found
    for cut, keys in found:
        prop = cut["property"]
        assert model.answers(everything - keys, [prop])[prop] is Answer.FALSIFIABLE
        for k in keys:  # any element of the cut put back: the property holds again
            assert model.answers(everything - keys | {k}, [prop])[prop] is Answer.VALID
    expected = {"three": {("Top", "equation", "x", 3, 7), ("Top", "equation", "z", 5, 7)},
                "call": {("Top", "equation", "z", 17, 7), ("Top", "nodeCall", "Sub", 15, 7),
                         ("Top", "assertion", "assertion[L14C3]", 14, 3)}}[name]
    assert {k for _, keys in found for k in keys} >= expected


def _suite() -> list[Path]:
    """Kind 2 suite models (``success/``): the 30 smallest with a guarantee or several
    equations, and 16 more with a guarantee, of 400 to 1500 bytes (as the benchmark)."""
    from tests.conftest import BENCH

    small: list[Path] = []
    contracts: list[Path] = []
    for path in sorted((BENCH / "lustre" / "kind2-tests" / "success").glob("*.lus"),
                       key=lambda p: p.stat().st_size):
        text = path.read_text(errors="replace")
        if "guarantee" in text or text.count("=") >= 3:
            small.append(path)
        if "guarantee" in text and 400 < path.stat().st_size < 1500:
            contracts.append(path)
    return small[:30] + [p for p in contracts[:16] if p not in small[:30]]


@pytest.mark.slow
@pytest.mark.parametrize("path", _suite(), ids=lambda p: p.name)
def test_suite_cores_are_sufficient_and_minimal(path):
    """On the suite: each core re-proves every valid property; without any one of its
    elements some property is falsified (unless the core says it is approximate: then an
    answer may be unknown, which the test names)."""
    code, objects = run_json(path, "--ivc", "true", timeout=300)
    if not _sets(objects, "ivc"):
        pytest.skip("nothing to analyse, no valid property, or no elements")
    blocks = _analyses(objects)
    for index, block in enumerate(blocks):  # one analysis per main node
        sets = _sets(block, "ivc")
        if not sets:
            continue
        [(core, keys)] = sets
        model, props = Model(path, index, len(blocks)), _valid(block)
        assert set(model.answers(keys, props).values()) == {Answer.VALID}
        for k in keys:
            answers = set(model.answers(keys - {k}, props).values())
            if core["approximate"]:
                assert answers - {Answer.VALID}, (k, "still proved without it")
            else:
                assert Answer.FALSIFIABLE in answers, (k, answers)


@pytest.mark.slow
@pytest.mark.parametrize("path", _suite(), ids=lambda p: p.name)
def test_suite_cut_sets_are_cuts_and_minimal(path):
    """On the suite: with a cut's elements off, its property is falsified (the runner replays
    the counterexample on the reduced system before it says so); with any one of them back on,
    the property is no longer falsified (valid, or unknown where the cut says approximate)."""
    code, objects = run_json(path, "--enable", "MCS", timeout=300)
    if not _sets(objects, "mcs"):
        pytest.skip("nothing to analyse, no property a cut can break, or no elements")
    blocks = _analyses(objects)
    for index, block in enumerate(blocks):
        found = _sets(block, "mcs")
        if not found:
            continue
        model = Model(path, index, len(blocks))
        everything = set(model.keys)
        for cut, keys in found:
            prop = cut["property"]
            assert keys <= everything, keys - everything
            assert model.answers(everything - keys, [prop])[prop] is Answer.FALSIFIABLE, prop
            for k in keys:
                back = model.answers(everything - keys | {k}, [prop])[prop]
                wanted = {Answer.VALID, Answer.UNKNOWN} if cut.get("approximate") else {Answer.VALID}
                assert back in wanted, (prop, k, back)


def test_a_record_equation_is_an_element_per_field(tmp_path):
    """Kind 2 v3.0.0 names them ``r.x`` and ``r.y``, both at the right-hand side's start."""
    keys = set(Model(_file(tmp_path, "record")).keys)
    assert {k[2:] for k in keys} == {("r.x", 4, 7), ("r.y", 4, 7), ("o", 5, 7)}
    _, objects = run_json(_file(tmp_path, "record"), "--ivc", "true")
    [(_, core)] = _sets(objects, "ivc")
    assert {k[2] for k in core} == {"r.x", "r.y", "o"}


def test_inlined_locals_are_no_elements(tmp_path):
    keys = set(Model(_file(tmp_path, "locals")).keys)
    assert {k[2] for k in keys} == {"x", "y", "w"}


def test_an_ivc_and_its_complement_partition_the_elements(tmp_path):
    path = _file(tmp_path, "three")
    _, objects = run_json(path, "--ivc", "true", "--print_ivc_complement", "true")
    [(_, core)] = _sets(objects, "ivc")
    [(_, rest)] = _sets(objects, "ivc complement")
    assert core | rest == set(Model(path).keys) and not core & rest


ELEMENT_SET = {
    "type": "object",
    "properties": {
        "objectType": {"const": "modelElementSet"},
        "class": {"enum": ["ivc", "mcs", "must", "ivc complement", "mcs complement"]},
        "size": {"type": "integer", "minimum": 0}, "approximate": {"type": "boolean"},
        "runtime": {"type": "object", "properties": {"unit": {"const": "sec"},
                                                     "value": {"type": "number"},
                                                     "timeout": {"type": "boolean"}},
                    "required": ["unit", "value", "timeout"]},
        "nodes": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"},
            "elements": {"type": "array", "items": {"type": "object", "properties": {
                "category": {"enum": ["equation", "assertion", "assumption", "guarantee",
                                      "require", "ensure", "nodeCall"]},
                "name": {"type": "string"}, "line": {"type": "integer", "minimum": 1},
                "column": {"type": "integer", "minimum": 1}, "file": {"type": "string"}},
                "required": ["category", "name", "line", "column", "file"]}}},
            "required": ["name", "elements"]}},
    },
    "required": ["objectType", "class", "size", "nodes"],
}


def _kind2(binary: str, path: Path, *flags: str) -> list[dict]:
    """Kind 2's objects for FILE. Kind 2 v3.0.0's post-analysis sometimes fails to re-prove a
    property it has just proved ("Cannot reprove properties.", about 1 run in 8 on THREE): such a
    run is asked again, and after three of them the comparison is skipped as Kind 2's failure."""
    for _ in range(3):
        proc = subprocess.run([binary, "-json", *flags, str(path)], capture_output=True,
                              text=True, timeout=120)
        objects = json.loads(proc.stdout, strict=False)
        if not any(o.get("objectType") == "log" and o.get("level") == "error"
                   and "Cannot reprove" in str(o.get("value")) for o in objects):
            return objects
    pytest.skip("Kind 2 could not re-prove the properties in its post-analysis, three times")


@pytest.mark.parametrize("name", CASES)
def test_side_by_side_with_kind2(tmp_path, kind2, name):
    import jsonschema

    path = _file(tmp_path, name)
    _, ours = run_json(path, "--ivc", "true")
    theirs = _kind2(kind2, path, "--ivc", "true", "--print_ivc_complement", "true")
    for objects in (ours, theirs):
        for o in objects:
            if o.get("objectType") == "modelElementSet":
                jsonschema.validate(o, ELEMENT_SET)
    [(our, our_keys)] = _sets(ours, "ivc")
    [(their, their_keys)] = _sets(theirs, "ivc")
    universe = their_keys | {k for _, keys in _sets(theirs, "ivc complement") for k in keys}
    # the same elements, named and placed as Kind 2 does; no core larger than Kind 2's
    assert our_keys <= universe, our_keys - universe
    assert our["size"] <= their["size"]


@pytest.mark.slow
def test_cut_sets_side_by_side_with_kind2(tmp_path, kind2):
    path = _file(tmp_path, "call")
    _, ours = run_json(path, "--enable", "MCS", "--mcs_all", "true")
    cats = [f for c in ("equations", "contracts", "assertions", "node_calls")
            for f in ("--mcs_category", c)]
    theirs = _kind2(kind2, path, "--enable", "MCS", "--mcs_all", "true", *cats)

    def by_place(objects):
        out: dict[tuple, list[set]] = {}
        for o, keys in _sets(objects, "mcs"):
            out.setdefault((o["line"], o["col"]), []).append(keys)
        return out

    our, their = by_place(ours), by_place(theirs)
    check = (18, 3)  # `check z >= 0`: every cut Kind 2 finds, kinduct finds, and no other
    assert sorted(map(sorted, our[check])) == sorted(map(sorted, their[check]))


def test_cores_without_a_question_is_a_usage_error(tmp_path):
    from tests.conftest import run_cli

    proc = run_cli("cores", _file(tmp_path, "three"))
    assert proc.returncode == 2 and "ask for --ivc, --mcs or both" in proc.stderr
