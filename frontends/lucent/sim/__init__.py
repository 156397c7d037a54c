"""Lucent stage 3': the checked model to Python values, step by step (the reference semantics).

Rule: may import ``core/`` only; never ``smt/`` (its sibling; the two meet in ``trace/``).

- ``simulate``: the interpreter of a node over Python values.
- ``instance_api``: the protocol ``Instance`` the feature modules are written against (they
  never import ``simulate``, which imports them).
- ``defaults``: every type's default value, and the value classes ``Fun`` and ``SymList``.
- ``canonical``: the canonical text of a value, equal exactly where ``=`` holds.
- ``collections_sim``: sets and maps on the simulator.
- ``recursive``: recursive datatypes as trees, their text and how it is read back.
- ``native``: the values of recursive datatypes' native fields.
- ``quantified``: quantified formulas decided by z3 on a trace's values.
- ``domains``: the domains of abstract types in a replayed trace.
- ``symarrays_sim``: arrays of symbolic size on the simulator.
- ``inputs``: what ``kinduct simulate`` reads (Kind 2's interpreter JSON, kinduct's own
  counterexamples, step lists, CSV) as typed steps.
"""
