"""Live progress of ``kinduct check`` on a terminal: per property its state, per engine how
far it got, the time so far; a final line with the wall time.  Drawn with rich on stderr, and
only when stderr is a terminal and the output is not ``--json``."""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any

from kinduct.kernel.verdict import Answer, Verdict

if TYPE_CHECKING:
    from rich.console import Console, Group

    from kinduct.kernel.runner import ProgressEvent


class LiveProgress:
    """A callable for :attr:`RunOptions.progress`, used as a context manager around runs."""

    def __init__(self, start: float, console: Console | None = None) -> None:
        from rich.console import Console
        from rich.live import Live

        self.start = start
        self.console = console or Console(stderr=True, highlight=False)
        self.answers: dict[str, Verdict | None] = {}
        self.engines: dict[str, str] = {}
        self.live = Live(console=self.console, refresh_per_second=4, transient=True,
                         get_renderable=self.render)

    @staticmethod
    def wanted(as_json: bool) -> bool:
        """Not under ``--json``; only when rich sees a terminal on stderr (asked only when
        stderr is a terminal or the environment may force one, so that a run into a pipe never
        imports rich)."""
        if as_json:
            return False
        try:
            tty = sys.stderr.isatty()
        except (AttributeError, ValueError):  # no stderr, or a closed one
            tty = False
        if not tty and not any(
                os.environ.get(v) is not None for v in ("FORCE_COLOR", "TTY_COMPATIBLE")):
            return False
        from rich.console import Console

        return Console(stderr=True).is_terminal

    def __enter__(self) -> LiveProgress:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.live.__exit__(*exc)
        decided = sum(1 for v in self.answers.values() if v is not None and v.answer.definitive)
        self.console.print(f"[dim]{decided}/{len(self.answers)} properties decided, wall time "
                           f"{time.monotonic() - self.start:.2f} s[/]")

    def __call__(self, event: ProgressEvent) -> None:
        if event.kind == "start":
            for name in event.properties:
                self.answers.setdefault(name, None)
            for name in event.engines:
                self.engines[name] = "running"
        elif event.kind == "verdict" and event.verdict is not None:
            v = event.verdict
            known = self.answers.get(v.property)
            if known is None or not known.answer.definitive:
                self.answers[v.property] = v
            if v.k is not None and event.engine and self.engines.get(event.engine) == "running":
                self.engines[event.engine] = f"running, k = {v.k}"
        elif event.kind == "reached" and event.engine and event.k is not None:
            if self.engines.get(event.engine, "").startswith("running"):
                self.engines[event.engine] = f"running, k = {event.k}"
        elif event.kind == "done" and event.engine:
            self.engines[event.engine] = "done"
        elif event.kind == "failed" and event.engine:
            self.engines[event.engine] = f"failed: {event.note or ''}"

    def render(self) -> Group:
        from rich.console import Group
        from rich.markup import escape
        from rich.table import Table
        from rich.text import Text

        table = Table(box=None, show_header=False, padding=(0, 1))
        for name, verdict in self.answers.items():
            if verdict is None:
                state = "[yellow]checking[/]"
            elif verdict.answer is Answer.UNKNOWN:
                state = f"[yellow]checking[/] (safe to {verdict.k})" if verdict.k is not None else \
                    "[yellow]checking[/]"
            else:
                state = f"{verdict.answer.value} ({verdict.engine}, k = {verdict.k})"
            table.add_row(escape(name), state)
        engines = ", ".join(f"{n}: {escape(s)}" for n, s in self.engines.items())
        elapsed = Text(f"{time.monotonic() - self.start:.1f} s  {engines}", style="dim")
        return Group(table, elapsed)
