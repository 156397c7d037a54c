"""Lucent stage 3': the checked model to Python values, step by step (the reference semantics).

Rule: may import ``core/`` only; never ``smt/`` (its sibling; the two meet in ``trace/``).

- ``simulate``: the interpreter of a node over Python values.
- ``canonical``: the canonical text of a value, equal exactly where ``=`` holds.
- ``collections_sim``: sets and maps on the simulator.
- ``symarrays_sim``: arrays of symbolic size on the simulator.
"""
