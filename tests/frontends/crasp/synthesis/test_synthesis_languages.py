"""Benchmark languages: membership agrees with the reference programs; samples are balanced."""

from __future__ import annotations

import random

import pytest

from kinduct.frontends.crasp.evaluate import accepts
from kinduct.frontends.crasp.parser import parse
from kinduct.frontends.crasp.synthesis.languages import LANGUAGES, language

WITH_REFERENCE = [n for n, lang in LANGUAGES.items() if lang.reference]


@pytest.mark.parametrize("name", WITH_REFERENCE)
def test_membership_matches_reference_program(name):
    lang = LANGUAGES[name]
    program = parse(lang.reference)
    rng = random.Random(7)
    words = [[rng.choice(lang.alphabet) for _ in range(rng.randint(1, 14))] for _ in range(250)]
    words += [w for w, _ in lang.sample(60, 3, max_len=40)]
    wrong = [w for w in words if accepts(program, w) != lang.member(w)]
    assert not wrong, "".join(wrong[0])


@pytest.mark.parametrize("name", list(LANGUAGES))
def test_sample_is_balanced_labelled_and_reproducible(name):
    lang = LANGUAGES[name]
    data = lang.sample(120, seed=5)
    assert len(data) == 120
    assert sum(label for _, label in data) == 60
    assert all(lang.member(w) == label for w, label in data)
    assert all(lang.lmin <= len(w) <= 100 for w, _ in data)
    assert all(set(w) <= set(lang.alphabet) for w, _ in data)
    assert lang.sample(120, seed=5) == data
    assert lang.sample(120, seed=6) != data


def test_names_and_titles():
    assert language("Tomita 4").name == "tomita4"
    assert language("PT-3").name == "pt3"
    assert language("Dyck-1").name == "dyck1"
    assert language("Next(Argmax)").name == "nextargmax"
    with pytest.raises(KeyError):
        language("klingon")


def test_some_known_words():
    assert language("dyck1").member(list("[[]][]"))
    assert not language("dyck1").member(list("[]]["))
    assert language("d2").member(list("[[]]")) and not language("d2").member(list("[[[]]]"))
    assert language("tomita7").member(list("aabbab")) and not language("tomita7").member(list("baba"))
    assert language("tomita3").member(list("aabb")) and not language("tomita3").member(list("ab"))
    assert language("nextargmax").member(list("abab")) and not language("nextargmax").member(list("abaa"))


@pytest.mark.parametrize("name", list(LANGUAGES))
def test_minimum_length_is_the_shortest_member(name):
    """The paper samples lengths in [lmin, 100] with lmin "the minimum valid length for the target
    language": the shortest member, found here by enumerating every word (no word is shorter)."""
    import itertools

    lang = LANGUAGES[name]
    shortest = next(n for n in itertools.count(1)
                    if any(lang.member(list(w)) for w in itertools.product(lang.alphabet, repeat=n)))
    assert lang.lmin == shortest
