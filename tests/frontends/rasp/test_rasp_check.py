"""Bounded verification with ``kinduct rasp check`` (Done-when 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pysmt.environment import Environment

from kinduct.frontends.rasp import encode
from kinduct.frontends.rasp.encode import RaspCheck
from kinduct.frontends.rasp.interp import load_program
from kinduct.kernel import registry
from tests.conftest import EXAMPLES, properties, run_json
from tests.frontends.rasp.rasp_helpers import kinduct, kinduct_json
from tests.kind2_schema import validate

RASP = EXAMPLES / "rasp"


def _prop(objs) -> dict:
    props = list(properties(objs).values())
    assert len(props) == 1
    return props[0]


def test_two_sort_programs_are_equivalent_up_to_length_6(capsys) -> None:
    code, objs = kinduct_json(capsys, "rasp", "check", RASP / "sort.rasp", "--equiv", "sort_nobos",
                              "sort_counts", "--alphabet", "abc", "--max-length", "6")
    prop = _prop(objs)
    assert code == 0, prop
    assert prop["answer"]["value"] == "valid"
    assert prop["k"] == 6
    assert prop["lengths"] == [1, 6]
    validate(objs)


def test_reverse_is_not_identity_shortest_input(capsys) -> None:
    code, objs = kinduct_json(capsys, "rasp", "check", RASP / "reverse.rasp", "--equiv", "reverse",
                              "identity", "--alphabet", "abc", "--max-length", "6")
    prop = _prop(objs)
    assert code == 40
    assert prop["answer"]["value"] == "falsifiable"
    word = prop["input"]
    assert len(word) == 2 and word[0] != word[1]  # length 1 cannot separate them
    assert prop["values"]["reverse"] == word[::-1]
    assert prop["values"]["identity"] == word
    streams = {s["name"]: s for s in prop["counterExample"][0]["streams"]}
    assert [v for _, v in streams["input"]["instantValues"]] == word
    validate(objs)


def test_reverse_is_not_identity_human_output(capsys) -> None:
    code, out, _ = kinduct(capsys, "rasp", "check", RASP / "reverse.rasp", "--equiv", "reverse",
                           "identity", "--alphabet", "ab", "--max-length", "4")
    assert code == 40
    assert "shortest counterexample (length 2)" in out
    assert "falsifiable" in out


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_solvers(solver: str) -> None:
    if not registry.backend(solver).available():
        pytest.skip(f"{solver} unavailable")
    code, objs = run_json("rasp", "check", RASP / "sort.rasp", "--equiv", "sort_nobos", "sort_counts",
                          "--alphabet", "abc", "--max-length", "4", "--solver", solver)
    assert code == 0 and _prop(objs)["solver"] == solver
    code, objs = run_json("rasp", "check", RASP / "reverse.rasp", "--equiv", "reverse", "identity",
                          "--alphabet", "xy", "--max-length", "3", "--solver", solver)
    assert code == 40 and len(_prop(objs)["input"]) == 2


def test_assert_every_position_and_last(capsys, tmp_path: Path) -> None:
    prog = tmp_path / "props.rasp"
    prog.write_text("""
        h = histf(tokens);
        bounded = h <= length;      # holds
        small = h < 3;              # fails first on a word with a letter three times
        def num(bools) { return (indices + 1) * aggregate(select(indices, indices, <=),
                                                          indicator(bools)); }
        balance = num(tokens == "(") - num(tokens == ")");
        dyck1_ptf = "F" if num(balance < 0) > 0 else ("T" if balance == 0 else "P");
        ends_ok = dyck1_ptf != "F";
    """)
    code, objs = kinduct_json(capsys, "rasp", "check", prog, "--assert", "bounded", "--alphabet", "ab",
                              "--max-length", "5")
    assert code == 0 and _prop(objs)["answer"]["value"] == "valid"
    code, objs = kinduct_json(capsys, "rasp", "check", prog, "--assert", "small", "--alphabet", "ab",
                              "--max-length", "5")
    prop = _prop(objs)
    assert code == 40 and len(prop["input"]) == 3 and len(set(prop["input"])) == 1
    code, objs = kinduct_json(capsys, "rasp", "check", prog, "--assert", "ends_ok", "--at", "last",
                              "--alphabet", "()", "--max-length", "4")
    prop = _prop(objs)
    assert code == 40 and prop["input"] == [")"]


def test_bos_and_programs_in_two_files(capsys, tmp_path: Path) -> None:
    prog = tmp_path / "libsort.rasp"
    prog.write_text("s = sort(tokens, tokens, assume_bos = True);\n")
    code, objs = kinduct_json(capsys, "rasp", "check", prog, "--equiv", "s", f"{RASP / 'sort.rasp'}:sort",
                              "--bos", "$", "--alphabet", "abc", "--max-length", "4")
    assert code == 0, objs
    # without the BOS token the BOS programs are wrong: the shortest witness has length 2
    code, objs = kinduct_json(capsys, "rasp", "check", RASP / "sort.rasp", "--equiv", "sort",
                              "sort_nobos", "--alphabet", "abc", "--max-length", "4")
    assert code == 40 and len(_prop(objs)["input"]) == 2


def _solve(problem: RaspCheck, n: int, solver: str = "z3"):
    s = registry.backend(solver).solver(problem.env)
    s.add(problem.violation(n, None))
    sat = s.check()
    return s if sat else None


def test_enumeration_fallback(monkeypatch) -> None:
    """When the encoding would be too large, small alphabets are enumerated instead."""
    monkeypatch.setattr(encode, "LIMIT", 1)
    program = load_program(RASP / "reverse.rasp")
    problem = RaspCheck(Environment(), "ab", [("reverse", program.sop("reverse")),
                                              ("identity", program.sop("identity"))], "equiv")
    assert _solve(problem, 1) is None
    assert problem.methods[1] == "enumeration"
    solver = _solve(problem, 2)
    assert solver is not None
    trace = problem.decode(2, solver)
    assert [s["token"] for s in trace.steps] == ["a", "b"]  # the first separating word
    assert problem.replay(trace, None) is None
    sorts = load_program(RASP / "sort.rasp")
    problem = RaspCheck(Environment(), "abc", [("a", sorts.sop("sort_nobos")),
                                               ("b", sorts.sop("sort_counts"))], "equiv")
    assert all(_solve(problem, n) is None for n in (1, 2, 3))
    problem.enumerate_limit = 10
    from kinduct.kernel.errors import EngineRefusal

    with pytest.raises(EngineRefusal, match="too many to enumerate"):
        problem.violation(3, None)


def test_replay_rejects_a_wrong_trace() -> None:
    program = load_program(RASP / "reverse.rasp")
    problem = RaspCheck(Environment(), "abc", [("reverse", program.sop("reverse")),
                                               ("identity", program.sop("identity"))], "equiv")
    solver = _solve(problem, 3)
    trace = problem.decode(3, solver)
    assert problem.replay(trace, None) is None
    from kinduct.kernel.verdict import Trace

    steps = [dict(s) for s in trace.steps]
    steps[0]["reverse"] = "z"
    assert "on the evaluator" in problem.replay(Trace.of(steps), None)
    same = [dict(s, token="a", reverse="a", identity="a") for s in trace.steps]
    assert "holds" in problem.replay(Trace.of(same), None)


@pytest.mark.slow
def test_sort_equivalence_to_length_6_with_cvc5() -> None:
    if not registry.backend("cvc5").available():
        pytest.skip("cvc5 unavailable")
    code, objs = run_json("rasp", "check", RASP / "sort.rasp", "--equiv", "sort_nobos", "sort_counts",
                          "--alphabet", "abc", "--max-length", "6", "--solver", "cvc5", timeout=600)
    assert code == 0 and _prop(objs)["answer"]["value"] == "valid"
