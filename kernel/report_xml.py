"""Kind 2's ``-xml`` output: the objects the JSON writer declares (:mod:`.report`'s
``kind2Options``, ``log``, ``analysisStart``, ``property``, ... dictionaries), written as the
elements and attributes of Kind 2 v3.0.0's XML (its ``kind2-output.xsd``).

The correspondence, object by object:

- ``kind2Options`` becomes the attributes of the root ``<Results>`` element (``enabled`` comma
  separated, ``timeout``, ``bmc_max``, ``compositional``, ``modular``);
- ``log`` is ``<Log class="level" source=... file= line= column=>value</Log>`` (Kind 2 writes
  ``file`` too, which its schema does not declare);
- ``analysisStart`` is ``<AnalysisStart top= concrete="A,B" abstract= assumptions=/>`` (the
  assumptions as Kind 2's ``(scope,count)`` pairs) and ``analysisStop`` ``<AnalysisStop/>``;
- ``property`` is ``<Property name isCandidate line column scope source file>`` holding
  ``Runtime``, ``K``, ``Answer`` (an unknown's reason, or an error's message, as its
  ``comment``; Kind 2's comment on a one-mode-active check's), ``CounterExample``/``Witness``
  and ``TrueFor``/``UnreachableFor``;
- a trace block is ``<Node>`` or ``<Function>`` with the call site (``file``, ``line``,
  ``column``), its ``assumptionsTrace``, ``guaranteesTrace`` and ``modesTrace`` as
  ``<Contract name="Assumptions|Guarantees|Modes">`` of ghost streams, its ``<Stream>``s
  (with an enumeration's ``enumName`` and ``values``, a subrange's ``min`` and ``max``; each
  ``<Value instant=k>`` a real ``n/d`` or ``n``, an array an ``<Array size>`` of
  ``<Item index>``; a stream with no value is left out) and the blocks of the instances it
  calls;
- ``realizabilityCheck``/``satisfiabilityCheck`` keep their ``Result``, ``Runtime``,
  deadlocking trace and conflicting set; ``modelElementSet``/``noModelElementSet`` (cores)
  and ``postAnalysisStart``/``postAnalysisEnd`` are their elements.

What Kind 2's schema has no place for is not written: the JSON's additions (``solver``,
``invariant``, ``onImplementations``, ``expr``, ...) and objects of kinds it does not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

#: The trace keys that become elements of their own, and the streams of a block's contract.
_CONTRACT_SECTIONS = (("assumptionsTrace", "Assumptions"), ("guaranteesTrace", "Guarantees"),
                      ("modesTrace", "Modes"))


#: Kind 2's comment on the answer of a contract's one-mode-active check.
_ONE_MODE_COMMENTS = {("OneModeActive", "valid"): "contract modes are exhaustive",
                      ("OneModeActive", "falsifiable"): "contract has non-exhaustive modes"}


def _attrs(pairs: Iterable[tuple[str, Any]]) -> str:
    """`` name="value"`` for each pair whose value is not None (Booleans as true/false)."""
    out = []
    for name, value in pairs:
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        out.append(f" {name}={quoteattr(str(value))}")
    return "".join(out)


def _bool(value: Any) -> bool:
    """A Boolean the JSON may hold as a string (Kind 2 writes ``"isCandidate": "false"``)."""
    return value is True or (isinstance(value, str) and value.lower() == "true")


def value_text(value: Any) -> str:
    """A scalar value as Kind 2 writes it inside ``<Value>``: ``true``, ``-3``, a real as
    ``1/2`` (``2`` when integral), an enumeration's constructor by name."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict) and set(value) == {"num", "den"}:
        num, den = value["num"], value["den"]
        return str(num) if den == 1 else f"{num}/{den}"
    if isinstance(value, dict):  # a structured value Kind 2 has no element for: as text
        return "{" + "; ".join(f"{k} = {value_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def _value(value: Any, indent: str) -> list[str]:
    """The content of a ``<Value>``: text, or an ``<Array>`` of ``<Item>``s."""
    if not isinstance(value, list):
        return [escape(value_text(value))]
    lines = [f"{indent}<Array size=\"{len(value)}\">"]
    for i, item in enumerate(value):
        if isinstance(item, list):
            lines.append(f"{indent}  <Item index=\"{i}\">")
            lines.extend(_value(item, indent + "    "))
            lines.append(f"{indent}  </Item>")
        else:
            lines.append(f"{indent}  <Item index=\"{i}\">{escape(value_text(item))}</Item>")
    lines.append(f"{indent}</Array>")
    return lines


def xml_type(name: str) -> str:
    """A stream type as Kind 2's XML names it: the JSON's machine integers ``uint<8>`` and
    ``sint<16>`` are ``uint8`` and ``int16`` there."""
    for json_prefix, xml_prefix in (("uint<", "uint"), ("sint<", "int")):
        if name.startswith(json_prefix) and name.endswith(">"):
            return xml_prefix + name[len(json_prefix):-1]
    return name


def _stream(stream: dict[str, Any], indent: str, cls: str | None = None) -> list[str]:
    info = stream.get("typeInfo") or {}
    enum = stream["type"] == "enum"
    head = _attrs([("name", stream["name"]), ("type", xml_type(stream["type"])),
                   ("min", info.get("min")), ("max", info.get("max")),
                   ("enumName", info.get("name") if enum else None),
                   ("values", ", ".join(info["values"]) if enum and "values" in info else None),
                   ("class", cls or stream.get("class", "local"))])
    lines = [f"{indent}<Stream{head}>"]
    for k, v in stream["instantValues"]:
        content = _value(v, indent + "    ")
        if len(content) == 1 and not content[0].startswith(" "):
            lines.append(f"{indent}  <Value instant=\"{k}\">{content[0]}</Value>")
        else:
            lines += [f"{indent}  <Value instant=\"{k}\">", *content, f"{indent}  </Value>"]
    lines.append(f"{indent}</Stream>")
    return lines


def trace_lines(blocks: Sequence[dict[str, Any]], indent: str) -> list[str]:
    """Trace blocks (the JSON's ``counterExample``/``witness``) as ``<Node>``/``<Function>``
    elements."""
    lines: list[str] = []
    for block in blocks:
        tag = "Function" if block.get("blockType") == "function" else "Node"
        head = _attrs([("name", block["name"]), ("file", block.get("file")),
                       ("line", block.get("line")), ("column", block.get("column"))])
        lines.append(f"{indent}<{tag}{head}>")
        for key, title in _CONTRACT_SECTIONS:
            if block.get(key):
                lines.append(f"{indent}  <Contract name=\"{title}\">")
                for s in block[key]:
                    lines += _stream(s, indent + "    ", "ghost")
                lines.append(f"{indent}  </Contract>")
        for s in block.get("streams", []):
            if s["instantValues"]:  # the schema: at least one value (an instance never stepped)
                lines += _stream(s, indent + "  ")
        lines += trace_lines(block.get("subnodes") or [], indent + "  ")
        lines.append(f"{indent}</{tag}>")
    return lines


def _runtime(runtime: dict[str, Any] | None, indent: str) -> list[str]:
    if not runtime:
        return []
    return [f"{indent}<Runtime{_attrs([('unit', 'sec'), ('timeout', bool(runtime.get('timeout')))])}>"
            f"{float(runtime.get('value', 0.0)):.3f}</Runtime>"]


def property_lines(obj: dict[str, Any]) -> list[str]:
    """A ``property`` object as a ``<Property>`` element (its children in the schema's order)."""
    head = _attrs([("name", obj["name"]), ("isCandidate", _bool(obj.get("isCandidate"))),
                   ("line", obj.get("line")), ("column", obj.get("column")),
                   ("scope", obj.get("scope")), ("source", obj.get("source")),
                   ("file", obj.get("file"))])
    lines = [f"<Property{head}>", *_runtime(obj.get("runtime"), "  ")]
    if obj.get("k") is not None:
        lines.append(f"  <K>{int(obj['k'])}</K>")
    answer = obj.get("answer") or {}
    comment = answer.get("comment") or obj.get("reason") or obj.get("error") or \
        _ONE_MODE_COMMENTS.get((obj.get("source"), answer.get("value")))
    lines.append(f"  <Answer{_attrs([('source', answer.get('source')), ('comment', comment)])}>"
                 f"{escape(answer.get('value', 'unknown'))}</Answer>")
    for key, tag in (("counterExample", "CounterExample"), ("witness", "Witness")):
        if obj.get(key):
            lines += [f"  <{tag}>", *trace_lines(obj[key], "    "), f"  </{tag}>"]
    for key, tag in (("falseAt", "FalseAt"), ("reachableAt", "ReachableAt"),
                     ("trueFor", "TrueFor"), ("unreachableFor", "UnreachableFor")):
        if obj.get(key) is not None:
            lines.append(f"  <{tag}>{int(obj[key])}</{tag}>")
    lines.append("</Property>")
    return lines


def _check_lines(obj: dict[str, Any], tag: str) -> list[str]:
    """A realizability or satisfiability check's element."""
    lines = [f"<{tag}>", f"  <Result>{escape(str(obj.get('result', 'unknown')))}</Result>",
             *_runtime(obj.get("runtime"), "  ")]
    if obj.get("viableStates"):
        lines.append(f"  <ViableStates>{escape(str(obj['viableStates']))}</ViableStates>")
    if obj.get("deadlockingTrace"):
        lines += ["  <DeadlockingTrace>", *trace_lines(obj["deadlockingTrace"], "    "),
                  "  </DeadlockingTrace>"]
    if obj.get("conflictingSet"):
        lines += element_set_lines(obj["conflictingSet"], "ConflictingSet", "  ")
    lines.append(f"</{tag}>")
    return lines


def element_set_lines(obj: dict[str, Any], tag: str, indent: str) -> list[str]:
    """A ``modelElementSet`` object (a conflicting set, a core) as the XSD's element set:
    ``class``, ``size``, ``approximate`` attributes, a ``<Node>`` of ``<Element>``s each."""
    head = _attrs([("class", obj.get("class")), ("size", obj.get("size", 0)),
                   ("property", obj.get("property")),
                   ("approximate", bool(obj.get("approximate", False)))])
    lines = [f"{indent}<{tag}{head}>", *_runtime(obj.get("runtime"), indent + "  ")]
    for node in obj.get("nodes", []):
        lines.append(f"{indent}  <Node{_attrs([('name', node['name'])])}>")
        for e in node.get("elements", []):
            attrs = _attrs([("category", _snake(e.get("category"))), ("name", e.get("name")),
                            ("file", e.get("file")), ("line", e.get("line", 0)),
                            ("column", e.get("column", 0))])
            lines.append(f"{indent}    <Element{attrs}/>")
        lines.append(f"{indent}  </Node>")
    lines.append(f"{indent}</{tag}>")
    return lines


def _snake(name: str | None) -> str | None:
    """The JSON's camel-case names as the XML's (``nodeCall``: ``node_call``)."""
    if name is None:
        return None
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _no_set_lines(obj: dict[str, Any]) -> list[str]:
    head = _attrs([("class", obj.get("class")), ("property", obj.get("property"))])
    return [f"<NoModelElementSet{head}>",
            f"  <Answer>{escape(_snake(str(obj.get('answer', 'unknown'))) or 'unknown')}</Answer>",
            *_runtime(obj.get("runtime"), "  "), "</NoModelElementSet>"]


def _assumptions(pairs: Sequence[Any]) -> str:
    return ",".join(f"({p[0]},{p[1]})" for p in pairs if isinstance(p, list | tuple) and len(p) == 2)


def object_lines(obj: dict[str, Any]) -> list[str]:
    """One object (not ``kind2Options``, which is the root's attributes) as XML lines; none
    for a kind Kind 2's schema does not know."""
    kind = obj.get("objectType")
    if kind == "log":
        head = _attrs([("class", obj.get("level", "info")), ("source", obj.get("source", "kinduct")),
                       ("line", obj.get("line")), ("column", obj.get("column")),
                       ("file", obj.get("file"))])
        return [f"<Log{head}>{escape(str(obj.get('value', '')))}</Log>"]
    if kind == "analysisStart":
        head = _attrs([("top", obj["top"]), ("context", obj.get("context")),
                       ("concrete", ",".join(obj["concrete"]) if "concrete" in obj else None),
                       ("abstract", ",".join(obj["abstract"]) if "abstract" in obj else None),
                       ("assumptions", _assumptions(obj["assumptions"])
                        if "assumptions" in obj else None)])
        return [f"<AnalysisStart{head}/>"]
    if kind == "analysisStop":
        return ["<AnalysisStop/>"]
    if kind == "property":
        return property_lines(obj)
    if kind == "realizabilityCheck":
        return _check_lines(obj, "RealizabilityCheck")
    if kind == "satisfiabilityCheck":
        return _check_lines(obj, "SatisfiabilityCheck")
    if kind == "modelElementSet":
        return element_set_lines(obj, "ModelElementSet", "")
    if kind == "noModelElementSet":
        return _no_set_lines(obj)
    if kind == "postAnalysisStart":
        return [f"<PostAnalysisStart{_attrs([('name', obj.get('name', ''))])}/>"]
    if kind == "postAnalysisEnd":
        return ["<PostAnalysisEnd/>"]
    return []


def results_head(options: dict[str, Any] | None) -> str:
    """The XML declaration and the opening ``<Results>`` tag, with the run's options."""
    attrs = "" if options is None else _attrs([
        ("enabled", ",".join(options.get("enabled", []))),
        ("timeout", f"{float(options.get('timeout', 0.0)):.6f}"),
        ("bmc_max", options.get("bmcMax", 0)),
        ("compositional", bool(options.get("compositional"))),
        ("modular", bool(options.get("modular")))])
    return ('<?xml version="1.0"?>\n<Results '
            f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"{attrs}>\n')


RESULTS_TAIL = "</Results>\n"


def xml_document(objects: Sequence[dict[str, Any]]) -> str:
    """The whole ``-xml`` output of a run whose JSON output is ``objects``."""
    options = next((o for o in objects if o.get("objectType") == "kind2Options"), None)
    body = [line for o in objects if o is not options for line in object_lines(o)]
    return results_head(options) + "".join(line + "\n" for line in body) + RESULTS_TAIL
