"""What the watchdog prints if it ends a ``check`` run (:func:`watchdog.fallback`): the report
of what the run decided so far, every other property ``unknown`` ("timeout") with the bound
the engines reached.  It follows the run as a progress callback
(:attr:`RunOptions.progress`) and is rendered again when a property is decided, and at most
once a second when a bound grows, so that a starved run that the watchdog ends still reports
its verdicts."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kinduct.kernel.report import human_report, json_objects, log_object, property_object
from kinduct.kernel.text_tables import PlainConsole
from kinduct.kernel.verdict import Answer, Verdict

if TYPE_CHECKING:
    from kinduct.kernel.runner import ProgressEvent
    from kinduct.kernel.system import Property, TransitionSystem

#: Seconds between two renderings for a grown bound alone.
BOUND_EVERY = 1.0


class PartialReport:
    """The fallback report of a run over ``systems`` (``preamble``: the JSON objects before
    them; ``grace``: how long after ``timeout`` the watchdog ends a run); ``publish`` receives
    each rendering; ``current`` is the index of the system being decided."""

    def __init__(self, systems: Sequence[TransitionSystem], preamble: Sequence[dict], as_json: bool,
                 timeout: float, grace: float, publish: Callable[[str], None],
                 xml: bool = False, lines: bool = False) -> None:
        self.systems, self.preamble, self.as_json = list(systems), list(preamble), as_json
        self.xml = xml  # Kind 2's XML rather than the JSON array
        self.lines = lines  # --ijson: one object per line (repeating those printed already)
        self.timeout, self.grace, self.publish = timeout, grace, publish
        self.current = 0
        self.decided: dict[tuple[int, str], Verdict] = {}
        self.bounds: dict[tuple[int, str], tuple[int, str]] = {}
        self.last = 0.0
        self.rendered: dict[tuple[int, str], dict] = {}
        publish(self.render())

    def __call__(self, event: ProgressEvent) -> None:
        if event.kind == "verdict" and event.verdict is not None and event.verdict.answer.definitive:
            self.decided.setdefault((self.current, event.verdict.property), event.verdict)
            self.last = time.monotonic()
            if event.settled and self.current == len(self.systems) - 1:
                # the last run is over and its report follows at once: a rendering now (a
                # 1 MB model's counterexample: a lift and 44 MB to the sentinel, 2 s) would
                # only be printed if the report itself did not come out
                return
            self.publish(self.render())
        elif event.kind == "reached" and event.k is not None and event.engine:
            for name in event.properties:
                known = self.bounds.get((self.current, name))
                if known is None or event.k > known[0]:
                    self.bounds[(self.current, name)] = (event.k, event.engine)
            if time.monotonic() - self.last >= BOUND_EVERY:
                self.last = time.monotonic()
                self.publish(self.render())

    def verdicts(self, index: int) -> list[Verdict]:
        """System ``index``'s verdicts so far: decided ones, else unknown with its bound."""
        out = []
        for prop in self.systems[index].properties:
            decided = self.decided.get((index, prop.name))
            if decided is not None:
                out.append(decided)
                continue
            k, engine = self.bounds.get((index, prop.name), (None, None))
            out.append(Verdict(prop.name, Answer.UNKNOWN, engine=engine, k=k,
                               runtime=self.timeout, message="timeout", timeout=True))
        return out

    def property_object(self, index: int, system: TransitionSystem, prop: Property,
                        verdict: Verdict) -> dict:
        """The JSON object of one property: a decided verdict's once (its trace is lifted
        once, not again at each later rendering, which made a run deciding many
        counterexamples quadratic and let the watchdog end it)."""
        key = (index, prop.name)
        if not verdict.answer.definitive:
            return property_object(system, prop, verdict)
        if key not in self.rendered:
            self.rendered[key] = property_object(system, prop, verdict)
        return self.rendered[key]

    def render(self) -> str:
        results = [(s, self.verdicts(i)) for i, s in enumerate(self.systems)]
        if self.as_json:
            objects = list(self.preamble)
            for index, (system, verdicts) in enumerate(results):
                start, *_, stop = json_objects(system, [], [])
                by_name = {p.name: p for p in system.properties}
                objects.append(start)
                objects.extend(self.property_object(index, system, by_name[v.property], v)
                               for v in verdicts)
                objects.append(stop)
            objects.append(log_object("warn", "kinduct", f"timeout: the run was ended "
                                      f"{self.grace:g} s after --timeout {self.timeout:g}"))
            if self.xml:
                from kinduct.kernel.report_xml import xml_document

                return xml_document(objects)
            if self.lines:
                return "".join(json.dumps(o) + "\n" for o in objects)
            return json.dumps(objects, indent=2) + "\n"
        text = io.StringIO()
        out = PlainConsole(100, text)  # written as rich would, without loading it at the deadline
        for system, verdicts in results:
            human_report(out, system, list(system.properties), verdicts)
        return text.getvalue()
