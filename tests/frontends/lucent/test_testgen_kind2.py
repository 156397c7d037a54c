"""``kinduct testgen`` and ``monitor`` beside the real Kind 2 v3.0.0 (slow: Kind 2 proves the node
before it generates tests): the same number of reachable mode paths, the same monitor values."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from tests.frontends.lucent.helpers import LUCENT
from tests.frontends.lucent.test_testgen import cli

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("model", "node"), [("accumulator_modes.lus", "Acc"),
                                             ("modes_history.lus", "Thermo")])
def test_path_count_equals_kind2s_testgen(kind2, tmp_path, model, node):
    subprocess.run([kind2, "--testgen", "true", "--testgen_len", "2", "--output_dir", str(tmp_path / "k2"),
                    str(LUCENT / model)], capture_output=True, text=True, timeout=300)
    theirs = len(list((tmp_path / "k2" / node / "tests" / "unit").glob("testcase_*.json")))
    assert theirs > 0
    code, out, err = cli("testgen", LUCENT / model, "--depth", 2, "--graph-only", "--out", tmp_path, "--json")
    assert code == 0, err
    assert json.loads(out)[0]["paths"] == theirs


def test_monitor_values_equal_kind2s_contract_monitor(kind2, tmp_path):
    rng = random.Random(1)
    for _ in range(3):
        trace = [{"up": rng.random() < 0.5, "x": rng.randint(-1, 3), "c": rng.randint(-1, 5)}
                 for _ in range(4)]
        path = tmp_path / "t.json"
        path.write_text(json.dumps(trace))
        proc = subprocess.run([kind2, "-json", "--enable", "contract_monitor", "--monitor_trace_file",
                               str(path), str(LUCENT / "accumulator_modes.lus")],
                              capture_output=True, text=True, timeout=300)
        (execution,) = [o for o in json.loads(proc.stdout) if o.get("objectType") == "execution"]
        block = execution["trace"][0]
        theirs = {e["name"]: [v for _, v in e["instantValues"]]
                  for key in ("assumptionsTrace", "guaranteesTrace", "modesTrace") for e in block[key]}
        code, out, err = cli("monitor", LUCENT / "accumulator_modes.lus", "--trace", path, "--json")
        assert code in (0, 40), err
        ours = {e["name"]: [v for _, v in e["instantValues"]] for e in json.loads(out)[0]["elements"]}
        assert ours == theirs


def test_compositional_path_count_equals_kind2s(kind2, tmp_path):
    from tests.frontends.lucent.test_testgen import ABSTRACTION
    model = tmp_path / "abs.lus"
    model.write_text(ABSTRACTION)
    subprocess.run([kind2, "--testgen", "true", "--testgen_len", "2", "--output_dir", str(tmp_path / "k2"),
                    str(model)], capture_output=True, text=True, timeout=300)
    theirs = len(list((tmp_path / "k2" / "Top" / "tests" / "unit").glob("testcase_*.json")))
    code, out, err = cli(model, "--testgen", "true", "--testgen_len", "2", "--output_dir", tmp_path,
                         "--lus_main", "Top", "--testgen_graph_only")
    assert code == 0, err
    assert json.loads((tmp_path / "Top" / "summary.json").read_text())["paths"] == theirs == 4
