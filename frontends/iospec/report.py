"""How ``kinduct iospec test`` shows its result: the failing test (input sequence, the
program's trace, the expected generalized trace, the mismatch) or a summary table; or one JSON
object."""

from __future__ import annotations

import json
from collections.abc import Sequence

from kinduct.frontends.iospec.testing import Report, TestOptions
from kinduct.frontends.iospec.traces import example_run, gtrace_json, show_gtrace, show_trace, trace_json


def report_json(spec: str, command: Sequence[str], report: Report, options: TestOptions) -> dict:
    """The JSON object of a test run."""
    failure = None
    if report.failure is not None:
        f = report.failure
        failure = {"kind": f.kind, "message": f.message, "inputs": list(f.inputs),
                   "trace": trace_json(f.run.trace), "trace_text": show_trace(f.run.trace,
                                                 "stop" if f.run.status == "exited" else "…"),
                   "expected": gtrace_json(f.expected), "expected_text": show_gtrace(f.expected),
                   "example_run": show_trace(example_run(f.expected)),
                   "mismatch": f.mismatch.to_json() if f.mismatch else None,
                   "run": {"status": f.run.status, "exit_status": f.run.returncode,
                           "seconds": round(f.run.seconds, 3), "stderr": f.run.stderr},
                   "path": f.path.to_json()}
    return {"spec": spec, "program": list(command),
            "result": "passed" if report.failure is None else "failed",
            "paths": report.paths, "tests": report.tests, "passed": report.passed,
            "failure": failure, "warnings": list(report.warnings),
            "bound": {"unfoldings": options.bound.unfoldings, "max_inputs": options.bound.max_inputs},
            "tests_per_path": options.per_path, "seed": options.seed,
            "seconds": round(report.seconds, 3)}


def print_report(spec: str, command: Sequence[str], report: Report, options: TestOptions,
                 as_json: bool) -> None:
    if as_json:
        print(json.dumps(report_json(spec, command, report, options), indent=2))
        return
    for warning in report.warnings:
        print(f"warning: {warning}")
    f = report.failure
    if f is None:
        print(f"{'paths':>6}  {'tests':>6}  {'passed':>6}")
        print(f"{report.paths:>6}  {report.tests:>6}  {report.passed:>6}")
        print(f"all {report.tests} tests passed ({report.paths} satisfiable paths within "
              f"{options.bound.unfoldings} unfoldings, up to {options.per_path} input sequences "
              f"each; {report.seconds:.1f} s)")
        return
    print(f"FAILED at test {report.tests} ({report.passed} passed before it), "
          f"on a path of {len(f.path.inputs)} inputs")
    print(f"  input sequence:  {' '.join(map(str, f.inputs))}")
    cut = {"timeout": "… (killed at the time limit)", "output-limit": "… (killed: too much output)"}
    print(f"  program's trace: {show_trace(f.run.trace, cut.get(f.run.status, 'stop'))}")
    print(f"  expected:        {show_gtrace(f.expected)}")
    print(f"  a correct run:   {show_trace(example_run(f.expected))}")
    label = {"alignment": "alignment mismatch", "output": "output mismatch",
             "exit-status": "exit status"}.get(f.kind, f.kind)
    print(f"  {label}: {f.message}")
    if f.run.stderr.strip():
        tail = f.run.stderr.strip().splitlines()[-3:]
        print("  standard error:  " + "\n                   ".join(tail))
