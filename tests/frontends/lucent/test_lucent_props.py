"""Done-when 6: on random Lucent programs and random inputs, the simulator (concrete semantics)
and the transition system agree on every stream.

Programs are deterministic (every ``pre`` is guarded by ``->``, divisions are by non-zero
constants), so fixing the inputs of an unrolling leaves exactly one model; its values must be
the simulator's.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kinduct.frontends.lucent.check.checker import check_program
from kinduct.frontends.lucent.pipeline import build_system
from kinduct.frontends.lucent.sim.simulate import Simulator
from kinduct.frontends.lucent.syntax.parser import parse_text
from kinduct.kernel.unroll import Unroller

HELPER = """
node Acc(x: int) returns (s: int);
let
  s = x + (0 -> pre s);
tel
"""


@st.composite
def programs(draw):
    n = draw(st.integers(1, 5))
    kinds = [draw(st.sampled_from(["int", "bool"])) for _ in range(n)]

    def int_expr(i: int, depth: int) -> str:
        options = ["a", "b", str(draw(st.integers(-3, 3)))]
        options += [f"v{j}" for j in range(i) if kinds[j] == "int"]
        later = [f"v{j}" for j in range(n) if kinds[j] == "int"]
        if later:
            options.append(f"({draw(st.integers(-2, 2))} -> pre {draw(st.sampled_from(later))})")
        if depth <= 0:
            return draw(st.sampled_from(options))
        choice = draw(st.integers(0, 8))
        if choice == 0:
            return f"({int_expr(i, depth - 1)} + {int_expr(i, depth - 1)})"
        if choice == 1:
            return f"({int_expr(i, depth - 1)} - {int_expr(i, depth - 1)})"
        if choice == 2:
            return f"({draw(st.integers(-3, 3))} * {int_expr(i, depth - 1)})"
        if choice == 3:
            c, x, y = bool_expr(i, depth - 1), int_expr(i, depth - 1), int_expr(i, depth - 1)
            return f"(if {c} then {x} else {y})"
        if choice == 4:
            return f"({int_expr(i, depth - 1)} {draw(st.sampled_from(['div', 'mod']))} " \
                   f"{draw(st.sampled_from(['2', '3', '(-2)', '5']))})"
        if choice == 5:
            return f"Acc({int_expr(i, depth - 1)})"
        if choice == 6:
            return f"(- {int_expr(i, depth - 1)})"
        return draw(st.sampled_from(options))

    def bool_expr(i: int, depth: int) -> str:
        options = ["c", "true", "false"] + [f"v{j}" for j in range(i) if kinds[j] == "bool"]
        later = [f"v{j}" for j in range(n) if kinds[j] == "bool"]
        if later:
            init = draw(st.sampled_from(["true", "false"]))
            options.append(f"({init} -> pre {draw(st.sampled_from(later))})")
        if depth <= 0:
            return draw(st.sampled_from(options))
        choice = draw(st.integers(0, 6))
        if choice == 0:
            op = draw(st.sampled_from(["<", "<=", "=", "<>", ">", ">="]))
            return f"({int_expr(i, depth - 1)} {op} {int_expr(i, depth - 1)})"
        if choice == 1:
            return f"(not {bool_expr(i, depth - 1)})"
        if choice == 2:
            op = draw(st.sampled_from(["and", "or", "xor", "=>"]))
            return f"({bool_expr(i, depth - 1)} {op} {bool_expr(i, depth - 1)})"
        if choice == 3:
            c, x, y = bool_expr(i, depth - 1), bool_expr(i, depth - 1), bool_expr(i, depth - 1)
            return f"(if {c} then {x} else {y})"
        return draw(st.sampled_from(options))

    eqs = []
    for i, k in enumerate(kinds):
        e = int_expr(i, 2) if k == "int" else bool_expr(i, 2)
        eqs.append(f"  v{i} = {e};")
    # an array built from the streams, read at an input index that may be out of range
    eqs.append(f"  w = [{int_expr(n, 1)}, {int_expr(n, 1)}, {int_expr(n, 1)}];")
    k = draw(st.integers(0, 2))
    eqs.append(f"  u = (if 0 <= b and b < 3 then w[b] else b) + w[a mod 3] + (0 -> pre w[{k}]);")
    kinds += ["int^3", "int"]
    outs = "; ".join(f"v{i}: {k}" for i, k in enumerate(kinds[:n])) + "; w: int^3; u: int"
    src = f"{HELPER}\nnode Main(a, b: int; c: bool) returns ({outs});\nlet\n" + "\n".join(eqs) + "\ntel\n"
    return src, n


inputs = st.lists(st.fixed_dictionaries({"a": st.integers(-20, 20), "b": st.integers(-20, 20),
                                         "c": st.booleans()}), min_size=1, max_size=5)


def smt_streams(system, steps: list[dict], names: list[str]) -> list[dict]:
    env = system.env
    mgr = env.formula_manager
    un = Unroller(system)
    solver = env.factory.Solver(name="z3")
    solver.add_assertion(un.at(system.init, 0))
    by_name = {v.symbol_name(): v for v in system.current_vars}
    for k, step in enumerate(steps):
        for a in system.assumptions:
            solver.add_assertion(un.at(a, k))
        if k + 1 < len(steps):
            solver.add_assertion(un.at(system.trans, k))
        for name, value in step.items():
            var = un.timed(by_name[name], k)
            solver.add_assertion(mgr.EqualsOrIff(var, mgr.Bool(value) if isinstance(value, bool)
                                                 else mgr.Int(value)))
    assert solver.solve(), "the transition system has no execution for these inputs"
    out = []
    for k in range(len(steps)):
        row = {}
        for n in names:
            v = solver.get_value(un.timed(by_name[n], k)).constant_value()
            row[n] = Fraction(v) if not isinstance(v, bool) else v
        out.append(row)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), inputs)
def test_simulator_agrees_with_transition_system(program, steps):
    src, n = program
    checked = check_program(parse_text(src, "<random>"))
    sim = Simulator(checked, "Main").run(steps)
    system = build_system(checked, "Main")
    names = [f"v{i}" for i in range(n)] + ["w[0]", "w[1]", "w[2]", "u"]
    smt = smt_streams(system, steps, names)
    for k in range(len(steps)):
        values = dict(sim[k])
        values.update({f"w[{j}]": x for j, x in enumerate(sim[k]["w"])})
        for name in names:
            assert values[name] == smt[k][name], (src, k, name, values[name], smt[k][name])
