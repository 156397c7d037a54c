"""``kinduct crasp ...``: eval, the language queries, and the Lustre encoding.

The synthesis engineer adds ``sample/learn/minimize/constrain`` through
``kinduct.frontends.crasp.synthesis.commands.add_commands(subparsers)``, called at the end of
:func:`add_commands` when that module imports.
"""

from __future__ import annotations

import argparse
import importlib
import json
from typing import TYPE_CHECKING

from kinduct.kernel.cli_blocks import add_engine_options, existing_file, run_options, run_start
from kinduct.kernel.errors import InputError, UsageError

if TYPE_CHECKING:
    from kinduct.frontends.crasp import ast as A


def _cell(v) -> str:
    if isinstance(v, bool):
        return "⊤" if v else "⊥"
    return str(v)


def eval_table(program: A.Program, word: list[str]) -> str:
    """The paper's execution table: a row per rule, a column per letter."""
    from kinduct.frontends.crasp.evaluate import accepts, evaluate

    values = evaluate(program, word)
    rows = [["", *word], ["pos", *map(str, range(1, len(word) + 1))]]
    rows += [[r.name, *map(_cell, values[r.name])] for r in program.rules]
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = ["  ".join(cell.rjust(w) if c else cell.ljust(w) for c, (cell, w)
                       in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]
    verdict = "accepted" if accepts(program, word) else "rejected"
    where = f" ({program.deciding.name} at position {len(word)})" if word else " (empty word)"
    return "\n".join(lines) + f"\n{verdict}{where}"


def _letters(text: str) -> tuple[str, ...]:
    letters = [x.strip() for x in text.split(",")] if "," in text else list(text)
    if not letters or any(len(x) != 1 for x in letters) or len(set(letters)) != len(letters):
        raise argparse.ArgumentTypeError(f"expected distinct one-character letters, got {text!r}")
    return tuple(letters)


def cmd_eval(args: argparse.Namespace) -> int:
    from kinduct.frontends.crasp.evaluate import accepts, evaluate, split_word
    from kinduct.frontends.crasp.parser import load

    if str(args.program).lower().endswith(".regex"):
        raise UsageError(f"{args.program} is a regular expression: use `kinduct regex match "
                         f"{args.program} WORD` (or `regex derive`)")
    program = load(existing_file(args.program))
    word = split_word(args.word, program.alphabet)
    if args.json:
        values = evaluate(program, word)
        print(json.dumps({"word": word, "rules": values, "accepted": accepts(program, word)}))
    else:
        print(eval_table(program, word))
    return 0


def cmd_query(args: argparse.Namespace) -> int:
    from kinduct.frontends.crasp.queries import QueryOptions, run_query
    from kinduct.kernel.cli_blocks import print_verdicts

    start = run_start()  # --timeout counts from the start of the process
    if args.words < 1:
        raise UsageError(f"--words must be at least 1, got {args.words}")
    system, verdicts = run_query(args.query, [args.a] + ([args.b] if args.b else []), run_options(args),
                                 QueryOptions(args.alphabet, args.words, args.via), start)
    code = print_verdicts(system, verdicts, args.json)
    words = verdicts[0].extra.get("words") if verdicts else None
    if words and not args.json:
        print(f"{len(words)} answering word(s), shortest first:")
        for w in words:
            print("  " + (" ".join(w) if any(len(x) > 1 for x in w) else "".join(w)))
    return code


def cmd_to_lustre(args: argparse.Namespace) -> int:
    from kinduct.frontends.crasp.lustre import to_lustre
    from kinduct.frontends.crasp.parser import load

    a = load(existing_file(args.a))
    b = load(existing_file(args.b)) if args.b else None
    query = args.query or ("equiv" if b is not None else "universal")
    binary = query in ("include", "equiv")
    if binary != (b is not None):
        raise InputError(f"the {query} query takes {'two programs' if binary else 'one program'}")
    print(to_lustre(query, a, b), end="")
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    crasp = subparsers.add_parser("crasp", help="C-RASP programs: evaluate, verify, translate",
                                  example="kinduct crasp eval examples/crasp/dyck1.crasp '[[][]]][]'")
    sub = crasp.add_subparsers(dest="crasp_command", metavar="COMMAND",
                               parser_class=type(crasp))
    sub.required = True

    ev = sub.add_parser("eval", help="evaluate a program on a word (the paper's table)",
                        example="kinduct crasp eval examples/crasp/dyck1.crasp '[[][]]][]'")
    ev.add_argument("program")
    ev.add_argument("word", help="one character per letter, or letters separated by spaces")
    ev.add_argument("--json", action="store_true")
    ev.set_defaults(handler=cmd_eval)

    for name, arity, text in (("empty", 1, "is the language empty?"),
                              ("universal", 1, "does the program accept every nonempty word?"),
                              ("include", 2, "is L(A) included in L(B)?"),
                              ("equiv", 2, "is L(A) = L(B)?")):
        q = sub.add_parser(name, help=text + " (.crasp, .regex, or a .lus node: int in, bool out)",
                           epilog=f"example: kinduct crasp {name} examples/regex/tomita2.regex"
                                  + (" examples/crasp/tomita2.crasp" if arity == 2 else "")
                                  + "  (exit 0: holds, 40: an answering word is printed)")
        side = "a .crasp program, a .regex specification or a .lus node (int in, bool out)"
        q.add_argument("a", metavar="A", help=side)
        if arity == 2:
            q.add_argument("b", metavar="B", help=side)
        else:
            q.set_defaults(b=None)
        add_engine_options(q)
        q.add_argument("--words", type=int, default=1, metavar="K",
                       help="up to K answering words, shortest first (default 1)")
        q.add_argument("--via", choices=("auto", "automaton", "checker"), default="auto",
                       help="automaton: product of the sides' DFAs (every side a .regex); "
                            "checker: the model checker; auto (default): automaton when possible")
        q.add_argument("--alphabet", type=_letters,
                       help="letters a lone .lus node reads (their indices; default 01)")
        q.set_defaults(handler=cmd_query, query=name)

    lus = sub.add_parser("to-lustre", help="print the paper's Lustre encoding (Kind 2 syntax)",
                         example="kinduct crasp to-lustre examples/crasp/tomita2.crasp "
                                 "examples/crasp/tomita1.crasp --query equiv")
    lus.add_argument("a", metavar="A")
    lus.add_argument("b", metavar="B", nargs="?")
    lus.add_argument("--query", choices=("empty", "universal", "include", "equiv"))
    lus.set_defaults(handler=cmd_to_lustre)

    try:
        synthesis = importlib.import_module("kinduct.frontends.crasp.synthesis.commands")
    except ImportError:
        synthesis = None
    if synthesis is not None and hasattr(synthesis, "add_commands"):
        synthesis.add_commands(sub)
