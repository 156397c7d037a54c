"""Labelled data sets as ``word,label`` CSV: writing samples and reading them back with checks.

A word is its letters written one after another (letters are single characters); the label is
``1``/``0`` (``true/false``, ``yes/no``, ``+/-`` and ``pos/neg`` are read too).  A first line
``word,label`` is a header.  Lines starting with ``#`` and blank lines are ignored.  Every
problem is an :class:`~kinduct.kernel.errors.InputError` at ``file:line:col`` with a caret.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from kinduct.kernel.errors import InputError
from kinduct.kernel.frontend import read_source

_TRUE = {"1", "true", "yes", "+", "pos", "positive", "t", "y"}
_FALSE = {"0", "false", "no", "-", "neg", "negative", "f", "n"}


def write_csv(examples: Sequence[tuple[Sequence[str], bool]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["word", "label"])
    for word, label in examples:
        w.writerow(["".join(word), 1 if label else 0])
    return out.getvalue()


def read_csv(path: str | Path, alphabet: Sequence[str] | None = None
             ) -> tuple[list[list[str]], list[bool], tuple[str, ...]]:
    """Words, labels and the alphabet (``alphabet`` if given, else the letters seen, sorted)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    if p.is_dir():
        raise InputError(f"{path}: is a directory, not a data file")
    text = read_source(p)
    words: list[list[str]] = []
    labels: list[bool] = []
    allowed = set(alphabet) if alphabet is not None else None
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not words and stripped.replace(" ", "").lower() == "word,label":
            continue
        if line.count(",") != 1:
            col = len(line) + 1 if "," not in line else line.index(",", line.index(",") + 1) + 1
            raise InputError.at("expected 'word,label' (one comma per line)", p, text, lineno, col)
        word_text, label_text = line.split(",")
        label = label_text.strip().lower()
        if label in _TRUE:
            labels.append(True)
        elif label in _FALSE:
            labels.append(False)
        else:
            col = len(word_text) + 2 + (len(label_text) - len(label_text.lstrip()))
            raise InputError.at(f"expected a label 1 or 0 (or true/false), got {label_text.strip()!r}",
                                p, text, lineno, col)
        word = list(word_text.strip())
        lead = len(word_text) - len(word_text.lstrip())
        for i, a in enumerate(word):
            if allowed is not None and a not in allowed:
                letters = ", ".join(repr(x) for x in alphabet)  # type: ignore[union-attr]
                raise InputError.at(f"letter {a!r} is not in the alphabet ({letters})",
                                    p, text, lineno, lead + i + 1)
            if a.isspace():
                raise InputError.at("a word cannot contain spaces", p, text, lineno, lead + i + 1)
        words.append(word)
    end = (max(1, len(text.splitlines())), 1)
    if not words:
        raise InputError.at("no examples (expected lines 'word,label')", p, text, *end)
    alpha = tuple(alphabet) if alphabet is not None else tuple(sorted({a for w in words for a in w}))
    if not alpha:
        raise InputError.at("every word is empty, so the alphabet is unknown (use --alphabet)",
                            p, text, *end)
    return words, labels, alpha
