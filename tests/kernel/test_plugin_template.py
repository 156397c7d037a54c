"""A third-party plugin installs like any package and kinduct uses its frontend."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES, properties, run_cli, run_json

TEMPLATE = EXAMPLES / "plugin-template"


@pytest.fixture(scope="module")
def installed_template():
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--no-deps", "--no-build-isolation", str(TEMPLATE)],
                   check=True, capture_output=True, timeout=300)
    yield
    subprocess.run([*pip, "uninstall", "-y", "kinduct-toy"], capture_output=True, timeout=120)


def test_template_frontend_is_listed(installed_template):
    proc = run_cli("plugins")
    assert proc.returncode == 0
    assert "toy" in proc.stdout and ".toy" in proc.stdout


def test_check_through_template_frontend(installed_template):
    code, objs = run_json("check", TEMPLATE / "examples" / "counter.toy", "--engine", "bmc")
    prop = properties(objs)["below_7"]
    assert prop["answer"]["value"] == "falsifiable"
    assert prop["k"] == 7
    assert code == 40
    code, objs = run_json("check", TEMPLATE / "examples" / "safe.toy", "--timeout", "60")
    assert properties(objs)["below_7"]["answer"]["value"] == "valid"
    assert code == 0


def test_template_reports_bad_input_with_location(installed_template, tmp_path):
    bad = tmp_path / "bad.toy"
    bad.write_text("counter start=0 step=1 wrap=10\n  claim above 3\n")
    proc = run_cli("check", bad)
    assert proc.returncode == 3
    assert proc.stderr.splitlines()[0].endswith("bad.toy:2:3: error: expected 'counter start=N "
                                                "step=N wrap=N' or 'claim below N'")
    assert "Traceback" not in proc.stderr
