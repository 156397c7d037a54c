"""``kinduct lsp``: the language server, a consumer of the pipeline at the top of the stages.

Rule (``tests/test_layering.py``): a module here may import ``core/``, ``syntax/``, ``check/``,
this folder and the entry modules at the top of the package (``model``: the translation, for
checks); no stage folder imports it, and the plugin imports it lazily (only ``kinduct lsp``
loads pygls).  Imports of other folders are at module top (none inside a function).

- ``document``: one text parsed and checked (never translated): diagnostics with ranges, the
  outline, definitions, stream types.  Plain data, no protocol types.
- ``fingerprint``: per-node hashes of the syntax tree without positions, over everything the
  node reaches: the cache key of its verdicts.
- ``checking``: one analysis per node (``check``, ``compositional``) with the verdict cache;
  verdicts to messages; placing cached results in an edited text.
- ``realize``: realizability of a node's contract, run by ``kinduct check --realizability`` in
  a child process (the game lives in a plugin, which no frontend imports).
- ``other``: load errors of the other frontends' files, through the kernel's registry.
- ``kind2``: the shapes of Kind 2's extension requests (``kind2/getComponents``, ...).
- ``lsp``: the server's state (documents, results, debouncing, progress, cancellation).
- ``features``: the protocol handlers, commands and custom requests; ``serve``.
"""
