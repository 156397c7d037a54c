"""Lucent stage 1: source text to the syntax tree (``core.ast.Program``).

Rule: may import ``core/`` only.

- ``lucent.lark``: the grammar.
- ``prescan``: the scan of the text before parsing (unterminated comments, unsupported features).
- ``parser``: the lark parser and the transformer building the syntax tree.
- ``treebuild``: shortcuts through lark's tree building (unit rules, the transformer's pass).
- ``clocksyntax``: the parse-tree callbacks of the clock operators.
- ``typesyntax``: the parse-tree callbacks of types.
- ``contractsyntax``: the parse-tree callbacks of contract items.
- ``positions``: source positions of parse-tree nodes and tokens.
- ``gapsyntax``: the parse-tree callbacks of Kind 2's syntax variants.
"""
