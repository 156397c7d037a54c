"""Quantifier elimination for z3 terms, by cvc5 (:meth:`cvc5.Solver.getQuantifierElimination`).

z3's Horn solver describes a relation it inlined away as an existential over the relations it
kept (``exists x. Inv_k(x) and T(x, y)``).  An invariant must be quantifier-free to be read back,
certified and printed, so each outermost quantifier is replaced by cvc5's equivalent
quantifier-free formula.  (z3's ``qe`` tactics are not used: a tactic may drop what it solves
for a goal's free constants, which keeps satisfiability but not equivalence.)

cvc5 reads each quantifier as SMT-LIB text in a forked child process killed at the deadline
(:func:`kinduct.plugins.backends.child.text_in_child`): its search ignores its own time limits.
"""

from __future__ import annotations

import z3

from kinduct.plugins.backends.child import text_in_child

_SEPARATOR = "\x00"


def quantified(term: z3.ExprRef) -> bool:
    """Whether ``term`` has a quantifier inside."""
    return bool(_outermost(term))


def eliminate(term: z3.ExprRef, seconds: float | None) -> z3.ExprRef | None:
    """A quantifier-free term equivalent to ``term`` (an arithmetic formula), or None when cvc5
    is missing, fails, or takes longer than ``seconds``."""
    term = _lightened(term)
    quantifiers = _outermost(term)
    if not quantifiers:
        return term
    constants: dict[str, z3.ExprRef] = {}
    scripts = []
    for quantifier in quantifiers:
        plain = _unannotated(quantifier)
        free = _constants(plain)
        constants.update(free)
        declarations = "".join(f"(declare-fun {c.sexpr()} () {c.sort().sexpr()})"
                               for c in free.values())
        scripts.append(f"(set-logic ALL){declarations}(assert {plain.sexpr()})")
    text = text_in_child(lambda: _cvc5_eliminate(scripts), seconds)
    if text is None:
        return None
    replacements = []
    for quantifier, answer in zip(quantifiers, text.split(_SEPARATOR), strict=True):
        try:
            parsed = z3.parse_smt2_string(f"(assert {answer})", decls=constants, ctx=term.ctx)
        except z3.Z3Exception:
            return None
        replacements.append((quantifier, z3.And(*parsed) if len(parsed) != 1 else parsed[0]))
    return z3.substitute(term, *replacements)


def _cvc5_eliminate(scripts: list[str]) -> str:
    """For each script (declarations and one asserted quantified formula), cvc5's
    quantifier-free equivalent of the formula, as SMT-LIB text.  (One solver for all is
    slower: each elimination works within everything declared before.)"""
    import cvc5

    answers = []
    for script in scripts:
        solver = cvc5.Solver(cvc5.TermManager())
        parser = cvc5.InputParser(solver)
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, script, "quantifier")
        symbols = parser.getSymbolManager()
        while not (command := parser.nextCommand()).isNull():
            command.invoke(solver, symbols)
        (formula,) = solver.getAssertions()
        # The answer is equivalent to the formula *given the assertions*: there must be none.
        solver.resetAssertions()
        answers.append(str(solver.getQuantifierElimination(formula)))
    return _SEPARATOR.join(answers)


def _lightened(term: z3.ExprRef) -> z3.ExprRef:
    """``term`` with z3's cheap eliminations done in each outermost quantifier (variables a
    conjunct defines by an equation; ``qe-light``).  Each quantifier is handed to the tactic
    inside ``or(q, g)`` for a fresh ``g`` made false afterwards, so that what the tactic does to
    a goal's own top-level conjuncts (solving them away) cannot touch ``q``'s."""
    replacements = []
    for quantifier in _outermost(term):
        guard = z3.FreshBool("guard", term.ctx)
        light = z3.Tactic("qe-light", ctx=term.ctx).apply(z3.Or(quantifier, guard)).as_expr()
        light = z3.simplify(z3.substitute(light, (guard, z3.BoolVal(False, term.ctx))))
        replacements.append((quantifier, light))
    return z3.substitute(term, *replacements) if replacements else term


def _outermost(term: z3.ExprRef) -> list[z3.QuantifierRef]:
    """The quantifiers in ``term`` that are not inside another one, each once."""
    return [node for node in _nodes(term, into_quantifiers=False) if z3.is_quantifier(node)]


def _unannotated(quantifier: z3.QuantifierRef) -> z3.QuantifierRef:
    """``quantifier`` rebuilt without its annotations (cvc5 ignores an annotated body's
    ``:weight``, and with it the whole annotation)."""
    bound = [z3.Const(f"{quantifier.var_name(i)}!q{i}", quantifier.var_sort(i))
             for i in range(quantifier.num_vars())]
    body = z3.substitute_vars(quantifier.body(), *reversed(bound))
    return (z3.Exists if quantifier.is_exists() else z3.ForAll)(bound, body)


def _constants(term: z3.ExprRef) -> dict[str, z3.ExprRef]:
    """The free constants of ``term`` by name (bound variables are not constants in z3)."""
    return {node.decl().name(): node for node in _nodes(term, into_quantifiers=True)
            if z3.is_const(node) and node.decl().kind() == z3.Z3_OP_UNINTERPRETED}


def _nodes(term: z3.ExprRef, into_quantifiers: bool) -> list[z3.ExprRef]:
    """Every distinct subterm of ``term``, once each; a quantifier's body is entered only when
    ``into_quantifiers``."""
    found: list[z3.ExprRef] = []
    seen: set[int] = set()
    stack = [term]
    while stack:
        node = stack.pop()
        if node.get_id() in seen:
            continue
        seen.add(node.get_id())
        found.append(node)
        if z3.is_quantifier(node):
            if into_quantifiers:
                stack.append(node.body())
        else:
            stack.extend(node.children())
    return found
