"""The project's import layering, read from every import statement with ``ast``.

Every import counts: at module top, inside functions, and under ``if TYPE_CHECKING:``. The rules:

- the project's (docs/design.md §0): the kernel imports no frontend or plugin; a frontend imports
  no plugin and no other frontend (the helper modules ``frontends/*.py`` excepted); a plugin imports
  no frontend; no engine imports another (the engines are the modules ``plugins/engines/plugin.py``
  registers);
- Lucent's stage folders (``frontends/lucent/__init__.py``): a module imports only the folders its
  stage allows; no import inside a function crosses two stage folders (the entry modules at
  the top of the package are exempt: ``plugin`` imports lazily on purpose); no Lucent module
  is part of an import cycle (a hard rule, no exception list: a stage's feature modules
  annotate with its hub's protocol module, ``check/scope_api``, ``smt/inst_api``,
  ``sim/instance_api``, never with the hub itself);
- anywhere in the project: no module imports (or reads as an attribute) another module's private
  ``_name``.

``KNOWN`` lists the violations that exist today (none). It may only shrink:
a violation not in it fails the first test, and an entry that no longer occurs fails the
second (delete it).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Source folder -> the package it is installed as (pyproject.toml's package-dir).
PACKAGES = {"api": "kinduct", "kernel": "kinduct.kernel", "frontends": "kinduct.frontends",
            "plugins": "kinduct.plugins", "tests": "tests", "benchmarks": "benchmarks"}
LUCENT = "kinduct.frontends.lucent"
#: Lucent's stage folders and the folders each may import ("" is the package's top level).
ALLOWED = {
    "core": {"core"},
    "syntax": {"core", "syntax"},
    "check": {"core", "check"},
    "smt": {"core", "smt"},
    "sim": {"core", "sim"},
    "trace": {"core", "smt", "sim", "trace"},
    "": {"core", "syntax", "check", "smt", "sim", "trace", "server", ""},
    # the language server: a consumer of the pipeline (parse, check; translate through pipeline)
    "server": {"core", "syntax", "check", "server", ""},
}

#: Today's violations, (rule, importer, imported) with "kinduct." left off. Only ever delete lines.
KNOWN: set[tuple[str, str, str]] = set()


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    target: str    # the project module imported
    name: str      # the name taken from it ("" for the module itself)
    kind: str      # "top", "local" or "typing"


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [PACKAGES[rel.parts[0]], *rel.parts[1:]]
    parts[-1] = parts[-1].removesuffix(".py")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files() -> dict[str, Path]:
    return {module_name(p): p for folder in PACKAGES for p in sorted((ROOT / folder).rglob("*.py"))
            if "build" not in p.relative_to(ROOT).parts}


FILES = project_files()


def _is_package(module: str) -> bool:
    return FILES[module].name == "__init__.py"


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not _is_package(importer):
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _owner(dotted: str) -> str | None:
    """The longest prefix of ``dotted`` that is a project module."""
    parts = dotted.split(".")
    while parts:
        if ".".join(parts) in FILES:
            return ".".join(parts)
        parts.pop()
    return None


def _kinds(tree: ast.Module) -> dict[int, str]:
    """The kind of every import node, by id: under TYPE_CHECKING, inside a function, else top."""
    kinds: dict[int, str] = {}

    def visit(node: ast.AST, kind: str) -> None:
        for child in ast.iter_child_nodes(node):
            k = kind
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and k == "top":
                k = "local"
            if isinstance(node, ast.If) and child in node.body and "TYPE_CHECKING" in ast.unparse(node.test):
                k = "typing"
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                kinds[id(child)] = k
            visit(child, k)
    visit(tree, "top")
    return kinds


def imports_of(module: str) -> Iterator[Import]:
    tree = ast.parse(FILES[module].read_text())
    kinds = _kinds(tree)
    aliases: dict[str, str] = {}  # local name -> project module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _owner(alias.name)
                if target:
                    yield Import(module, target, "", kinds[id(node)])
                    if alias.asname and target == alias.name:
                        aliases[alias.asname] = target
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, node)
            if _owner(source) is None:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in FILES:
                    yield Import(module, sub, "", kinds[id(node)])
                    aliases[alias.asname or alias.name] = sub
                else:
                    yield Import(module, _owner(source) or source, alias.name, kinds[id(node)])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and _private(node.attr)):
            yield Import(module, aliases[node.value.id], node.attr, "attribute")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@functools.cache
def all_imports() -> list[Import]:
    """Every import of the project (read once, when a test first asks: not at collection,
    which every test worker pays)."""
    return [imp for module in FILES for imp in imports_of(module)]


def _area(module: str) -> tuple[str, str]:
    """("kernel" | "frontend" | "plugin" | "api" | "other", the frontend or plugin package, or "")."""
    parts = module.split(".")
    if parts[0] != "kinduct":
        return "other", ""  # tests and benchmarks: only the private-name rule applies
    if len(parts) < 2 or parts[1] not in ("kernel", "frontends", "plugins"):
        return "api", ""
    area = {"kernel": "kernel", "frontends": "frontend", "plugins": "plugin"}[parts[1]]
    package = parts[2] if len(parts) > 2 and not (area == "frontend" and len(parts) == 3
                                                     and not _is_package(module)) else ""
    return area, package


def _engines() -> set[str]:
    plugin = "kinduct.plugins.engines.plugin"
    return {imp.target for imp in imports_of(plugin)
            if imp.target.startswith("kinduct.plugins.engines.") and imp.target != plugin}


def _stage(module: str) -> str | None:
    if module != LUCENT and not module.startswith(LUCENT + "."):
        return None
    rest = module[len(LUCENT) + 1:].split(".")
    return rest[0] if len(rest) > 1 else ""


def _cycles(edges: set[tuple[str, str]]) -> set[str]:
    """The modules in an import cycle (a strongly connected component of more than one module)."""
    succ: dict[str, set[str]] = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: set[str] = set()
    counter = [0]

    def connect(v: str) -> None:  # Tarjan; Lucent's graph is small enough for recursion
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.update(component)
    for v in sorted(succ):
        if v not in index:
            connect(v)
    return out


def rules_broken(imp: Import, engines: set[str]) -> set[tuple[str, str, str]]:
    """The rules one import breaks, as (rule, importer, imported) with "kinduct." left off."""
    found: set[tuple[str, str, str]] = set()

    def add(rule: str, target: str) -> None:
        found.add((rule, imp.importer.removeprefix("kinduct."), target.removeprefix("kinduct.")))

    if imp.target == imp.importer:
        return found
    if _private(imp.name) or _private(imp.target.rpartition(".")[2]):
        add("private", f"{imp.target}.{imp.name}" if imp.name else imp.target)
    if imp.kind == "attribute":
        return found
    (area, package), (t_area, t_package) = _area(imp.importer), _area(imp.target)
    if area == "kernel" and t_area in ("frontend", "plugin"):
        add("kernel", imp.target)
    if area == "frontend" and (t_area == "plugin" or (t_area == "frontend" and t_package
                                                       and t_package != package)):
        add("frontend", imp.target)
    if area == "plugin" and t_area == "frontend":
        add("plugin", imp.target)
    if imp.importer in engines and imp.target in engines:
        add("engine", imp.target)
    stage, t_stage = _stage(imp.importer), _stage(imp.target)
    if stage is not None and t_stage is not None and imp.target != LUCENT:
        if t_stage not in ALLOWED[stage]:
            add("stage", imp.target)
        if imp.kind == "local" and stage and t_stage != stage:
            add("local", imp.target)
    return found


def violations() -> set[tuple[str, str, str]]:
    engines = _engines()
    return {v for imp in all_imports() for v in rules_broken(imp, engines)}


def lucent_cycles() -> set[str]:
    """The Lucent modules in an import cycle, counting every import (top, local, typing)."""
    edges = {(imp.importer, imp.target) for imp in all_imports()
             if imp.kind != "attribute" and imp.importer != imp.target
             and _stage(imp.importer) is not None and _stage(imp.target) is not None
             and LUCENT not in (imp.importer, imp.target)}
    return _cycles(edges)


def test_no_import_cycle_in_lucent():
    found = lucent_cycles()
    assert not found, "Lucent modules in an import cycle:\n" + "\n".join(sorted(found))


def test_the_cycle_check_sees_a_cycle():
    """A planted cycle (through a ``TYPE_CHECKING`` and a local import) is found."""
    assert _cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == {"a", "b", "c"}
    a, b = f"{LUCENT}.smt.translate", f"{LUCENT}.smt.refine"
    planted = [Import(a, b, "", "top"), Import(b, a, "Inst", "typing")]
    all_imports().extend(planted)
    try:
        assert {a, b} <= lucent_cycles()
    finally:
        del all_imports()[-len(planted):]


def test_no_import_breaks_a_rule_beyond_the_known_ones():
    new = violations() - KNOWN
    assert not new, "imports breaking the layering rules:\n" + "\n".join(map(repr, sorted(new)))


def test_every_known_violation_still_occurs():
    gone = KNOWN - violations()
    assert not gone, "fixed; delete from KNOWN:\n" + "\n".join(map(repr, sorted(gone)))


def test_the_rules_see_a_violation_of_each_kind(tmp_path):
    """The checker itself: each rule catches a planted import (so an empty result means something)."""
    planted = {
        "kinduct.kernel.planted_a": "from kinduct.frontends.vmt import reader\n",
        "kinduct.frontends.lucent.core.planted_b": (
            "def f():\n    from kinduct.frontends.lucent.smt.translate import _x\n"),
        "kinduct.frontends.crasp.planted_c": (
            "import kinduct.frontends.lucent.plugin as p\nprint(p._hidden)\n"),
    }
    for name, text in planted.items():
        path = tmp_path / (name.rpartition(".")[2] + ".py")
        path.write_text(text)
        FILES[name] = path
    try:
        found = {(rule, importer) for name in planted for imp in imports_of(name)
                 for rule, importer, _ in rules_broken(imp, set())}
    finally:
        for name in planted:
            del FILES[name]
    assert found == {("kernel", "kernel.planted_a"), ("stage", "frontends.lucent.core.planted_b"),
                     ("local", "frontends.lucent.core.planted_b"),
                     ("private", "frontends.lucent.core.planted_b"),
                     ("frontend", "frontends.crasp.planted_c"), ("private", "frontends.crasp.planted_c")}


def _folders() -> list[Path]:
    lucent = ROOT / "frontends" / "lucent"
    return [lucent, *sorted(p.parent for p in lucent.glob("*/__init__.py"))]


def test_each_lucent_folder_lists_its_modules():
    for folder in _folders():
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
        names = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
        names += [p.parent.name for p in folder.glob("*/__init__.py")]
        missing = [n for n in names if not re.search(rf"\b{re.escape(n)}\b", doc)]
        assert not missing, f"{folder.relative_to(ROOT)}/__init__.py does not name {missing}"


def test_only_the_plugin_imports_the_language_server():
    """``server/`` is a consumer of the pipeline: no other Lucent module depends on it, and the
    plugin imports it inside a function (``kinduct --version`` never loads pygls)."""
    server = f"{LUCENT}.server"
    found = {(imp.importer, imp.kind) for imp in all_imports()
             if (imp.target == server or imp.target.startswith(server + "."))
             and not (imp.importer == server or imp.importer.startswith(server + "."))
             and not imp.importer.startswith(("tests.", "benchmarks."))}
    assert found <= {(f"{LUCENT}.plugin", "local")}, sorted(found)



def test_every_read_of_a_lucent_module_names_what_it_defines():
    """``from kinduct.frontends.lucent.x import name`` and ``x.name`` (``x`` an imported Lucent
    module) name something ``x`` defines: a misspelt name fails here, not in the one run that
    reaches it (modules whose third-party dependency is not installed are skipped)."""
    import importlib

    def load(name: str):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").startswith("kinduct"):
                raise
            return None

    bad = []
    for module, path in FILES.items():
        if not module.startswith(LUCENT) and not module.startswith("tests.frontends.lucent"):
            continue
        tree = ast.parse(path.read_text())
        bound: dict[str, object] = {}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(LUCENT)):
                continue
            base = load(node.module)
            if base is None:
                continue
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in FILES:
                    bound[alias.asname or alias.name] = load(sub)
                elif not hasattr(base, alias.name):
                    bad.append(f"{module}:{node.lineno}: {node.module} has no {alias.name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and bound.get(node.value.id) is not None
                    and not hasattr(bound[node.value.id], node.attr)):
                bad.append(f"{module}:{node.lineno}: {node.value.id} has no {node.attr}")
    assert not bad, "\n".join(bad)
