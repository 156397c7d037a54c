"""``kinduct lsp`` end to end: a real LSP client (pytest-lsp) talks to the server over stdio.

The expectations come from outside the server: the command line's own error (``kinduct check``
on the same text) for the range and message of a diagnostic, the test's own text for places,
its own call graph for which nodes an edit must re-check, and the counterexample's values for
the violated property.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERVER = [sys.executable, "-c", "import sys; from kinduct.script import main; sys.exit(main())",
          "lsp", "--debounce", "0.05", "--timeout", "30"]


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(window=T.WindowClientCapabilities(work_done_progress=True))))
    yield
    await lsp_client.shutdown_session()


async def _diagnostics(client: LanguageClient, uri: str, timeout: float = 30.0) -> list[T.Diagnostic]:
    """The next diagnostics published for ``uri``."""
    while True:
        params = await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"),
                                        timeout)
        if params.uri == uri:
            return list(params.diagnostics)


def _open(client: LanguageClient, path: Path, text: str) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri=uri, language_id="lucent", version=1, text=text)))
    return uri


def _change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [T.TextDocumentContentChangeWholeDocument(text=text)]))


async def _command(client: LanguageClient, command: str, *args: object) -> object:
    return await asyncio.wait_for(client.workspace_execute_command_async(
        T.ExecuteCommandParams(command=command, arguments=list(args))), 120)


GOOD = """node N(x: int) returns (y: int);
let
  y = x + 1;
tel
"""
BAD = GOOD.replace("x + 1", "x + true")


async def test_a_type_error_is_one_diagnostic_where_the_command_line_puts_it_and_a_fix_clears_it(
        client: LanguageClient, tmp_path):
    path = tmp_path / "typed.lus"
    path.write_text(BAD)
    cli = run_cli("check", path)
    assert cli.returncode == 3
    where = re.search(r":(\d+):(\d+): error: (.*)", cli.stderr + cli.stdout)
    line, col, message = int(where[1]), int(where[2]), where[3].strip()
    uri = _open(client, path, BAD)
    diags = await _diagnostics(client, uri)
    assert len(diags) == 1
    d = diags[0]
    assert d.severity == T.DiagnosticSeverity.Error
    assert d.message == message
    assert (d.range.start.line, d.range.start.character) == (line - 1, col - 1)
    # the range covers the word the command line's caret points at
    word = re.match(r"\w+|.", BAD.splitlines()[line - 1][col - 1:])[0]
    assert d.range.end.character - d.range.start.character == len(word)
    _change(client, uri, 2, GOOD)
    assert await _diagnostics(client, uri) == []


MULTI = """type Speed = int;
const LIMIT: int = 10;

node Sub(a: int) returns (b: int);
let
  b = a + LIMIT;
tel

node Top(x: Speed) returns (y: int);
var t: int;
let
  t = Sub(x);
  y = t * 2;
tel
"""


def _at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


async def test_symbols_and_definitions_on_a_multi_node_file(client: LanguageClient, tmp_path):
    uri = _open(client, tmp_path / "multi.lus", MULTI)
    assert await _diagnostics(client, uri) == []
    syms = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(T.TextDocumentIdentifier(uri)))
    assert [(s.name, s.kind) for s in syms] == [
        ("Speed", T.SymbolKind.Struct), ("LIMIT", T.SymbolKind.Constant),
        ("Sub", T.SymbolKind.Class), ("Top", T.SymbolKind.Class)]
    top = syms[3]
    assert [c.name for c in top.children] == ["x", "y", "t"]
    assert (top.selection_range.start.line, top.selection_range.start.character) == _at(MULTI, "Top")
    cases = [  # (the use, its occurrence, the declaration)
        (("Sub(x)", 0), ("Sub", 0)),
        (("LIMIT;", 0), ("LIMIT", 0)),
        (("t * 2", 0), ("t: int", 0)),
        (("x);", 0), ("x: Speed", 0)),
        (("Speed)", 0), ("Speed", 0)),
    ]
    for (use, n), (decl, m) in cases:
        line, char = _at(MULTI, use, n)
        loc = await client.text_document_definition_async(T.DefinitionParams(
            T.TextDocumentIdentifier(uri), T.Position(line, char)))
        assert loc is not None, use
        assert (loc.range.start.line, loc.range.start.character) == _at(MULTI, decl, m), use
    hover = await client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri), T.Position(*_at(MULTI, "t * 2"))))
    assert "t: int" in hover.contents.value


TWO = """node Combine(x: int; y: int) returns (z: int);
let
  z = if x > 0 then x else 1;
  check z > 0;
  check z > 5;
tel
"""


async def test_check_gives_an_error_at_the_falsified_property_and_information_at_the_valid_one(
        client: LanguageClient, tmp_path):
    uri = _open(client, tmp_path / "two.lus", TWO)
    assert await _diagnostics(client, uri) == []
    answer = await _command(client, "kinduct.check", uri, "Combine")
    diags = client.diagnostics[uri]  # published before the command's answer
    assert {p["answer"] for p in answer[0]["properties"]} == {"valid", "falsifiable"}
    by_line = {d.range.start.line: d for d in diags}
    valid, falsified = by_line[_at(TWO, "z > 0")[0]], by_line[_at(TWO, "z > 5")[0]]
    assert valid.severity == T.DiagnosticSeverity.Information and "valid" in valid.message
    assert falsified.severity == T.DiagnosticSeverity.Error
    length = int(re.search(r"counterexample of length (\d+)", falsified.message)[1])
    step = int(re.search(r"first violated at step (\d+)", falsified.message)[1])
    name = next(p["name"] for p in answer[0]["properties"] if p["answer"] == "falsifiable")
    blocks = await client.protocol.send_request_async(
        "kinduct/counterexample", {"uri": uri, "node": "Combine", "property": name})
    streams = {s["name"]: [v for _, v in s["instantValues"]] for s in blocks[0]["streams"]}
    assert len(streams["z"]) == length
    x = streams["x"][step]
    assert streams["z"][step] == (x if x > 0 else 1) and streams["z"][step] <= 5
    hover = await client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri), T.Position(*_at(TWO, "x > 0"))))
    assert "counterexample" in hover.contents.value


def _chain(n: int, bump: int = 0, comment: str = "") -> str:
    """N1 .. Nn, each calling the one before: an edit in Nk concerns Nk .. Nn."""
    parts = ["node N1(x: int) returns (y: int);\nlet\n  y = if x > 0 then x else 0;\n  check y >= 0;\ntel\n"]
    for i in range(2, n + 1):
        extra = bump if i == 10 else 0
        parts.append(f"node N{i}(x: int) returns (y: int);\nlet\n  y = N{i - 1}(x) + {extra};\n"
                     f"  check y >= 0;\ntel\n")
    return comment + "\n".join(parts)


async def _stats(client: LanguageClient) -> dict:
    """The server's counts (the client hands an object's fields back as a named tuple)."""
    return (await client.protocol.send_request_async("kinduct/stats", None))._asdict()


@pytest.mark.slow  # 6-10 s: every node checked twice
async def test_an_edit_rechecks_the_edited_node_and_its_callers_only(client: LanguageClient, tmp_path):
    n = 20
    uri = _open(client, tmp_path / "chain.lus", _chain(n))
    await _diagnostics(client, uri)
    before = (await _stats(client))["analyses"]
    first = await _command(client, "kinduct.check", uri)
    assert [r["node"] for r in first] == [f"N{i}" for i in range(1, n + 1)]
    assert all(p["answer"] == "valid" for r in first for p in r["properties"])
    after_first = (await _stats(client))["analyses"]
    assert after_first - before == n
    commented = _chain(n, comment="-- a comment\n(* and another *)\n")
    _change(client, uri, 2, commented)
    again = await _command(client, "kinduct.check", uri)
    assert (await _stats(client))["analyses"] == after_first  # a comment re-checks nothing
    assert all(r["cached"] for r in again)
    lines = {i for i, line in enumerate(commented.splitlines()) if "check y >= 0" in line}
    assert {d.range.start.line for d in client.diagnostics[uri]} == lines  # moved with the text
    _change(client, uri, 3, _chain(n, bump=1))
    await _command(client, "kinduct.check", uri)
    rechecked = (await _stats(client))["analyses"] - after_first
    assert rechecked == n - 10 + 1  # N10 and its callers N11 .. N20
    diags = client.diagnostics[uri]
    # every property still has its verdict, at its place in the edited text
    text = _chain(n, bump=1)
    lines = {i for i, line in enumerate(text.splitlines()) if "check y >= 0" in line}
    assert {d.range.start.line for d in diags if d.source == "kinduct check"} == lines


async def test_kind2_extension_requests(client: LanguageClient, tmp_path):
    uri = _open(client, tmp_path / "k2.lus", MULTI)
    await _diagnostics(client, uri)
    comps = await client.protocol.send_request_async("kind2/getComponents", [uri])
    objs = [json.loads(c) for c in comps]
    assert [(o["name"], o["startLine"]) for o in objs] == [
        ("Sub", _at(MULTI, "node Sub")[0] + 1), ("Top", _at(MULTI, "node Top")[0] + 1)]
    two = _open(client, tmp_path / "k2two.lus", TWO)
    await _diagnostics(client, two)
    (node,) = [json.loads(t) for t in await asyncio.wait_for(
        client.protocol.send_request_async("kind2/check", [two, "Combine"]), 120)]
    props = node["analyses"][0]["properties"]
    assert node["name"] == "Combine"
    assert sorted(p["answer"]["value"] for p in props) == ["falsifiable", "valid"]
    falsified = next(p for p in props if p["answer"]["value"] == "falsifiable")
    assert falsified["line"] == _at(TWO, "z > 5")[0] + 1 and falsified["file"] == two
    text = await client.protocol.send_request_async(
        "kind2/counterExample", [two, "Combine", [], [], falsified["name"]])
    assert json.loads(text) == falsified["counterExample"]


async def test_diagnostics_for_another_frontends_file(client: LanguageClient, tmp_path):
    path = tmp_path / "bad.vmt"
    text = "(declare-fun x () Int)\n(define-fun .p () Bool (! (> x 0) :invar-property 0)\n"
    path.write_text(text)
    cli = run_cli("check", path)
    assert cli.returncode == 3
    uri = _open(client, path, text)
    diags = await _diagnostics(client, uri)
    assert len(diags) == 1 and diags[0].severity == T.DiagnosticSeverity.Error
    assert diags[0].message in cli.stderr



DEEP = """node Deep(x: bool) returns (c: int);
let
  c = 0 -> pre c + 1;
  check c < 100000;
tel
"""


async def test_a_check_reports_progress_and_stops_when_cancelled(client: LanguageClient, tmp_path):
    uri = _open(client, tmp_path / "deep.lus", DEEP)
    await _diagnostics(client, uri)
    known = set(client.progress_reports)
    running = asyncio.ensure_future(_command(client, "kinduct.check", uri, "Deep"))
    for _ in range(200):  # the server creates a progress token and begins
        await asyncio.sleep(0.05)
        new = [t for t in client.progress_reports if t not in known and client.progress_reports[t]]
        if new:
            break
    (token,) = new
    begin = client.progress_reports[token][0]
    assert isinstance(begin, T.WorkDoneProgressBegin) and begin.cancellable
    await asyncio.sleep(1.0)
    started = asyncio.get_running_loop().time()
    client.protocol.notify("window/workDoneProgress/cancel", T.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(Exception, match="cancel"):
        await running
    assert asyncio.get_running_loop().time() - started < 5  # the 30 s timeout did not run out
    end = client.progress_reports[token][-1]
    assert isinstance(end, T.WorkDoneProgressEnd) and end.message == "cancelled"


UNREALIZABLE = """node Half(x: int) returns (y: int);
(*@contract
  guarantee y > x;
  guarantee y < x;
*)
let
  y = x;
tel
"""


async def test_realizability_gives_the_command_line_answers_at_the_node(client: LanguageClient, tmp_path):
    path = tmp_path / "spec.lus"
    uri = _open(client, path, UNREALIZABLE)
    await _diagnostics(client, uri)
    cli = run_cli("check", "--realizability", path, "--main", "Half", "--json")
    objects = json.loads(cli.stdout)
    want = {(o["context"], r["result"]) for o, r in zip(objects, objects[1:], strict=False)
            if o.get("objectType") == "analysisStart" and r.get("objectType") == "realizabilityCheck"}
    answer = await _command(client, "kinduct.realizability", uri, "Half")
    assert {(p["name"].split(" ")[0], p["answer"]) for p in answer[0]["properties"]} == want
    assert ("contract", "unrealizable") in want
    at_node = [d for d in client.diagnostics[uri] if d.source == "kinduct check"]
    assert {d.range.start.line for d in at_node} == {0}
    assert any(d.severity == T.DiagnosticSeverity.Error and "unrealizable" in d.message for d in at_node)
