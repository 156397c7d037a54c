"""Lucent stage 1: source text to the syntax tree (``core.ast.Program``).

Rule: may import ``core/`` only.

- ``parser``: the entry points: the prescan, then the fast path, then lark when it declines.
- ``lexer``: the fast path's lexer (one regular expression, keywords by table).
- ``fasttypes``: the fast path's token cursor and types.
- ``fastclocks``: the fast path's clock operators (sampling clocks, merge, activations).
- ``fastexpr``: the fast path's expressions (precedence climbing).
- ``fastparse``: the fast path's declarations, statements and contracts (recursive descent).
- ``numerals``: numeral values and header parameter lists, shared by both paths.
- ``lucent.lark``: the grammar (the reference: lark parses what the fast path declines).
- ``larkparse``: the lark parser, its error messages, and the builder of the syntax tree.
- ``prescan``: the scan of the text before parsing (unterminated comments, unsupported features).
- ``treebuild``: shortcuts through lark's tree building (unit rules, the transformer's pass).
- ``clocksyntax``: the parse-tree callbacks of the clock operators.
- ``typesyntax``: the parse-tree callbacks of types.
- ``contractsyntax``: the parse-tree callbacks of contract items.
- ``positions``: source positions of parse-tree nodes and tokens.
- ``gapsyntax``: the parse-tree callbacks of Kind 2's syntax variants.
"""
