"""``kinduct lsp``: the language server (pygls over stdio) for Lucent documents.

Static analysis runs as the user types (debounced, in a worker thread); checks run in the
background on request (code lenses and commands), with progress notifications and
cancellation; their verdicts become diagnostics at each property.  The custom requests:

- ``kinduct/counterexample {uri, node, property, mode}``: the property's counterexample as
  Kind 2's node blocks (also the command ``kinduct.counterexample``);
- ``kinduct/stats``: ``{"analyses", "cacheHits", "cached"}``, what the checker ran and reused;
- ``kind2/getComponents``, ``kind2/check``, ``kind2/counterExample``: :mod:`.kind2`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as T
from pygls.exceptions import JsonRpcRequestCancelled
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from kinduct.frontends.lucent.server import kind2
from kinduct.frontends.lucent.server.checking import (
    Cancelled,
    Checker,
    CheckOptions,
    NodeResult,
    result_message,
)
from kinduct.frontends.lucent.server.document import Analysis, Note, Span, analyse
from kinduct.frontends.lucent.server.other import analyse_other, is_lucent
from kinduct.frontends.lucent.server.realize import realizability

SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
             "information": T.DiagnosticSeverity.Information, "hint": T.DiagnosticSeverity.Hint}
SYMBOL_KINDS = {"node": T.SymbolKind.Class, "function": T.SymbolKind.Function,
           "contract": T.SymbolKind.Interface, "type": T.SymbolKind.Struct,
           "const": T.SymbolKind.Constant, "input": T.SymbolKind.Variable,
           "output": T.SymbolKind.Field, "local": T.SymbolKind.Variable, "mode": T.SymbolKind.Event}
#: Commands: name -> the check's mode.
COMMANDS = {"kinduct.check": "check", "kinduct.checkCompositional": "compositional",
            "kinduct.realizability": "realizability"}
LENS_TITLES = {"kinduct.check": "check", "kinduct.checkCompositional": "check compositionally",
                "kinduct.realizability": "realizability"}


def lsp_range(span: Span) -> T.Range:
    return T.Range(T.Position(span.line, span.char), T.Position(span.end_line, span.end_char))


def _diagnostic(note: Note) -> T.Diagnostic:
    return T.Diagnostic(range=lsp_range(note.span), message=note.message,
                        severity=SEVERITY[note.severity], source=note.source)


class KinductServer(LanguageServer):
    """The server's state: the documents' analyses, their latest check results, the checker."""

    def __init__(self, options: CheckOptions, debounce: float, kind2_notifications: bool = False) -> None:
        super().__init__("kinduct", server_version(), text_document_sync_kind=T.TextDocumentSyncKind.Full)
        self.options = options
        self.debounce = debounce
        self.docs: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}
        #: uri -> (node, mode) -> the latest result of that check.
        self.results: dict[str, dict[tuple[str, str], NodeResult]] = {}
        self.checker = Checker()
        self.analysis_lock = threading.Lock()
        #: Send ``kind2/updateComponents`` after each analysis (Kind 2's extension re-asks
        #: ``kind2/getComponents`` on it).
        self.kind2_notifications = kind2_notifications

    # ---- documents ----

    async def refresh(self, uri: str) -> None:
        """Analyse the document's current text (in a worker thread) and publish."""
        if uri not in self.workspace.text_documents:  # closed meanwhile
            return
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        path = to_fs_path(uri) or uri
        loop = asyncio.get_running_loop()
        if not is_lucent(path):
            notes = await loop.run_in_executor(None, analyse_other, text, path)
            self._publish(uri, notes, version)
            return

        def work() -> Analysis:
            with self.analysis_lock:
                doc = analyse(text, path)
            if self.results.get(uri):  # for publish, off the event loop
                doc.fingerprints()
            return doc
        doc = await loop.run_in_executor(None, work)
        if self.workspace.get_text_document(uri).version != version:
            return  # a newer text is on its way
        self.docs[uri] = doc
        self.publish(uri)
        if self.kind2_notifications:
            self.protocol.notify("kind2/updateComponents", uri)

    def schedule(self, uri: str, delay: float) -> None:
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(delay, lambda: asyncio.ensure_future(self.refresh(uri)))

    def publish(self, uri: str) -> None:
        """The static notes of the document and the verdicts of its checks that still hold
        (their node's fingerprint is unchanged)."""
        doc = self.docs.get(uri)
        if doc is None:
            return
        notes = list(doc.notes)
        results = self.results.get(uri, {})
        if results and doc.program is not None and doc.checked is not None:
            current = doc.fingerprints()
            for (node, _), result in sorted(results.items(), key=lambda kv: kv[0]):
                if current.get(node) != result.fingerprint:
                    continue
                if result.error is not None:
                    decl = doc.node_decl(node)
                    span = doc.name_span(node, decl.pos) if decl else Span(0, 0, 0, 0)
                    notes.append(Note(span, "error", f"check of {node}: {result.error}",
                                      "kinduct check"))
                for prop, span in self.checker.place(doc, result):
                    if span is None:
                        continue
                    severity, message = result_message(node, prop, result.mode)
                    notes.append(Note(span, severity, message, "kinduct check"))
        version = self.workspace.get_text_document(uri).version
        self._publish(uri, notes, version)

    def _publish(self, uri: str, notes: list[Note], version: int | None) -> None:
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=[_diagnostic(n) for n in notes]))

    # ---- checks ----

    def nodes_of(self, doc: Analysis, node: str | None) -> list[str]:
        """``node``, or every node and function of the text with a body, callees first."""
        assert doc.checked is not None
        if node:
            if node not in doc.checked.nodes:
                raise ValueError(f"no node named '{node}'")
            return [node]
        written = {name for name, _, _ in doc.decls()}
        return [n for n in doc.checked.order
                if n in written and not doc.checked.nodes[n].imported
                and doc.checked.nodes[n].kind in ("node", "function")]

    async def run_check(self, uri: str, node: str | None, mode: str,
                        token: T.ProgressToken | None = None) -> list[NodeResult]:
        """Check ``node`` (None: every node) of the open document in ``mode``, reporting
        progress on ``token`` (or one the server creates, when the client allows)."""
        pending = self.pending.pop(uri, None)
        if pending is not None:  # the analysis of the latest text first
            pending.cancel()
            await self.refresh(uri)
        elif uri not in self.docs:
            await self.refresh(uri)
        doc = self.docs.get(uri)
        if doc is None:
            raise ValueError(f"{uri} is not an open Lucent document")
        if doc.checked is None:
            raise ValueError("the document has errors: fix them before checking")
        nodes = self.nodes_of(doc, node)
        title = f"kinduct {mode} {node or Path(doc.path).name}"
        if mode == "realizability":
            results = await self._with_progress(title, token, lambda cancel, report: realizability(
                doc, nodes, self.options, cancel, report))
        else:
            results = await self._with_progress(title, token, lambda cancel, report: self.checker.check(
                doc, nodes, mode, self.options, cancel, report))
        store = self.results.setdefault(uri, {})
        for r in results:
            store[(r.node, r.mode)] = r
        self.publish(uri)
        return results

    async def _with_progress(self, title: str, token: T.ProgressToken | None,
                             work: Callable[[threading.Event, Callable[[str, int, int], None]], Any]) -> Any:
        """``work(cancel, report)`` in a worker thread, with work-done progress on ``token``;
        the progress's cancel sets ``cancel``; a cancelled run answers -32800."""
        cancel = threading.Event()
        progress = self.work_done_progress
        caps = self.client_capabilities.window
        if token is None and caps is not None and caps.work_done_progress:
            token = str(uuid.uuid4())
            try:
                await progress.create_async(token)
            except Exception:  # the client refused: no progress shown
                token = None
        loop = asyncio.get_running_loop()
        if token is not None:
            progress.begin(token, T.WorkDoneProgressBegin(title=title, cancellable=True, percentage=0))
            fut = progress.tokens.get(token)
            if fut is not None:
                fut.add_done_callback(lambda f: cancel.set() if f.cancelled() else None)

        def report(node: str, i: int, n: int) -> None:
            if token is not None:
                loop.call_soon_threadsafe(progress.report, token, T.WorkDoneProgressReport(
                    message=f"{node} ({i + 1}/{n})", percentage=int(100 * i / max(n, 1))))
        try:
            return await loop.run_in_executor(None, work, cancel, report)
        except (asyncio.CancelledError, Cancelled):
            cancel.set()
            raise JsonRpcRequestCancelled("the check was cancelled") from None
        finally:
            if token is not None:
                progress.end(token, T.WorkDoneProgressEnd(
                    message="cancelled" if cancel.is_set() else "done"))

    def counterexample(self, uri: str, node: str, prop: str, mode: str = "check") -> Any:
        result = self.results.get(uri, {}).get((node, mode))
        text = kind2.counterexample(result, prop)
        return None if text is None else json.loads(text)


def server_version() -> str:
    import importlib.metadata
    try:
        return importlib.metadata.version("kinduct")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"
