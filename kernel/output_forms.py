"""The output forms of ``check`` besides the tables: ``--json`` (one array), ``--xml`` (Kind 2's
XML, :mod:`.report_xml`) and ``--ijson`` (one object per line, :mod:`.report_stream`), for a
run's report and for an error run's (its ``kind2Options``, then the located ``log``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kinduct.kernel.cli_blocks import analyses_objects, print_analyses

if TYPE_CHECKING:
    from kinduct.kernel.report_stream import IncrementalJson
    from kinduct.kernel.runner import ProgressEvent
    from kinduct.kernel.system import TransitionSystem
    from kinduct.kernel.verdict import Verdict


def write_objects(form: str | None, objects: list[dict]) -> None:
    """``objects`` in ``form``: ``xml``, ``ijson``, else one JSON array."""
    if form == "xml":
        from kinduct.kernel.report_xml import xml_document

        sys.stdout.write(xml_document(objects))
    elif form == "ijson":
        sys.stdout.write("".join(json.dumps(o) + "\n" for o in objects))
    else:
        from kinduct.kernel.report_json import dumps_indented

        print(dumps_indented(objects))


def emit_objects(args: argparse.Namespace, objects: list[dict]) -> None:
    """``objects`` as ``--json`` (one array), ``--xml`` (Kind 2's XML) or ``--ijson`` (one
    object per line) print them."""
    write_objects("xml" if args.xml else "ijson" if args.ijson else "json", objects)


def print_results(args: argparse.Namespace, results: Sequence[tuple[TransitionSystem, list[Verdict]]],
                  preamble: Sequence[dict], stream: IncrementalJson | None) -> int:
    """The analyses' report in the output form asked for; Kind 2's exit code of the verdicts."""
    from kinduct.kernel.report import closing_logs
    from kinduct.kernel.verdict import exit_code

    verdicts = [v for _, vs in results for v in vs]
    closing = closing_logs(verdicts) if args.json else []
    if stream is not None:
        stream.finish(results)
        for obj in closing:
            stream.emit(obj)
    elif args.xml:
        emit_objects(args, analyses_objects(results, preamble) + closing)
    else:
        return print_analyses(results, args.json, preamble, args.print_invariants, closing)
    return exit_code(verdicts)


def each_of(*callbacks: Callable[[ProgressEvent], None] | None
            ) -> Callable[[ProgressEvent], None] | None:
    """One progress callback calling each of ``callbacks`` that is not None."""
    present = [c for c in callbacks if c is not None]
    if len(present) <= 1:
        return present[0] if present else None

    def each(event: ProgressEvent) -> None:
        for callback in present:
            callback(event)
    return each


def output_form(argv: Sequence[str]) -> str | None:
    """The machine-readable output a command line asks for: ``xml``, ``ijson``, ``json``, or
    None (tables)."""
    for flag, form in (("--xml", "xml"), ("-xml", "xml"), ("--ijson", "ijson"), ("-ijson", "ijson"),
                       ("--json", "json"), ("-json", "json")):
        if flag in argv:
            return form
    return None


def options_of(args: argparse.Namespace | None) -> list[dict]:
    """The ``kind2Options`` object of a command that runs engines, once its command line is
    read (none before, or for other commands)."""
    from kinduct.kernel.report import options_object

    if args is None or not hasattr(args, "engine") or not hasattr(args, "timeout"):
        return []
    return [options_object(args.engine, args.timeout, getattr(args, "bound", None),
                           bool(getattr(args, "compositional", False)),
                           bool(getattr(args, "modular", False)))]
