"""Realizability of contracts (``kinduct check --realizability``, Kind 2's ``CONTRACTCK``)."""
