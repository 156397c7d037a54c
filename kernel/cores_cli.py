"""``kinduct cores FILE``: inductive validity cores (``--ivc``) and minimal cut sets
(``--mcs``) of a model's valid properties, with Kind 2's option names (``--ivc_category``,
``--print_ivc_complement``, ``--mcs_category``, ``--mcs_all``, ``--mcs_max_cardinality``...;
``kinduct FILE --ivc true`` and ``--enable MCS`` are spelled so by the Kind 2 spellings).

The model is loaded once with its elements guarded by activation literals
(``LoadOptions.elements``); the properties are decided with every element on (``--timeout``),
then each core query is a decision of the same system with elements switched off, bounded
by ``--query-timeout``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import attrs

from kinduct.kernel.cli_blocks import (
    add_engine_options,
    console,
    existing_file,
    parse_bool,
    run_options,
    timeout_seconds,
)
from kinduct.kernel.elements import CATEGORIES
from kinduct.kernel.frontend import LoadOptions


def add_cores_command(sub: argparse._SubParsersAction) -> None:
    cores = sub.add_parser("cores", help="inductive validity cores and minimal cut sets",
                           description="Which model elements the proofs of the valid properties "
                                       "need (IVC), and which ones, removed, break them (MCS).",
                           example="kinduct cores examples/lucent/combine.lus --ivc --mcs")
    cores.add_argument("file", help="the model (a frontend with model elements: .lus)")
    add_engine_options(cores)
    cores.set_defaults(whole_run_timeout=False)  # --timeout bounds the first analysis only
    cores.add_argument("--main", metavar="NODE", help="the component to analyse")
    cores.add_argument("--property", action="append", help="only this property (repeatable)")
    cores.add_argument("--query-timeout", type=timeout_seconds, default=5.0,
                       help="seconds for each proof a core needs (default 5; an unknown answer "
                            "keeps the element and marks the set approximate)")
    cores.add_argument("--ivc", type=parse_bool, nargs="?", const=True, default=False,
                       metavar="BOOL", help="an inductive validity core of the valid properties")
    cores.add_argument("--ivc_category", action="append", choices=sorted(CATEGORIES), default=[],
                       help="minimise only these categories (repeatable; default: all)")
    cores.add_argument("--ivc_per_property", type=parse_bool, nargs="?", const=True,
                       default=False, metavar="BOOL",
                       help="one core per property (default: one for all together, as Kind 2)")
    cores.add_argument("--print_ivc", type=parse_bool, nargs="?", const=True, default=True,
                       metavar="BOOL", help="print the core (default true)")
    cores.add_argument("--print_ivc_complement", type=parse_bool, nargs="?", const=True,
                       default=False, metavar="BOOL", help="print the elements outside the core")
    cores.add_argument("--mcs", type=parse_bool, nargs="?", const=True, default=False,
                       metavar="BOOL", help="minimal cut sets of each valid property")
    cores.add_argument("--mcs_category", action="append", choices=sorted(CATEGORIES), default=[],
                       help="consider only these categories (repeatable; default: all, where "
                            "Kind 2's default is annotations)")
    cores.add_argument("--mcs_all", type=parse_bool, nargs="?", const=True, default=False,
                       metavar="BOOL", help="every minimal cut set, not just one")
    cores.add_argument("--mcs_max_cardinality", type=int, default=-1,
                       help="only sets of at most this many elements (-1: no bound)")
    cores.add_argument("--xml", action="store_true", help="Kind 2's XML output (-xml)")
    cores.add_argument("--ijson", action="store_true", help="JSON objects one per line")
    cores.set_defaults(handler=cmd_cores)


def cmd_cores(args: argparse.Namespace) -> int:
    from kinduct.kernel import cores, elementsets
    from kinduct.kernel.cli_blocks import run_start
    from kinduct.kernel.decide import decide
    from kinduct.kernel.elements import selected, switched
    from kinduct.kernel.errors import UsageError
    from kinduct.kernel.loading import load_systems
    from kinduct.kernel.report import human_report, json_objects
    from kinduct.kernel.system import PropertyKind
    from kinduct.kernel.verdict import Answer, exit_code

    start = run_start()
    form = "xml" if args.xml else "ijson" if args.ijson else "json" if args.json else None
    args.json = form is not None
    if not args.ivc and not args.mcs:
        raise UsageError("cores: ask for --ivc, --mcs or both")
    options = run_options(args)
    path = existing_file(args.file)
    systems = load_systems(path, None, LoadOptions(main=args.main, elements=True))
    query = attrs.evolve(options, timeout=args.query_timeout)

    def oracle(system, names: Sequence[str]):
        return decide(system, query, None, names)

    objects: list[dict] = []
    out = None if args.json else console()
    verdicts_all = []
    for full in systems:
        if not full.elements:
            sys.stderr.write(f"kinduct: note: {full.name}: the model has no elements to minimise\n")
        names = [p.name for p in full.properties if not args.property or p.name in args.property]
        system = switched(full, full.elements)
        verdicts = decide(system, options, start, names)
        verdicts_all += verdicts
        valid = [v.property for v in verdicts if v.answer is Answer.VALID
                 and full.property(v.property).kind is PropertyKind.INVARIANT]
        sets: list = []
        if not full.elements:
            valid = []  # nothing to minimise or cut: the verdicts only
        if args.ivc and valid:
            candidates = selected(full.elements, args.ivc_category)
            groups = [[p] for p in valid] if args.ivc_per_property else [valid]
            sets += [cores.ivc(full, g, candidates, oracle) for g in groups]
        if args.mcs:
            candidates = selected(full.elements, args.mcs_category)
            for prop in valid:
                found = cores.mcs(full, prop, candidates, oracle, args.mcs_all,
                                  args.mcs_max_cardinality)
                sets += found if isinstance(found, list) else [found]
        shown = [s for s in sets if s.kind != "ivc" or args.print_ivc]
        complements = [s for s in sets if s.kind == "ivc" and args.print_ivc_complement]
        if args.json:
            block = json_objects(system, list(system.properties), verdicts)
            extra = [elementsets.set_object(full, s) for s in shown]
            extra += [elementsets.set_object(full, s, complement=True) for s in complements]
            objects += block[:-1] + extra + block[-1:]
        else:
            human_report(out, system, list(system.properties), verdicts)
            elementsets.print_table(out, full, shown)
            elementsets.print_table(out, full, complements, complement=True)
    if form is not None:
        from kinduct.kernel.output_forms import write_objects

        write_objects(form, objects)
    return exit_code(verdicts_all)
