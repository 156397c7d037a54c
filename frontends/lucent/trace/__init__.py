"""Lucent stage 4: counterexamples in source terms, where ``smt/``'s names meet ``sim/``'s values.

Rule: may import ``core/``, ``smt/`` and ``sim/``; never ``syntax/`` or ``check/``.

- ``ticks``: the steps a counterexample shows for a node instance on a clock.
"""
