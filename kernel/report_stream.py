"""``--ijson``: the JSON output's objects one per line, each printed as soon as it is known
(the options and warnings when the run starts, an ``analysisStart`` when its analysis starts, a
``property`` when its verdict is definitive, the undecided ones and the ``analysisStop`` when
the analysis ends), so that a reader can follow a long run line by line.

A property printed early is not printed again: its definitive verdict is the one the run
accepted (replayed, mapped to the source).  Under a refinement loop (``--modular
--compositional``), where a later turn may change what an analysis reports, properties are
printed when their analysis ends."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from kinduct.kernel.report import json_objects, property_object

if TYPE_CHECKING:
    from kinduct.kernel.runner import ProgressEvent
    from kinduct.kernel.system import TransitionSystem
    from kinduct.kernel.verdict import Verdict


class IncrementalJson:
    """Prints the objects of a run over ``systems`` one per line on ``out``; ``early``: print
    definitive verdicts as they come (progress events), not only when an analysis ends."""

    def __init__(self, systems: Sequence[TransitionSystem], preamble: Sequence[dict],
                 early: bool = True, out: TextIO | None = None) -> None:
        self.systems, self.early = list(systems), early
        self.out = out if out is not None else sys.stdout
        self.current: int | None = None
        self.started: set[int] = set()
        self.finished: set[int] = set()
        self.printed: set[tuple[int, str]] = set()
        for obj in preamble:
            self.emit(obj)

    def emit(self, obj: dict) -> None:
        self.out.write(json.dumps(obj) + "\n")
        self.out.flush()

    def start(self, index: int) -> None:
        """Analysis ``index`` is being decided: its ``analysisStart`` (once)."""
        self.current = index
        if self.early and index not in self.started:
            self.started.add(index)
            self.emit(json_objects(self.systems[index], [], [])[0])

    def __call__(self, event: ProgressEvent) -> None:
        """A progress event: a definitive verdict of the current analysis is printed now."""
        if not self.early or self.current is None or event.kind != "verdict":
            return
        verdict = event.verdict
        if verdict is None or not verdict.answer.definitive:
            return
        system = self.systems[self.current]
        prop = next((p for p in system.properties if p.name == verdict.property), None)
        if prop is None or (self.current, prop.name) in self.printed:
            return
        self.printed.add((self.current, prop.name))
        self.emit(property_object(system, prop, verdict))

    def finish(self, results: Sequence[tuple[TransitionSystem, list[Verdict]]]) -> None:
        """Every analysis's objects not printed yet, in order, each ended by ``analysisStop``."""
        for index, (system, verdicts) in enumerate(results):
            if index in self.finished:
                continue
            self.finished.add(index)
            if index not in self.started or index >= len(self.systems):
                self.started.add(index)
                self.emit(json_objects(system, [], [])[0])
            by_name = {p.name: p for p in system.properties}
            for verdict in verdicts:
                if (index, verdict.property) in self.printed:
                    continue
                self.printed.add((index, verdict.property))
                self.emit(property_object(system, by_name[verdict.property], verdict))
            self.emit({"objectType": "analysisStop"})
