"""Lucent stage 4: counterexamples in source terms, where ``smt/``'s names meet ``sim/``'s values.

Rule: may import ``core/``, ``smt/`` and ``sim/``; never ``syntax/`` or ``check/``.

- ``lift``: a trace's values read back as Lucent values, and shown as Kind 2's JSON node blocks.
- ``replay``: a counterexample run on the simulator (one simulation serves replay and lift).
- ``ticks``: the steps a counterexample shows for a node instance on a clock.
- ``invariants``: a proof's invariant printed in Lucent, over what the variables mean.
"""
