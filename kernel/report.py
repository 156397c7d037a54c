"""Printing verdicts: Kind 2-compatible JSON, and tables for people (:mod:`kinduct.kernel.text_tables`)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from kinduct.kernel.errors import SourceLocation
from kinduct.kernel.frontend import SourceFormula
from kinduct.kernel.system import Property, PropertyKind, TransitionSystem
from kinduct.kernel.text_tables import Column, Styled, TextTable
from kinduct.kernel.verdict import Answer, Trace, Value, Verdict


def json_value(value: Value) -> Any:
    """Kind 2 prints every real as ``{"num": n, "den": d}``, an integral one too
    (``{"num": 10, "den": 1}``)."""
    if isinstance(value, Fraction):
        return {"num": value.numerator, "den": value.denominator}
    return value


def type_name(var) -> str:
    """Kind 2's name of a symbol's (or a PySMT type's) type; ``abstr`` when it has none."""
    from pysmt.fnode import FNode

    t = var.symbol_type() if isinstance(var, FNode) else var
    if t.is_bool_type():
        return "bool"
    if t.is_int_type():
        return "int"
    if t.is_real_type():
        return "real"
    return "abstr"


def default_lift(system: TransitionSystem, trace: Trace) -> list[dict[str, Any]]:
    """One node block naming every variable of the system: inputs as ``input``, state as
    ``local``.  Frontends with source-level names provide their own ``lift``."""
    streams = []
    inputs = set(system.input_vars)
    for var in system.input_vars + system.state_vars:
        name = var.symbol_name()
        if not trace.steps or name not in trace.steps[0]:
            continue
        streams.append({
            "name": name,
            "type": type_name(var),
            "class": "input" if var in inputs else "local",
            "instantValues": [[k, json_value(step[name])] for k, step in enumerate(trace.steps)],
        })
    return [{"blockType": "node", "name": system.name, "streams": streams}]


def lift(system: TransitionSystem, trace: Trace, prop: Property | None) -> list[dict[str, Any]]:
    if system.lift is not None:
        return system.lift(trace, prop)
    return default_lift(system, trace)


def property_object(system: TransitionSystem, prop: Property, verdict: Verdict) -> dict[str, Any]:
    loc = prop.location
    answer_value = verdict.answer.value if verdict.answer is not Answer.ERROR else "unknown"
    obj: dict[str, Any] = {
        "objectType": "property",
        "name": prop.name,
        "scope": prop.scope or system.name,
        "line": (loc.line if loc and loc.line else 0),
        "column": (loc.column if loc and loc.column else 0),
        "source": prop.source,
        "runtime": {"unit": "sec", "timeout": verdict.timeout, "value": round(verdict.runtime, 3)},
        "answer": {"source": verdict.engine or "kinduct", "value": answer_value},
        "isCandidate": False,  # Kind 2: true only for its own candidate invariants
    }
    if loc and loc.file:
        obj["file"] = loc.file
    if verdict.k is not None and verdict.answer.definitive:
        obj["k"] = verdict.k
    elif verdict.k is not None and verdict.answer is Answer.UNKNOWN:
        # Kind 2: the largest k with no violation at steps 0..k (of a reachability property:
        # no witness there)
        key = "unreachableFor" if prop.kind is PropertyKind.REACHABLE else "trueFor"
        obj[key] = verdict.k
    if verdict.solver:
        obj["solver"] = verdict.solver
    if verdict.trace is not None:
        key = "witness" if verdict.answer is Answer.REACHABLE else "counterExample"
        obj[key] = lift(system, verdict.trace, prop)
    if verdict.invariant is not None:
        obj["invariant"] = verdict.invariant
        shown = source_invariant(system, verdict)
        if shown is not None and shown.text is not None:  # kinduct's addition
            obj["sourceInvariant"] = shown.text
    if verdict.on_implementations is not None:  # kinduct's addition: is the abstraction's trace real?
        obj["onImplementations"] = verdict.on_implementations
    if verdict.answer is Answer.ERROR:
        obj["error"] = verdict.message or "error"
    elif verdict.message and verdict.answer is Answer.UNKNOWN:
        obj["reason"] = verdict.message
    obj.update(verdict.extra)
    return obj


#: kinduct's engines by the names the JSON format gives the engines doing the same job.
JSON_ENGINE_NAMES = {"bmc": "bmc", "kind": "ind", "ic3": "ic3", "invgen": "invgen"}


def options_object(engines: Sequence[str], timeout: float | None, bound: int | None,
                   compositional: bool = False, modular: bool = False) -> dict[str, Any]:
    """The JSON format's options object: the engines that ran and the limits of the run."""
    return {
        "objectType": "kind2Options",
        "enabled": [JSON_ENGINE_NAMES.get(name, name) for name in engines],
        "timeout": float(timeout or 0.0),
        "bmcMax": int(bound or 0),
        "compositional": bool(compositional),
        "modular": bool(modular),
    }


def log_object(level: str, source: str, value: str,
               location: SourceLocation | None = None) -> dict[str, Any]:
    """A Kind 2 ``log`` object (``level``: fatal, error, warn, info, debug)."""
    obj: dict[str, Any] = {"objectType": "log", "level": level, "source": source}
    if location is not None:
        if location.file:
            obj["file"] = location.file
        if location.line is not None:
            obj["line"] = location.line
        if location.column is not None:
            obj["column"] = location.column
    obj["value"] = value
    return obj


def closing_logs(verdicts: Sequence[Verdict]) -> list[dict[str, Any]]:
    """Kind 2's ``log`` objects after the analyses of a run that left some property unknown:
    the note that the result is incomplete, and, when the time limit ended it, Kind 2's
    ``fatal`` "Wallclock timeout."."""
    unknown = [v for v in verdicts if v.answer in (Answer.UNKNOWN, Answer.ERROR)]
    if not unknown:
        return []
    out = [log_object("note", "parse",
                      "Incomplete analysis result: Not all properties could be proven invariant")]
    if any(v.timeout for v in unknown):
        out.append(log_object("fatal", "parse", "Wallclock timeout."))
    return out


def json_objects(system: TransitionSystem, props: Sequence[Property],
                 verdicts: Sequence[Verdict], extra_objects: Sequence[dict] = ()) -> list[dict]:
    """The analysisStart, property and analysisStop objects of one analysis."""
    objects: list[dict[str, Any]] = [
        {"objectType": "analysisStart", "top": system.name,
         "concrete": list(system.abstraction.concrete), "abstract": list(system.abstraction.abstract),
         "assumptions": []}
    ]
    objects.extend(extra_objects)
    by_name = {p.name: p for p in props}
    for verdict in verdicts:
        objects.append(property_object(system, by_name[verdict.property], verdict))
    objects.append({"objectType": "analysisStop"})
    return objects


_STYLE = {
    Answer.VALID: "green", Answer.UNREACHABLE: "yellow", Answer.FALSIFIABLE: "red",
    Answer.REACHABLE: "green", Answer.UNKNOWN: "yellow", Answer.ERROR: "bold red",
}


def format_value(value: Any, type_name: str | None = None) -> str:
    """A value as the JSON and the tables print it: ``true``/``false``, ``3``, ``1.5`` or ``1/3`` for reals
    (``2.0`` when the stream is real), ``[1, 2]`` for arrays, ``{a = 1; b = true}`` for records."""
    if isinstance(value, dict) and "num" in value and "den" in value and len(value) == 2:
        num, den = value["num"], value["den"]
        if _terminates(den):
            return _decimal(Fraction(num, den))
        return f"{num}/{den}"
    if isinstance(value, Fraction):
        return format_value(json_value(value), "real")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and type_name == "real":
        return f"{value}.0"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_value(v, type_name) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + "; ".join(f"{k} = {format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _terminates(den: int) -> bool:
    """Whether ``1/den`` has a finite decimal expansion (``den`` = 2^a 5^b)."""
    for p in (2, 5):
        while den > 1 and den % p == 0:
            den //= p
    return den == 1


def _decimal(value: Fraction) -> str:
    """A fraction whose denominator divides a power of ten, as an exact decimal."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    whole, rest = divmod(value.numerator, value.denominator)
    digits = ""
    while rest:
        rest *= 10
        digit, rest = divmod(rest, value.denominator)
        digits += str(digit)
    return f"{sign}{whole}.{digits or '0'}"


def _k_cell(v: Verdict) -> str:
    if v.k is None:
        return "-"
    if v.answer is Answer.UNKNOWN:
        return f"safe to {v.k}"  # Kind 2's trueFor
    return str(v.k)


def human_report(console, system: TransitionSystem, props: Sequence[Property],
                 verdicts: Sequence[Verdict], invariants: bool = False) -> None:
    """A table of verdicts, then each counterexample as tables of streams over steps (and,
    with ``invariants``, the invariant certifying each valid property, in the source's syntax
    when the frontend prints it, else as SMT-LIB over the system's variables).

    ``console`` is rich's or a :class:`~kinduct.kernel.text_tables.PlainConsole`: it is given
    :class:`~kinduct.kernel.text_tables.TextTable` and ``Styled`` lines, so names from users'
    models (``z[l3c34]``) are never read as markup.  No cell is ever cut short: long values
    fold onto several lines."""
    title = system.name
    if system.abstraction.abstract:
        title += f" (by contract: {', '.join(system.abstraction.abstract)})"
    columns = tuple(Column(head) for head in ("property", "verdict", "engine", "k", "time (s)"))
    console.print(TextTable(title, columns, tuple(
        (v.property, Styled(v.answer.value, _STYLE[v.answer]), v.engine or "-", _k_cell(v),
         f"{v.runtime:.2f}") for v in verdicts)))
    by_name = {p.name: p for p in props}
    for v in verdicts:
        if v.answer is Answer.ERROR or (v.answer is Answer.UNKNOWN and v.message):
            console.print(Styled(f"{v.property}: {v.message}", "dim"))
        if invariants:
            _print_invariant(console, system, v)
        if v.trace is None:
            continue
        if v.on_implementations is not None:
            console.print(Styled(f"{v.property}: {_abstract_note(system, v)}", "dim"))
        label = "witness" if v.answer is Answer.REACHABLE else "counterexample"
        label = f"{label} for {v.property}"
        for block in lift(system, v.trace, by_name[v.property]):
            _print_block(console, label, block, len(v.trace))
        if "word" in v.extra:
            console.print(Styled(f"word: {' '.join(map(str, v.extra['word']))}"))


def source_invariant(system: TransitionSystem, verdict: Verdict) -> SourceFormula | None:
    """The invariant of a valid verdict (its k-inductive one when it has no 1-inductive one)
    in the source's syntax, by the system's frontend (:meth:`Frontend.source_formula`); None
    when there is no invariant or the frontend has no printer."""
    from pysmt.exceptions import PysmtException

    from kinduct.kernel.lemmas import parse_lemmas
    from kinduct.kernel.registry import frontends

    text = verdict.invariant or (verdict.proof.invariant if verdict.proof else None)
    frontend = frontends().get(system.origin.frontend or "")
    if text is None or frontend is None:
        return None
    try:
        (formula,) = parse_lemmas(system, [text])
    except (PysmtException, ValueError) as exc:
        return SourceFormula(None, False, (f"the invariant does not parse: {exc}",))
    return frontend.source_formula(system, formula)


def _print_invariant(console, system: TransitionSystem, v: Verdict) -> None:
    """The invariant of a valid verdict: in the source's syntax when the frontend can print
    it (with what its names that the component cannot read mean), else in SMT-LIB."""
    text = v.invariant or (v.proof.invariant if v.proof else None)
    if text is None:
        return
    k = f" ({v.proof.k}-inductive)" if v.invariant is None and v.proof and v.proof.k > 1 else ""
    shown = source_invariant(system, v)
    if shown is not None and shown.text is not None:
        console.print(Styled(f"invariant for {v.property}{k}: {shown.text}"))
        for note in shown.notes:
            console.print(Styled(f"  -- {note}"))
        return
    console.print(Styled(f"invariant for {v.property}{k} (SMT-LIB): {text}"))
    for note in shown.notes if shown is not None else ():
        console.print(Styled(f"  -- {note}"))


def _abstract_note(system: TransitionSystem, v: Verdict) -> str:
    """What a counterexample (witness) of an abstraction says of the implementations."""
    what = "witness" if v.answer is Answer.REACHABLE else "counterexample"
    abstract = system.abstraction.abstract
    by = f"{abstract[0]} by its contract" if len(abstract) == 1 else \
        f"{', '.join(abstract)} by their contracts"
    if v.on_implementations:
        return f"a {what} with {by}; with the implementations, the same inputs give it too"
    return (f"a {what} with {by} only; with the implementations, the same inputs do not "
            "give it")


def block_title(block: dict[str, Any], caller: str | None = None) -> str:
    """A trace block's title: ``node Counter``, and for an instance ``caller`` calls, where
    (Kind 2's ``Counter (Top[L9C8])``)."""
    title = f"{block['blockType']} {block['name']}"
    if caller is not None and block.get("line"):
        title += f" ({caller}[L{block['line']}C{block.get('column', 0)}])"
    return title


def _print_block(console, title: str, block: dict[str, Any], length: int,
                 caller: str | None = None) -> None:
    """``block`` as a table of ``length`` steps (after a table of the contract's modes active at
    each step, when the block has a ``modesTrace``); a stream on a clock (a subnode's) has an
    empty cell where its clock does not tick."""
    streams = block.get("streams", [])
    if streams:
        steps = max([length, *(k + 1 for s in streams for k, _ in s["instantValues"])])
        rows = []
        for s in streams:
            vals = {step: format_value(val, s.get("type")) for step, val in s["instantValues"]}
            rows.append((s["name"], s["class"], [vals.get(k, "") for k in range(steps)]))
        modes = active_modes(block)
        if modes:  # Kind 2's "== Mode(s) ==" section: the active modes at each step
            rows.append(("== Mode(s) ==", "", (modes + [""] * steps)[:steps]))
        print_stream_table(console, f"{title}: {block_title(block, caller)}",
                           ("stream", "class"), rows, steps)
    for sub in block.get("subnodes", []) or []:
        _print_block(console, title, sub, length, block["name"])


def active_modes(block: dict[str, Any]) -> list[str]:
    """The modes of a block's contract whose requires hold, step by step (``name.requires`` in
    its ``modesTrace``), comma separated (empty: none), as Kind 2's ``== Mode(s) ==``."""
    trace = block.get("modesTrace") or []
    by_step: dict[int, list[str]] = {}
    steps = 0
    for s in trace:
        mode, _, part = s["name"].rpartition(".")
        for k, v in s["instantValues"]:
            steps = max(steps, k + 1)
            by_step.setdefault(k, [])
            if part == "requires" and v is True:
                by_step[k].append(mode)
    return [", ".join(by_step.get(k, [])) for k in range(steps)]


def step_chunks(width: int | None, fixed: Sequence[int], cells: Sequence[int]) -> list[range]:
    """Split steps ``0..len(cells)-1`` into runs of consecutive steps whose columns (``cells[k]``
    characters wide), after the ``fixed`` columns, fit in ``width``; one run when ``width`` is None.
    Every run holds at least one step."""
    if width is None or not cells:
        return [range(len(cells))]
    used0 = 1 + sum(w + 3 for w in fixed)  # rich: one border plus two padding per column
    chunks, begin, used = [], 0, used0
    for k, w in enumerate(cells):
        if used + w + 3 > width and k > begin:
            chunks.append(range(begin, k))
            begin, used = k, used0
        used += w + 3
    chunks.append(range(begin, len(cells)))
    return chunks


def print_stream_table(console, title: str, heads: Sequence[str],
                       rows: Sequence[tuple[str, str, Sequence[str]]], steps: int) -> None:
    """Streams over steps: on a terminal, folded into several tables of consecutive steps that
    fit the screen (each repeating the stream names); elsewhere (a pipe, a file) one table as
    wide as the data.  Values are never truncated."""
    fixed = [max([len(heads[0]), *(len(r[0]) for r in rows)]),
             max([len(heads[1]), *(len(r[1]) for r in rows)])]
    cells = [max([len(str(k)), *(len(r[2][k]) for r in rows)]) for k in range(steps)]
    width = console.width if console.is_terminal else None
    chunks = step_chunks(width, fixed, cells)
    for chunk in chunks:
        span = "" if len(chunks) == 1 else f" (steps {chunk.start}-{chunk.stop - 1} of 0-{steps - 1})"
        columns = (Column(heads[0], min_width=min(fixed[0], 40)), Column(heads[1]),
                   *(Column(str(k), right=True, min_width=cells[k]) for k in chunk))
        table = TextTable(title + span, columns,
                          tuple((name, cls, *(values[k] for k in chunk)) for name, cls, values in rows))
        if width is None:  # as wide as the data, whatever the console thinks its width is
            needed = 1 + sum(w + 3 for w in fixed) + sum(cells[k] + 3 for k in chunk)
            before = console.width
            console.width = max(needed, before)
            try:
                console.print(table)
            finally:
                console.width = before
        else:
            console.print(table)
