"""``kinduct iospec ...``: test a program against an I/O specification, match a trace, list the
paths, generate the inputs, evaluate the specification on inputs.

Exit codes: 0 (every test passes / the trace is accepted), 40 (kinduct's "falsified": the first
failing test / the trace is rejected), 3 (a bad specification or trace file), 2 (a bad command
line, a program that cannot be started), 1 (an internal error only).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kinduct.kernel.cli import existing_file, positive_float, positive_int
from kinduct.kernel.errors import InputError, UsageError

FALSIFIED = 40


def _spec(args: argparse.Namespace):
    from kinduct.frontends.iospec.parser import load

    return load(existing_file(args.spec))


def _natural(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0, got '{text}'")
    return value


def _bits(text: str) -> int:
    value = positive_int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"an integer width is at least 2 bits, got '{text}'")
    return value


def _bound(args: argparse.Namespace):
    from kinduct.frontends.iospec.paths import Bound

    return Bound(args.unfoldings, args.max_inputs)


def _eval_error(spec, exc) -> InputError:
    return InputError.at(exc.message, spec.file, spec.source, exc.loc.line or None,
                         exc.loc.column or None)


def _term_error(spec, error, inputs: list[int]) -> None:
    """A term of the specification without a value on these inputs is the specification's
    error (exit 3), not a rejection."""
    if error is not None and error.term and error.loc is not None:
        raise InputError.at(f"on the inputs {inputs}: {error.message}", spec.file, spec.source,
                            error.loc.line or None, error.loc.column or None)


def _explore(spec, args: argparse.Namespace):
    from kinduct.frontends.iospec.evaluate import EvalError
    from kinduct.frontends.iospec.paths import explore

    try:
        return explore(spec, _bound(args), not getattr(args, "no_prune", False), args.overflow)
    except EvalError as exc:
        raise _eval_error(spec, exc) from None


def cmd_paths(args: argparse.Namespace) -> int:
    spec = _spec(args)
    tree = _explore(spec, args)
    shown = tree.paths if args.no_prune else tree.satisfiable()
    sat = len(tree.satisfiable())
    if args.json:
        print(json.dumps({"spec": args.spec, "satisfiable": sat, "paths": [p.to_json() for p in shown],
                          "unsatisfiable": sum(p.status == "unsat" for p in tree.paths),
                          "unknown": sum(p.status == "unknown" for p in tree.paths),
                          "pruned": tree.pruned, "beyond_bound": tree.beyond_bound,
                          "queries": tree.queries, "truncated": tree.truncated,
                          "bound": {"unfoldings": args.unfoldings, "max_inputs": args.max_inputs}},
                         indent=2))
        return 0
    for number, path in enumerate(shown, 1):
        tag = "" if path.status == "sat" else f"  [{path.status}]"
        print(f"{number:>4}  ({len(path.inputs)} inputs)  {path.show()}{tag}")
    extra = f", {tree.pruned} unsatisfiable prefixes pruned" if not args.no_prune else \
        f", {sum(p.status == 'unsat' for p in tree.paths)} unsatisfiable"
    print(f"{sat} satisfiable path(s){extra}, {tree.beyond_bound} cut by the bound "
          f"({args.unfoldings} unfoldings" + (f", {args.max_inputs} inputs" if args.max_inputs is not None
                                              else "") + f"); {tree.queries} solver queries")
    if tree.truncated:
        print(f"stopped after {len(tree.paths)} paths: lower --unfoldings or set --max-inputs")
    return 0


def cmd_inputs(args: argparse.Namespace) -> int:
    import random

    from kinduct.frontends.iospec.inputs import inputs_for_path

    spec = _spec(args)
    tree = _explore(spec, args)
    rng = random.Random(args.seed)
    found = [(n, inputs_for_path(p, args.tests_per_path, rng, args.range))
             for n, p in enumerate(tree.satisfiable(), 1)]
    total = sum(len(pi.sequences) for _, pi in found)
    if args.json:
        print(json.dumps({"spec": args.spec, "paths": len(found), "tests": total,
                          "inputs": [{"path": n, "sequence": list(seq)}
                                     for n, pi in found for seq in pi.sequences]}, indent=2))
        return 0
    for n, pi in found:
        for seq in pi.sequences:
            print(f"{n:>4}  {' '.join(map(str, seq))}")
    print(f"{total} input sequence(s) for {len(found)} satisfiable path(s)")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    from kinduct.frontends.iospec.semantics import gtrace
    from kinduct.frontends.iospec.traces import gtrace_json, show_gtrace

    spec = _spec(args)
    evaluation = gtrace(spec, args.values, args.overflow)
    error = evaluation.error
    _term_error(spec, error, args.values)
    if args.json:
        print(json.dumps({"inputs": args.values,
                          "trace": gtrace_json(evaluation.trace) if evaluation.trace else None,
                          "text": show_gtrace(evaluation.trace) if evaluation.trace else None,
                          "error": error.message if error else None,
                          "inputs_read": error.consumed if error else len(args.values),
                          "warnings": list(evaluation.warnings)}, indent=2))
    elif evaluation.trace is not None:
        print(show_gtrace(evaluation.trace))
        for w in evaluation.warnings:
            print(f"warning: {w}")
    else:
        assert error is not None
        where = f"{spec.file}:{error.loc}: " if error.loc else ""
        print(f"no run of the specification on {args.values}: {where}{error.message}")
    return 0 if evaluation.trace is not None else FALSIFIED


def cmd_match(args: argparse.Namespace) -> int:
    from kinduct.frontends.iospec.matching import cover
    from kinduct.frontends.iospec.semantics import gtrace
    from kinduct.frontends.iospec.traces import gtrace_json, parse_trace, show_gtrace, show_trace

    spec = _spec(args)
    source = Path(args.trace)
    if source.is_file():
        from kinduct.kernel.frontend import read_source

        trace = parse_trace(read_source(source), str(source))
    else:
        trace = parse_trace(args.trace, "<trace>")
    evaluation = gtrace(spec, trace.inputs(), args.overflow)
    _term_error(spec, evaluation.error, list(trace.inputs()))
    mismatch = cover(trace, evaluation.trace) if evaluation.trace is not None else None
    error = evaluation.error
    accepted = evaluation.trace is not None and mismatch is None
    if args.json:
        print(json.dumps({"accepted": accepted, "trace": show_trace(trace),
                          "inputs": list(trace.inputs()),
                          "expected": gtrace_json(evaluation.trace) if evaluation.trace else None,
                          "expected_text": show_gtrace(evaluation.trace) if evaluation.trace else None,
                          "mismatch": mismatch.to_json() if mismatch else None,
                          "error": error.message if error else None}, indent=2))
        return 0 if accepted else FALSIFIED
    print(f"trace:    {show_trace(trace)}")
    if evaluation.trace is None:
        assert error is not None
        where = f" ({spec.file}:{error.loc})" if error.loc else ""
        print(f"rejected: its inputs {list(trace.inputs())} are not an input sequence of the "
              f"specification: {error.message}{where}")
        return FALSIFIED
    print(f"expected: {show_gtrace(evaluation.trace)}")
    if mismatch is None:
        print("accepted")
        return 0
    print(f"rejected ({mismatch.kind} mismatch): {mismatch.message}")
    return FALSIFIED


def cmd_test(args: argparse.Namespace) -> int:
    from kinduct.frontends.iospec.evaluate import EvalError
    from kinduct.frontends.iospec.report import print_report
    from kinduct.frontends.iospec.testing import TestOptions, run_tests

    command = list(args.command)
    if "--" in command:
        # options written between SPEC and '--' (argparse hands them over with the program)
        cut = command.index("--")
        if command[:cut]:
            args = _reparse(args, command[:cut])
        command = command[cut + 1:]
    if not command:
        raise UsageError("give the program to test after '--': kinduct iospec test SPEC -- PROGRAM [ARGS]")
    _check_program(command[0])
    spec = _spec(args)
    options = TestOptions(_bound(args), args.tests_per_path, args.seed, args.range, args.time_limit,
                          args.overflow, True)
    try:
        report = run_tests(spec, command, options)
    except EvalError as exc:
        raise _eval_error(spec, exc) from None
    print_report(args.spec, command, report, options, args.json)
    return 0 if report.failure is None else FALSIFIED


def _reparse(args: argparse.Namespace, options: list[str]) -> argparse.Namespace:
    """``args`` with ``options`` (written after SPEC, before '--') parsed too."""
    again = args.test_parser.parse_args([*options, args.spec, "--", "true"])
    return again


def _check_program(name: str) -> None:
    import os
    import shutil

    if os.sep in name:
        if not (os.path.isfile(name) and os.access(name, os.X_OK)):
            raise UsageError(f"cannot run {name!r}: not an executable file")
    elif shutil.which(name) is None:
        raise UsageError(f"cannot run {name!r}: no such program on PATH")


def _common(parser: argparse.ArgumentParser, bound: bool = True) -> None:
    parser.add_argument("spec", metavar="SPEC", help="an .iospec specification file")
    if bound:
        parser.add_argument("--unfoldings", type=_natural, default=25, metavar="K",
                            help="explore paths that unfold iterations at most K times in all "
                                 "(default 25, the document's)")
        parser.add_argument("--max-inputs", type=_natural, default=None, metavar="L",
                            help="also cut paths after L inputs (default: no cut)")
    parser.add_argument("--overflow", type=_bits, default=None, metavar="BITS",
                        help="keep every integer the specification computes within BITS-bit "
                             "two's complement (constraints on paths, warnings in tests; §5.3.1)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _generation(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tests-per-path", type=positive_int, default=5, metavar="M",
                        help="input sequences per satisfiable path (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the suggestions (default 0)")
    parser.add_argument("--range", type=positive_int, default=100, metavar="R",
                        help="suggest input values within -R..R (default 100)")


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    top = subparsers.add_parser("iospec", help="test interactive programs against I/O specifications",
                                example="kinduct iospec test examples/iospec/sum.iospec -- "
                                        "python3 tests/frontends/iospec/programs/sum_ok.py")
    sub = top.add_subparsers(dest="iospec_command", metavar="COMMAND", parser_class=type(top))
    sub.required = True

    test = sub.add_parser("test", help="run a program on generated inputs; stop at the first failure",
                          example="kinduct iospec test examples/iospec/sum.iospec -- "
                                  "python3 tests/frontends/iospec/programs/sum_ok.py",
                          epilog="exit 0: every test passes; 40: a test failed (shown)")
    _common(test)
    _generation(test)
    test.add_argument("--time-limit", type=positive_float, default=2.0, metavar="SECONDS",
                      help="wall-clock limit of one run of the program (default 2; a run "
                           "that times out is repeated once before it counts)")
    test.add_argument("command", nargs=argparse.REMAINDER, metavar="-- PROGRAM [ARGS]",
                      help="the program to test: it reads standard input and writes standard "
                           "output, one integer per line")
    test.set_defaults(handler=cmd_test, test_parser=test)

    match = sub.add_parser("match", help="is a trace a run of the specification?",
                           example="kinduct iospec match examples/iospec/sum.iospec '?2 ?5 ?3 !8 stop'",
                           epilog="exit 0: accepted; 40: rejected (the first mismatch is shown)")
    _common(match, bound=False)
    match.add_argument("trace", metavar="TRACE",
                       help="a trace such as '?2 ?5 ?3 !8 stop', or a file holding one")
    match.set_defaults(handler=cmd_match)

    paths = sub.add_parser("paths", help="the satisfiable paths of the specification to a bound",
                           example="kinduct iospec paths examples/iospec/sum.iospec")
    _common(paths)
    paths.add_argument("--no-prune", action="store_true",
                       help="build every path to the bound and list the unsatisfiable ones too")
    paths.set_defaults(handler=cmd_paths)

    inputs = sub.add_parser("inputs", help="diverse input sequences for every satisfiable path",
                            example="kinduct iospec inputs examples/iospec/sum.iospec --tests-per-path 2")
    _common(inputs)
    _generation(inputs)
    inputs.set_defaults(handler=cmd_inputs)

    trace = sub.add_parser("trace", help="the generalized trace of the specification on inputs",
                           example="kinduct iospec trace examples/iospec/sum.iospec 2 5 3",
                           epilog="exit 0: the trace is printed; 40: the inputs have no run")
    _common(trace, bound=False)
    trace.add_argument("values", metavar="VALUE", type=int, nargs="*", help="the input sequence")
    trace.set_defaults(handler=cmd_trace)
