"""The domains of abstract types in a replayed trace (``smt.domains`` declares them)."""

from __future__ import annotations

from typing import Any

from kinduct.frontends.lucent.core import names as naming
from kinduct.frontends.lucent.core.types import DOMAIN


def simulated(oracle: Any, tname: str) -> list[int] | None:
    """The domain of ``tname`` in a replayed trace: its values (None: infinite or empty, not
    enumerable)."""
    from kinduct.frontends.lucent.sim.collections_sim import finitized
    value = oracle(naming.domain(tname), DOMAIN, 0)
    if finitized(value) or not value:
        return None
    return sorted(k[0] for k in value)
