"""The answers to the custom requests of Kind 2's VS Code extension (kind2-mc/vscode-kind2,
whose Java server answers ``kind2/getComponents``, ``kind2/check`` and
``kind2/counterExample``), in the shapes that server gives: lists of JSON *texts*, as it sends
them.

- ``kind2/getComponents [uri]``: one text per node or function written in the document and not
  imported: Kind 2's ``lsp`` object (``kind``, ``name``, ``imported``, ``file`` (the uri),
  ``startLine``..``endColumn``, 1-based lines).
- ``kind2/check [uri, name]``: one text per analysed component, ``{"name", "analyses":
  [{analysisStart fields, "properties": [Kind 2 property objects]}]}``.
- ``kind2/counterExample [uri, component, abstract, concrete, property]``: the property's
  counterexample (its node blocks) as text, or None.
"""

from __future__ import annotations

import json
from typing import Any

from kinduct.frontends.lucent.server.checking import NodeResult
from kinduct.frontends.lucent.server.document import Analysis


def components(doc: Analysis, uri: str) -> list[str]:
    out: list[str] = []
    for name, kind, pos in doc.decls():
        decl = doc.node_decl(name) if kind in ("node", "function") else None
        if decl is None or decl.imported:
            continue
        line, col = doc.lines.position(pos.start)
        end_line, end_col = doc.lines.position(pos.end)
        out.append(json.dumps({
            "objectType": "lsp", "source": "lsp", "kind": kind, "name": name,
            "imported": "false", "file": uri, "startLine": line + 1, "startColumn": col + 1,
            "endLine": end_line + 1, "endColumn": end_col + 1}))
    return out


def check_answer(results: list[NodeResult], uri: str) -> list[str]:
    out: list[str] = []
    for r in results:
        props: list[dict[str, Any]] = []
        for p in r.properties:
            obj = dict(p.json)
            obj["file"] = uri
            props.append(obj)
        analysis = {"objectType": "analysisStart", "top": r.node, "concrete": [], "abstract": [],
                    "assumptions": [], "properties": props}
        if r.error is not None:
            analysis["error"] = r.error
        out.append(json.dumps({"name": r.node, "analyses": [analysis]}))
    return out


def counterexample(result: NodeResult | None, prop: str) -> str | None:
    if result is None:
        return None
    for p in result.properties:
        if p.name == prop:
            blocks = p.json.get("counterExample") or p.json.get("witness")
            return None if blocks is None else json.dumps(blocks)
    return None


def positional(params: Any, names: tuple[str, ...]) -> list[Any]:
    """Request parameters given as a list (Kind 2's extension) or as an object by name."""
    if isinstance(params, (list, tuple)) and not hasattr(params, "_fields"):
        return list(params) + [None] * (len(names) - len(params))
    if isinstance(params, str):
        return [params] + [None] * (len(names) - 1)
    return [getattr(params, n, None) if not isinstance(params, dict) else params.get(n) for n in names]
