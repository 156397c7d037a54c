"""``kinduct crasp sample | learn | minimize | constrain`` through the installed CLI."""

from __future__ import annotations

import csv
import json

import pytest

from kinduct.frontends.crasp.parser import load, parse
from kinduct.frontends.crasp.synthesis.cli import score
from kinduct.frontends.crasp.synthesis.languages import language
from kinduct.kernel.cli import main
from kinduct.kernel.word_csv import read_csv
from tests.conftest import EXAMPLES, run_cli


class _Proc:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def cli(capsys):
    """The CLI in-process (a subprocess per call costs seconds of imports on a loaded box);
    a few tests below still go through the installed script end to end."""
    def run(*args, timeout=None):
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert "internal error" not in err, err
        return _Proc(code, out, err)
    return run


def _sample(tmp_path, name, n=200, seed=1):
    out = tmp_path / f"{name}.csv"
    proc = _inproc("crasp", "sample", name, "--n", str(n), "--seed", str(seed), "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


def _inproc(*args) -> _Proc:
    code = main([str(a) for a in args])
    return _Proc(code, "", "")


def test_sample_writes_word_label_csv(tmp_path):
    out = _sample(tmp_path, "tomita2", n=50)
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["word", "label"]
    assert len(rows) == 51 and sum(r[1] == "1" for r in rows[1:]) == 25
    lang = language("tomita2")
    assert all(lang.member(list(w)) == (lab == "1") for w, lab in rows[1:])
    again = _sample(tmp_path, "Tomita 2", n=50)
    assert again.read_text() == out.read_text()


def test_learn_json_program_parses_back_and_scores_reported_accuracy(tmp_path):
    data = _sample(tmp_path, "majority")
    proc = run_cli("crasp", "learn", data, "--shape", "1,0,1", "--seed", "4", "--iterations", "5000",
                   "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["found"] and out["accuracy"] == 1.0 and out["iterations"] <= 5000
    words, labels, alphabet = read_csv(data)
    program = parse(out["program"])
    assert score(program, words, labels)[0] == out["accuracy"]


def test_learn_text_output_and_same_seed_same_program(tmp_path, cli):
    data = _sample(tmp_path, "dyck1", n=150)
    args = ("crasp", "learn", data, "--shape", "2,1,1", "--seed", "9", "--iterations", "1200")
    a = cli(*args, "--out", tmp_path / "a.crasp")
    cli(*args, "--out", tmp_path / "b.crasp")
    assert a.returncode in (0, 30) and "Traceback" not in a.stderr
    pa, pb = load(tmp_path / "a.crasp"), load(tmp_path / "b.crasp")
    assert pa == pb
    words, labels, _ = read_csv(data)
    acc = score(pa, words, labels)[0]
    assert f"accuracy {100 * acc:.2f}%" in (tmp_path / "a.crasp").read_text()


def test_language_outside_crasp_ends_with_no_program_found(tmp_path, cli):
    data = _sample(tmp_path, "parity", n=100)
    proc = cli("crasp", "learn", data, "--language", "parity", "--iterations", "600")
    assert proc.returncode == 30 and "after 600 iterations" in proc.stderr  # an explicit budget is one chain
    assert "no program found" in proc.stderr and "Traceback" not in proc.stderr
    parse(proc.stdout)  # the best program is still printed


@pytest.mark.parametrize("text, where, what", [
    ("", None, "no examples"),
    ("word,label\n", None, "no examples"),
    ("word,label\nab,1\nba,maybe\n", ":3:4:", "expected a label"),
    ("word,label\nab,1\nba\n", ":3:", "expected 'word,label'"),
    ("word,label\nab,1\nba,0,1\n", ":3:", "expected 'word,label'"),
    ("word,label\nab,1\nbca,0\n", ":3:2:", "letter 'c' is not in the alphabet"),
])
def test_bad_data_is_a_clear_error(tmp_path, cli, text, where, what):
    data = tmp_path / "bad.csv"
    data.write_text(text)
    proc = cli("crasp", "learn", data, "--alphabet", "ab", "--iterations", "10")
    assert proc.returncode == 3, proc.stderr
    assert what in proc.stderr and "Traceback" not in proc.stderr
    if where:
        assert f"bad.csv{where}" in proc.stderr and "^" in proc.stderr


def test_bad_options_are_clear_errors(tmp_path, cli):
    data = _sample(tmp_path, "majority", n=20)
    for args, what in ((("--shape", "1,2"), "NB,NC,K"), (("--language", "klingon"), "unknown language")):
        proc = cli("crasp", "learn", data, *args)
        assert proc.returncode in (2, 3) and what in proc.stderr and "Traceback" not in proc.stderr
    proc = cli("crasp", "learn", tmp_path / "missing.csv")
    assert proc.returncode == 3 and "no such file" in proc.stderr
    proc = cli("crasp", "constrain", data, EXAMPLES / "crasp" / "dyck1.crasp")
    assert proc.returncode == 3 and "not in the alphabet" in proc.stderr


def test_minimize_proves_equivalence(tmp_path, cli):
    spec = tmp_path / "spec.crasp"
    spec.write_text("alphabet 'a', 'b'\nNa := #('a')\nNb := #('b')\nD := Na - Nb\n"
                    "M := not (D < 0) and Na + Nb > 0\n")
    proc = cli("crasp", "minimize", spec, "--seed", "1", "--json", "--timeout", "120", timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["proved"] and out["rounds"] >= 1 and out["message"] == "equivalence proved"
    assert out["size_after"] < out["size_before"]
    assert out["synthesis_time"] >= 0 and out["verification_time"] > 0
    program = parse(out["program"])
    # the spec has 4 rules and 17 nodes; the search ends at one comparison (``#('b') <= #('a')``,
    # size 5) or one shifted by a constant in a counting rule (``C := #('b') - 1``, size 8)
    assert len(program.rules) <= 2 and out["size_after"] <= 8


def test_constrain_proves_inclusion_and_fits_data(tmp_path, cli):
    data = _sample(tmp_path, "existential", n=100)
    spec = EXAMPLES / "crasp" / "existential.crasp"
    proc = cli("crasp", "constrain", data, spec, "--shape", "1,0,1", "--seed", "2", "--json",
                   "--timeout", "120", timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["proved"] and out["message"] == "inclusion proved" and out["misclassified"] == 0
    words, labels, _ = read_csv(data)
    assert score(parse(out["program"]), words, labels)[0] == 1.0


def test_constrain_rejects_positives_outside_the_specification(tmp_path, cli):
    data = tmp_path / "d.csv"
    data.write_text("word,label\nbb,1\nab,1\n")
    proc = cli("crasp", "constrain", data, EXAMPLES / "crasp" / "existential.crasp")
    assert proc.returncode == 3 and "'bb'" in proc.stderr


def test_bad_data_end_to_end_exit_code(tmp_path):
    data = tmp_path / "bad.csv"
    data.write_text("word,label\nab,yes\nba,2\n")
    proc = run_cli("crasp", "learn", data)
    assert proc.returncode == 3 and "bad.csv:3:4: error: expected a label" in proc.stderr
    assert "Traceback" not in proc.stderr
