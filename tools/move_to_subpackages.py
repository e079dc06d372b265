#!/usr/bin/env python3
"""Move the flat package ``src/rootparams`` into one subpackage per layer (docs/architecture.md), mechanically.

    python3 tools/move_to_subpackages.py [--dry-run] [--allow-dirty] [--report FILE]
    python3 tools/move_to_subpackages.py --private-names FILE     (the follow-up list only; changes nothing)

Run from the checkout's top (any tree: a newer main too). It

1. ``git mv``s every module of MOVES into its package (history kept), renaming the homonyms (``native`` ->
   ``tools/processes.py``, ``physics`` -> ``decide/instrument_checks.py``, ``stats`` -> ``stats/intervals.py``,
   ``storagebench``/``remotebench``/``warmread`` -> ``measure/{storage,remote,cpu}_primitives.py``), and writes
   each package's ``__init__.py``; a module MOVES does not know goes to the package of its layer in the old
   docs/architecture.md (and the report says so);
2. rewrites every reference in the tracked text files: ``rootparams.X`` (imports, ``-m`` strings, entry points,
   monkeypatch targets, prose), ``from rootparams import X`` (regrouped by package, with Python's ast in .py, a
   careful regex in .smk), the names a renamed module was bound to (ast), ``src/rootparams/X.py`` paths, a renamed
   module's ``X.py`` and ``X.attribute`` in comments, docstrings and docs, ``Path(__file__).parents[N]`` of a moved
   module, the module table of ``cli`` that feeds ``import_module(f"rootparams.{...}")``;
3. renames the tests of renamed modules (tests/test_physics.py -> tests/test_instrument_checks.py, ...);
4. writes docs/architecture.md's list of layers and tests/test_import_layers.py (which now checks packages);
5. runs ``ruff check --select I --fix`` and ``ruff format`` on the Python files it changed, and snakefmt on the
   rules it changed;
6. checks the result (no upward import between packages, no cycle) and reports every reference it could not
   rewrite, or rewrote by a guess worth a look;
7. leaves the package's data (cxx/, recipes/*.recipe and recipes/formats.yaml, schemas/) where it is, at the
   top of the package, where pyproject.toml's package-data installs it and ``resources.files("rootparams")``
   reads it, and reports a package-data glob that matches nothing, a data file no glob installs, or a resource
   read that is not there.

The follow-up, names used only in their own module made private (``_name``): tools/make_private.py, run after
this script.

CHANGELOG.md is history and is left as it is. Nothing is committed: review ``git status``/``git diff -M``, then
commit. The script refuses a tree where the move is already made (src/rootparams/tools/__init__.py exists).
Deterministic: the same tree gives the same result.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import shutil
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

PACKAGE = "rootparams"
SRC = Path("src") / PACKAGE

# Modules that stay at the top of the package.
TOP = ("errors", "vocabulary", "cli")

# The packages bottom to top (docs/architecture.md's order): name, title, what it holds (the architecture page's
# text), and its modules in the order the page names them: old module name -> new module name. A module of the
# plan that a tree does not have is skipped (and reported), so the plan may name modules of branches not yet
# merged. Where a module goes is decided by its imports first (nothing may import upwards), then by the old page:
# - preflight imports config (study), cpureference (measure), monitor and storage (host): measure, where the
#   old page has it (layer 6); study or tools would import upwards;
# - studyfiles (branch workflow-thin) imports paths, config, formats and grid: study, as on that branch's page;
# - blockplan (workflow-thin) imports adaptive (decide) and measure: decide, not study (its page: layer 7);
# - outputs (workflow-thin) imports figures (present), remotebench and writenoise (measure), drift, grid and
#   unzipkinds: present, not study (its page: layer 8).
LAYERS: list[tuple[str, str, str, dict[str, str]]] = [
    (
        "errors",
        "Errors",
        "the one family of errors a user can fix, `UserError`.",
        {},
    ),
    (
        "vocabulary",
        "Vocabulary",
        "the study's words: the setting keys of a file and of a read, the container each belongs to and what a "
        "rewrite can change, their defaults (read from the schema), the containers and their ROOT classes, the "
        "compression algorithms and ROOT's compression setting, the grammars of `branch_compression` and "
        "`float_precision`, the repetitions a point needs.",
        {},
    ),
    (
        "tools",
        "Tools",
        "the project's paths and records, the C++ tools (`processes` runs them, `build` compiles them), ROOT's "
        "environment, ROOT files read, streamed and rewritten, and the provenance of a run, each on its own, "
        "knowing no study.",
        {
            "paths": "paths",
            "records": "records",
            "native": "processes",
            "rootenv": "rootenv",
            "build": "build",
            "provenance": "provenance",
            "snakescript": "snakescript",
            "streamed": "streamed",
            "root_metadata": "root_metadata",
            "uproot_read": "uproot_read",
            "rewrite": "rewrite",
            "recompress": "recompress",
        },
    ),
    (
        "host",
        "The host",
        "the machine a study measures on: the timed-read lock, the VM's free page reporting, the page cache, the "
        "storage profiles and their throttling, the system monitor, and the remote profiles' endpoints.",
        {
            "exclusive": "exclusive",
            "hostmemory": "hostmemory",
            "pagecache": "pagecache",
            "storage": "storage",
            "monitor": "monitor",
            "remote": "remote",
        },
    ),
    (
        "stats",
        "Statistics",
        "intervals of means and of ratios, verdicts in three states and a bootstrap over rounds (`intervals`), "
        "points compared paired by round (`compare`), and the host's drift over a study (`drift`).",
        {"stats": "intervals", "compare": "compare", "drift": "drift"},
    ),
    (
        "ownfile",
        "The user's own files",
        "a user's file as a source of the study, the kinds of content a file's bytes are grouped into, what a "
        "file is (`rootparams inspect`), and a recipe that clones its content (`rootparams calibrate`).",
        {
            "sources": "sources",
            "contentkinds": "contentkinds",
            "inspection": "inspection",
            "calibrate": "calibrate",
        },
    ),
    (
        "study",
        "The study",
        "what a study is: its formats, what its scans vary and which figures they feed, its points, how its "
        "timed reads are cut into measuring jobs (blocks and passes), the loaded and validated configuration, its "
        "disk footprint, and how its settings are named and ordered for people.",
        {
            "formats": "formats",
            "scans": "scans",
            "grid": "grid",
            "blocks": "blocks",
            "config": "config",
            "studyfiles": "studyfiles",
            "footprint": "footprint",
            "labels": "labels",
        },
    ),
    (
        "measure",
        "Making and measuring",
        "a point's file written (or a user's file catalogued or rewritten), its timed reads, the warm reads that "
        "measure its CPU primitives, ROOT's decompression per content kind, the storage primitives (fio's rates "
        "under each storage profile; the round trip and bandwidth of each remote profile, measured with ROOT "
        "through its endpoint), the host's CPU rating (7-Zip's one-thread benchmark, the figure other machines "
        "publish), and the spread of a write's CPU time (a few of the study's files written again); and, before "
        "the first job, the programs all of these will run (g++, fio, 7-Zip, the monitor, the remote profiles' "
        "servers), checked at once.",
        {
            "generate": "generate",
            "measure": "measure",
            "warmread": "cpu_primitives",
            "unzipkinds": "unzipkinds",
            "storagebench": "storage_primitives",
            "remotebench": "remote_primitives",
            "cpureference": "cpureference",
            "writenoise": "writenoise",
            "preflight": "preflight",
        },
    ),
    (
        "results",
        "Results",
        "records into summaries (repetitions, files, points), and the paper's Table 1.",
        {"aggregate": "aggregate", "tables": "tables"},
    ),
    (
        "model",
        "The model",
        "the model of the timed loop (docs/model.md), and what limits a read.",
        {"model": "model", "bottleneck": "bottleneck"},
    ),
    (
        "decide",
        "The decision",
        "the cost model and the Pareto fronts, the instrument's checks, and the plan that measures only where "
        "the model cannot decide.",
        {
            "decision": "decision",
            "physics": "instrument_checks",
            "adaptive": "adaptive",
            "blockplan": "blockplan",
        },
    ),
    (
        "present",
        "Presentation",
        "the figures, the recommendations, the run summary, the comparison of hosts, and what a user types to "
        "apply advise's decision (hadd, ROOT calls, the framework's output keys; docs/applying.md).",
        {
            "figures": "figures",
            "recommend": "recommend",
            "report": "report",
            "hosts": "hosts",
            "applying": "applying",
            "outputs": "outputs",
        },
    ),
    (
        "commands",
        "Commands",
        "`advise`, the answer for one file, runs the workflow on a configuration made for it; "
        "`recompress_command`, `rootparams recompress`, a file at another compression without its dictionaries.",
        {"advise": "advise", "recompress_command": "recompress_command"},
    ),
    (
        "cli",
        "Command line",
        "the `rootparams` command, which runs the workflow and the commands and tools below it.",
        {},
    ),
]

# A module MOVES does not know goes to the package of its layer in the old page (its number, 1 at the bottom).
OLD_LAYER_PACKAGE = {
    3: "tools",
    4: "stats",
    5: "study",
    6: "measure",
    7: "decide",
    8: "present",
    9: "commands",
}

# What a module of the plan adds to its package's text (the page's item, the package's docstring), where the tree
# has it: a sentence appended.
OPTIONAL_TEXT = {
    "studyfiles": "`studyfiles` names the files a study's points read and are made from.",
    "blockplan": "`blockplan` says what each block's measuring job measures.",
    "outputs": "`outputs` lists a study's final outputs and the patterns of their names.",
}


def layer_text(what: str, modules: list[str]) -> str:
    """A package's text, with what its optional modules add where the tree has them."""
    return " ".join([what, *(OPTIONAL_TEXT[m] for m in modules if m in OPTIONAL_TEXT)])


# Text files the script rewrites (tracked files only), and what it leaves.
TEXT_SUFFIXES = {".py", ".smk", ".md", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".txt", ".sh", ".rst", ""}
SKIP = (
    "CHANGELOG.md",
    "tools/move_to_subpackages.py",
    "tools/make_private.py",
    "docs/architecture.md",
    "tests/test_import_layers.py",
)
SKIP_UNDER = ("src/rootparams/cxx/", "src/rootparams/recipes/", "tests/data/", ".git/")

ARCHITECTURE = Path("docs/architecture.md")
LAYER_TEST = Path("tests/test_import_layers.py")


class Report:
    def __init__(self) -> None:
        self.sections: dict[str, list[str]] = {}

    def add(self, section: str, line: str) -> None:
        self.sections.setdefault(section, []).append(line)

    def text(self) -> str:
        out = []
        for section, lines in self.sections.items():
            out += [f"## {section} ({len(lines)})", *lines, ""]
        return "\n".join(out)


def git(*args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], check=check, capture_output=True, text=True).stdout


# ---- the mapping ------------------------------------------------------------------------------------------------


def old_doc_layers(text: str) -> dict[str, int]:
    """module -> its layer's number on the old (flat) architecture page."""
    items = re.finditer(r"^(\d+)\. \*\*[^*]+\*\* \(([^)]*)\)", text, re.MULTILINE)
    return {m: int(item[1]) for item in items for m in re.findall(r"`(\w+)`", item[2])}


def plan(report: Report) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(old module -> new dotted path below rootparams, package -> its new module names in order)."""
    present = sorted(p.stem for p in SRC.glob("*.py") if p.stem != "__init__")
    known = {old: (pkg, new) for pkg, _, _, mods in LAYERS for old, new in mods.items()}
    layers = old_doc_layers(ARCHITECTURE.read_text()) if ARCHITECTURE.exists() else {}
    moves: dict[str, str] = {}
    members: dict[str, list[str]] = {pkg: [] for pkg, _, _, mods in LAYERS if mods}
    for pkg, _, _, mods in LAYERS:
        for old, new in mods.items():
            if old in present:
                moves[old] = f"{pkg}.{new}"
                members[pkg].append(new)
            else:
                report.add("modules of the plan not in this tree (skipped)", f"{old} -> {pkg}/{new}.py")
    for module in present:
        if module in TOP or module in known:
            continue
        pkg = OLD_LAYER_PACKAGE.get(layers.get(module, 0))
        if pkg is None:
            report.add("modules left at the top (in no layer of the old page; place them by hand)", module)
            continue
        moves[module] = f"{pkg}.{module}"
        members[pkg].append(module)
        report.add(
            "modules the plan did not know, placed by their old layer (check them)",
            f"{module} (old layer {layers[module]}) -> {pkg}/{module}.py",
        )
    return moves, members


# ---- rewriting --------------------------------------------------------------------------------------------------


def renames(moves: dict[str, str]) -> dict[str, str]:
    """old module name -> new module name, for the modules whose name changes."""
    return {old: new.split(".")[-1] for old, new in moves.items() if new.split(".")[-1] != old}


def dotted(text: str, moves: dict[str, str]) -> str:
    """``rootparams.X`` -> ``rootparams.pkg.Y`` (imports, -m strings, monkeypatch targets, prose), and the paths
    ``rootparams/X.py`` -> ``rootparams/pkg/Y.py``."""
    names = "|".join(sorted(moves, key=len, reverse=True))
    text = re.sub(
        rf"(?<![\w./-]){PACKAGE}\.({names})\b(?!\.py\b)", lambda m: f"{PACKAGE}.{moves[m[1]]}", text
    )
    return re.sub(
        rf"(?<![\w-]){PACKAGE}/({names})\.py\b",
        lambda m: f"{PACKAGE}/{moves[m[1]].replace('.', '/')}.py",
        text,
    )


def public_names(path: Path) -> set[str]:
    """The names a module defines at its top (for ``old.name`` in prose)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def prose(
    text: str, renamed: dict[str, str], attrs: dict[str, set[str]], test_renames: dict[str, str]
) -> str:
    """A renamed module's ``old.name`` (name one it defines), ``old.py`` and ``test_old.py`` in prose."""
    for old, new in renamed.items():
        if attrs.get(old):
            pattern = "|".join(sorted(attrs[old], key=len, reverse=True))
            text = re.sub(rf"(?<![\w.]){old}\.({pattern})\b", rf"{new}.\1", text)
        text = re.sub(rf"(?<![\w./-]){old}\.py\b", f"{new}.py", text)
    for old, new in test_renames.items():
        text = re.sub(rf"\b{old}\.py\b", f"{new}.py", text)
    return text


def prose_in_code(text: str, renamed, attrs, test_renames, report: Report, where: str) -> str:
    """``prose`` on the comments and strings of Python-like code only, never on its names."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        report.add("files rewritten as plain text (could not tokenize)", where)
        return prose(text, renamed, attrs, test_renames)
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edits = []
    for tok in tokens:
        if tok.type in (tokenize.COMMENT, tokenize.STRING):
            new = prose(tok.string, renamed, attrs, test_renames)
            if new != tok.string:
                a = starts[tok.start[0] - 1] + tok.start[1]
                b = starts[tok.end[0] - 1] + tok.end[1]
                edits.append((a, b, new))
    for a, b, new in sorted(edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


def import_lines(indent: str, groups: dict[str, list[str]]) -> str:
    """``from rootparams[.pkg] import a, b as c`` lines, one per package, each within 110 columns."""
    out = []
    for module in sorted(groups):
        names = groups[module]
        line = f"{indent}from {module} import {', '.join(names)}"
        if len(line) > 110:
            inner = "".join(f"{indent}    {n},\n" for n in names)
            line = f"{indent}from {module} import (\n{inner}{indent})"
        out.append(line)
    return "\n".join(out)


def regroup(
    names: list[tuple[str, str | None]], moves: dict[str, str], keep: frozenset[str] = frozenset()
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """``from rootparams import`` names -> {module: ["name", "name as alias"]} and {old bound name: new}; a renamed
    module in ``keep`` stays bound to its old name (``new as old``)."""
    groups: dict[str, list[str]] = {}
    bound: dict[str, str] = {}
    for name, alias in names:
        if name in moves:
            pkg, new = moves[name].rsplit(".", 1)
            module = f"{PACKAGE}.{pkg}"
            if alias is None and new != name and name in keep:
                alias = name
            if alias and alias != new:
                groups.setdefault(module, []).append(f"{new} as {alias}")
            else:
                groups.setdefault(module, []).append(new)
                if alias is None and new != name:
                    bound[name] = new
        else:
            groups.setdefault(PACKAGE, []).append(f"{name} as {alias}" if alias else name)
    return groups, bound


def offsets(text: str) -> list[int]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def clashes(tree: ast.Module, names: set[str]) -> set[str]:
    """The names of ``names`` a file also uses for something else than the module: a parameter, an assignment, a
    function or class, another import."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.arg in names:
            found.add(node.arg)
        elif isinstance(node, ast.Name) and node.id in names and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name in names:
            found.add(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module != PACKAGE:
            found |= {a.asname or a.name for a in node.names} & names
        elif isinstance(node, ast.Import):
            found |= {a.asname or a.name.split(".")[0] for a in node.names} & names
    return found


def rewrite_python(text: str, moves: dict[str, str], report: Report, where: str) -> str:
    """``from rootparams import X`` regrouped by package, and a renamed module's bound name renamed (ast)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        report.add("Python files not parsed (imports not regrouped)", f"{where}: {error}")
        return text
    starts = offsets(text)
    lines = text.splitlines(keepends=True)
    nodes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and node.module == PACKAGE
        and any(a.name in moves for a in node.names)
    ]
    renamed = {a.name for n in nodes for a in n.names if a.asname is None and a.name in moves}
    renamed = {n for n in renamed if moves[n].rsplit(".", 1)[1] != n}
    # The old name used for something else, or the new name already taken: the import keeps the old name.
    new_names = {moves[n].rsplit(".", 1)[1]: n for n in renamed}
    taken = clashes(tree, renamed | set(new_names)) | {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in new_names
    }
    keep = frozenset(new_names.get(n, n) for n in taken)
    for name in sorted(keep):
        report.add(
            "renamed modules kept under their old name as an alias (the name is also something else there)",
            f"{where}: {name}",
        )
    edits = []
    bound_all: dict[str, str] = {}
    for node in nodes:
        groups, bound = regroup([(a.name, a.asname) for a in node.names], moves, keep)
        bound_all.update(bound)
        a = starts[node.lineno - 1] + node.col_offset
        b = starts[node.end_lineno - 1] + node.end_col_offset
        if "#" in text[a:b]:
            report.add("comments dropped inside a regrouped import (put them back)", f"{where}:{node.lineno}")
        indent = lines[node.lineno - 1][: node.col_offset]
        if indent.strip():
            report.add("imports after ';' regrouped on their own lines (check)", f"{where}:{node.lineno}")
            indent = ""
        edits.append((a, b, import_lines(indent, groups).lstrip()))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in bound_all:
            a = starts[node.lineno - 1] + node.col_offset
            if text[a : a + len(node.id)] == node.id:
                edits.append((a, a + len(node.id), bound_all[node.id]))
            else:
                report.add(
                    "uses of a renamed module not found where ast says (rename by hand)",
                    f"{where}:{node.lineno}: {node.id}",
                )
    for a, b, new in sorted(edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


SMK_IMPORT = re.compile(rf"^([ \t]*)from {PACKAGE} import (\([^)]*\)|[^\n(]*)$", re.MULTILINE)


def snakemake_taken(files: list[Path], moves: dict[str, str]) -> frozenset[str]:
    """The renamed modules whose new name a Snakemake file already uses (a function, a variable): Snakemake's
    files share one namespace, so there the import keeps the module's old name."""
    new_names = {new.rsplit(".", 1)[1]: old for old, new in moves.items() if new.rsplit(".", 1)[1] != old}
    taken = set()
    for path in files:
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text()).readline))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            continue
        for i, tok in enumerate(tokens):
            before = tokens[i - 1].string if i else ""
            if (
                tok.type == tokenize.NAME
                and tok.string in new_names
                and before not in (".", "rule", "checkpoint")
            ):
                taken.add(new_names[tok.string])
    return frozenset(taken)


def rewrite_snakemake(
    text: str, moves: dict[str, str], report: Report, where: str, keep: frozenset[str] = frozenset()
) -> str:
    """The same for Snakemake's files, which ast cannot read: the import lines by regex, uses by token."""
    bound_all: dict[str, str] = {}

    def one(m: re.Match) -> str:
        body = re.sub(r"#[^\n]*", "", m[2]).strip("() \n")
        names = []
        for part in filter(None, (p.strip() for p in body.split(","))):
            name, _, alias = part.partition(" as ")
            names.append((name.strip(), alias.strip() or None))
        if not any(n in moves for n, _ in names):
            return m[0]
        groups, bound = regroup(names, moves, keep)
        bound_all.update(bound)
        for name, alias in names:
            if name in keep and alias is None:
                report.add(
                    "renamed modules kept under their old name in the workflow (the new name is taken there)",
                    f"{where}: {moves[name].rsplit('.', 1)[1]} as {name}",
                )
        return import_lines(m[1], groups)

    text = SMK_IMPORT.sub(one, text)
    if not bound_all:
        return text
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        for old in bound_all:
            report.add(
                "Snakemake files where a renamed module's uses could not be renamed", f"{where}: {old}"
            )
        return text
    starts = offsets(text)
    edits = []
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME or tok.string not in bound_all:
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if before == "." or (after == "=" and before in ("(", ",")):
            continue
        if after == "=" or before in ("def", "for", "as", "import"):
            report.add(
                "Snakemake names that may clash with a renamed module (check)", f"{where}:{tok.start[0]}"
            )
        a = starts[tok.start[0] - 1] + tok.start[1]
        edits.append((a, a + len(tok.string), bound_all[tok.string]))
    for a, b, new in sorted(edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


INLINE_IMPORT = re.compile(
    rf"(^[ \t>]*)?from {PACKAGE} import (\w+(?: as \w+)?(?:, *\w+(?: as \w+)?)*)", re.M
)


def inline_imports(text: str, moves: dict[str, str], report: Report, where: str) -> str:
    """``from rootparams import X, Y`` in docs and shell: one line per package where the import starts its line,
    else joined by '; ' (a ``python -c`` snippet)."""

    def one(m: re.Match) -> str:
        names = []
        for part in m[2].split(","):
            name, _, alias = part.strip().partition(" as ")
            names.append((name.strip(), alias.strip() or None))
        if not any(n in moves for n, _ in names):
            return m[0]
        groups, _ = regroup(names, moves)
        if m[1] is not None:
            return import_lines(m[1], groups)
        report.add("imports inside a line of prose split with '; ' (check)", f"{where}: {m[0]}")
        return "; ".join(import_lines("", {k: v}) for k, v in sorted(groups.items()))

    return INLINE_IMPORT.sub(one, text)


def deeper_file_paths(text: str, report: Report, where: str) -> str:
    """A moved module is one folder deeper: ``Path(__file__)...parents[N]`` -> ``parents[N + 1]``, and
    ``Path(__file__)...parent`` -> ``parents[1]``; other uses of ``__file__`` (os.path.dirname) are reported, and
    so is ``resources.files`` of the module's own package, which is now its subpackage."""
    text = re.sub(
        r"(Path\(__file__\)(?:\.resolve\(\))?\.parents\[)(\d+)\]", lambda m: f"{m[1]}{int(m[2]) + 1}]", text
    )
    text = re.sub(r"(Path\(__file__\)(?:\.resolve\(\))?)\.parent\b(?!s)", r"\1.parents[1]", text)
    for number, line in enumerate(text.splitlines(), 1):
        if "__file__" in line and "parents[" not in line:
            report.add(
                "uses of __file__ in a moved module (check by hand)", f"{where}:{number}: {line.strip()}"
            )
        if re.search(r"resources\.files\(\s*(__package__|__name__|__spec__)", line):
            report.add(
                "resources of a moved module's own package (now its subpackage: check by hand)",
                f"{where}:{number}: {line.strip()}",
            )
    return text


def package_data(report: Report) -> None:
    """The package's data (cxx/, recipes/, schemas/) stays where it is, at the top of the package: nothing moves
    it, pyproject.toml's package-data (``rootparams = ["recipes/*.yaml", ...]``) installs it from there, and
    ``resources.files("rootparams")`` finds it there. Report what would break that: a glob of package-data that
    matches no file, a data file of the package no glob installs, a resource read that is not there."""
    try:
        import tomllib

        globs = tomllib.loads(Path("pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    except (ImportError, OSError, KeyError, ValueError) as error:
        report.add("package data not checked (pyproject.toml unread)", repr(error))
        return
    installed: set[Path] = set()
    for package, patterns in globs.items():
        base = Path("src", *package.split(".")) if package != "*" else SRC
        for pattern in patterns:
            found = {p for p in base.glob(pattern) if p.is_file()}
            installed |= found
            if not found:
                report.add("package-data globs that match no file (pyproject.toml)", f"{package}: {pattern}")
    for name in git("ls-files", str(SRC)).split("\n"):
        path = Path(name)
        if name and path.suffix != ".py" and path not in installed:
            report.add("files of the package that package-data does not install (pyproject.toml)", name)
    reads = re.compile(r"resources\.files\(\s*[\"']([\w.]+)[\"']\s*\)\.joinpath\(\s*[\"']([^\"']+)[\"']\s*\)")
    for module in sorted(SRC.rglob("*.py")):
        for m in reads.finditer(module.read_text()):
            if not Path("src", *m[1].split("."), m[2]).exists():
                report.add("resources read that are not there after the move", f"{module}: {m[1]} {m[2]}")


def dynamic_module_tables(text: str, moves: dict[str, str], report: Report, where: str) -> str:
    """A dict whose values are module names, in a file that imports ``f"rootparams.{...}"``: its values become
    the modules' dotted paths below rootparams (cli's table of commands)."""
    if not re.search(rf"import_module\(f[\"']{PACKAGE}\.\{{", text):
        return text
    tree = ast.parse(text)
    starts = offsets(text)
    edits = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Dict)
            and node.values
            and all(
                isinstance(v, ast.Constant)
                and isinstance(v.value, str)
                and (v.value in moves or v.value in TOP)
                for v in node.values
            )
        ):
            for v in node.values:
                if v.value in moves:
                    a = starts[v.lineno - 1] + v.col_offset
                    b = starts[v.end_lineno - 1] + v.end_col_offset
                    edits.append((a, b, repr(moves[v.value]).replace("'", '"')))
            report.add("tables of modules for import_module rewritten (check)", f"{where}:{node.lineno}")
    for a, b, new in sorted(edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


# ---- the architecture page and the layer test -------------------------------------------------------------------


DEFAULT_TAIL = (
    "The workflow's scripts (`workflow/scripts/*.py`) and rules (`workflow/rules/*.smk`) sit above all of them and "
    "only\nwire them.\n"
)


def page_tail(old_page: str, renamed: dict[str, str]) -> str:
    """The old page's paragraphs after its list of layers (where the workflow sits; a branch may have said more
    there), kept, with a renamed module's name in backticks renamed; else DEFAULT_TAIL."""
    items = list(re.finditer(r"^\d+\. ", old_page, re.MULTILINE))
    if not items:
        return DEFAULT_TAIL
    end_of_list = re.search(r"\n[ \t]*\n", old_page[items[-1].start() :])
    if not end_of_list:
        return DEFAULT_TAIL
    tail = old_page[items[-1].start() + end_of_list.end() :].strip()
    for old, new in renamed.items():
        tail = re.sub(rf"`{old}`", f"`{new}`", tail)
    return tail + "\n" if tail else DEFAULT_TAIL


def architecture_page(members: dict[str, list[str]], tail: str = DEFAULT_TAIL) -> str:
    items = []
    for number, (name, title, what, _) in enumerate(LAYERS, 1):
        if name in members:
            modules = ", ".join(f"`{m}`" for m in members[name])
            item = f"{number}. **{title}** (`{name}`: {modules}): {layer_text(what, members[name])}"
        else:
            item = f"{number}. **{title}** (`{name}`): {what}"
        indent = " " * len(f"{number}. ")
        items.append(textwrap.fill(item, 115, subsequent_indent=indent, break_on_hyphens=False))
    return (
        "# The package's layers\n\n"
        "`src/rootparams` is built in layers, one subpackage for each, with the three modules `errors`, "
        "`vocabulary` and `cli` at\nthe top of the package. A module imports only from its own package and the "
        "packages (or top modules) listed below\nit, every import of a `rootparams` module sits at the top of its "
        "module (never inside a function, where it would\nhide a cycle), and no chain of imports, of modules or of "
        "packages, comes back to where it started. Heavy\nthird-party libraries (uproot, awkward, ROOT, "
        "matplotlib through `present.figures`) may be imported inside a function\nwhere that keeps a start-up "
        "short; the line that does it says so. `tests/test_import_layers.py` reads the list below\nand checks all "
        "of it against the tree: every package and top module listed once, each package's modules named in\nits "
        "item, and every import going to its own package or one listed before it.\n\n"
        "Bottom to top (`package`: its modules):\n\n" + "\n".join(items) + "\n\n" + tail
    )


LAYER_TEST_TEXT = '''"""The package's import layers (docs/architecture.md): the package is one subpackage per layer, bottom to top as
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
    items = re.finditer(r"^\\d+\\. \\*\\*[^*]+\\*\\* \\(`(\\w+)`(?::([^)]*))?\\)", ARCHITECTURE.read_text(), re.MULTILINE)
    return [(m[1], re.findall(r"`(\\w+)`", m[2] or "")) for m in items]


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
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("rootparams."):
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
    assert len(listed) == len(set(listed)), f"listed twice: {sorted({u for u in listed if listed.count(u) > 1})}"
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
        p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.py")) and not (p / "__init__.py").exists()
    )
    assert not missing, f"folders of modules without __init__.py (setuptools would not install them): {missing}"


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
'''


# ---- checking the result ----------------------------------------------------------------------------------------


def check_layers(moves: dict[str, str], report: Report) -> None:
    """The package graph after the move: every import to its own package or one below, no cycle."""
    rank = {name: i for i, (name, *_) in enumerate(LAYERS)}
    where = {old: new for old, new in moves.items()}
    files = {m: SRC / f"{m}.py" for m in TOP if (SRC / f"{m}.py").exists()}
    files |= {new: SRC / (new.replace(".", "/") + ".py") for new in where.values()}
    for module, path in sorted(files.items()):
        unit = module.split(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == PACKAGE:
                names = [a.name for a in node.names]
            elif (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").startswith(PACKAGE + ".")
            ):
                names = [node.module.split(".")[1]]
            elif isinstance(node, ast.Import):
                names = [a.name.split(".")[1] for a in node.names if a.name.startswith(PACKAGE + ".")]
            for name in names:
                if name in rank and unit in rank and rank[name] > rank[unit]:
                    report.add(
                        "upward imports after the move (fix the plan)",
                        f"{module}:{node.lineno} imports {name}",
                    )


def leftovers(moves: dict[str, str], renamed: dict[str, str], files: list[Path], report: Report) -> None:
    """References the script left: old dotted names, old paths, a renamed module's bare name in backticks."""
    old_names = "|".join(sorted(moves, key=len, reverse=True))
    patterns = {
        "references to an old module left (rewrite by hand)": re.compile(
            rf"(?<![\w./-]){PACKAGE}[./]({old_names})\b(?![./]\w)(?! import\b)"
        ),
        "imports of an old module left (rewrite by hand)": re.compile(
            rf"from {PACKAGE} import [^\n]*\b({old_names})\b"
        ),
    }
    bare = re.compile(rf"`({'|'.join(renamed)})`") if renamed else None
    for path in files:
        if not path.exists() or str(path) in SKIP or str(path).startswith(SKIP_UNDER):
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for what, pattern in patterns.items():
                for m in pattern.finditer(line):
                    if what.startswith("imports") or m[1] in moves:
                        report.add(what, f"{path}:{number}: {line.strip()[:140]}")
            if bare and path.suffix in (".md", ".py", ".smk") and bare.search(line):
                report.add(
                    "a renamed module's old name in backticks (a module, or the storage profile 'native'?)",
                    f"{path}:{number}: {line.strip()[:140]}",
                )


# ---- the follow-up list: public names used only in their own module ---------------------------------------------


def private_names(out: Path) -> None:
    """Public top-level names of the package's modules that no other file names: candidates for a leading ``_``."""
    modules = sorted(p for p in SRC.rglob("*.py") if p.name != "__init__.py" and "cxx" not in p.parts)
    code_files = [Path(f) for f in git("ls-files", "*.py", "*.smk", "Snakefile").split()]
    code_files += [p for p in modules if p not in code_files]
    words: dict[Path, set[str]] = {}
    for path in code_files:
        if path.exists():
            words[path.resolve()] = set(re.findall(r"\b[A-Za-z_]\w*\b", path.read_text()))
    lines = []
    total = used_by_tests_only = own_only = 0
    for path in modules:
        tree = ast.parse(path.read_text())
        defined = []
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.append(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined += [t.id for t in targets if isinstance(t, ast.Name)]
        public = [n for n in dict.fromkeys(defined) if not n.startswith("_") and n != "main"]
        total += len(public)
        me = path.resolve()
        for name in public:
            users = [p for p, w in words.items() if p != me and name in w]
            if not users:
                own_only += 1
                lines.append(f"{path.relative_to(SRC)}\t{name}\tonly here")
            elif all("tests" in p.parts for p in users):
                used_by_tests_only += 1
                lines.append(f"{path.relative_to(SRC)}\t{name}\tonly here and in tests")
    head = [
        "# Public top-level names of src/rootparams used only in their own module (no other .py/.smk/Snakefile",
        "# names them), then those named elsewhere only by tests: candidates for a leading '_'. A textual scan:",
        "# a name that another file merely mentions counts as used there, so the list errs on the short side.",
        f"# {total} public names; {own_only} only in their own module; {used_by_tests_only} only there and in tests.",
        "# module\tname\twhere",
    ]
    out.write_text("\n".join(head + lines) + "\n")
    print(f"wrote {out}: {own_only} names only in their own module, {used_by_tests_only} also in tests")


# ---- main -------------------------------------------------------------------------------------------------------


def tool(name: str) -> list[str] | None:
    """How to run ruff or snakefmt: the checkout's venv, the PATH, or this Python's module."""
    for candidate in (Path(".venv/bin") / name, Path(sys.executable).parent / name):
        if candidate.exists():
            return [str(candidate)]
    found = shutil.which(name)
    return [found] if found else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    parser.add_argument("--allow-dirty", action="store_true", help="run on a tree with uncommitted changes")
    parser.add_argument("--report", type=Path, help="write the report here too")
    parser.add_argument("--private-names", type=Path, help="only write the list of names to make private")
    parser.add_argument("--no-format", action="store_true", help="do not run ruff and snakefmt")
    args = parser.parse_args(argv)

    if not SRC.is_dir():
        parser.error(f"run from the checkout's top: no {SRC}")
    if args.private_names:
        private_names(args.private_names)
        return 0
    if (SRC / "tools" / "__init__.py").exists():
        parser.error("the move is already made here (src/rootparams/tools/__init__.py exists)")
    if (
        not args.dry_run
        and not args.allow_dirty
        and git("status", "--porcelain", "--untracked-files=no").strip()
    ):
        parser.error("uncommitted changes: commit or stash them first (or --allow-dirty)")

    report = Report()
    moves, members = plan(report)
    renamed = renames(moves)
    test_renames = {
        f"test_{old}": f"test_{new}"
        for old, new in renamed.items()
        if Path(f"tests/test_{old}.py").exists() and not Path(f"tests/test_{new}.py").exists()
    }
    for old, new in moves.items():
        report.add("moves (git mv)", f"src/{PACKAGE}/{old}.py -> src/{PACKAGE}/{new.replace('.', '/')}.py")
    for old, new in test_renames.items():
        report.add("moves (git mv)", f"tests/{old}.py -> tests/{new}.py")
    if args.dry_run:
        package_data(report)
        print(report.text())
        return 0

    attrs = {old: public_names(SRC / f"{old}.py") for old in renamed}

    # 1. the moves, history kept
    for pkg in members:
        (SRC / pkg).mkdir(exist_ok=True)
    for old, new in moves.items():
        git("mv", str(SRC / f"{old}.py"), str(SRC / (new.replace(".", "/") + ".py")))
    for old, new in test_renames.items():
        git("mv", f"tests/{old}.py", f"tests/{new}.py")
    for pkg, title, what, _ in LAYERS:
        if pkg in members:
            init = SRC / pkg / "__init__.py"
            holds = layer_text(what, members[pkg])
            doc = textwrap.fill(f'"""{title}: {holds}'.replace("`", "``"), 110, break_on_hyphens=False)
            init.write_text(f'{doc}\n\nThe layers: docs/architecture.md."""\n')
            git("add", str(init))

    # 2. the references
    moved_files = {str(SRC / (new.replace(".", "/") + ".py")) for new in moves.values()}
    files = [Path(f) for f in git("ls-files").split("\n") if f]
    changed_py, changed_smk = [], []
    smk_keep = snakemake_taken([p for p in files if p.suffix == ".smk" or p.name == "Snakefile"], moves)
    for path in files:
        name = str(path)
        if name in SKIP or not path.is_file():
            continue
        if name.startswith(SKIP_UNDER) or path.suffix == ".recipe":
            data = (
                path.read_text(errors="replace") if path.suffix in (".h", ".cxx", ".recipe", ".yaml") else ""
            )
            if data and (dotted(data, moves) != data or prose(data, renamed, attrs, test_renames) != data):
                report.add(
                    "C++ sources, recipes and the formats' data whose comments name old modules (left, so that "
                    "their bytes, the builds and the study's inputs stay the same)",
                    name,
                )
            continue
        if path.suffix not in TEXT_SUFFIXES and path.name != "Snakefile":
            continue
        try:
            before = path.read_text()
        except UnicodeDecodeError:
            continue
        if "\0" in before:
            continue
        text = dotted(before, moves)
        is_python = path.suffix == ".py" or (
            path.suffix == "" and before.startswith("#!") and "python" in before[:80]
        )
        is_snakemake = path.suffix == ".smk" or path.name == "Snakefile"
        if is_python:
            text = rewrite_python(text, moves, report, name)
            text = dynamic_module_tables(text, moves, report, name)
            text = prose_in_code(text, renamed, attrs, test_renames, report, name)
        elif is_snakemake:
            text = rewrite_snakemake(text, moves, report, name, smk_keep)
            text = prose_in_code(text, renamed, attrs, test_renames, report, name)
        else:
            text = inline_imports(text, moves, report, name)
            text = prose(text, renamed, attrs, test_renames)
        if name in moved_files:
            text = deeper_file_paths(text, report, name)
        if text != before:
            path.write_text(text)
            report.add("files rewritten", name)
            (changed_py if path.suffix == ".py" else changed_smk if is_snakemake else []).append(name)

    for name in git("ls-files", "--others", "--exclude-standard").split("\n"):
        if (
            name
            and Path(name).is_file()
            and name.endswith((".py", ".smk", ".md", ".yaml"))
            and re.search(rf"\b{PACKAGE}\b", Path(name).read_text(errors="replace"))
        ):
            report.add("untracked files naming rootparams, not rewritten (add them and run again)", name)

    # 3. the page and the test
    old_page = ARCHITECTURE.read_text() if ARCHITECTURE.exists() else ""
    ARCHITECTURE.write_text(architecture_page(members, page_tail(old_page, renamed)))
    LAYER_TEST.write_text(LAYER_TEST_TEXT)
    report.add(
        "files written whole (review their diff)", f"{ARCHITECTURE} (was {len(old_page.splitlines())} lines)"
    )
    report.add("files written whole (review their diff)", str(LAYER_TEST))
    changed_py.append(str(LAYER_TEST))

    # 4. formatting of what changed
    if not args.no_format:
        ruff = tool("ruff")
        if ruff and changed_py:
            subprocess.run([*ruff, "check", "--quiet", "--select", "I", "--fix", *changed_py], check=False)
            subprocess.run([*ruff, "format", "--quiet", *changed_py], check=False)
        elif changed_py:
            report.add(
                "not done", "ruff not found: run ruff check --select I --fix and ruff format on the changes"
            )
        snakefmt = tool("snakefmt")
        if snakefmt and changed_smk:
            subprocess.run([*snakefmt, *changed_smk], check=False, capture_output=True)
        elif changed_smk:
            report.add("not done", "snakefmt not found: run it on the rules that changed")

    # 5. the result
    check_layers(moves, report)
    package_data(report)
    leftovers(moves, renamed, [Path(f) for f in git("ls-files").split("\n") if f], report)
    text = report.text()
    print(text)
    if args.report:
        args.report.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
