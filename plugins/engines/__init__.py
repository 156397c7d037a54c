"""Engines: bmc, kind (k-induction), portfolio; more arrive as plugins."""
