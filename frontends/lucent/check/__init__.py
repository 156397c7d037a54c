"""Lucent stage 2: syntax tree to the checked model (``core.checked.Checked``).

Names, types, elaboration, the desugaring done during elaboration, and the circularity checks.
``checker.Checker`` elaborates declarations; ``typecheck`` resolves and types expressions; the
feature modules are called by both.

Rule: may import ``core/`` only (never ``syntax/``, ``smt/`` or ``sim/``); its modules may import
each other without a cycle: a feature module annotates with ``scope_api``'s protocols, never
importing ``checker`` or ``typecheck``, which import it.

- ``checker``: the checker of a program (declarations, nodes, contracts).
- ``typecheck``: name resolution and typing of expressions inside one node.
- ``scope_api``: the protocols ``Checker`` and ``Scope`` feature modules are written against,
  and the few definitions the hubs share with them.
- declarations: ``constants``, ``constarg``, ``polymorphism``, ``polytypes``, ``datatypes``,
  ``ctors`` (a datatype's constructors), ``undefined``, ``contractforms``, ``groups``.
- expressions: ``activation``, ``sampling``, ``lazy``, ``structural``, ``quantifiers``, ``skolem``,
  ``streamrefine``, ``collections``, ``concat``, ``machine`` (typing only), ``symarrays``, ``recursive``,
  ``unbounded``, ``quantified``, ``choice`` (the typing side of each; the translation of ``machine`` and
  ``choice`` is in ``smt/``).
- desugaring: ``blocks`` (if and frame blocks), ``arraydef`` (arrays defined element-wise).
- dependencies: ``dependencies``, ``calldeps``, ``elemdeps``.
"""
