"""kinduct bench: comparing engines and solvers on suites (in progress)."""
