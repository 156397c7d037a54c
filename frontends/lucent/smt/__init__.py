"""Lucent stage 3: the checked model to a kernel ``TransitionSystem``.

Rule: may import ``core/`` only; never ``sim/``.

- ``translate``: the translator (one instance per node call) and the SMT sort of a type.
- ``expressions``: checked expressions to terms, one case per construct.
- ``contracts``: an instance's contract, properties and refinement obligations.
- ``inst_api``: the protocols ``Translator`` and ``Inst`` the feature modules are written
  against (they never import ``translate``, which imports them).
- ``sorts``: the SMT sort of a scalar leaf (a recursive datatype's excepted).
- ``exists``: quantifier elimination for choices (where a value can be chosen).
- ``clocks``: the clocks of lazy branches and activations as terms.
- ``division``: ``/``, ``div`` and ``mod`` as linear constraints and functions.
- ``outside``: out-of-range array reads, functions of the array and index within a step.
- ``refine``: the constraints a refinement type puts on a term.
- ``choice``: ``any`` and ``choose`` (their predicates assumed where a value exists).
- ``symchoice``: choices of arrays of symbolic size.
- ``domains``: the domains of abstract types, for quantifiers over them.
- ``collections_smt``: sets and maps as SMT arrays.
- ``native``: the native fields of a recursive datatype's constructor.
- ``machine``: machine integers as bit-vectors.
- ``symarrays``: arrays of symbolic size as SMT arrays.
- ``unbounded``: quantifiers over infinite domains as SMT quantifiers.
- ``recursive``: recursive datatypes as SMT datatypes.
- ``obligations``: Kind 2's names for generated obligations.
- ``elements``: model elements (IVC/MCS) and their activation literals.
- ``fastenv``: the PySMT environment of a translation (a faster type check of new terms).
- ``meanings``: what the translation's state variables mean in Lucent (for printing
  invariants).
"""
