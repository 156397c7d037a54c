"""Checking a document's nodes, one analysis per node, with verdicts cached by fingerprint.

A node is analysed as the top of its own system (Kind 2's modular view): "check" with the
callees' bodies, "compositional" with their contracts (then their bodies for what the
abstraction leaves unknown: :func:`kinduct.kernel.decide.decide`).  Each result is cached
under the node's :mod:`.fingerprint` (the node and everything it reaches), the mode and the
options: a later check of a node none of whose dependencies changed is answered from the cache
without translating anything; an edit to a comment changes no fingerprint.

Places: a result keeps each property's place relative to the declaration holding it, with
that declaration's text (its hash): when the text is unchanged, the place moves with the
declaration; when only comments or spacing inside it changed, the node's system is translated
again (no solver runs) to read the places afresh.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from kinduct.frontends.lucent.abstraction import contract_abstract
from kinduct.frontends.lucent.pipeline import build_system
from kinduct.frontends.lucent.server.document import Analysis, Span
from kinduct.kernel.decide import decide
from kinduct.kernel.errors import KinductError, SourceLocation
from kinduct.kernel.report import property_object
from kinduct.kernel.runner import ProgressEvent, RunOptions
from kinduct.kernel.sentinel import die_with_parent
from kinduct.kernel.system import TransitionSystem
from kinduct.kernel.verdict import Answer, Verdict

MODES = ("check", "compositional")


class Cancelled(BaseException):
    """The client cancelled the check."""


@dataclass(frozen=True)
class CheckOptions:
    """What a check runs with (part of the cache key)."""

    timeout: float = 20.0
    engines: tuple[str, ...] = ("portfolio",)

    def run_options(self, progress: Callable[[ProgressEvent], None] | None) -> RunOptions:
        return RunOptions(engines=self.engines, timeout=self.timeout, progress=progress)


@dataclass(frozen=True)
class PropertyResult:
    """One property's verdict, its Kind 2 JSON object and where it is written."""

    name: str
    answer: str
    k: int | None
    length: int | None
    message: str | None
    timeout: bool
    #: The declaration holding the property, and its place relative to that declaration's
    #: first line (0-based line delta, 1-based column).
    anchor: str | None
    line_delta: int
    column: int
    json: dict[str, Any] = field(hash=False, compare=False)


@dataclass(frozen=True)
class NodeResult:
    node: str
    mode: str
    fingerprint: str
    properties: tuple[PropertyResult, ...]
    #: Hash of each anchor declaration's text when it was checked.
    anchors: dict[str, str] = field(hash=False, compare=False)
    runtime: float = 0.0
    #: Whether it came from the cache (the copy handed out; the cached one says False).
    cached: bool = False
    #: A failure to build or decide (then no properties).
    error: str | None = None


def _system(doc: Analysis, name: str, mode: str) -> TransitionSystem:
    """``name``'s own analysis (Kind 2's modular one: the nodes it calls are analysed on their
    own, their call sites' obligations here), compositional ones reading the callees with
    contracts by their contracts."""
    assert doc.checked is not None
    abstract = contract_abstract(doc.checked, mode == "compositional")
    return build_system(doc.checked, name, abstract, modular=True)


def text_hash(doc: Analysis, name: str) -> str | None:
    pos = doc.extent(name)
    if pos is None:
        return None
    return hashlib.sha256(doc.text[pos.start:pos.end].encode()).hexdigest()


def _anchor(doc: Analysis, loc: SourceLocation | None) -> tuple[str | None, int, int]:
    """The declaration of ``doc`` holding ``loc`` and the place relative to it."""
    if loc is None or loc.line is None or (loc.file and loc.file != doc.path):
        return None, 0, 0
    offset = doc.lines.offset(loc.line - 1, (loc.column or 1) - 1)
    decl = doc.enclosing(offset)
    if decl is None:
        return None, loc.line - 1, loc.column or 1
    first = doc.lines.position(doc.extent(decl.name).start)[0]
    return decl.name, loc.line - 1 - first, loc.column or 1


def _summary(system: TransitionSystem, doc: Analysis, verdict: Verdict) -> PropertyResult:
    prop = next(p for p in system.properties if p.name == verdict.property)
    anchor, delta, column = _anchor(doc, prop.location)
    obj = property_object(system, prop, verdict)
    return PropertyResult(prop.name, verdict.answer.value, verdict.k,
                          len(verdict.trace) if verdict.trace is not None else None,
                          verdict.message, verdict.timeout, anchor, delta, column, obj)


class Checker:
    """The verdict cache and the analyses of one server; counts what it ran and reused."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, str, CheckOptions], NodeResult] = {}
        self.analyses = 0
        self.hits = 0
        self.lock = threading.Lock()

    def stats(self) -> dict[str, int]:
        return {"analyses": self.analyses, "cacheHits": self.hits, "cached": len(self.cache)}

    def check(self, doc: Analysis, nodes: list[str], mode: str, options: CheckOptions,
              cancel: threading.Event, report: Callable[[str, int, int], None]) -> list[NodeResult]:
        """Results for ``nodes`` of the checked ``doc``, in order; ``report(node, i, n)``
        before each; raises :class:`Cancelled` once ``cancel`` is set."""
        assert doc.checked is not None and doc.program is not None
        prints = doc.fingerprints()
        out: list[NodeResult] = []
        for i, name in enumerate(nodes):
            if cancel.is_set():
                raise Cancelled()
            report(name, i, len(nodes))
            key = (prints.get(name, ""), mode, options)
            with self.lock:
                hit = self.cache.get(key)
            if hit is not None:
                with self.lock:
                    self.hits += 1
                out.append(NodeResult(hit.node, hit.mode, hit.fingerprint, hit.properties,
                                      hit.anchors, hit.runtime, cached=True, error=hit.error))
                continue
            result = self._analyse(doc, name, mode, options, cancel, key[0])
            if result.error is None and not any(p.timeout for p in result.properties):
                with self.lock:
                    self.cache[key] = result
            out.append(result)
        return out

    def _analyse(self, doc: Analysis, name: str, mode: str, options: CheckOptions,
                 cancel: threading.Event, fingerprint: str) -> NodeResult:
        """One analysis, in a forked child process: cancelling kills it (its engines, which
        die with their parent, go too) and a crash ends that analysis, never the server."""
        with self.lock:
            self.analyses += 1
        start = time.monotonic()
        recv, send = _FORK.Pipe(duplex=False)
        # Not a daemon: the analysis starts engine processes of its own, which multiprocessing
        # refuses a daemon; it dies with the server instead (die_with_parent).
        child = _FORK.Process(target=_analyse_in_child,
                              args=(doc, name, mode, options, fingerprint, os.getpid(), send))
        child.start()
        send.close()
        try:
            while not recv.poll(0.1):
                if cancel.is_set():
                    raise Cancelled()
                if not child.is_alive() and not recv.poll(0):
                    return NodeResult(name, mode, fingerprint, (), {}, time.monotonic() - start,
                                      error=f"the analysis ended with exit code {child.exitcode}")
            return recv.recv()
        finally:
            if child.is_alive():
                child.kill()
            child.join()
            recv.close()

    def place(self, doc: Analysis, result: NodeResult) -> list[tuple[PropertyResult, Span | None]]:
        """Each property of ``result`` with its span in ``doc`` (None: not in this text)."""
        stale = result.mode in MODES and any(text_hash(doc, a) != h for a, h in result.anchors.items())
        fresh: list[SourceLocation | None] | None = None
        if stale and doc.checked is not None and result.node in doc.checked.nodes:
            try:  # the same problem (equal fingerprints): the same properties, in order
                system = _system(doc, result.node, result.mode)
                fresh = [p.location for p in system.properties]
                by_name = {p.name: p.location for p in system.properties}
            except KinductError:
                fresh = None
        out: list[tuple[PropertyResult, Span | None]] = []
        for i, p in enumerate(result.properties):
            if fresh is not None:
                loc = by_name.get(p.name) or (fresh[i] if i < len(fresh) else None)
                anchor, delta, column = _anchor(doc, loc)
            else:
                anchor, delta, column = p.anchor, p.line_delta, p.column
            extent = doc.extent(anchor) if anchor else None
            if extent is None:
                out.append((p, None))
                continue
            line = doc.lines.position(extent.start)[0] + delta
            out.append((p, doc.lines.token_at(line + 1, column)))
        return out


def result_message(node: str, p: PropertyResult, mode: str = "check") -> tuple[str, str]:
    """(severity, message) of a property's verdict in an analysis of ``node`` (a
    compositional one reads the callees with contracts by their contracts, without
    refinement: its answers are the abstraction's)."""
    kind = "compositional analysis" if mode == "compositional" else "analysis"
    where = f"{p.name} ({kind} of {node})"
    if p.answer == Answer.FALSIFIABLE.value:
        step = p.k if p.k is not None else (p.length - 1 if p.length else 0)
        return "error", (f"{where} is falsified: counterexample of length {p.length}, first "
                         f"violated at step {step}")
    if p.answer == Answer.VALID.value:
        return "information", f"{where} is valid" + (f" ({p.k}-inductive)" if p.k is not None else "")
    if p.answer == Answer.REACHABLE.value:
        return "information", f"{where} is reachable: witness of length {p.length}"
    if p.answer == Answer.UNREACHABLE.value:
        return "warning", f"{where} is unreachable"
    if p.answer == "realizable":
        return "information", f"the {p.name} is realizable"
    if p.answer == "unrealizable":
        trace = f": deadlock after {p.length} steps" if p.length else ""
        return "error", f"the {p.name} is unrealizable{trace}"
    if p.answer == Answer.UNKNOWN.value:
        safe = f"safe to k={p.k}" if p.k is not None else "safe to no depth"
        why = " (timeout)" if p.timeout else (f": {p.message}" if p.message else "")
        return "warning", f"{where} is unknown, {safe}{why}"
    return "error", f"{where}: error: {p.message or 'the analysis failed'}"


_FORK = multiprocessing.get_context("fork")


def _analyse_in_child(doc: Analysis, name: str, mode: str, options: CheckOptions, fingerprint: str,
                      server: int, send: Connection) -> None:
    die_with_parent(server)
    start = time.monotonic()
    try:
        system = _system(doc, name, mode)
        verdicts = decide(system, options.run_options(None), start) if system.properties else []
        props = tuple(_summary(system, doc, v) for v in verdicts)
        anchors = {p.anchor: text_hash(doc, p.anchor) or "" for p in props if p.anchor}
        result = NodeResult(name, mode, fingerprint, props, anchors, time.monotonic() - start)
    except KinductError as exc:
        result = NodeResult(name, mode, fingerprint, (), {}, time.monotonic() - start, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - reported as this analysis's error
        result = NodeResult(name, mode, fingerprint, (), {}, time.monotonic() - start,
                            error=f"internal error: {type(exc).__name__}: {exc}")
    send.send(result)
    send.close()
