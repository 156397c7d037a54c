"""The paper's Lustre encoding, read back by our own Lucent frontend, gives the same verdict as
the native query (and, when falsifiable, a word of the same length that answers the query)."""

from __future__ import annotations

import itertools

import pytest
from crasp_cli import run_main
from crasp_strategies import programs
from hypothesis import given, settings

from kinduct.frontends.crasp.evaluate import accepts
from kinduct.frontends.crasp.lustre import to_lustre
from kinduct.frontends.crasp.parser import load
from kinduct.frontends.crasp.queries import decide_query
from kinduct.kernel import registry
from kinduct.kernel.frontend import LoadOptions
from kinduct.kernel.runner import RunOptions, run
from kinduct.kernel.verdict import Answer
from tests.conftest import EXAMPLES

DIR = EXAMPLES / "crasp"
EQ = DIR / "pairs" / "equiv"


def lucent():
    try:
        return registry.frontend("lucent")
    except Exception:  # noqa: BLE001
        pytest.skip("the Lucent frontend is not registered")


CASES = [
    ("equiv", EQ / "existential.a.crasp", EQ / "existential.b.crasp"),
    ("equiv", EQ / "tomita1.a.crasp", EQ / "tomita1.b.crasp"),
    ("equiv", EQ / "aastar.a.crasp", EQ / "aastar.b.crasp"),
    ("include", DIR / "dyck1.crasp", DIR / "d2.crasp"),
    ("equiv", DIR / "majority.crasp", DIR / "existential.crasp"),
    ("equiv", DIR / "containsab.crasp", DIR / "tomita7.crasp"),
    ("include", DIR / "pt3.crasp", DIR / "existential.crasp"),
    ("empty", DIR / "dyck1.crasp", None),
    # Where the paper's slips would show: positions counted from 0, windows summing nothing.
    ("universal", DIR / "pairs" / "inequiv" / "even-odd.b.crasp", None),
    ("empty", DIR / "pairs" / "inequiv" / "window-off-by-one.b.crasp", None),
    ("universal", DIR / "tomita4.crasp", None),
]


@pytest.mark.parametrize(("query", "a", "b"), CASES,
                         ids=[f"{q}-{a.stem}-{b.stem if b else ''}" for q, a, b in CASES])
def test_lustre_round_trip(tmp_path, query, a, b):
    frontend = lucent()
    pa = load(a)
    pb = load(b) if b is not None else None
    native, word = decide_query(query, pa, pb, RunOptions(timeout=60))
    assert native.answer in (Answer.VALID, Answer.FALSIFIABLE)
    path = tmp_path / f"{query}.lus"
    path.write_text(to_lustre(query, pa, pb))
    system = frontend.load(path, LoadOptions())
    [verdict] = run(system, RunOptions(timeout=90))
    assert verdict.answer is native.answer, verdict
    if native.answer is Answer.FALSIFIABLE:
        alphabet = tuple(dict.fromkeys(pa.alphabet + (pb.alphabet if pb else ())))
        stream = [int(step["I"]) for step in verdict.trace.steps]
        assert stream[-1] == len(alphabet)  # the end marker # closes the word
        lus_word = [alphabet[i] for i in stream[:-1]]
        assert len(lus_word) == len(word)

        def member(p, w):
            return all(x in p.alphabet for x in w) and accepts(p, w)

        in_a = member(pa, lus_word)
        in_b = member(pb, lus_word) if pb else None
        assert {"empty": in_a, "universal": not in_a, "include": in_a and not in_b,
                "equiv": in_a != in_b}[query]


def test_to_lustre_cli(capsys):
    code, text, _ = run_main(capsys, "crasp", "to-lustre", DIR / "dyck1.crasp", DIR / "d2.crasp", "--query",
                             "include")
    assert code == 0
    assert "node crasp_include(I: int) returns (ok: bool);" in text
    assert "A_V = ((A_Cl < A_Cr) and (A_c6 = 1));" in text
    assert "A_D = ((A_c8 = 0) and (A_Cl = A_Cr));" in text
    assert "ok = true -> (not (B_hat and I = END) or (not pre(A_D) or pre(B_D)));" in text


def test_to_lustre_arity_errors(capsys):
    from kinduct.kernel.cli import main

    assert main(["crasp", "to-lustre", str(DIR / "dyck1.crasp"), "--query", "include"]) in (2, 3)
    assert capsys.readouterr().err == "kinduct: error: the include query takes two programs\n"
    assert main(["crasp", "to-lustre", str(DIR / "dyck1.crasp"), str(DIR / "d2.crasp"), "--query",
                 "empty"]) in (2, 3)
    assert capsys.readouterr().err == "kinduct: error: the empty query takes one program\n"


def test_window_and_period_encoding():
    p = load(EQ / "tomita2.b.crasp")
    text = to_lustre("universal", p)
    # #[0,1]('a'): pre^0 + pre^1 of the indicator, 0 before the first position.
    assert "A_c4 = A_n3 + (0 -> pre A_n3);" in text
    q = load(DIR / "tomita2.crasp")
    assert "P = 1 -> pre P + 1;" in to_lustre("universal", q)


@settings(max_examples=10, deadline=None)
@given(programs(max_rules=3, alphabet=("a", "b")))
def test_lustre_encoding_of_random_programs(tmp_path_factory, p):
    """Universality of random programs (windows, periods, nested counts) through the Lustre
    encoding: BMC finds a rejected word exactly when the evaluator has one, of the same length."""
    frontend = lucent()
    path = tmp_path_factory.mktemp("lus") / "universal.lus"
    path.write_text(to_lustre("universal", p))
    system = frontend.load(path, LoadOptions())
    [verdict] = run(system, RunOptions(engines=("bmc",), max_k=5, timeout=60))
    shortest = next((list(w) for n in range(1, 6) for w in itertools.product(p.alphabet, repeat=n)
                     if not accepts(p, list(w))), None)
    if shortest is None:
        assert verdict.answer is not Answer.FALSIFIABLE
    else:
        assert verdict.answer is Answer.FALSIFIABLE
        stream = [int(step["I"]) for step in verdict.trace.steps]
        word = [p.alphabet[i] for i in stream[:-1]]
        assert len(word) == len(shortest) and not accepts(p, word)


CLASH = """alphabet 'a', 'b'
I := #('a') > 0
hat := 'b' and I
n1 := #(hat) >= 1
c2 := #[0,1]('a') = 2
outside := period(2, 0) and not n1
P := I or outside
"""


def _kind2_answer(path, name: str) -> str | None:
    """Kind 2's answer for the single property, or None when Kind 2 is not installed here."""
    import json
    import shutil
    import subprocess
    from pathlib import Path

    kind2 = Path("/work/kind2build/bin/kind2")
    if not kind2.exists() or shutil.which("z3") is None:
        return None
    proc = subprocess.run([str(kind2), "-json", "--timeout", "30", str(path)], capture_output=True,
                          text=True, timeout=120)
    objs = json.loads(proc.stdout, strict=False)
    assert not [o for o in objs if o.get("objectType") == "log" and o.get("level") == "error"], objs
    [prop] = [o for o in objs if o.get("objectType") == "property" and o.get("name") == name]
    return prop["answer"]["value"]


@pytest.mark.parametrize("query", ["equiv", "include"])
def test_to_lustre_with_rules_named_like_generated_names(tmp_path, query):
    """Issue 20: a rule named I or hat (or n1, c2, outside, P) gave invalid Lustre."""
    frontend = lucent()
    pa, pb = load(DIR / "existential.crasp"), None
    from kinduct.frontends.crasp.parser import parse

    pb = parse(CLASH.replace("'a', 'b'", "'a', 'b', 'c'") if query == "include" else CLASH)
    text = to_lustre(query, pa, pb)
    for name in ("B_I", "B_hat", "B_n1", "B_c2", "B_outside", "B_P"):
        assert text.count(f"  {name}: ") == 1  # declared once: no clash
    path = tmp_path / f"{query}.lus"
    path.write_text(text)
    native, word = decide_query(query, pa, pb, RunOptions(timeout=60))
    system = frontend.load(path, LoadOptions())  # parses and type-checks
    [verdict] = run(system, RunOptions(timeout=90))
    assert verdict.answer is native.answer
    answer = _kind2_answer(path, query)
    if answer is not None:
        assert answer == {"valid": "valid", "falsifiable": "falsifiable"}[native.answer.value]
