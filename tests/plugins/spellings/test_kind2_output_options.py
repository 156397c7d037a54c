"""Kind 2's output and analysis options a script uses: ``--disable``, ``--timeout_analysis``,
``--only_parse``, ``--exit_code_mode``, ``--print_invs``, the verbosity flags, ``--color``."""

from __future__ import annotations

import json
import subprocess

import pytest

from kinduct.kernel import registry
from kinduct.kernel.errors import UsageError
from kinduct.plugins.spellings.kind2 import rewrite
from tests.conftest import EXAMPLES, properties, run_cli

COMBINE = EXAMPLES / "lucent" / "combine.lus"


def test_disable_takes_engines_out_of_the_portfolio():
    out = rewrite(["check", "m.lus", "--disable", "IC3", "--disable=invgen"])
    engines = out[out.index("--engine") + 1].split(",")
    portfolio = list(registry.engine("portfolio").members)
    assert engines == [e for e in portfolio if e not in ("ic3", "invgen")]


def test_disable_applies_to_enabled_and_given_engines():
    assert rewrite(["m.lus", "--enable", "BMC", "--enable", "IND", "--disable", "IND"]) == \
        ["m.lus", "--engine", "bmc"]
    out = rewrite(["m.lus", "--engine", "bmc,kind", "--disable", "BMC"])
    assert out[-2:] == ["--engine", "kind"]


@pytest.mark.parametrize("argv, message", [
    (["m.lus", "--disable", "FOO"], "unknown Kind 2 module 'FOO'"),
    (["m.lus", "--engine", "bmc", "--disable", "BMC"], "every engine is disabled"),
])
def test_bad_disable_is_a_usage_error(argv, message):
    with pytest.raises(UsageError, match=message):
        rewrite(argv)


def test_timeout_analysis_is_the_timeout_unless_one_is_given():
    assert rewrite(["m.lus", "--timeout_analysis", "7"]) == ["m.lus", "--timeout", "7"]
    assert rewrite(["m.lus", "--timeout", "3", "--timeout_analysis=7"]) == ["m.lus", "--timeout", "3"]


def test_verbosity_color_and_print_cex_are_accepted():
    argv = ["m.lus", "-v", "-qq", "--print_cex", "true", "--log_invs", "false", "--color", "true"]
    assert rewrite(argv) == ["m.lus"]


def test_only_parse_prints_kind2s_note_and_runs_nothing():
    proc = run_cli("-json", "--only_parse", "true", COMBINE, timeout=60)
    assert proc.returncode == 0, proc.stderr
    objs = json.loads(proc.stdout)
    assert [o["objectType"] for o in objs] == ["kind2Options", "log"]
    assert objs[-1]["value"] == "No parse errors found!" and not properties(objs)
    proc = run_cli("--only_parse", COMBINE, timeout=60)
    assert proc.returncode == 0 and "No parse errors found!" in proc.stdout


def test_only_parse_still_reports_a_malformed_model(tmp_path):
    bad = tmp_path / "bad.lus"
    bad.write_text("node N(x: int) returns (y: int);\nlet\n  y = x +;\ntel\n")
    proc = run_cli("--only_parse", "true", bad, timeout=60)
    assert proc.returncode == 3 and "bad.lus:3:" in proc.stderr, proc.stderr


def test_exit_code_mode_only_errors_exits_0_on_a_falsified_property():
    # BMC falsifies at once and searches on for the valid property until the limit
    falsified = run_cli("-json", COMBINE, "--enable", "BMC", "--timeout", "2", timeout=60)
    assert falsified.returncode == 40
    proc = run_cli("-json", COMBINE, "--enable", "BMC", "--timeout", "2",
                   "--exit_code_mode", "only_errors", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert any(p["answer"]["value"] == "falsifiable" for p in properties(json.loads(proc.stdout)).values())


def test_print_invs_prints_the_invariant_of_a_valid_property():
    model = EXAMPLES / "lucent" / "combine.lus"
    proc = run_cli(model, "--enable", "IC3", "--timeout", "20", "--print_invs", "true", timeout=90)
    assert "valid" in proc.stdout, proc.stdout
    assert "invariant for " in proc.stdout, proc.stdout
    plain = run_cli(model, "--enable", "IC3", "--timeout", "20", timeout=90)
    assert "invariant for " not in plain.stdout


def test_only_parse_matches_kind2s_objects(kind2):
    ours = json.loads(run_cli("-json", "--only_parse", "true", COMBINE, timeout=60).stdout)
    theirs = json.loads(subprocess.run([kind2, "-json", "--only_parse", "true", str(COMBINE)],
                                       capture_output=True, text=True, timeout=60).stdout)
    kinds = [o["objectType"] for o in theirs if o.get("level") != "info"]  # its version line
    assert [o["objectType"] for o in ours] == kinds
    assert ours[-1]["level"] == theirs[-1]["level"] and ours[-1]["value"] == theirs[-1]["value"]
