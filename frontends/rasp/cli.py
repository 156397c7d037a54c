"""``kinduct rasp eval|draw|check``."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from kinduct.frontends.rasp import ops
from kinduct.kernel.errors import InputError, SourceLocation

#: Longest input ``rasp check`` unrolls to.
MAX_CHECK_LENGTH = 64


def _load(path_text: str):
    from kinduct.frontends.rasp.interp import load_program
    from kinduct.kernel.cli_blocks import existing_file

    return load_program(existing_file(path_text))


def _json_value(v: Any) -> Any:
    if isinstance(v, Fraction):
        return float(v)
    if isinstance(v, tuple):
        return [_json_value(x) for x in v]
    return v


def _run(program, node, tokens):
    """Evaluate, turning the program's runtime errors into located input errors."""
    from kinduct.frontends.rasp.evaluate import EvalError, evaluate

    try:
        return evaluate(node, tokens)
    except EvalError as exc:
        loc = exc.node.loc
        raise program.error_at(f"runtime error on input {' '.join(tokens)!r}: {exc.message}", loc) from None


def cmd_eval(args: argparse.Namespace) -> int:
    from kinduct.frontends.rasp.evaluate import split_input

    program = _load(args.program)
    node = program.sop(args.sop, selector_ok=True)
    tokens = split_input(args.input)
    if not tokens:
        raise InputError("the input is empty: give at least one token")
    value = _run(program, node, tokens)
    if args.json:
        out = [[bool(x) for x in row] for row in value] if node.is_selector else \
            [_json_value(v) for v in value]
        print(json.dumps({"sop": args.sop, "input": tokens, "output": out}))
        return 0
    if node.is_selector:
        print(f"{args.sop} on {' '.join(tokens)} (query positions down, key positions across):")
        for i, row in enumerate(value):
            print(f"  {tokens[i]:>3} " + " ".join("1" if x else "0" for x in row))
        return 0
    shown = ", ".join(v if isinstance(v, str) else ops.show(v) for v in value)
    word = repr("".join(tokens)) if all(len(t) == 1 for t in tokens) else f"[{', '.join(tokens)}]"
    print(f"{args.sop}({word}) = [{shown}]")
    return 0


def cmd_draw(args: argparse.Namespace) -> int:
    from kinduct.frontends.rasp.compiler import compile_flow
    from kinduct.frontends.rasp.draw import flow_picture, flow_text
    from kinduct.frontends.rasp.evaluate import split_input

    program = _load(args.program)
    node = program.sop(args.sop)
    tokens = split_input(args.input) if args.input else None
    if tokens is not None:
        if not tokens:
            raise InputError("the input is empty: give at least one token")
        _run(program, node, tokens)  # runtime errors are reported before drawing
    flow = compile_flow(node)
    if args.out:
        out = Path(args.out)
        if out.suffix.lower() not in (".svg", ".png", ".pdf"):
            raise InputError(f"--out {args.out}: the picture must be a .svg, .png or .pdf file")
        if not out.parent.exists():
            raise InputError(f"--out {args.out}: no such directory {out.parent}")
        flow_picture(args.sop, flow, out, tokens)
    if args.json:
        summary = flow.summary()
        summary["heads"] = [[{"selector": h.selector.label(),
                              "aggregates": [a.label() for a in h.aggregates]} for h in row]
                            for row in flow.heads]
        if args.out:
            summary["picture"] = str(args.out)
        print(json.dumps(summary))
    else:
        print(flow_text(args.sop, flow, tokens))
        if args.out:
            print(f"picture written to {args.out}")
    return 0


def _alphabet(text: str) -> list[str]:
    if "," in text:
        letters = [x.strip() for x in text.split(",") if x.strip()]
    elif any(c.isspace() for c in text.strip()):
        letters = text.split()
    else:
        letters = list(text)
    if not letters:
        raise InputError("--alphabet: give at least one letter")
    if len(set(letters)) != len(letters):
        raise InputError(f"--alphabet {text!r}: a letter appears twice")
    return letters


def _target(program, spec: str):
    """``NAME`` in the program, or ``OTHER.rasp:NAME`` in another file."""
    if ":" in spec:
        file, name = spec.rsplit(":", 1)
        if file.endswith(".rasp"):
            other = _load(file)
            return other, other.sop(name), other.where(name)
    return program, program.sop(spec), program.where(spec)


#: Words ``rasp check --assert`` evaluates its s-op on first, to see that it is Boolean.
BOOLEAN_PROBES = 64


def _require_boolean(program, node, place, spec: str, alphabet: list[str],
                     args: argparse.Namespace) -> None:
    """``--assert SOP`` needs a Boolean s-op: one that gives a non-Boolean value on one of the
    first :data:`BOOLEAN_PROBES` words of the shortest length is an input error located at
    its definition."""
    import itertools

    from kinduct.frontends.rasp.encode import run_targets

    first = 1 if args.bos is not None else 0
    words = itertools.product(alphabet, repeat=args.min_length)
    for letters in itertools.islice(words, BOOLEAN_PROBES):
        tokens = ([args.bos] if args.bos is not None else []) + list(letters)
        values, _ = run_targets([node], tokens)
        for i, value in enumerate((values or [[]])[0][first:], start=first):
            if not isinstance(value, bool):
                raise program.error_at(
                    f"--assert {spec}: a Boolean s-op is needed, but it is {_json_value(value)!r} "
                    f"at position {i} of {' '.join(tokens)!r}", place)


def cmd_check(args: argparse.Namespace) -> int:
    from pysmt.environment import Environment

    from kinduct.frontends.rasp.encode import RaspCheck
    from kinduct.kernel import registry
    from kinduct.kernel.bounded import bounded_system
    from kinduct.kernel.cli_blocks import print_verdicts, run_options, run_start
    from kinduct.kernel.decide import decide
    from kinduct.kernel.system import Property
    from kinduct.kernel.verdict import Answer

    start = run_start()  # --timeout counts from the start of the process
    options = run_options(args)
    chosen = registry.backends().get(options.solver)
    if chosen is not None and not chosen.smt:
        raise InputError(f"--solver {options.solver}: rasp check needs an SMT backend (e.g. z3 or "
                         f"cvc5); {options.solver} checks whole transition systems, and RASP "
                         "problems have none")
    program = _load(args.program)
    if args.max_length < 1 or args.min_length < 1 or args.min_length > args.max_length:
        raise InputError("lengths must satisfy 1 <= --min-length <= --max-length")
    if args.max_length > MAX_CHECK_LENGTH:
        raise InputError(f"--max-length {args.max_length}: at most {MAX_CHECK_LENGTH} (the encoding "
                         "grows with the square of the length)")
    alphabet = _alphabet(args.alphabet)
    if args.equiv:
        specs = list(args.equiv)
        mode = "equiv"
        name = f"equiv({specs[0]}, {specs[1]})"
    else:
        specs = [args.assert_]
        mode = "assert"
        name = f"assert({specs[0]}{', at last' if args.at == 'last' else ''})"
    targets = []
    labels = []
    places = []
    for spec in specs:
        owner, node, place = _target(program, spec)
        if mode == "assert":
            _require_boolean(owner, node, place, spec, alphabet, args)
        places.append(place)
        label = spec.rsplit(":", 1)[-1]
        while label in labels:
            label += "'"
        labels.append(label)
        targets.append((label, node))
    env = Environment()
    problem = RaspCheck(env, alphabet, targets, mode, at=args.at, bos=args.bos,
                        min_length=args.min_length, max_length=args.max_length)
    first = places[0]
    location = SourceLocation(first.file, first.line, first.column)
    prop = Property(name, env.formula_manager.TRUE(), location=location, source="PropAnnot")
    system = bounded_system(problem, [prop], name=Path(args.program).stem, replay=problem.replay,
                            lift=problem.lift)
    verdicts = decide(system, options, start)
    final = []
    for v in verdicts:
        extra = dict(v.extra)
        extra["alphabet"] = alphabet
        extra["lengths"] = [args.min_length, args.max_length]
        if v.answer is Answer.FALSIFIABLE and v.trace is not None:
            extra["input"] = [s["token"] for s in v.trace.steps]
            error = problem.error_message(v.trace)
            if error is not None:
                extra["runtime_error"] = error
            else:
                extra["values"] = {lab: [_json_value(s[lab]) for s in v.trace.steps] for lab in labels}
        final.append(v.evolve(extra=extra))
    code = print_verdicts(system, final, args.json)
    if not args.json:
        for v in final:
            if "input" in v.extra:
                word = " ".join(v.extra["input"])
                print(f"shortest counterexample (length {len(v.extra['input'])}): {word}")
                if "runtime_error" in v.extra:
                    print(f"  the program fails on it: {v.extra['runtime_error']}")
                for lab, vals in v.extra.get("values", {}).items():
                    print(f"  {lab} = [{', '.join(str(x) for x in vals)}]")
            elif v.answer is Answer.VALID:
                print(f"{v.property} holds for every input over {{{', '.join(alphabet)}}} of length "
                      f"{args.min_length}..{args.max_length}"
                      + (f" (after the BOS token {args.bos!r})" if args.bos else ""))
    return code


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    from kinduct.kernel.cli_blocks import add_engine_options

    rasp = subparsers.add_parser("rasp", help="RASP programs: evaluate, draw the compiled "
                                              "transformer, check properties up to a length",
                                 example="kinduct rasp eval examples/rasp/reverse.rasp reverse abc")
    sub = rasp.add_subparsers(dest="rasp_command", metavar="COMMAND", parser_class=type(rasp))
    sub.required = True

    ev = sub.add_parser("eval", help="the value of an s-op at every position of an input",
                        example="kinduct rasp eval examples/rasp/reverse.rasp reverse abc")
    ev.add_argument("program", help="a .rasp file")
    ev.add_argument("sop", help="the s-op (or selector) to evaluate")
    ev.add_argument("input", help="a string, one token per character ('hi there'), or a token "
                                  "list as the REPL writes it ('[12, 3, 4]')")
    ev.add_argument("--json", action="store_true", help='print {"sop", "input", "output"}')
    ev.set_defaults(handler=cmd_eval)

    dr = sub.add_parser("draw", help="compile an s-op to layers and heads, print the flow and "
                                     "draw the attention patterns",
                        example="kinduct rasp draw examples/rasp/reverse.rasp reverse abc "
                                "--out reverse.svg")
    dr.add_argument("program")
    dr.add_argument("sop")
    dr.add_argument("input", nargs="?", help="an example input to show values and patterns on")
    dr.add_argument("--out", help="write a picture (.svg, .png or .pdf)")
    dr.add_argument("--json", action="store_true", help='print {"layers": L, "heads_per_layer": [...]}')
    dr.set_defaults(handler=cmd_draw)

    ck = sub.add_parser("check", help="prove or refute a property for all inputs up to a length",
                        example="kinduct rasp check examples/rasp/reverse.rasp --equiv reverse "
                                "reverse --alphabet ab --max-length 4")
    ck.add_argument("program")
    what = ck.add_mutually_exclusive_group(required=True)
    what.add_argument("--equiv", nargs=2, metavar=("SOP1", "SOP2"),
                      help="the two s-ops agree at every position (SOP may be OTHER.rasp:NAME)")
    what.add_argument("--assert", dest="assert_", metavar="SOP",
                      help="the Boolean s-op holds at every position (or --at last)")
    ck.add_argument("--at", choices=("all", "last"), default="all",
                    help="check every position (default) or only the last one")
    ck.add_argument("--alphabet", required=True,
                    help="the input letters: 'abc', or comma/space separated tokens")
    ck.add_argument("--max-length", type=int, default=6, help="longest input (default 6)")
    ck.add_argument("--min-length", type=int, default=1, help="shortest input (default 1)")
    ck.add_argument("--bos", help="a beginning-of-sequence token put before every input "
                                  "(its position is not compared)")
    add_engine_options(ck)
    ck.set_defaults(handler=cmd_check, engine=("bmc",))
