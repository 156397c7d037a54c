"""The scan before parsing (:mod:`kinduct.frontends.lucent.syntax.prescan`): keywords of unsupported
features are found in the text without its comments and string literals."""

from __future__ import annotations

import pytest

from kinduct.frontends.lucent.syntax.parser import parse_text
from kinduct.frontends.lucent.syntax.prescan import blank_comments, check_unsupported
from kinduct.kernel.errors import UnsupportedError


def test_keywords_in_property_names_are_not_features():
    src = ('node N(x: int) returns (y: int);\nlet\n  y = x;\n'
           '  check "merge when datatype forall" y = x;\n'
           '  check "a -- b" y = x; -- a comment with "merge"\n'
           '  check "(* not a comment *)" y = x;\ntel\n')
    check_unsupported(src, "<t>")
    node = parse_text(src).nodes[0]
    assert [c.name for c in node.body[1:]] == ["merge when datatype forall", "a -- b",
                                               "(* not a comment *)"]


def test_blanking_keeps_offsets():
    src = 'x "when" -- c\n(* a\n b *) y'
    clean = blank_comments(src)
    assert len(clean) == len(src) and clean.count("\n") == 2
    assert clean.strip().startswith("x") and clean.endswith("y") and "when" not in clean


def test_features_outside_strings_are_still_found():
    src = ('node N(x: int) returns (y: int);\nlet\n  y = x;\n  check "node rec" true;\ntel\n'
           'node   rec M() returns ();\n')
    with pytest.raises(UnsupportedError, match="rec") as err:
        check_unsupported(src, "<t>")
    assert (err.value.location.line, err.value.location.column) == (6, 1)
