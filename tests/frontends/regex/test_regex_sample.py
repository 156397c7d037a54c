"""``kinduct sample``: every label right on the spec's evaluator, balanced, distinct, spread
over lengths; uniform by DFA path counting for regexes, solver words for C-RASP."""

from __future__ import annotations

import collections
import csv
import io

import pytest

from kinduct.frontends.crasp.evaluate import accepts
from kinduct.frontends.crasp.parser import load as load_crasp
from kinduct.frontends.regex.parser import parse
from kinduct.kernel.acceptor_loading import load_acceptor
from kinduct.kernel.cli import main
from kinduct.kernel.errors import InputError
from kinduct.kernel.word_sampler import PathCounts, Request, sample
from tests.conftest import EXAMPLES


def _rows(text: str) -> list[tuple[str, bool]]:
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["word", "label"]
    return [(w, lab == "1") for w, lab in rows[1:]]


def _check(rows, member, n, min_len, max_len):
    assert len(rows) == n
    assert all(member(list(w)) == lab for w, lab in rows)  # every label right
    pos = sum(lab for _, lab in rows)
    assert abs(pos - (n - pos)) <= 0.1 * n  # balanced within 10%
    assert len({w for w, _ in rows}) >= 0.95 * n  # distinct
    lengths = {len(w) for w, _ in rows}
    assert len(lengths) >= 5 and min(lengths) >= min_len and max(lengths) <= max_len


SPECS = ["alphabet 'a', 'b'\n(ab|b)*a?", "alphabet 'a', 'b'\n~(.*aaa.*)",
         "alphabet 'a', 'b', 'c'\n.*a.*b.*c.*", "alphabet '[', ']'\n('[' ('[' ']')* ']')*",
         "alphabet 'x', 'y'\n(x|y)*x(x|y)(x|y) & ~(.*yy.*)"]


@pytest.mark.parametrize("text", SPECS)
def test_regex_samples(tmp_path, capsys, text):
    spec = tmp_path / "s.regex"
    spec.write_text(text + "\n")
    out = tmp_path / "data.csv"
    code = main(["sample", str(spec), "--n", "300", "--min-length", "2", "--max-length", "40",
                 "--seed", "3", "--out", str(out)])
    assert code == 0
    r = parse(text)
    _check(_rows(out.read_text()), r.accepts, 300, 2, 40)


def test_same_seed_same_sample_and_the_csv_reads_back(tmp_path):
    from kinduct.kernel.word_csv import read_csv

    spec = load_acceptor(EXAMPLES / "regex" / "tomita4.regex", "A")
    a = sample(spec, Request(100, 1, 30, 7))
    assert a == sample(spec, Request(100, 1, 30, 7)) != sample(spec, Request(100, 1, 30, 8))
    path = tmp_path / "d.csv"
    from kinduct.kernel.word_csv import write_csv

    path.write_text(write_csv(a))
    words, labels, _ = read_csv(path)
    assert [(tuple(w), lab) for w, lab in zip(words, labels, strict=True)] == a


def test_path_counts_are_uniform_over_a_length():
    r = parse("alphabet 'a', 'b'\n.*a.*")
    spec = load_acceptor(EXAMPLES / "regex" / "existential.regex", "A")
    counts = PathCounts(spec.automaton)
    assert counts.count(True, 0, 4) == 15 and counts.count(False, 0, 4) == 1
    import random

    rng = random.Random(0)
    seen = collections.Counter(counts.draw(True, 3, rng) for _ in range(1400))
    assert len(seen) == 7 and all(r.accepts(list(w)) for w in seen)
    assert min(seen.values()) > 140  # 200 expected each


def test_too_few_members_keeps_the_sample_balanced(capsys, tmp_path):
    spec = tmp_path / "s.regex"
    spec.write_text("alphabet 'a', 'b'\n(ab)*\n")
    code = main(["sample", str(spec), "--n", "100", "--max-length", "10"])
    out = capsys.readouterr()
    rows = _rows(out.out)
    assert code == 30 and "wrote 10 of 100 words" in out.err
    assert sum(lab for _, lab in rows) == 5 and len(rows) == 10  # ab, abab, ..., (ab)^5


def test_crasp_samples_by_solver():
    program = load_crasp(EXAMPLES / "crasp" / "majority.crasp")
    spec = load_acceptor(EXAMPLES / "crasp" / "majority.crasp", "A")
    rows = sample(spec, Request(40, 1, 12, 1))
    _check([("".join(w), lab) for w, lab in rows], lambda w: accepts(program, w), 40, 1, 12)


@pytest.mark.parametrize("args, what", [
    (["--n", "0"], "--n must be at least 1"),
    (["--min-length", "5", "--max-length", "3"], "--min-length <= --max-length"),
])
def test_bad_requests(capsys, args, what):
    code = main(["sample", str(EXAMPLES / "regex" / "tomita4.regex"), *args])
    assert code == InputError.exit_code and what in capsys.readouterr().err
