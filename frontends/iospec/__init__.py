"""I/O specifications of interactive programs: syntax, semantics (generalized traces and
their matching), path trees with z3, diverse inputs, and testing real programs
(``kinduct iospec``).  See ``parser.py`` for the syntax and docs/design.md for the design."""
