"""The C-RASP frontend (DESIGN §7): programs over an alphabet, evaluated per position.

Modules, each documenting its public API:

- :mod:`.ast` — immutable syntax trees, :class:`~.ast.Program`, printer ``to_source``;
- :mod:`.parser` — ``parse``/``load`` (lark grammar ``crasp.lark``) and static ``check``;
- :mod:`.evaluate` — the reference evaluator (``evaluate``, ``accepts``): the semantics;
- :mod:`.vectorized` — numpy evaluation of batches (``Batch``, ``evaluate_rules``,
  ``evaluate_expr``, ``update_rules``, ``accepted``) for synthesis;
- :mod:`.translate` — programs as kernel acceptors (``to_acceptor``);
- :mod:`.queries` — empty/universal/include/equiv (``decide_query`` in code, CLI helpers);
- :mod:`.lustre` — the paper's Lustre encoding (``to_lustre``);
- :mod:`.cli`, :mod:`.plugin` — ``kinduct crasp ...`` and the ``.crasp`` frontend.

``synthesis/`` (learning, minimisation, constrained learning) builds on these.
"""
