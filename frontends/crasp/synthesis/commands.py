"""``kinduct crasp sample/learn/minimize/constrain``: the arguments.  The handlers live in
:mod:`kinduct.frontends.crasp.synthesis.cli` and are imported when a command runs, so building
the command line does not load numpy and the search."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from kinduct.kernel.cli_blocks import positive_float

DEFAULT_ITERATIONS = 100_000


def _lazy(name: str) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        from kinduct.frontends.crasp.synthesis import cli

        return getattr(cli, name)(args)
    return handler


def _search_options(p: argparse.ArgumentParser, timeout: float) -> None:
    p.add_argument("--shape", help="NB,NC,K: Boolean rules, counting rules, largest constant")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iterations", type=int, default=None,
                   help=f"annealing budget per chain (per round); default {DEFAULT_ITERATIONS:,}")
    p.add_argument("--timeout", type=positive_float, default=timeout,
                   help=f"wall-clock limit (default {timeout:g}s)")
    p.add_argument("--out", help="write the program here instead of stdout")
    p.add_argument("--json", action="store_true")


def add_commands(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("sample", help="write a balanced labelled sample of a Table 1 language (CSV)",
                       example="kinduct crasp sample tomita2 --n 200 --out data.csv")
    s.add_argument("language", help="e.g. dyck1, majority, pt3, tomita4, nextargmax")
    s.add_argument("--n", type=int, default=1000)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--max-len", type=int, default=100)
    s.add_argument("--out")
    s.set_defaults(handler=_lazy("cmd_sample"))

    learn = sub.add_parser("learn", help="learn a program from word,label CSV (simulated annealing), "
                                         "or from a specification until proved equal (--spec)",
                           example="kinduct crasp learn --spec examples/regex/tomita2.regex "
                                   "--timeout 300")
    learn.add_argument("data", nargs="?", help="word,label CSV (omit with --spec)")
    learn.add_argument("--spec", help="learn until proved equivalent to SPEC (.regex, .crasp): "
                                      "samples, learns, checks, adds separating words, repeats")
    learn.add_argument("--verify", metavar="SPEC",
                       help="after learning from DATA, check the program's language against SPEC "
                            "(.regex, .crasp, .lus): all short words, then the model checker")
    learn.add_argument("--verify-timeout", type=float, default=60.0,
                       help="limit per equivalence check with --spec/--verify, or of the final "
                            "check with --language (default 60s; 0: no proof)")
    learn.add_argument("--verbose", "-v", action="store_true", help="log every round on stderr")
    learn.add_argument("--alphabet", help="letters, e.g. ab or a,b (default: the letters in the data)")
    learn.add_argument("--language", help="a Table 1 language: its alphabet and default shape; "
                                          "the learned program is then checked against it "
                                          "(short words, held-out longer words, its reference "
                                          "program by the model checker)")
    _search_options(learn, 300.0)
    learn.add_argument("--chains", type=int, default=None,
                       help="annealing chains of --iterations each, 0 = until --timeout (default: 0, "
                            "or 1 when --iterations is given)")
    learn.set_defaults(handler=_lazy("cmd_learn"))

    mini = sub.add_parser("minimize", help="find a smaller program with the same language (CEGIS)",
                          example="kinduct crasp minimize examples/crasp/tomita2.crasp --timeout 60")
    mini.add_argument("spec")
    _search_options(mini, 300.0)
    _loop_options(mini)
    mini.set_defaults(handler=_lazy("cmd_minimize"))

    con = sub.add_parser("constrain", help="learn from data with L(program) included in L(SPEC)",
                         example="kinduct crasp constrain data.csv examples/crasp/tomita2.crasp "
                                 "--timeout 120")
    con.add_argument("data")
    con.add_argument("spec")
    con.add_argument("--language", help="a Table 1 language: its default shape")
    _search_options(con, 300.0)
    _loop_options(con)
    con.set_defaults(handler=_lazy("cmd_constrain"))


def _loop_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rounds", type=int, default=50, help="most refinement rounds")
    p.add_argument("--verify-timeout", type=float, default=60.0, help="limit per model-checker call")
    p.add_argument("--verbose", "-v", action="store_true", help="log every round on stderr")
