"""The package's import layers (docs/architecture.md): the package is one subpackage per layer, bottom to top as
the page lists them, with a few modules at its top. Every import of a rootparams module is at the top of its module,
reaches the importer's own package or one listed below it, and no chain of imports, of modules or of packages,
comes back to where it started. Read from the source with ast, so that an import hidden in a function counts too."""

from __future__ import annotations

import ast
import re

import pytest
from conftest import REPO

PACKAGE = REPO / "src" / "rootparams"
ARCHITECTURE = REPO / "docs" / "architecture.md"


def documented_layers() -> list[tuple[str, list[str]]]:
    """(package or top module, the modules its item names) as docs/architecture.md lists them, bottom to top:
    '1. **Name** (`package`: `a`, `b`): what it holds' or '1. **Name** (`module`): what it holds'."""
    items = re.finditer(
        r"^\d+\. \*\*[^*]+\*\* \(`(\w+)`(?::([^)]*))?\)", ARCHITECTURE.read_text(), re.MULTILINE
    )
    return [(m[1], re.findall(r"`(\w+)`", m[2] or "")) for m in items]


def units() -> dict[str, list[str]]:
    """The tree: each subpackage with its modules, and each module at the top (with none)."""
    found = {p.stem: [] for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    for init in PACKAGE.glob("*/__init__.py"):
        found[init.parent.name] = sorted(p.stem for p in init.parent.glob("*.py") if p.stem != "__init__")
    return found


def module_of(name: str, tree: dict[str, list[str]]) -> str:
    """'pkg.mod', 'pkg' or 'mod' (a top module) for a dotted name below rootparams."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[1] in tree.get(parts[0], []):
        return f"{parts[0]}.{parts[1]}"
    return parts[0]


def imports_of(tree: ast.Module, here: str, units_: dict[str, list[str]]) -> list[tuple[str, int, bool]]:
    """(rootparams module imported, line, at the module's top level) for every import in ``tree``; ``here`` is
    the importing module ('pkg.mod' or 'mod')."""
    top = {id(node) for node in tree.body}
    package = here.split(".")[0] if "." in here else ""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name[len("rootparams.") :] for a in node.names if a.name.startswith("rootparams.")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "rootparams":
            names = [a.name for a in node.names]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("rootparams.")
        ):
            below = node.module[len("rootparams.") :]
            names = [f"{below}.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:  # a relative import is of this package too
            base = package if node.level == 1 else ""
            below = ".".join(filter(None, [base, node.module or ""]))
            names = [f"{below}.{a.name}" if below else a.name for a in node.names]
        else:
            continue
        found += [(module_of(name, units_), node.lineno, id(node) in top) for name in names]
    return found


@pytest.fixture(scope="module")
def tree() -> dict[str, list[str]]:
    return units()


@pytest.fixture(scope="module")
def graph(tree) -> dict[str, list[tuple[str, int, bool]]]:
    """Every module ('pkg.mod' or a top 'mod') with its imports."""
    graph = {}
    for unit, modules in tree.items():
        for module in modules or [None]:
            name = f"{unit}.{module}" if module else unit
            path = PACKAGE / unit / f"{module}.py" if module else PACKAGE / f"{unit}.py"
            graph[name] = imports_of(ast.parse(path.read_text()), name, tree)
    return graph


@pytest.fixture(scope="module")
def rank() -> dict[str, int]:
    return {unit: i for i, (unit, _) in enumerate(documented_layers())}


def unit_of(module: str) -> str:
    return module.split(".")[0]


def test_every_package_is_in_exactly_one_layer(tree):
    listed = [unit for unit, _ in documented_layers()]
    assert len(listed) == len(set(listed)), (
        f"listed twice: {sorted({u for u in listed if listed.count(u) > 1})}"
    )
    assert set(listed) == set(tree), (
        f"docs/architecture.md misses {sorted(set(tree) - set(listed))}, lists unknown {sorted(set(listed) - set(tree))}"
    )


def test_the_page_names_every_module_of_its_package(tree):
    wrong = [
        f"{unit}: the page names {sorted(named)}, the package holds {sorted(tree[unit])}"
        for unit, named in documented_layers()
        if unit in tree and sorted(named) != sorted(tree[unit])
    ]
    assert not wrong, "; ".join(wrong)


def test_only_packages_one_deep(tree):
    deeper = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.glob("*/*/__init__.py"))
    assert not deeper, f"subpackages below a subpackage: {deeper}"
    missing = sorted(
        p.name
        for p in PACKAGE.iterdir()
        if p.is_dir() and any(p.glob("*.py")) and not (p / "__init__.py").exists()
    )
    assert not missing, (
        f"folders of modules without __init__.py (setuptools would not install them): {missing}"
    )


def test_the_vocabulary_is_at_the_bottom():
    layers = documented_layers()
    assert [unit for unit, _ in layers[:2]] == ["errors", "vocabulary"]


def test_no_rootparams_import_inside_a_function(graph):
    hidden = [
        f"{module}:{line} imports {name}"
        for module, imports in graph.items()
        for name, line, top in imports
        if not top
    ]
    assert not hidden, "imports of rootparams modules belong at the top of the module: " + "; ".join(hidden)


def test_every_import_reaches_its_own_package_or_below(graph, rank):
    upward = [
        f"{module} ({unit_of(module)}, layer {rank[unit_of(module)] + 1}) imports {name} "
        f"({unit_of(name)}, layer {rank[unit_of(name)] + 1})"
        for module, imports in graph.items()
        for name, _, _ in imports
        if unit_of(name) in rank and unit_of(module) in rank and rank[unit_of(name)] > rank[unit_of(module)]
    ]
    assert not upward, "; ".join(upward)


def test_no_import_cycle(graph):
    edges = {
        module: sorted({name for name, _, _ in imports if name in graph and name != module})
        for module, imports in graph.items()
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


def test_no_package_imports_a_module_of_another_package_from_its_init():
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        body = [n for n in ast.parse(init.read_text()).body if not isinstance(n, ast.Expr)]
        assert not body, f"{init.relative_to(PACKAGE)} holds more than its docstring"


def test_the_workflows_imports_leave_the_plotting_and_scipy_for_the_jobs_that_use_them():
    """Every Snakemake start (each batch-cluster job's too) runs the imports of workflow/rules/common.smk: without
    matplotlib, seaborn and scipy.stats (rootparams.tools.plotting, rootparams.stats.intervals.scipy_stats) they took
    0.7 s instead of 1.9 s on a 2-core VM."""
    import subprocess
    import sys

    smk = (REPO / "workflow" / "rules" / "common.smk").read_text()
    modules = sorted(set(re.findall(r"^from (rootparams[\w.]*) import", smk, re.MULTILINE)))
    assert len(modules) > 5, modules
    imports = [f"import {m}" for m in modules]
    heavy = ("matplotlib", "seaborn", "scipy.stats")
    code = "\n".join([*imports, "import sys", f"print(sorted(m for m in {heavy!r} if m in sys.modules))"])
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "[]", f"the workflow's imports load {run.stdout.strip()}"
