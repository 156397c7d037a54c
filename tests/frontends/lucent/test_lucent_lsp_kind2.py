"""``kinduct lsp --kind2-extension``: after each analysis of a document the server tells the
client to ask for its components again, as Kind 2's language server does for its extension."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("pygls")

from benchmarks.lsp_speed import Client  # noqa: E402

SERVER = [sys.executable, "-c", "import sys; from kinduct.script import main; sys.exit(main())",
          "lsp", "--kind2-extension"]


def test_an_analysis_is_followed_by_update_components(tmp_path):
    path = tmp_path / "k.lus"
    text = "node A(x: int) returns (y: int);\nlet\n  y = x;\ntel\n"
    path.write_text(text)
    client = Client(SERVER)
    try:
        client.start()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "lucent", "version": 1, "text": text}})
        seen = []
        while not seen or seen[-1]["method"] != "kind2/updateComponents":
            seen.append(client.read())
        assert seen[-1]["params"] == path.as_uri()
        assert [m["method"] for m in seen] == ["textDocument/publishDiagnostics", "kind2/updateComponents"]
        (component,) = client.request("kind2/getComponents", [path.as_uri()])
        assert json.loads(component)["name"] == "A"
    finally:
        client.close()
