"""The Lucent frontend (Kind 2's Lustre): text to a kernel transition system, in stages.

A program passes the stages top to bottom; each stage is a folder, and a module may import only
from the folders its stage's rule allows (``tests/test_layering.py`` checks every import, also
those inside functions and under ``TYPE_CHECKING``):

- ``core/``    0. the data every stage reads: syntax tree, types, checked model, values, walks.
               May import no other folder.
- ``syntax/``  1. source text to the syntax tree (``core.ast.Program``). May import ``core/``.
- ``check/``   2. syntax tree to the checked model (``core.checked.Checked``): names, types,
               elaboration, the desugaring done during it, circularity checks. May import ``core/``.
- ``smt/``     3. checked model to a kernel ``TransitionSystem``. May import ``core/``.
- ``sim/``     3'. checked model to Python values, step by step (the reference semantics, used to
               replay counterexamples). May import ``core/``; ``smt/`` and ``sim/`` are siblings.
- ``trace/``   4. where the translation's names meet the simulator's values: counterexamples in
               source terms. May import ``core/``, ``smt/`` and ``sim/``.

- ``server/`` 5. ``kinduct lsp``, the language server: a consumer of the pipeline. May import
               ``core/``, ``syntax/``, ``check/`` and the entry modules; nothing imports it but
               ``plugin``, lazily.

The entry modules at the top may import every folder (of them, only ``plugin`` imports
``server/``, inside a function):

- ``pipeline``: the one place the stages are chained, in order (parse, check, choose the
  analyses, translate, attach ``trace/``'s lift and replay).
- ``abstraction``: which nodes an analysis reads by their contracts, and which one a
  refinement reads by its body (``--compositional``, ``--modular``, ``opaque``).
- ``simcli``: ``kinduct simulate`` (parse, check, simulate).
- ``realizability``: a node's contract as a contract system (parse, check, translate).
- ``testgen``: ``kinduct testgen`` (a node's mode paths explored on its translation, diverse
  traces per path, each checked on the simulator).
- ``monitor``: ``kinduct monitor`` (a recorded run against a contract, on the simulator).
- ``plugin``: the pluggy hooks; imports the entry modules above lazily.
"""
