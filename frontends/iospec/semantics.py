"""``gtrace``: evaluate a specification on an input sequence to its generalized trace (§8.3.1).

The evaluation walks the specification left to right (:mod:`control`), takes the next input at
each read, and at each output extends the pending output step with every value the output
allows (``ε`` included), so consecutive outputs fuse into one step of words (equation 11.4).
It fails (:class:`GError`) where the document's ``gtrace`` returns ``error``: a read after the
last input, an invalid value for an input that assumes valid values, inputs left over at the
end, or a term without a value.  An invalid value for ``else stop`` ends the run; for
``else retry`` it is discarded and the same read comes again.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

import attrs

from kinduct.frontends.iospec import ast as A
from kinduct.frontends.iospec.control import Cont, LoopEnd, enter, leave, push
from kinduct.frontends.iospec.evaluate import EvalError, contains, evaluate, integer_subterms, show_set
from kinduct.frontends.iospec.traces import GTrace, In, OutStep, Step, Word

#: Most words one output step may hold (optional outputs in a row multiply).
MAX_WORDS = 100_000


@attrs.frozen
class GError:
    """Why a specification has no run on this input sequence: the inputs do not fit it
    (``term=False``), or a term has no value there (``term=True``: the specification's
    fault)."""

    message: str
    loc: A.Loc | None
    consumed: int
    term: bool = False


@attrs.frozen
class Evaluation:
    """The generalized trace (or the error) and overflow warnings (§5.3.1)."""

    trace: GTrace | None
    error: GError | None = None
    warnings: tuple[str, ...] = ()


def int_range(bits: int) -> tuple[int, int]:
    """The values of a ``bits``-wide two's-complement integer."""
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def gtrace(spec: A.Spec, inputs: Sequence[int], int_bits: int | None = None) -> Evaluation:
    """The generalized trace of ``spec`` on ``inputs``; with ``int_bits``, a warning for every
    computation of the specification that leaves that integer width."""
    steps: list[Step] = []
    pending: frozenset[Word] = frozenset({()})
    env: dict[str, tuple[int, ...]] = {}
    warnings: list[str] = []
    used = 0
    cont: Cont | None = push(spec.body, None)

    def flush() -> None:
        nonlocal pending
        if pending != frozenset({()}):
            steps.append(OutStep(pending))
        pending = frozenset({()})

    def check_width(term: A.Term) -> None:
        if int_bits is None:
            return
        lo, hi = int_range(int_bits)
        for sub in integer_subterms(term):
            try:
                value = evaluate(sub, env)
            except EvalError:
                continue
            values = [value] if isinstance(value, int) else []
            if isinstance(sub, A.Apply) and sub.op in ("sum", "product"):
                items = evaluate(sub.args[0], env)
                values = list(itertools.accumulate(items, operator.add if sub.op == "sum"
                                                   else operator.mul))
            for value in values:
                if lo <= value <= hi:
                    continue
                note = (f"{sub.loc}: a computation of the specification gives {value}, outside "
                        f"the {int_bits}-bit integers")
                if note not in warnings:
                    warnings.append(note)
                break

    try:
        while cont is not None:
            item, cont = cont.head, cont.tail
            if isinstance(item, A.Read):
                flush()
                if used >= len(inputs):
                    return Evaluation(None, GError(
                        f"the specification reads {item.var} here, but the input sequence has "
                        f"only {len(inputs)} value(s)", item.loc, used))
                value = inputs[used]
                used += 1
                steps.append(In(value))
                if contains(item.values, value):
                    env[item.var] = (*env.get(item.var, ()), value)
                elif item.mode == "assume":
                    return Evaluation(None, GError(
                        f"input {value} (number {used}) is not in {show_set(item.values)}, the "
                        f"values {item.var} may take", item.loc, used))
                elif item.mode == "stop":
                    cont = None
                else:
                    cont = Cont(item, cont)
            elif isinstance(item, A.Write):
                words: set[Word] = set()
                for option in item.options:
                    if option is None:
                        words.add(())
                    else:
                        check_width(option)
                        words.add((evaluate(option, env),))
                pending = frozenset(p + w for p in pending for w in words)
                if len(pending) > MAX_WORDS:
                    return Evaluation(None, GError(
                        f"more than {MAX_WORDS} possible output words in a row", item.loc, used))
            elif isinstance(item, A.Branch):
                check_width(item.cond)
                chosen = item.then if evaluate(item.cond, env) else item.orelse
                cont = push(chosen, cont)
            elif isinstance(item, A.Loop):
                cont = enter(item, cont)
            elif isinstance(item, LoopEnd):
                cont = enter(item.loop, cont)
            else:
                found, cont = leave(cont)
                if not found:
                    return Evaluation(None, GError("exit marker E outside an iteration",
                                                   item.loc, used))
    except EvalError as exc:
        return Evaluation(None, GError(exc.message, exc.loc, used, term=True))
    flush()
    if used < len(inputs):
        return Evaluation(None, GError(
            f"the specification ends after {used} input(s), but the input sequence has "
            f"{len(inputs)}", None, used))
    return Evaluation(GTrace(tuple(steps)), None, tuple(warnings))
