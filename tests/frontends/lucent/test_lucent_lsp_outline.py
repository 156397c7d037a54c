"""The language server's outline of a file whose first line is a comment followed by one-line
declarations (the generated scale models' shape): it used to loop forever measuring the extent
of a one-line declaration after a comment line.  Through the server's document API, each call
under an alarm so that a regression fails rather than hangs."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from kinduct.frontends.lucent.server.document import analyse, symbols

TEXT = """\
-- a comment on the first line
type Mode = enum { Idle, Run };
const K: int = 4;
-- a comment between declarations
function f(x: int) returns (y: int);
let
  y = x + K;
tel
-- trailing comment of f's text

node top(u: int) returns (ok: bool);
var m: Mode;
let
  m = if f(u) > 0 then Run else Idle;
  ok = m = Run or u <= -K;
  check ok; (* a block comment at the end of a line *)
tel
"""


@pytest.fixture
def alarm() -> Iterator[None]:
    def expired(signum: int, frame: object) -> None:
        raise TimeoutError("the outline did not finish within 10 s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_outline_after_a_comment_line(alarm: None) -> None:
    doc = analyse(TEXT, "/tmp/outline.lus")
    assert doc.notes == []
    outline = symbols(doc)
    lines = TEXT.splitlines()
    got = [(s.name, s.kind, s.span.line, s.span.end_line) for s in outline]
    # each extent: from its own line to its last line of text, the comments after it left out
    assert got == [
        ("Mode", "type", 1, 1),
        ("K", "const", 2, 2),
        ("f", "function", 4, 7),
        ("top", "node", 10, 16),
    ]
    assert lines[7] == "tel" and lines[16] == "tel"
    # a one-line declaration's extent ends at its own end, not at the comment before it
    mode = outline[0].span
    assert (mode.char, mode.end_char) == (0, len(lines[1]))
