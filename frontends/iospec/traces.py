"""Ordinary traces (a program's run), generalized traces (a specification's runs on one input
sequence), normalisation, and their text and JSON forms.

Notation, as in the document: ``?2`` an input, ``!8`` an output, ``stop`` the end; in a
generalized trace an output step is a set of words ``!{ε,2,1.2}`` (``1.2`` is the word of two
outputs, 1 then 2; ``ε`` writes nothing).  A program trace may also hold ``?⊥``: the program
asked for a value after every input had been given.
"""

from __future__ import annotations

import re

import attrs

from kinduct.kernel.errors import InputError

Out = int | str  # an output line: an integer when it reads as one, else the text as printed
Word = tuple[Out, ...]


@attrs.frozen
class In:
    """An input action; ``value=None`` is a read after the last input (end of input)."""

    value: int | None


@attrs.frozen
class Print:
    """One output action (one line the program wrote)."""

    value: Out


Event = In | Print


@attrs.frozen
class OutStep:
    """An output step of a normalised or generalized trace: one of these words is written."""

    words: frozenset[Word]


Step = In | OutStep


@attrs.frozen
class Trace:
    """An ordinary trace; ``stop`` is implicit at the end."""

    events: tuple[Event, ...]

    def inputs(self) -> tuple[int, ...]:
        return tuple(e.value for e in self.events if isinstance(e, In) and e.value is not None)


@attrs.frozen
class GTrace:
    """A generalized (or normalised) trace: no two output steps in a row, none equal to
    ``{ε}``; ``stop`` is implicit at the end."""

    steps: tuple[Step, ...]


def output_value(line: str) -> Out:
    """An output line as a value: surrounding blanks dropped, integers read as integers."""
    text = line.strip()
    return int(text) if re.fullmatch(r"[-+]?[0-9]+", text) else text


def normalise(trace: Trace) -> GTrace:
    """``⌈t⌉``: consecutive outputs fused into one step holding the single word they write."""
    steps: list[Step] = []
    word: list[Out] = []
    for event in trace.events:
        if isinstance(event, Print):
            word.append(event.value)
            continue
        if word:
            steps.append(OutStep(frozenset({tuple(word)})))
            word = []
        steps.append(event)
    if word:
        steps.append(OutStep(frozenset({tuple(word)})))
    return GTrace(tuple(steps))


# ---- text


def _show_out(value: Out) -> str:
    return str(value) if isinstance(value, int) else '"' + value.replace('"', '\\"') + '"'


def show_word(word: Word) -> str:
    return "ε" if not word else ".".join(_show_out(v) for v in word)


def word_order(word: Word) -> tuple:
    return (len(word), tuple((0, v, "") if isinstance(v, int) else (1, 0, v) for v in word))


def show_words(words: frozenset[Word]) -> str:
    return "{" + ",".join(show_word(w) for w in sorted(words, key=word_order)) + "}"


def show_trace(trace: Trace, end: str = "stop") -> str:
    """The trace in the document's notation, ending with ``end`` (``stop``, or a mark that the
    run was cut short)."""
    parts = []
    for event in trace.events:
        if isinstance(event, In):
            parts.append("?⊥" if event.value is None else f"?{event.value}")
        else:
            parts.append("!" + _show_out(event.value))
    return " ".join([*parts, end])


def show_step(step: Step) -> str:
    if isinstance(step, In):
        return "?⊥" if step.value is None else f"?{step.value}"
    return "!" + show_words(step.words)


def show_gtrace(trace: GTrace) -> str:
    return " ".join([*(show_step(s) for s in trace.steps), "stop"])


_TOKEN = re.compile(r'\s*(?:(\?)([-+]?[0-9]+)|(!)([-+]?[0-9]+|"(?:[^"\\]|\\.)*")|(stop)\b)')


def parse_trace(text: str, file: str | None = None) -> Trace:
    """Read ``?2 ?5 ?3 !8 stop`` (``stop`` may be left out; an output that is not an integer is
    written in double quotes).  Errors are located (exit 3)."""
    events: list[Event] = []
    pos = 0
    stopped = False
    body = text.rstrip()
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if m is None or stopped:
            line = body.count("\n", 0, pos) + 1
            col = pos - (body.rfind("\n", 0, pos) + 1) + 1
            while col <= len(body.splitlines()[line - 1]) and body[pos].isspace():
                pos, col = pos + 1, col + 1
            what = "nothing after stop" if stopped else "?INT (input), !INT or !\"text\" (output) or stop"
            raise InputError.at(f"expected {what}", file, text, line, col)
        if m.group(1):
            events.append(In(int(m.group(2))))
        elif m.group(3):
            raw = m.group(4)
            events.append(Print(int(raw) if not raw.startswith('"')
                                else raw[1:-1].replace('\\"', '"')))
        else:
            stopped = True
        pos = m.end()
    return Trace(tuple(events))


def example_run(trace: GTrace) -> Trace:
    """One ordinary run the generalized trace covers, for display (§3.4): optional outputs left
    out, otherwise the smallest allowed word."""
    events: list[Event] = []
    for step in trace.steps:
        if isinstance(step, In):
            events.append(step)
        elif () not in step.words:
            events.extend(Print(v) for v in min(step.words, key=word_order))
    return Trace(tuple(events))


# ---- JSON


def _json_out(value: Out) -> int | str:
    return value


def trace_json(trace: Trace) -> list[dict]:
    return [{"in": e.value} if isinstance(e, In) else {"out": _json_out(e.value)}
            for e in trace.events]


def step_json(step: Step) -> dict:
    if isinstance(step, In):
        return {"in": step.value}
    return {"out": [list(w) for w in sorted(step.words, key=word_order)]}


def gtrace_json(trace: GTrace) -> list[dict]:
    return [step_json(s) for s in trace.steps]
