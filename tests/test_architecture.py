"""The shape of the code, measured: no module reaches into another module's private members,
no module grows past what one reader holds, and no import cycle hides behind ``TYPE_CHECKING``.

Import cycles are checked by ``lint-imports`` (``.ci/run``): the "acyclic at every level"
contract counts ``TYPE_CHECKING`` and function-level imports. The test here repeats that check
with grimp so the suite alone catches a cycle too, and names the imports that close it.

A private member is a name with one leading underscore. Using one is fine inside the module
that defines it; anywhere else it is a reach into another module's insides: the name should be
public, or the code that needs it should live beside it. The exceptions are the private members
of Textual, the MCP SDK and regex, each listed (with a test that it still exists) in
``agent_tui.private_members``, and private modules (``_name.py``) imported by their own package.
"""

from __future__ import annotations

import ast
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from agent_tui.private_members import PRIVATE

SRC = Path(__file__).resolve().parents[1] / "src" / "agent_tui"
LARGEST = 500
MEDIAN = 200

# Public in spite of the underscore: documented API of the standard library.
STANDARD = {"os._exit", "sys._getframe"}


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _defined_names(tree: ast.AST) -> set[str]:
    """Every name the module itself defines: functions, classes, assignments (to names and to
    attributes, so ``self._x = ...`` defines ``_x``), arguments and imports."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def _listed(path: Path) -> set[str]:
    """The dependencies' private names ``path`` is listed as using."""
    relative = str(path.relative_to(SRC))
    names: set[str] = set()
    for entry in PRIVATE:
        if relative in entry.used_in:
            names.update(part for part in entry.name.split(".") if part)
            names.update(entry.module.split("."))
    return names


def _package_of(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1])


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reaches(path: Path, text: str | None = None) -> list[str]:
    """Each use in ``path`` (its ``text`` if given) of a private name it does not define."""
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    defined = _defined_names(tree)
    listed = _listed(path)
    package = _package_of(path)
    reaches: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            modules += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            for module in modules:
                # A private module (``pkg._name``) belongs to its package: imported from
                # outside it, it is a reach into that package's insides.
                parts = module.split(".")
                private = next((i for i, part in enumerate(parts) if _private(part)), None)
                if private is None or parts[0] != "agent_tui":
                    continue
                owner = ".".join(parts[:private])
                if package != owner and not package.startswith(owner + "."):
                    reaches.append(f"{node.lineno}: import of {module}")
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                if not _private(alias.name) or alias.name in listed:
                    continue
                # A private module (``_name.py``) is its package's own: importable there.
                candidate = SRC.parent / Path(*module.split("."), alias.name)
                own = package == module or package.startswith(module + ".")
                if own and (candidate.with_suffix(".py").exists() or candidate.is_dir()):
                    continue
                reaches.append(f"{node.lineno}: from {module} import {alias.name}")
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            text = ast.unparse(node)
            if node.attr in defined or node.attr in listed or text in STANDARD:
                continue
            reaches.append(f"{node.lineno}: {text}")
    return reaches


def test_no_module_reaches_into_another_modules_private_members() -> None:
    found = [
        f"{path.relative_to(SRC)}:{reach}" for path in _modules() for reach in private_reaches(path)
    ]
    assert not found, (
        "make these names public, or move the code beside them (a private member of Textual, "
        "the MCP SDK or regex goes in agent_tui/private_members.py):\n" + "\n".join(found)
    )


def test_the_checker_sees_a_reach() -> None:
    """The check above would catch what it is for: a module in the package tree that reads
    another object's private attribute and imports another module's private name."""
    text = (
        "from agent_tui.core.events import _ChildEvent\n"
        "from agent_tui.core.sandbox import _lifeline_main\n"
        "from agent_tui.core.sandbox._lifeline_main import main\n"
        "def f(agent):\n"
        "    return agent._append\n"
    )
    reaches = private_reaches(SRC / "core" / "probe.py", text)
    assert reaches == [
        "1: from agent_tui.core.events import _ChildEvent",
        "2: from agent_tui.core.sandbox import _lifeline_main",
        "3: import of agent_tui.core.sandbox._lifeline_main",
        "5: agent._append",
    ]
    # The same imports from inside the package that owns the private module are its own.
    inside = private_reaches(SRC / "core" / "sandbox" / "probe.py", text)
    assert inside == ["1: from agent_tui.core.events import _ChildEvent", "5: agent._append"]


def test_modules_stay_readable_in_one_sitting() -> None:
    sizes = {
        str(path.relative_to(SRC)): len(path.read_text(encoding="utf-8").splitlines())
        for path in _modules()
    }
    too_long = {name: lines for name, lines in sizes.items() if lines > LARGEST}
    assert not too_long, f"split these by concept (at most {LARGEST} lines): {too_long}"
    assert statistics.median(sizes.values()) <= MEDIAN


def _cycles() -> list[tuple[str, list[str], list[str]]]:
    """Strongly connected components among the children of every package, counting every
    import (``TYPE_CHECKING`` and function-level ones too): (package, members, the imports)."""
    import grimp

    graph = grimp.build_graph("agent_tui", exclude_type_checking_imports=False, cache_dir=None)
    modules = sorted(graph.modules)
    packages = sorted({m.rsplit(".", 1)[0] for m in modules if "." in m})
    found: list[tuple[str, list[str], list[str]]] = []
    for package in packages:

        def child(module: str, package: str = package) -> str | None:
            if not module.startswith(package + "."):
                return None
            return package + "." + module[len(package) + 1 :].split(".")[0]

        edges: dict[str, set[str]] = defaultdict(set)
        imports: dict[tuple[str, str], list[str]] = defaultdict(list)
        for module in modules:
            importer = child(module)
            if importer is None:
                continue
            for imported in graph.find_modules_directly_imported_by(module):
                target = child(imported)
                if target is not None and target != importer:
                    edges[importer].add(target)
                    imports[importer, target].append(f"{module} -> {imported}")
        nodes = sorted({c for m in modules if (c := child(m)) is not None})
        for component in _components(nodes, edges):
            lines = [line for a in component for b in component for line in imports.get((a, b), [])]
            found.append((package, component, lines))
    return found


def _components(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in nodes:
        if node not in index:
            visit(node)
    return out


def test_no_import_cycle_at_any_package_level() -> None:
    cycles = _cycles()
    report = "\n".join(
        f"{package}: {[m.rsplit('.', 1)[1] for m in members]}\n    " + "\n    ".join(lines)
        for package, members, lines in cycles
    )
    assert not cycles, "import cycles (TYPE_CHECKING imports included):\n" + report
