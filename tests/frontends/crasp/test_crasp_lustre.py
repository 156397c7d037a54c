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
