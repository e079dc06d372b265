"""The package's import layers (docs/architecture.md): every import of a rootparams module is at the top of its
module, reaches the importer's own layer or one below, and no chain of imports comes back to where it started.
Read from the source with ast, so that an import hidden in a function counts too."""

from __future__ import annotations

import ast
import re

import pytest
from conftest import REPO

PACKAGE = REPO / "src" / "rootparams"
ARCHITECTURE = REPO / "docs" / "architecture.md"


def documented_layers() -> list[list[str]]:
    """The layers as docs/architecture.md lists them, bottom to top: '1. **Name** (`a`, `b`): what it holds'."""
    items = re.finditer(r"^\d+\. \*\*[^*]+\*\* \(([^)]*)\)", ARCHITECTURE.read_text(), re.MULTILINE)
    return [re.findall(r"`(\w+)`", m[1]) for m in items]


def imports_of(tree: ast.Module) -> list[tuple[str, int, bool]]:
    """(rootparams module imported, line, at the module's top level) for every import in ``tree``."""
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[1] for a in node.names if a.name.startswith("rootparams.")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "rootparams":
            names = [a.name for a in node.names]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("rootparams.")
        ):
            names = [node.module.split(".")[1]]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:  # a relative import is of this package too
            names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
        else:
            continue
        found += [(name, node.lineno, id(node) in top) for name in names]
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, list[tuple[str, int, bool]]]:
    return {path.stem: imports_of(ast.parse(path.read_text())) for path in sorted(PACKAGE.glob("*.py"))}


@pytest.fixture(scope="module")
def layer_of() -> dict[str, int]:
    return {module: i for i, layer in enumerate(documented_layers()) for module in layer}


def test_every_module_is_in_exactly_one_layer(graph):
    listed = [module for layer in documented_layers() for module in layer]
    assert len(listed) == len(set(listed)), (
        f"listed twice: {sorted({m for m in listed if listed.count(m) > 1})}"
    )
    assert set(listed) == set(graph), (
        f"docs/architecture.md misses {sorted(set(graph) - set(listed))}, lists unknown {sorted(set(listed) - set(graph))}"
    )


def test_the_vocabulary_is_at_the_bottom():
    layers = documented_layers()
    assert layers[:2] == [["errors"], ["vocabulary"]]


def test_no_rootparams_import_inside_a_function(graph):
    hidden = [
        f"{module}.py:{line} imports {name}"
        for module, imports in graph.items()
        for name, line, top in imports
        if not top
    ]
    assert not hidden, "imports of rootparams modules belong at the top of the module: " + "; ".join(hidden)


def test_every_import_reaches_its_own_layer_or_below(graph, layer_of):
    upward = [
        f"{module} (layer {layer_of[module] + 1}) imports {name} (layer {layer_of[name] + 1})"
        for module, imports in graph.items()
        for name, _, _ in imports
        if name in layer_of and module in layer_of and layer_of[name] > layer_of[module]
    ]
    assert not upward, "; ".join(upward)


def test_no_import_cycle(graph):
    edges = {
        module: sorted({name for name, _, _ in imports if name in graph}) for module, imports in graph.items()
    }
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            pytest.fail("import cycle: " + " -> ".join([*path[path.index(module) :], module]))
        if module in done:
            return
        for name in edges[module]:
            visit(name, [*path, module])
        done.add(module)

    for module in edges:
        visit(module, [])
