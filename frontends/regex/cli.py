"""``kinduct regex match R WORD`` and ``kinduct regex derive R WORD`` (the cvc5 paper's
derivative algorithm, section 5): membership of one word, and the derivative by each of its
letters with its nullability.  Both take ``--json``."""

from __future__ import annotations

import argparse
import json

from kinduct.kernel.errors import UsageError


def _word(text: str, alphabet: tuple[str, ...]) -> list[str]:
    """The letters of ``text`` (one character each; spaces are ignored)."""
    letters = [ch for ch in text if not ch.isspace()]
    for ch in letters:
        if ch not in alphabet:
            shown = ", ".join(repr(x) for x in alphabet)
            raise UsageError(f"letter {ch!r} of the word is not in the alphabet ({shown})")
    return letters


def _steps(args: argparse.Namespace) -> tuple[str, list[str], list[tuple[str, str, bool]], bool]:
    """The regex as printed, the word, each letter's derivative (printed) and nullability, and
    whether the word matches."""
    from kinduct.frontends.regex.parser import load
    from kinduct.kernel.cli_blocks import existing_file

    spec = load(existing_file(args.regex))
    word = _word(args.word, spec.alphabet)
    algebra, term = spec.algebra, spec.term
    steps = []
    for letter in word:
        term = algebra.deriv(term, letter)
        steps.append((letter, str(term), algebra.nullable(term)))
    return str(spec.term), word, steps, algebra.nullable(term)


def cmd_match(args: argparse.Namespace) -> int:
    regex, word, _, matches = _steps(args)
    shown = "".join(word) or "the empty word"
    if args.json:
        print(json.dumps({"regex": regex, "word": "".join(word), "matches": matches}))
    else:
        print(f"{shown} {'matches' if matches else 'does not match'} {regex}")
    return 0


def cmd_derive(args: argparse.Namespace) -> int:
    regex, word, steps, nullable = _steps(args)
    final = steps[-1][1] if steps else regex
    if args.json:
        print(json.dumps({"regex": regex, "word": "".join(word), "derivative": final,
                          "nullable": nullable,
                          "steps": [{"letter": a, "derivative": d, "nullable": n}
                                    for a, d, n in steps]}))
        return 0
    print(f"regex: {regex}")
    prefix = ""
    for letter, derivative, null in steps:
        prefix += letter
        print(f"  d/d{prefix}: {derivative}    nullable: {'yes' if null else 'no'}")
    print(f"derivative by {''.join(word) or 'the empty word'}: {final}")
    print(f"nullable: {'yes' if nullable else 'no'} (the word "
          f"{'matches' if nullable else 'does not match'})")
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    regex = subparsers.add_parser("regex", help="regular expressions: match a word, derivatives",
                                  example="kinduct regex derive examples/regex/astarbstar.regex aab")
    sub = regex.add_subparsers(dest="regex_command", metavar="COMMAND", parser_class=type(regex))
    sub.required = True
    for name, text, handler in (
            ("match", "does the word match the regular expression? (by derivatives)", cmd_match),
            ("derive", "the derivative by each letter of the word, and whether it is nullable",
             cmd_derive)):
        cmd = sub.add_parser(name, help=text,
                             example=f"kinduct regex {name} examples/regex/astarbstar.regex aab")
        cmd.add_argument("regex", help="a .regex file (infix or SMT-LIB syntax)")
        cmd.add_argument("word", help="one character per letter ('' is the empty word)")
        cmd.add_argument("--json", action="store_true")
        cmd.set_defaults(handler=handler)
