"""The protocol's handlers of ``kinduct lsp``, registered on a :class:`.lsp.KinductServer`:
document sync, symbols, definition, hover, code lenses, commands and custom requests."""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as T

from kinduct.frontends.lucent.server import kind2
from kinduct.frontends.lucent.server.checking import CheckOptions
from kinduct.frontends.lucent.server.document import (
    Analysis,
    Symbol,
    definition,
    stream_type,
    symbols,
    word_in_node,
)
from kinduct.frontends.lucent.server.lsp import COMMANDS, LENS_TITLES, SYMBOL_KINDS, KinductServer, lsp_range


def _symbol(s: Symbol) -> T.DocumentSymbol:
    return T.DocumentSymbol(name=s.name, kind=SYMBOL_KINDS[s.kind], range=lsp_range(s.span),
                            selection_range=lsp_range(s.name_span), detail=s.detail or None,
                            children=[_symbol(c) for c in s.children] or None)


def _doc(ls: KinductServer, uri: str) -> Analysis | None:
    return ls.docs.get(uri)


def _hover_text(ls: KinductServer, doc: Analysis, uri: str, line: int, char: int) -> tuple[str, Any] | None:
    found = word_in_node(doc, line, char)
    if found is None:
        return None
    word, node, span = found
    if node is None:
        return None
    t = stream_type(doc, node, word)
    if t is None:
        return None
    text = f"```lucent\n{word}: {t}\n```"
    for (rnode, mode), result in sorted(ls.results.get(uri, {}).items()):
        if rnode != node:
            continue
        for p in result.properties:
            blocks = p.json.get("counterExample")
            if not blocks:
                continue
            for stream in blocks[0].get("streams", []):
                if stream.get("name") == word:
                    values = ", ".join(str(v) for _, v in stream.get("instantValues", []))
                    text += f"\n\nin the counterexample of `{p.name}` ({mode}): {values}"
                    break
    return text, span


def register(ls: KinductServer) -> None:
    """Register every handler on ``ls``."""

    @ls.feature(T.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: KinductServer, params: T.DidOpenTextDocumentParams) -> None:
        await ls.refresh(params.text_document.uri)

    @ls.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: KinductServer, params: T.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.debounce)

    @ls.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: KinductServer, params: T.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)

    @ls.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: KinductServer, params: T.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        pending = ls.pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        ls.docs.pop(uri, None)
        ls.results.pop(uri, None)
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @ls.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls: KinductServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol]:
        doc = _doc(ls, params.text_document.uri)
        return [] if doc is None else [_symbol(s) for s in symbols(doc)]

    @ls.feature(T.TEXT_DOCUMENT_DEFINITION)
    def goto_definition(ls: KinductServer, params: T.DefinitionParams) -> T.Location | None:
        doc = _doc(ls, params.text_document.uri)
        if doc is None:
            return None
        span = definition(doc, params.position.line, params.position.character)
        return None if span is None else T.Location(uri=params.text_document.uri, range=lsp_range(span))

    @ls.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls: KinductServer, params: T.HoverParams) -> T.Hover | None:
        doc = _doc(ls, params.text_document.uri)
        if doc is None:
            return None
        found = _hover_text(ls, doc, params.text_document.uri, params.position.line,
                            params.position.character)
        if found is None:
            return None
        text, span = found
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text),
                       range=lsp_range(span))

    @ls.feature(T.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: KinductServer, params: T.CodeLensParams) -> list[T.CodeLens]:
        uri = params.text_document.uri
        doc = _doc(ls, uri)
        if doc is None or doc.checked is None:
            return []
        lenses: list[T.CodeLens] = []
        for name in ls.nodes_of(doc, None):
            decl = doc.node_decl(name)
            if decl is None:
                continue
            span = doc.name_span(name, decl.pos)
            for command, title in LENS_TITLES.items():
                lenses.append(T.CodeLens(range=lsp_range(span), command=T.Command(
                    title=title, command=command, arguments=[uri, name])))
        return lenses

    def _check_command(command: str):
        async def run(ls: KinductServer, *args: Any) -> list[dict[str, Any]]:
            uri, node = (list(args) + [None, None])[:2]
            results = await ls.run_check(uri, node or None, COMMANDS[command])
            return [{"node": r.node, "mode": r.mode, "cached": r.cached, "error": r.error,
                     "properties": [{"name": p.name, "answer": p.answer, "k": p.k,
                                     "length": p.length} for p in r.properties]}
                    for r in results]
        return run

    for command in COMMANDS:
        ls.command(command)(_check_command(command))

    @ls.command("kinduct.counterexample")
    def counterexample_command(ls: KinductServer, *args: Any) -> Any:
        uri, node, prop, mode = (list(args) + [None] * 4)[:4]
        return ls.counterexample(uri, node, prop, mode or "check")

    @ls.feature("kinduct/counterexample")
    def counterexample_request(ls: KinductServer, params: Any) -> Any:
        uri, node, prop, mode = kind2.positional(params, ("uri", "node", "property", "mode"))
        return ls.counterexample(uri, node, prop, mode or "check")

    @ls.feature("kinduct/stats")
    def stats(ls: KinductServer, params: Any) -> dict[str, int]:
        return ls.checker.stats()

    @ls.feature("kind2/getComponents")
    def get_components(ls: KinductServer, params: Any) -> list[str]:
        (uri,) = kind2.positional(params, ("uri",))
        doc = _doc(ls, uri)
        return [] if doc is None else kind2.components(doc, uri)

    @ls.feature("kind2/check")
    async def kind2_check(ls: KinductServer, params: Any) -> list[str]:
        uri, name = kind2.positional(params, ("uri", "name"))
        try:
            results = await ls.run_check(uri, name, "check")
        except asyncio.CancelledError:
            raise
        return kind2.check_answer(results, uri)

    @ls.feature("kind2/counterExample")
    def kind2_counterexample(ls: KinductServer, params: Any) -> str | None:
        uri, component, _abstract, _concrete, prop = kind2.positional(
            params, ("uri", "component", "abs", "concrete", "property"))
        return kind2.counterexample(ls.results.get(uri, {}).get((component, "check")), prop)


def make_server(options: CheckOptions | None = None, debounce: float = 0.3,
                kind2_notifications: bool = False) -> KinductServer:
    """The server with every feature registered."""
    server = KinductServer(options or CheckOptions(), debounce, kind2_notifications)
    register(server)
    return server


def serve(options: CheckOptions, debounce: float, kind2_notifications: bool = False) -> int:
    """Serve on stdin/stdout until the client exits.  The protocol's streams are private
    duplicates: file descriptor 1 is pointed at standard error (nothing else printed, by this
    process or a process it forks, can corrupt a message) and ``sys.stdin`` at ``/dev/null``
    (a forked child closes ``sys.stdin``, whose lock the reader thread may hold)."""
    import os
    import sys
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - for the whole life of the process
    sys.stdout = sys.stderr
    make_server(options, debounce, kind2_notifications).start_io(protocol_in, protocol_out)
    return 0
