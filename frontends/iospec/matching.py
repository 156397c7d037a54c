"""Coverage ``⌈t⌉ ≺ t_g`` of a program trace by a generalized trace (§8.3), with the first
mismatch explained.

The program trace is normalised (its consecutive outputs fused into one word) and walked in
lockstep with the generalized trace.  Inputs must agree exactly; an output word must be one of
the generalized step's words; a generalized output step that allows ``ε`` may be skipped.  The
walk is deterministic (neither trace has two output steps in a row), so the first step where it
cannot go on is *the* first differing action.  The two kinds of mismatch of §3.4:

- ``alignment``: the structure differs: an input where an output (or ``stop``) is due, an output
  where an input or ``stop`` is due, a stop where more is due ("Expected: ..., but got: ...");
- ``output``: an output step is due and the program wrote a word that is not allowed
  ("Unexpected output ..., expected one of ...").

When the program writes a word that an optional output step (one allowing ``ε``) does not
allow, skipping that step is the only way on, and what is due next is an input or ``stop``: an
``alignment`` mismatch, whose message names the optional output too.
"""

from __future__ import annotations

from typing import Literal

import attrs

from kinduct.frontends.iospec.traces import (
    GTrace,
    In,
    OutStep,
    Step,
    Trace,
    normalise,
    show_step,
    show_word,
    show_words,
)

MismatchKind = Literal["alignment", "output"]


@attrs.frozen
class Mismatch:
    """Where and how the program's run leaves the specification.

    ``program_step``/``expected_step`` index the normalised program trace and the generalized
    trace (``len`` of a trace stands for its ``stop``)."""

    kind: MismatchKind
    program_step: int
    expected_step: int
    got: str
    expected: str
    message: str

    def to_json(self) -> dict:
        return attrs.asdict(self)


def _show(steps: tuple[Step, ...], index: int) -> str:
    return "stop" if index >= len(steps) else show_step(steps[index])


def _show_program(steps: tuple[Step, ...], index: int) -> str:
    step = steps[index] if index < len(steps) else None
    if isinstance(step, OutStep):
        return "!" + show_word(next(iter(step.words)))
    return _show(steps, index)


def _describe(steps: tuple[Step, ...], index: int) -> str:
    if index >= len(steps):
        return "stop"
    step = steps[index]
    if isinstance(step, In):
        return "a read (end of input)" if step.value is None else f"input ?{step.value}"
    words = step.words
    if len(words) == 1:
        return f"output !{show_word(next(iter(words)))}"
    return f"output !{show_words(words)}"


def cover(trace: Trace, expected: GTrace) -> Mismatch | None:
    """``None`` when ``⌈trace⌉ ≺ expected``, else the first mismatch."""
    got = normalise(trace).steps
    want = expected.steps
    i = j = 0
    while True:
        a = got[i] if i < len(got) else None
        b = want[j] if j < len(want) else None
        if isinstance(b, OutStep):
            optional = () in b.words
            if isinstance(a, OutStep):
                word = next(iter(a.words))
                if word in b.words:
                    i, j = i + 1, j + 1
                    continue
                if not optional:
                    return Mismatch("output", i, j, _show_program(got, i), _show(want, j),
                                    f"Unexpected output {show_word(word)}, expected one of "
                                    f"{show_words(b.words - {()})}")
                nxt = _describe(want, j + 1)
                return Mismatch("alignment", i, j + 1, _show_program(got, i), _show(want, j + 1),
                                f"Expected: {nxt} (after the optional output "
                                f"{show_words(b.words)}), but got: output !{show_word(word)}")
            if optional:
                j += 1
                continue
            return Mismatch("alignment", i, j, _show_program(got, i), _show(want, j),
                            f"Expected: {_describe(want, j)}, but got: {_describe(got, i)}")
        if isinstance(b, In):
            if isinstance(a, In) and a.value == b.value:
                i, j = i + 1, j + 1
                continue
            return Mismatch("alignment", i, j, _show_program(got, i), _show(want, j),
                            f"Expected: {_describe(want, j)}, but got: {_describe(got, i)}")
        if a is None:
            return None
        return Mismatch("alignment", i, j, _show_program(got, i), "stop",
                        f"Expected: stop, but got: {_describe(got, i)}")
