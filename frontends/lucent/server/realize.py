"""Realizability of a node's contract (and of its environment) for the server: run by
``kinduct check --realizability --main NODE --json`` in a child process, whose answers are
Kind 2's ``realizabilityCheck`` objects.  The game that decides it lives in a plugin, which no
frontend may import; the command line is its public face.  Cancelling ends the child's whole
process group.  Results are not cached (the analyses are not counted either)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from kinduct.frontends.lucent.server.checking import (
    Cancelled,
    CheckOptions,
    NodeResult,
    PropertyResult,
    text_hash,
)
from kinduct.frontends.lucent.server.document import Analysis

#: Verdict words of a realizability answer, as :func:`.checking.result_message` reads them.
ANSWERS = {"realizable": "realizable", "unrealizable": "unrealizable"}


def _program() -> list[str]:
    script = Path(sys.executable).parent / "kinduct"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from kinduct.script import main; sys.exit(main())"]


def realizability(doc: Analysis, nodes: list[str], options: CheckOptions, cancel: threading.Event,
                  report: Callable[[str, int, int], None]) -> list[NodeResult]:
    assert doc.program is not None
    prints = doc.fingerprints()
    out: list[NodeResult] = []
    with tempfile.TemporaryDirectory() as tmp:
        on_disk = Path(doc.path)
        path = on_disk if on_disk.is_file() and on_disk.read_text() == doc.text else Path(tmp) / on_disk.name
        if path != on_disk:
            path.write_text(doc.text)
        for i, node in enumerate(nodes):
            report(node, i, len(nodes))
            out.append(_one(doc, node, path, options, cancel, prints.get(node, "")))
    return out


def _one(doc: Analysis, node: str, path: Path, options: CheckOptions, cancel: threading.Event,
         fingerprint: str) -> NodeResult:
    start = time.monotonic()
    cmd = [*_program(), "check", "--realizability", str(path), "--main", node, "--json",
           "--timeout", str(options.timeout)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        while proc.poll() is None:
            if cancel.wait(0.1):
                raise Cancelled()
        stdout, stderr = proc.communicate()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    runtime = time.monotonic() - start
    try:
        objects = json.loads(stdout)
    except json.JSONDecodeError:
        message = (stderr.strip().splitlines() or ["no answer"])[-1]
        return NodeResult(node, "realizability", fingerprint, (), {}, runtime, error=message)
    decl = doc.node_decl(node)
    column = 1
    if decl is not None:
        span = doc.name_span(node, decl.pos)
        column = span.char + 1
        delta = span.line - doc.lines.position(doc.extent(node).start)[0]
    else:
        delta = 0
    props: list[PropertyResult] = []
    context = "contract"
    for obj in objects:
        if obj.get("objectType") == "analysisStart":
            context = obj.get("context", "contract")
        elif obj.get("objectType") == "realizabilityCheck":
            result = obj.get("result", "unknown")
            trace = obj.get("deadlockingTrace")
            length = None
            if trace:
                values = [len(s.get("instantValues", [])) for b in trace for s in b.get("streams", [])]
                length = max(values, default=None)
            props.append(PropertyResult(
                f"{context} of {node}", ANSWERS.get(result, "unknown"), None, length,
                obj.get("reason"), bool(obj.get("runtime", {}).get("timeout")), node, delta, column,
                {"counterExample": trace} if trace else {}))
    anchors = {node: text_hash(doc, node) or ""} if decl is not None else {}
    return NodeResult(node, "realizability", fingerprint, tuple(props), anchors, runtime)
