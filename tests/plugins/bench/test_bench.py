"""``kinduct bench`` end to end: CSV, summary, cactus plot, Dask, resume, crashes and kills."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from kinduct.kernel import registry
from kinduct.plugins.bench.plots import cactus_series, model_times, scatter_pair
from kinduct.plugins.bench.report import summarise
from kinduct.plugins.bench.suite import load_suite
from tests.conftest import BENCH, EXAMPLES, KINDUCT, ROOT, run_cli

VMT_SUITE = BENCH / "vmt" / "lustre"
FMCAD = BENCH / "lustre" / "fmcad08"
COLUMNS = ["file", "property", "engine", "solver", "verdict", "expected", "wrong", "time", "k"]

#: Small models that every configuration decides in well under a second (valid and falsifiable).
QUICK = ["two_counters.vmt", "stalmark.vmt", "_6counter2.vmt", "traffic_e7_46_e7_171.vmt"]

#: Twenty of the smallest models of the VMT suite (the Done-when subset).
TWENTY = QUICK + ["two_counters_e2_3.vmt", "stalmark_e7_27.vmt", "_6countern.vmt", "_6counters.vmt",
                  "_6counters_e8_371_e7_304.vmt",
                  "_6counters_e8_371_e2_80.vmt", "two_counters_e1_268.vmt",
                  "two_counters_e7_222.vmt", "two_counters_e3_325.vmt", "stalmark_e8_64_e8_207.vmt",
                  "stalmark_e8_48.vmt", "stalmark_e8_64_e7_80.vmt", "stalmark_e7_76.vmt",
                  "stalmark_e7_27_e7_31.vmt", "traffic.vmt", "switch.vmt"]
assert len(TWENTY) == len(set(TWENTY)) == 20

pytestmark = pytest.mark.skipif(not VMT_SUITE.exists(), reason="../shared/benchmarks is not present")


def suite_file(tmp: Path, names: list[str], folder: Path = VMT_SUITE) -> Path:
    listing = tmp / "suite.txt"
    listing.write_text("# a subset of the VMT suite\n" + "".join(f"{folder / n}\n" for n in names))
    return listing


def bench(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    proc = run_cli("bench", *args, timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def read_csv(path: Path) -> tuple[list[str], list[dict]]:
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def manifest(folder: Path) -> dict[str, str]:
    with (folder / "manifest.csv").open(newline="") as f:
        return {r["file"]: r["expected"] for r in csv.DictReader(f)}


def check_cross_product(tmp_path: Path, names: list[str]) -> list[dict]:
    out, png = tmp_path / "out.csv", tmp_path / "cactus.png"
    proc = bench(suite_file(tmp_path, names), "--engine", "kind,portfolio", "--solver", "z3,cvc5",
                 "--timeout", "20", "--jobs", "2", "--csv", str(out), "--plot", str(png), "--json")
    assert proc.returncode == 0, proc.stderr
    header, rows = read_csv(out)
    assert header == COLUMNS
    assert len(rows) == 4 * len(names)
    assert {(r["engine"], r["solver"]) for r in rows} == {
        (e, s) for e in ("kind", "portfolio") for s in ("z3", "cvc5")}
    truth = manifest(VMT_SUITE)
    for r in rows:
        name = Path(r["file"]).name
        assert r["expected"] == truth[name]
        decided = r["verdict"] in ("valid", "falsifiable")
        assert r["wrong"] == ("true" if decided and r["verdict"] != truth[name] else "false")
        assert r["wrong"] == "false", r
        if r["engine"] == "portfolio":
            assert r["verdict"] == truth[name], r
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000
    summary = {(s["engine"], s["solver"]): s for s in json.loads(proc.stdout)["summary"]}
    assert set(summary) == {(e, s) for e in ("kind", "portfolio") for s in ("z3", "cvc5")}
    for s in summary.values():
        assert s["rows"] == len(names) and s["wrong"] == 0
        assert s["decided"] + s["unknown"] + s["error"] == s["rows"]
    return rows


def test_cross_product_csv_summary_and_cactus_plot(tmp_path):
    check_cross_product(tmp_path, QUICK)


@pytest.mark.slow
def test_twenty_file_subset(tmp_path):
    check_cross_product(tmp_path, TWENTY)


@pytest.mark.slow  # a local Dask cluster starts: 3-5 s
def test_dask_local_cluster_gives_the_same_verdicts(tmp_path):
    distributed = pytest.importorskip("distributed")
    listing = suite_file(tmp_path, QUICK[:3])
    local_csv, dask_csv = tmp_path / "local.csv", tmp_path / "dask.csv"
    args = ["--engine", "kind", "--solver", "z3,cvc5", "--timeout", "20"]
    assert bench(listing, *args, "--jobs", "2", "--csv", str(local_csv)).returncode == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        proc = bench(listing, *args, "--executor", "dask", "--scheduler",
                     cluster.scheduler_address, "--csv", str(dask_csv))
    assert proc.returncode == 0, proc.stderr

    def verdicts(path: Path) -> dict:
        return {(r["file"], r["property"], r["engine"], r["solver"]): r["verdict"]
                for r in read_csv(path)[1]}

    assert verdicts(dask_csv) == verdicts(local_csv)
    assert len(verdicts(dask_csv)) == 2 * 3


def test_killed_task_is_an_error_row_and_the_bench_goes_on(tmp_path):
    # A copy under a name of its own: other tests run kinduct on undecided.vmt at the same time,
    # and the stray-process check below must only see this test's processes.
    model = tmp_path / "victim_undecided.vmt"
    model.write_text((EXAMPLES / "vmt" / "undecided.vmt").read_text())
    listing = tmp_path / "suite.txt"
    listing.write_text(f"{model}\n{EXAMPLES / 'vmt' / 'counter_bug.vmt'}\n")
    out = tmp_path / "out.csv"
    proc = subprocess.Popen([str(KINDUCT), "bench", str(listing), "--engine", "portfolio", "--timeout",
                             "120", "--jobs", "2", "--csv", str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        victim = None
        deadline = time.monotonic() + 60
        while victim is None and time.monotonic() < deadline:
            for child in psutil.Process(proc.pid).children(recursive=True):
                try:
                    cmd = child.cmdline()
                except psutil.Error:
                    continue
                if "check" in cmd and str(model) in cmd:
                    victim = child
                    break
            time.sleep(0.2)
        assert victim is not None, "the task process never started"
        time.sleep(1.0)
        os.kill(victim.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    # the killed task's engines (in sessions of their own) did not outlive it
    strays = []
    for p in psutil.process_iter(["cmdline", "status"]):
        cmd = p.info["cmdline"] or []
        # a zombie has ended: only its parent's reaping is left (slow on a busy machine)
        if str(model) in map(str, cmd) and p.info["status"] != psutil.STATUS_ZOMBIE:
            strays.append(p)
    assert not strays, strays
    rows = {Path(r["file"]).name: r for r in read_csv(out)[1]}
    assert rows["victim_undecided.vmt"]["verdict"] == "error"
    assert "SIGKILL" in stderr
    assert rows["counter_bug.vmt"]["verdict"] == "falsifiable"
    assert rows["counter_bug.vmt"]["k"] == "7"


def test_bad_model_is_an_error_row(tmp_path):
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "broken.vmt").write_text("(declare-fun x () Int)\n(define-fun init (")
    (folder / "counter_bug.vmt").write_text((EXAMPLES / "vmt" / "counter_bug.vmt").read_text())
    (folder / "manifest.csv").write_text("file,expected\nbroken.vmt,valid\ncounter_bug.vmt,valid\n")
    out = tmp_path / "out.csv"
    proc = bench(folder, "--engine", "bmc", "--timeout", "20", "--csv", str(out))
    rows = {r["file"]: r for r in read_csv(out)[1]}
    assert rows["broken.vmt"]["verdict"] == "error"
    assert rows["broken.vmt"]["wrong"] == "false"
    # the manifest claims valid: a definitive disagreement is flagged and fails the bench
    assert rows["counter_bug.vmt"]["verdict"] == "falsifiable"
    assert rows["counter_bug.vmt"]["wrong"] == "true"
    assert proc.returncode == 1
    assert "wrong" in proc.stderr


def test_resume_skips_rows_already_there(tmp_path):
    listing = suite_file(tmp_path, QUICK[:2])
    out = tmp_path / "out.csv"
    assert bench(listing, "--engine", "kind", "--timeout", "20", "--csv", str(out)).returncode == 0
    first = read_csv(out)[1]
    assert len(first) == 2
    proc = bench(listing, "--engine", "kind,portfolio", "--timeout", "20", "--csv", str(out),
                 "--resume", "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["tasks"] == 2  # only the portfolio tasks ran
    rows = read_csv(out)[1]
    assert rows[:2] == first
    assert sorted((Path(r["file"]).name, r["engine"]) for r in rows) == sorted(
        (n, e) for n in QUICK[:2] for e in ("kind", "portfolio"))
    summary = json.loads(proc.stdout)["summary"]
    assert {s["engine"]: s["rows"] for s in summary} == {"kind": 2, "portfolio": 2}


def test_resume_can_retry_error_rows(tmp_path):
    listing = suite_file(tmp_path, QUICK[:2])
    out = tmp_path / "out.csv"
    good = "two_counters.vmt"
    out.write_text("file,property,engine,solver,verdict,expected,wrong,time,k\n"
                   f"{VMT_SUITE / good},P0,kind,z3,valid,valid,false,0.5,1\n"
                   f"{VMT_SUITE / QUICK[1]},,kind,z3,error,valid,false,0.1,\n")
    proc = bench(listing, "--engine", "kind", "--timeout", "20", "--csv", str(out), "--resume",
                 "--retry-errors", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tasks"] == 1
    rows = read_csv(out)[1]
    assert [(Path(r["file"]).name, r["verdict"]) for r in rows] == [(good, "valid"), (QUICK[1], "valid")]
    assert rows[0]["time"] == "0.5"  # kept, not run again


@pytest.mark.parametrize("args", [
    ["--engine", "nosuch"],
    ["--solver", "nosuch"],
    ["--resume"],
    ["--retry-errors"],
    ["--jobs", "0"],
    ["--scheduler", "tcp://127.0.0.1:1"],
])
def test_usage_errors(tmp_path, args):
    proc = bench(suite_file(tmp_path, QUICK[:1]), *args)
    assert proc.returncode in (2, 3)
    assert proc.stderr.strip()


def test_missing_suite_and_missing_file_in_list(tmp_path):
    assert bench(tmp_path / "nothing").returncode == 3
    listing = tmp_path / "suite.txt"
    listing.write_text("two_counters.vmt\nno_such_model.vmt\n")
    proc = bench(listing)
    assert proc.returncode == 3
    assert "suite.txt:1:1: error: no such model file 'two_counters.vmt'" in proc.stderr


def test_manifests_folder_list_and_per_property():
    models = load_suite(str(FMCAD))
    assert len(models) == 768
    assert {m.expected for m in models} == {"valid", "falsifiable"}
    regression = {m.name: m for m in load_suite(str(BENCH / "lustre" / "kind2-regression"))}
    cex = regression["kind2_falsifiable_test-cex.lus"]
    assert cex.expected_for("OK", 2) == "falsifiable"
    assert cex.expected_for("l4 = 1", 2) == "valid"
    assert cex.expected_for("other", 2) == ""
    fmcad = {m.name: m for m in models}
    assert fmcad["_6counter2.lus"].expected_for("OK", 1) == "falsifiable"


def test_summary_par2_and_cactus_series():
    def row(engine, verdict, expected, t):
        wrong = verdict in ("valid", "falsifiable") and verdict != expected
        return {"file": "f", "property": "P", "engine": engine, "solver": "z3",
                "verdict": verdict, "expected": expected, "wrong": wrong, "time": t, "k": ""}

    rows = [row("a", "valid", "valid", 1.0), row("a", "falsifiable", "falsifiable", 3.0),
            row("a", "unknown", "valid", 10.0), row("a", "valid", "falsifiable", 0.5),
            row("b", "error", "valid", 0.1)]
    summary = {s["engine"]: s for s in summarise(rows, timeout=10)}
    assert summary["a"] == {"engine": "a", "solver": "z3", "rows": 4, "decided": 3, "wrong": 1,
                            "unknown": 1, "error": 0, "par2": 1.0 + 3.0 + 20 + 20,
                            "median": 2.0}
    assert summary["b"]["par2"] == 20 and summary["b"]["median"] is None
    assert cactus_series(rows) == {"a / z3": [1.0, 3.0], "b / z3": []}


def test_scatter_pairs_kinduct_with_the_external_checker():
    rows = [{"file": f, "property": "P", "engine": "portfolio", "solver": s, "verdict": v,
             "expected": "valid", "wrong": False, "time": t}
            for f, s, v, t in [("a", "z3", "valid", 1.0), ("a", "kind2", "valid", 0.5),
                               ("b", "z3", "unknown", 30.0), ("b", "kind2", "valid", 2.0),
                               ("a", "cvc5", "valid", 3.0)]]
    assert scatter_pair(rows, frozenset({"kind2"})) == ("portfolio / cvc5", "portfolio / kind2")
    times = model_times(rows)
    assert times["portfolio / z3"] == {"a": (1.0, True), "b": (30.0, False)}
    assert scatter_pair(rows[:1], frozenset()) is None


def test_kind2_solver_in_the_bench(tmp_path):
    """Kind 2 is one more solver column: a fake binary answers for counter_bug.vmt."""
    import stat
    import sys

    fake_dir = Path(__file__).resolve().parents[1] / "backends" / "kind2"
    script = tmp_path / "kind2"
    script.write_text(f"#!{sys.executable}\n" + (fake_dir / "fake_kind2.py").read_text())
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    listing = tmp_path / "suite.txt"
    listing.write_text(f"{EXAMPLES / 'vmt' / 'counter_bug.vmt'}\n")
    out = tmp_path / "out.csv"
    data = fake_dir.parents[2] / "data" / "kind2" / "counter_bug_falsifiable.json"
    scatter = tmp_path / "scatter.png"
    proc = run_cli("bench", listing, "--engine", "kind", "--solver", "z3,kind2", "--kind2-path",
                   str(script), "--timeout", "20", "--csv", str(out), "--scatter", str(scatter),
                   env={"FAKE_KIND2_JSON": str(data)})
    assert proc.returncode == 0, proc.stderr
    assert scatter.read_bytes().startswith(b"\x89PNG")
    rows = {r["solver"]: r for r in read_csv(out)[1]}
    assert rows["kind2"]["verdict"] == rows["z3"]["verdict"] == "falsifiable"
    assert rows["kind2"]["k"] == rows["z3"]["k"] == "7"


lucent = pytest.mark.skipif("lucent" not in registry.frontends(),
                            reason="the Lucent frontend is not registered yet")


@lucent
def test_fmcad08_lustre_subset(tmp_path):
    names = ["_6counter2.lus", "stalmark.lus"]
    listing = suite_file(tmp_path, names, FMCAD)
    out = tmp_path / "out.csv"
    proc = bench(listing, "--engine", "kind,portfolio", "--solver", "z3,cvc5", "--timeout", "10",
                 "--csv", str(out), "--plot", str(tmp_path / "cactus.png"))
    header, rows = read_csv(out)
    assert header == COLUMNS and len(rows) == 8
    assert {r["verdict"] for r in rows if r["file"].endswith("stalmark.lus")} == {"valid"}
    assert all(r["wrong"] == "false" for r in rows), [r for r in rows if r["wrong"] == "true"]
    assert proc.returncode == 0


@lucent
@pytest.mark.slow
def test_fmcad08_done_when_command(tmp_path):
    proc = bench(FMCAD, "--engine", "kind,portfolio", "--solver", "z3,cvc5", "--timeout", "10",
                 "--limit", "20", "--csv", str(tmp_path / "out.csv"), "--plot",
                 str(tmp_path / "cactus.png"), timeout=1800)
    assert proc.returncode in (0, 1)
    header, rows = read_csv(tmp_path / "out.csv")
    assert header == COLUMNS and len(rows) == 80


def test_a_task_waits_for_the_exit_and_no_longer():
    """``wait_exit``: the exit code as soon as the process ends, TimeoutExpired when it does not
    end in time, and an already reaped process is no error."""
    import sys

    from kinduct.plugins.bench.tasks import wait_exit

    quick = subprocess.Popen([sys.executable, "-c", "raise SystemExit(7)"])
    assert wait_exit(quick, 60) == 7
    assert wait_exit(quick, 60) == 7  # reaped already
    slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            wait_exit(slow, 0.2)
        assert slow.poll() is None
    finally:
        slow.kill()
        slow.wait()
