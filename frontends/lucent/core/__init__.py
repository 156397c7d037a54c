"""Lucent stage 0: the data every stage reads.

Rule: imports nothing else of ``kinduct.frontends.lucent``.

- ``ast``: the syntax tree, dataclasses carrying source positions (Kind 2's ``|`` and slices too).
- ``types``: resolved types, their flattening into leaves, and structured values rebuilt from them.
- ``checked``: the checked model (nodes, properties, modes, checked-only forms) the checker
  hands to the later stages.
- ``values``: the values of the operators on Python values (shared by checker and simulator).
- ``walk``: walks over checked expressions and declarations.
- ``names``: every generated name (ids numbered per program, the spellings of derived variables).
- ``clocks``: the clocks of lazy branches and activations (made by the checker, read by all).
- ``collections``: the syntax nodes of sets and maps (checked by ``check.collections``).
- ``native``: the native layout of recursive datatypes' fields, and the datatypes one reaches.
- ``quantified``: the formula of a quantifier kept as an SMT quantifier (translation and simulator).
- ``machine``: machine integers: names, operators, widths and values on Python integers.
- ``limits``: the limits that keep hostile input from exhausting the interpreter.
"""
