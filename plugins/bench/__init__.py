"""kinduct bench: comparing engines and solvers on benchmark suites, locally or on Dask."""
