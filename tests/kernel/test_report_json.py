"""``report_json.dumps_indented`` writes exactly what ``json.dumps(value, indent=2)`` writes."""

from __future__ import annotations

import json
from collections import OrderedDict

from hypothesis import given, settings
from hypothesis import strategies as st

from kinduct.kernel.report_json import dumps_indented

_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_same_text_as_json_dumps(value: object) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2)


def test_unusual_values_keep_json_dumps_text() -> None:
    class Name(str):
        pass

    for value in ({1: "a", "b": [2.5, None]}, [Name("x"), {"k": Name("y")}],
                  OrderedDict(a=1), {"x": float("nan"), "y": [float("-inf"), 1e300]},
                  {"é": "\u2028\x00\"\\"}, [[], {}, [[]], {"a": {}}]):
        assert dumps_indented(value) == json.dumps(value, indent=2)
