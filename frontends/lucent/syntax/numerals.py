"""What the lark builder and the fast parser compute alike from the source text: the values of
numerals, and which of a node header's two parameter lists an only list is."""

from __future__ import annotations

from fractions import Fraction
from typing import Any


def hex_real(s: str) -> Fraction:
    """The value of a hexadecimal real numeral such as ``0x1.8p3``."""
    body = s[2:].lower()
    exp = 0
    if "p" in body:
        body, e = body.split("p")
        exp = int(e)
    whole, _, frac = body.partition(".")
    value = Fraction(int(whole or "0", 16))
    for i, ch in enumerate(frac):
        value += Fraction(int(ch, 16), 16 ** (i + 1))
    return value * (Fraction(2) ** exp)


def decimal(s: str) -> Fraction:
    """The value of a decimal real numeral such as ``1.5``, ``.5`` or ``1e-3``."""
    return Fraction(s) if "e" not in s.lower() else Fraction(s.lower())


def split_params(segment: str, groups: list[list[Any]]) -> tuple[list[Any], list[Any]]:
    """The inputs and outputs of a node or contract header from its non-empty parameter lists
    ``groups`` (the grammar makes both optional): when only one is given, which one it is is
    read from ``segment``, the declaration's text, between its first ``(`` and the last ``)``
    before ``returns``."""
    if len(groups) == 2:
        return groups[0], groups[1]
    if len(groups) == 0:
        return [], []
    head, _, _ = segment.partition("returns")
    inner = head[head.find("(") + 1: head.rfind(")")]
    if inner.strip():
        return groups[0], []
    return [], groups[0]
