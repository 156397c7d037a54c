"""Is a program that fits the data the intended language?  (``crasp learn DATA``, issue 42.)

A learned program fitting every example says nothing about words the data lacks: the paper's
AnBnCn, Tomita 2, D3 and D4 programs can fit 1,000 examples and still accept ``bac``,
``babaaa`` or deeper nesting.  :func:`check_language` looks for a word on which the program and
the intended language differ, cheapest first:

1. every word up to the longest length within :data:`EXHAUSTIVE_WORDS` words and
   :data:`EXHAUSTIVE_LETTERS` letters, judged
   by the language's membership function (a Table 1 language) or the specification's evaluator;
2. held-out longer words: :data:`HELDOUT` words of lengths up to :data:`HELDOUT_LENGTH` from the
   language's own balanced sampler (another seed than the training data's);
3. the model checker: equivalence with the specification (``--verify SPEC``) or else the
   language's reference C-RASP program, within ``verify_timeout`` seconds.

The answer is ``proved`` only when the model checker proves the two languages equal; otherwise
``not verified``, with the shortest separating word found (and which side accepts it) or the
reason nothing was found.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import attrs
import numpy as np

from kinduct.frontends.crasp import ast as A
from kinduct.frontends.crasp import vectorized as V
from kinduct.frontends.crasp.evaluate import accepts
from kinduct.frontends.crasp.parser import parse
from kinduct.frontends.crasp.queries import decide_words
from kinduct.frontends.crasp.synthesis.languages import Language, held_out
from kinduct.frontends.crasp.translate import to_acceptor
from kinduct.kernel.acceptor import Acceptor, Query
from kinduct.kernel.runner import RunOptions
from kinduct.kernel.verdict import Answer

#: Most words, and letters in all, of the exhaustive check (all words up to the largest length
#: within both).
EXHAUSTIVE_WORDS = 50_000
EXHAUSTIVE_LETTERS = 500_000
#: Held-out words from a Table 1 language's sampler, and their longest length.
HELDOUT = 2000
HELDOUT_LENGTH = 200

Member = Callable[[Sequence[str]], bool]


@attrs.frozen
class LanguageCheck:
    """``proved`` when the model checker proved the languages equal.  ``counterexample`` is the
    shortest separating word found (``program_accepts`` says which side accepts it); ``how``
    says what was checked, ``target`` names the intended language."""

    proved: bool
    target: str
    how: str
    counterexample: tuple[str, ...] | None = None
    program_accepts: bool | None = None
    #: the training words' shortest length; when the counterexample is shorter, ``in_range`` is
    #: the shortest separating word found of at least that length (None: none found)
    min_length: int = 1
    in_range: tuple[str, ...] | None = None

    @property
    def summary(self) -> str:
        if self.proved:
            return f"fits the data; language proved equal to {self.target} ({self.how})"
        if self.counterexample is not None:
            word = "".join(self.counterexample) if all(len(x) == 1 for x in self.counterexample) \
                else " ".join(self.counterexample)
            side = ("the program accepts it, " + self.target + " does not" if self.program_accepts
                    else self.target + " accepts it, the program does not")
            text = (f"fits the data, language not verified: counterexample {word!r} ({side}; "
                    f"{self.how})")
            if len(self.counterexample) < self.min_length:
                text += (f"; it is shorter than every training word (length ≥ {self.min_length}): "
                         + (f"at those lengths {''.join(self.in_range)!r}" if self.in_range
                            else "none found at those lengths"))
            return text
        return f"fits the data, language not verified ({self.how})"

    def as_dict(self) -> dict:
        return {"proved": self.proved, "target": self.target, "how": self.how,
                "counterexample": None if self.counterexample is None
                else "".join(self.counterexample),
                "program_accepts": self.program_accepts,
                "counterexample_in_range": None if self.in_range is None
                else "".join(self.in_range), "summary": self.summary}


def unverified(reason: str) -> LanguageCheck:
    """No specification to check against."""
    return LanguageCheck(False, "the intended language", reason)


def _differences(program: A.Program, words: list[list[str]], member: Member
                 ) -> list[tuple[list[str], bool]]:
    """The words where ``program`` and ``member`` differ, shortest (then first) first, each with
    whether the program accepts it."""
    if not words:
        return []
    letters = set(program.alphabet)
    inside = [w for w in words if all(x in letters for x in w)]
    got = dict.fromkeys(map(tuple, words), False)  # outside the alphabet: the program rejects
    if inside:
        accepted = V.accepted(program, V.Batch.from_words(inside, program.alphabet))
        for w, a in zip(inside, np.asarray(accepted, dtype=bool), strict=True):
            got[tuple(w)] = bool(a)
    wrong = sorted((w for w in words if got[tuple(w)] != bool(member(w))),
                   key=lambda x: (len(x), x))
    return [(w, got[tuple(w)]) for w in wrong]


def _all_words(alphabet: Sequence[str]) -> tuple[list[list[str]], int]:
    words: list[list[str]] = []
    n = letters = 0
    while (len(words) + len(alphabet) ** (n + 1) <= EXHAUSTIVE_WORDS
           and letters + (n + 1) * len(alphabet) ** (n + 1) <= EXHAUSTIVE_LETTERS):
        n += 1
        words.extend(list(w) for w in itertools.product(alphabet, repeat=n))
        letters += n * len(alphabet) ** n
    return words, n


def check_language(program: A.Program, language: Language | None, spec: Acceptor | None,
                   spec_name: str | None, seed: int, verify_timeout: float,
                   min_length: int = 1) -> LanguageCheck:
    """Compare ``program`` with the Table 1 ``language`` and/or the acceptor ``spec``;
    ``min_length`` is the training words' shortest length (a counterexample below it is
    reported with the shortest one found at or above it)."""
    target = spec_name or (language.title if language else "the specification")
    member: Member | None = language.member if language is not None else (
        spec.accepts if spec is not None else None)
    done: list[str] = []
    if member is not None:
        alphabet = language.alphabet if language is not None else spec.alphabet  # type: ignore[union-attr]
        words, n = _all_words(alphabet)
        wrong = _differences(program, words, member)
        done.append(f"all {len(words):,} words up to length {n}")
    else:
        wrong = []
    if language is not None and not any(len(w) >= min_length for w, _ in wrong):
        # held-out words (all at least the language's minimum length) look further
        sample = held_out(language, HELDOUT, seed, HELDOUT_LENGTH)
        done.append(f"{len(sample):,} held-out words up to length {HELDOUT_LENGTH}")
        wrong += _differences(program, [list(w) for w, _ in sample], language.member)
    if wrong:  # the exhaustive words come first, so wrong[0] is the shortest found
        first, accepted = wrong[0]
        in_range = next((tuple(w) for w, _ in wrong if len(w) >= min_length), None)
        return LanguageCheck(False, target, " and ".join(done), tuple(first), accepted,
                             min_length, in_range)
    if spec is None and language is not None and language.reference is not None:
        spec = to_acceptor(parse(language.reference), "B")
    if spec is None:
        return _nothing_found(target, done, f"no specification to prove it against ({target} "
                                            "has no reference program; --verify SPEC gives one)")
    if verify_timeout <= 0:
        return _nothing_found(target, done, "no proof asked (--verify-timeout 0)")
    _, verdicts = decide_words(Query.EQUIV, [to_acceptor(program, "A"), spec], 1,
                               RunOptions(timeout=verify_timeout))
    verdict = verdicts[0]
    if verdict.answer is Answer.VALID:
        return LanguageCheck(True, target, "model checker")
    if verdict.answer is Answer.FALSIFIABLE:
        word = tuple(verdict.extra["word"])
        ok = all(x in program.alphabet for x in word) and accepts(program, list(word))
        return LanguageCheck(False, target, "model checker (equivalence falsified)", word, ok)
    return _nothing_found(target, done, "the equivalence check was inconclusive "
                                        f"({verdict.answer.value})")


def _nothing_found(target: str, done: list[str], why: str) -> LanguageCheck:
    return LanguageCheck(False, target, (f"no difference on {' and '.join(done)}; " if done else "")
                         + why)
