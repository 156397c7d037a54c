"""``kinduct crasp sample | learn | minimize | constrain``.

Exit codes: 0 when a program was found (``learn``: 100% training accuracy — whether its
language is the intended one is reported beside it, "proved equal to ..." or "fits the data,
language not verified" with a counterexample word when one is found; ``minimize`` /
``constrain``: the proof holds), 1 when a limit was reached first (the best program is still
printed, with "no program found" or "limit reached"), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp import vectorized as V
from kinduct.frontends.crasp.parser import load, parse
from kinduct.frontends.crasp.synthesis.commands import DEFAULT_ITERATIONS
from kinduct.frontends.crasp.synthesis.languages import LANGUAGES, language
from kinduct.frontends.crasp.synthesis.search import Options, Progress, anneal, program_size
from kinduct.frontends.crasp.synthesis.space import Shape
from kinduct.kernel.cli_blocks import existing_file
from kinduct.kernel.errors import InputError
from kinduct.kernel.word_csv import read_csv, write_csv


def score(program: A.Program, words, labels) -> tuple[float, int]:
    """Accuracy of ``program`` by the frontend's own vectorised evaluator (not the search's)."""
    batch = V.Batch.from_words(words, program.alphabet)
    got = V.accepted(program, batch)
    mis = int(np.count_nonzero(got != np.asarray(labels, dtype=bool)))
    return (1.0 - mis / len(words)) if words else 1.0, mis


def _shape(args: argparse.Namespace, default: str) -> Shape:
    try:
        return Shape.parse(args.shape or default)
    except ValueError as exc:
        raise InputError(f"--shape: {exc}") from None


def _alphabet(args: argparse.Namespace) -> tuple[str, ...] | None:
    if getattr(args, "alphabet", None):
        text = args.alphabet
        letters = [x.strip() for x in text.split(",")] if "," in text else list(text)
        if any(len(x) != 1 for x in letters) or len(set(letters)) != len(letters):
            raise InputError(f"--alphabet: expected distinct one-character letters, got {text!r}")
        return tuple(letters)
    if getattr(args, "language", None):
        return _language(args.language).alphabet
    return None


def _language(name: str):
    try:
        return language(name)
    except KeyError:
        names = ", ".join(LANGUAGES)
        raise InputError(f"unknown language {name!r} (known: {names})") from None


class _Bar:
    """A rich progress bar on a terminal (stderr), nothing otherwise."""

    def __init__(self, total: int | None, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.progress = None
        self.total = total

    def __enter__(self) -> Progress | None:
        if not self.enabled:
            return None
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        from kinduct.kernel.cli_blocks import console

        count = "{task.completed}" + ("/{task.total}" if self.total else " iterations")
        self.progress = Progress(TextColumn("[bold]annealing"), BarColumn(), TextColumn(count),
                                 TextColumn("{task.fields[status]}"), TimeElapsedColumn(),
                                 console=console(stderr=True), transient=True)
        self.progress.start()
        task = self.progress.add_task("search", total=self.total, status="")

        def update(it: int, mis: int, size: int) -> None:
            self.progress.update(task, completed=it, status=f"best: {mis} wrong, size {size}")
        return update

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()


def _emit(text: str, out: str | None) -> None:
    if out:
        Path(out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


#: The exit code when no program was found or its equivalence was not proved (as an unknown
#: verdict's: 1 is for internal errors only).
NOT_SETTLED = 30


def cmd_sample(args: argparse.Namespace) -> int:
    lang = _language(args.language)
    if args.n < 1:
        raise InputError("--n must be at least 1")
    if args.max_len < lang.lmin:
        raise InputError(f"--max-len must be at least {lang.lmin} for {lang.title}")
    _emit(write_csv(lang.sample(args.n, args.seed, args.max_len)), args.out)
    return 0


def cmd_learn_spec(args: argparse.Namespace) -> int:
    """``learn --spec SPEC``: sample, learn, check equivalence, add separating words, repeat."""
    from kinduct.frontends.crasp.synthesis.spec import SpecOptions, learn_spec
    from kinduct.kernel.acceptor_loading import load_acceptor

    if args.data is not None:
        raise InputError("learn --spec samples its own data from SPEC; drop the DATA argument")
    spec = load_acceptor(args.spec, "B", _alphabet(args))
    if spec.accepts is None:
        raise InputError(f"{args.spec}: learn --spec needs a specification with an evaluator "
                         "(.regex or .crasp)")
    default = _language(args.language).shape if args.language else "2,1,2"
    shape = _shape(args, default)
    opts = SpecOptions(shape=shape, seed=args.seed, time_limit=args.timeout,
                       iterations=args.iterations or DEFAULT_ITERATIONS,
                       verify_timeout=args.verify_timeout)
    log = None if args.json or not args.verbose else (lambda m: sys.stderr.write(m + "\n"))
    res = learn_spec(spec, opts, log)
    verdict = f"proved equivalent to {args.spec}" if res.proved else "not proved"
    acc = "-" if res.heldout_accuracy is None else f"{100 * res.heldout_accuracy:.2f}%"
    if args.json:
        print(json.dumps({**res.as_dict(), "spec": args.spec, "verdict": verdict,
                          "shape": str(shape), "seed": args.seed}))
        if args.out and res.program is not None:
            Path(args.out).write_text(A.to_source(res.program), encoding="utf-8")
    else:
        summary = (f"{verdict} ({res.message}); rounds {res.rounds}, {res.examples} examples, "
                   f"{res.seconds:.2f}s; held-out accuracy {acc}")
        if res.program is not None:
            _emit(A.to_source(res.program, f"learned by kinduct crasp learn --spec (shape {shape}, "
                                           f"seed {args.seed}): {summary}"), args.out)
        sys.stderr.write(summary + "\n")
    return 0 if res.proved else NOT_SETTLED


def cmd_learn(args: argparse.Namespace) -> int:
    if args.spec is not None:
        return cmd_learn_spec(args)
    if args.data is None:
        raise InputError("learn needs a DATA file (word,label CSV) or --spec SPEC")
    alphabet = _alphabet(args)
    words, labels, alphabet = read_csv(existing_file(args.data), alphabet)
    default = _language(args.language).shape if args.language else "2,1,2"
    shape = _shape(args, default)
    # the paper's budget is one chain of 100,000 iterations; by default fresh chains follow
    # until a program fits or the time limit is reached, an explicit --iterations is the budget
    chains = args.chains if args.chains is not None else (None if args.iterations is None else 1)
    iterations = args.iterations or DEFAULT_ITERATIONS
    opts = Options(iterations=iterations, seed=args.seed, time_limit=args.timeout,
                   chains=chains or None)
    with _Bar(iterations if chains == 1 else None, not args.json) as bar:
        res = anneal(words, labels, alphabet, shape, opts, progress=bar)
    text = A.to_source(res.program)
    program = parse(text)  # what we print is what we score
    accuracy, mis = score(program, words, labels)
    found = mis == 0
    check = _check_language(program, args, min(map(len, words))) if found else None
    if args.json:
        print(json.dumps({"found": found, "accuracy": accuracy, "misclassified": mis,
                          "examples": len(words), "iterations": res.iterations,
                          "time": round(res.seconds, 3), "stopped": res.stopped,
                          "shape": str(shape), "seed": args.seed, "size": program_size(program),
                          "program": text,
                          "language": check.as_dict() if check is not None else None}))
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
    else:
        comment = (f"learned by kinduct crasp learn (shape {shape}, seed {args.seed}): accuracy "
                   f"{100 * accuracy:.2f}% on {len(words)} examples, {res.iterations} iterations, "
                   f"{res.seconds:.2f}s" + (f"\n{check.summary}" if check is not None else ""))
        _emit(A.to_source(program, comment), args.out)
        if check is not None:
            sys.stderr.write(check.summary + "\n")
    if not found:
        sys.stderr.write(f"no program found: best accuracy {100 * accuracy:.2f}% ({mis} of {len(words)} "
                         f"misclassified) after {res.iterations} iterations ({res.stopped} limit)\n")
        return NOT_SETTLED
    return 0


def _check_language(program: A.Program, args: argparse.Namespace, min_length: int):
    """Whether a program fitting the data is the intended language (synthesis/verify.py)."""
    from kinduct.frontends.crasp.synthesis.verify import check_language, unverified
    from kinduct.kernel.acceptor_loading import load_acceptor

    lang = _language(args.language) if args.language else None
    spec = load_acceptor(args.verify, "B", program.alphabet) if args.verify else None
    if lang is None and spec is None:
        return unverified("no specification: --language NAME or --verify SPEC checks it")
    return check_language(program, lang, spec, args.verify, args.seed, args.verify_timeout,
                          min_length)


def _report(res, args: argparse.Namespace, what: str) -> int:
    if args.json:
        print(json.dumps(res.as_dict()))
        if args.out and res.program is not None:
            Path(args.out).write_text(A.to_source(res.program), encoding="utf-8")
        return 0 if res.proved else NOT_SETTLED
    lines = [f"{what}: {res.message}",
             f"rounds R = {res.rounds}, synthesis {res.synth_time:.2f}s, verification {res.verif_time:.2f}s",
             f"size before {res.size_before if res.size_before is not None else '-'}, "
             f"after {res.size_after if res.size_after is not None else '-'}"]
    if res.program is None:
        sys.stderr.write("\n".join(lines) + "\nno program found\n")
        return NOT_SETTLED
    _emit(A.to_source(res.program, "\n".join(lines)), args.out)
    if not res.proved:
        sys.stderr.write(f"{res.message}; printed the best program\n")
    return 0 if res.proved else NOT_SETTLED


def _log(args: argparse.Namespace):
    if args.json or not args.verbose:
        return None
    return lambda msg: sys.stderr.write(msg + "\n")


def cmd_minimize(args: argparse.Namespace) -> int:
    from kinduct.frontends.crasp.synthesis.loop import minimize, shape_of

    spec = load(existing_file(args.spec))
    shape = _shape(args, str(shape_of(spec)))
    with _Bar(args.iterations or DEFAULT_ITERATIONS, not args.json and not args.verbose) as bar:
        res = minimize(spec, shape, args.seed, args.rounds, args.timeout,
                       args.iterations or DEFAULT_ITERATIONS, args.verify_timeout, _log(args), bar)
    return _report(res, args, "minimize")


def cmd_constrain(args: argparse.Namespace) -> int:
    from kinduct.frontends.crasp.evaluate import accepts
    from kinduct.frontends.crasp.synthesis.loop import constrain, shape_of

    spec = load(existing_file(args.spec))
    words, labels, _ = read_csv(existing_file(args.data), spec.alphabet)
    outside = [i for i, (w, lab) in enumerate(zip(words, labels, strict=True))
               if lab and not accepts(spec, w)]
    if outside:
        w = "".join(words[outside[0]])
        raise InputError(f"{args.data}: {len(outside)} positive example(s) are not in L({args.spec}), "
                         f"e.g. {w!r}: no program can fit the data and be included in the specification")
    default = _language(args.language).shape if args.language else str(shape_of(spec))
    shape = _shape(args, default)
    with _Bar(args.iterations or DEFAULT_ITERATIONS, not args.json and not args.verbose) as bar:
        res = constrain(words, labels, spec, shape, args.seed, args.rounds, args.timeout,
                        args.iterations or DEFAULT_ITERATIONS,
                        args.verify_timeout, _log(args), bar)
    return _report(res, args, "constrain")
