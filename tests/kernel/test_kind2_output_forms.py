"""``check``'s other output forms (issue 36): ``-ijson`` (one JSON object per line, each as
soon as it is known), ``-xml`` on an error run, and the JSON of an error run, through the CLI
and without Kind 2 (the differential test against the binary is
tests/frontends/lucent/test_kind2_output_differential.py)."""

from __future__ import annotations

import json
import subprocess
import time
from xml.etree import ElementTree

import pytest

from tests.conftest import EXAMPLES, KINDUCT, run_cli

COMBINE = EXAMPLES / "lucent" / "combine.lus"


def test_ijson_is_one_object_per_line_in_the_order_of_the_json_array():
    proc = run_cli(COMBINE, "-ijson", "--timeout", "20", timeout=120)
    assert proc.returncode == 40, proc.stderr
    lines = proc.stdout.splitlines()
    objects = [json.loads(line) for line in lines]  # each line is one whole object
    kinds = [o["objectType"] for o in objects]
    assert kinds[0] == "kind2Options"
    assert kinds.index("analysisStart") < kinds.index("property") and kinds[-1] == "analysisStop"
    props = {o["name"]: o["answer"]["value"] for o in objects if o["objectType"] == "property"}
    assert sorted(props.values()) == ["falsifiable", "valid"], props
    whole = json.loads(run_cli(COMBINE, "--json", "--timeout", "20", timeout=120).stdout)
    assert sorted(kinds) == sorted(o["objectType"] for o in whole)


def test_an_error_run_writes_options_and_a_located_log_in_each_form(tmp_path):
    bad = tmp_path / "bad.lus"
    bad.write_text("node X(a: int) returns (b: int);\nlet\n  b = a +;\ntel\n")
    objects = json.loads(run_cli(bad, "-json").stdout)
    assert [o["objectType"] for o in objects] == ["kind2Options", "log"]
    assert (objects[1]["level"], objects[1]["line"], objects[1]["column"]) == ("error", 3, 10)
    proc = run_cli(bad, "-xml")
    assert proc.returncode == 3
    root = ElementTree.fromstring(proc.stdout)
    assert root.tag == "Results" and root.get("timeout") is not None
    (log,) = root.iter("Log")
    assert (log.get("class"), log.get("line"), log.get("column")) == ("error", "3", "10")
    lines = run_cli(bad, "-ijson").stdout.splitlines()
    assert [json.loads(line)["objectType"] for line in lines] == ["kind2Options", "log"]


def test_xml_of_a_falsified_property_names_the_call_sites_of_two_instances(tmp_path):
    model = tmp_path / "two.lus"
    model.write_text("node C(r: bool) returns (c: int);\nlet\n  c = if r then 0 else (0 -> pre c + 1);\n"
                     "tel\nnode Top(a, b: bool) returns (ok: bool);\nlet\n"
                     "  ok = C(a) + C(b) < 2;\n  check ok;\ntel\n")
    proc = run_cli(model, "-xml", "--timeout", "20", timeout=120)
    root = ElementTree.fromstring(proc.stdout)
    (prop,) = root.iter("Property")
    assert prop.findtext("Answer") == "falsifiable"
    (top,) = prop.find("CounterExample")
    sites = sorted((n.get("name"), int(n.get("line")), int(n.get("column")))
                   for n in top.findall("Node"))
    assert sites == [("C", 7, 8), ("C", 7, 15)], sites


@pytest.mark.slow
def test_ijson_prints_a_verdict_when_it_is_known_not_at_the_end():
    """combine.lus under bmc alone: ``z > 0`` falls at k = 0 at once, the other property runs
    to the time limit; the falsified one's line comes seconds before the last line."""
    proc = subprocess.Popen([str(KINDUCT), "check", str(COMBINE), "--engine", "bmc",
                             "--timeout", "8", "-ijson"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    seen: list[tuple[float, dict]] = []
    for line in proc.stdout:
        seen.append((time.monotonic(), json.loads(line)))
    proc.wait(timeout=60)
    falsified = [t for t, o in seen if o.get("answer", {}).get("value") == "falsifiable"]
    assert falsified, [o for _, o in seen]
    assert seen[-1][0] - falsified[0] > 3.0, [(round(t - seen[0][0], 2), o["objectType"])
                                             for t, o in seen]


def test_the_watchdogs_fallback_report_in_xml_and_in_lines():
    """The report the watchdog prints when it ends a starved run, in ``-xml`` (one Results
    document) and ``-ijson`` (one object per line) form."""
    from kinduct.kernel.fallback import PartialReport
    from kinduct.kernel.runner import ProgressEvent
    from kinduct.kernel.verdict import Answer, Verdict
    from tests.kernel.test_bounds import evens

    xml: list[str] = []
    PartialReport([evens()], [], True, 5.0, 1.2, xml.append, xml=True)(
        ProgressEvent("reached", "bmc", k=7, properties=("P",)))
    root = ElementTree.fromstring(xml[-1])
    (prop,) = root.iter("Property")
    assert prop.findtext("Answer") == "unknown" and prop.findtext("TrueFor") == "7"
    lines: list[str] = []
    PartialReport([evens()], [], True, 5.0, 1.2, lines.append, lines=True)(
        ProgressEvent("verdict", "kind", Verdict("P", Answer.VALID, engine="kind", k=2)))
    objects = [json.loads(line) for line in lines[-1].splitlines()]
    assert [o["objectType"] for o in objects] == ["analysisStart", "property", "analysisStop", "log"]
    assert objects[1]["answer"]["value"] == "valid"
