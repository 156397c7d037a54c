"""``kinduct sample SPEC --n N [--min-length a] [--max-length b] [--seed S] [--out data.csv]``.

SPEC is any acceptor: ``.regex`` (uniform words by DFA path counting), ``.crasp`` or a ``.lus``
node with ``--alphabet`` (solver words with random soft constraints).  Half the words are
positive (rounded up), all are distinct, lengths are spread over ``[a, b]``; each label is
checked on SPEC's own evaluator.  The CSV is the ``word,label`` format ``crasp learn`` reads.
Exit codes: 0 when N words were written, 1 when fewer exist (all that exist are written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kinduct.kernel.errors import InputError


def _letters(text: str) -> tuple[str, ...]:
    letters = [x.strip() for x in text.split(",")] if "," in text else list(text)
    if any(len(x) != 1 for x in letters) or len(set(letters)) != len(letters):
        raise InputError(f"--alphabet: expected distinct one-character letters, got {text!r}")
    return tuple(letters)


def cmd_sample(args: argparse.Namespace) -> int:
    from kinduct.kernel.acceptor_loading import load_acceptor
    from kinduct.kernel.word_csv import write_csv
    from kinduct.kernel.word_sampler import Request, sample

    alphabet = _letters(args.alphabet) if args.alphabet else None
    acceptor = load_acceptor(args.spec, "A", alphabet)
    req = Request(args.n, args.min_length, args.max_length, args.seed)
    examples = sample(acceptor, req, log=lambda m: sys.stderr.write(f"kinduct sample: {m}\n"))
    text = write_csv(examples)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    # fewer words than asked: an incomplete answer, as an unknown verdict (1 is an internal error)
    return 0 if len(examples) == args.n else 30


def add_command(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sample", help="balanced, distinct labelled words of any acceptor (word,label CSV)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: kinduct sample examples/regex/tomita2.regex --n 1000 --max-length 30 "
               "--out data.csv")
    p.add_argument("spec", metavar="SPEC", help=".regex, .crasp, or .lus node (int in, bool out)")
    p.add_argument("--n", type=int, default=1000, help="number of words (default 1000)")
    p.add_argument("--min-length", type=int, default=1, help="shortest word (default 1)")
    p.add_argument("--max-length", type=int, default=20, help="longest word (default 20)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--alphabet", help="letters for a .lus node, e.g. ab or a,b")
    p.add_argument("--out", help="write the CSV here (default: stdout)")
    p.set_defaults(handler=cmd_sample)
