"""kernel/frontend.py: gc_paused leaves the collector as it found it, also when the block raises
or nests; the frontends' parse functions run under it."""

from __future__ import annotations

import gc

import pytest

from kinduct.kernel.frontend import gc_paused


def test_gc_paused_restores_the_collector():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_parsers_run_with_the_collector_off(monkeypatch):
    from kinduct.frontends.crasp import lines
    from kinduct.frontends.crasp.parser import parse

    seen = []
    real = lines.Reader.read

    def spy(self, text, reference):
        seen.append(gc.isenabled())
        return real(self, text, reference)

    monkeypatch.setattr(lines.Reader, "read", spy)
    parse("alphabet 'a'\nX := 'a'\n")
    assert seen == [False] and gc.isenabled()
