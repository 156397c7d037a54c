"""Backends: SMT solvers (z3, cvc5) through PySMT, and external checkers."""
