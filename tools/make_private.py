#!/usr/bin/env python3
"""Give the package's module-private names a leading ``_`` (issue 38: a module-private name starts with `_`).

    python3 tools/make_private.py [--dry-run] [--allow-dirty] [--report FILE] [--no-format]

Run from the checkout's top, on the package in its layers (it refuses a flat package), on any tree: it
finds everything in the tree itself and can be run again (what is private stays so, what it left it leaves).

A top-level name of a module of src/rootparams (a function, a class, a constant) becomes ``_name`` when no
other file of the checkout names it: every tracked or new file (src/, workflow/ with its scripts and rules,
Snakefile, benchmarks/, tools/, config/, docs/, pyproject.toml, the package's data), read with Python's
``tokenize`` where it is Python or Snakemake; a name counts wherever it appears, in code, strings or comments.
The module's own uses are renamed token by token (a Python 3.11 f-string is opened up into its expressions),
and so are the tests' uses when a test reaches it as ``module.name`` or by ``from module import name``.

It leaves (and the report says why, per name):

- ``main``, pyproject.toml's entry points, names in any ``__all__``, dunders and builtins' names;
- a name any other file mentions: docs and README (the documented API), the workflow, benchmarks, tools,
  configs, pyproject.toml, another module or the package's data (recipes/formats.yaml names functions of
  ``formats`` by string);
- every name of a module that looks names up by string (``globals()``, ``vars()``, ``eval``, ``sys.modules``,
  a module ``__getattr__``), of one read elsewhere by a computed ``getattr``, ``vars``, ``dir`` or
  ``import *``, and the functions and classes of one that reads ``__name__`` of its objects;
- a name that is also, anywhere in its module, an attribute (``obj.name``), a keyword argument or parameter,
  a class attribute or dataclass field, a local or loop variable, an import, or a nested function or class;
- a name that appears in a string of its own module other than a docstring (``getattr(module, "name")``, a
  pandas query's ``@name``, a string annotation, a table keyed by name);
- a function or class with a decorator other than plain ones (dataclass, cache, contextmanager, ...): click
  and other registries name a command after its function; exception classes (their names are printed);
  dataclasses, named tuples and enums (their repr and str hold the name, and records and the points'
  identities are written with ``json.dumps(..., default=str)``);
- a name whose ``_name`` is already used in its module or in a test that would be renamed;
- a name a test reaches in any other way: a string (``monkeypatch.setattr(module, "name", ...)``, a patch
  target), an attribute of something that is not the module, its own parameter or variable of that name.

Docstrings and comments are prose: they are not changed, and the report lists those that still say an old
name. Every rename is checked before anything is written: the renamed file parses, no use of the old name
is left in it, and its syntax tree is the old one once ``_name`` is read back as ``name``. CHANGELOG.md is
history and is neither read nor changed. Nothing is committed: review ``git diff``, run the tests, then
commit. The same tree gives the same result.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import io
import re
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "rootparams"
SRC = Path("src") / PACKAGE
THIS = "tools/make_private.py"
# Files whose words do not make a name public: the history, and this script.
NOT_USERS = ("CHANGELOG.md", THIS)
# Decorators that neither register a function nor look it up by its name.
PLAIN_DECORATORS = {
    "dataclass",
    "dataclasses.dataclass",
    "cache",
    "functools.cache",
    "lru_cache",
    "functools.lru_cache",
    "cached_property",
    "functools.cached_property",
    "total_ordering",
    "functools.total_ordering",
    "contextmanager",
    "contextlib.contextmanager",
    "final",
    "typing.final",
    "overload",
    "typing.overload",
}
EXCEPTION_ENDINGS = ("Error", "Exception", "Warning")
# Bases whose objects' repr or str holds the class's name (as a dataclass's does): records written with
# json.dumps(..., default=str) and the points' identities would change with the name.
REPR_BASES = {"NamedTuple", "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "TypedDict"}
WORD = re.compile(r"[^\W\d]\w*")
FSTRING_MIDDLE = getattr(tokenize, "FSTRING_MIDDLE", -1)  # Python 3.12: the text parts of an f-string
LAYOUT = (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
PROSE = "prose that still says the old name (docstrings and comments, not changed: review)"


class Report:
    def __init__(self) -> None:
        self.sections: dict[str, list[str]] = {}

    def add(self, section: str, line: str) -> None:
        self.sections.setdefault(section, []).append(line)

    def text(self, head: list[str]) -> str:
        out = [*head, ""]
        for section, lines in self.sections.items():
            out += [f"## {section} ({len(lines)})", *lines, ""]
        return "\n".join(out)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


# ---- reading files: tokens, words, syntax trees -----------------------------------------------------------------


@dataclass(frozen=True)
class Tok:
    """A token: kind is "name", "op", "str" (a string's text), "doc" (a docstring), "comment" or "other";
    start and end are offsets in the file's text."""

    kind: str
    text: str
    start: int
    end: int


def line_starts(text: str) -> list[int]:
    """The offset of each line's start, lines ending at '\\n' only (as io.StringIO gives them to tokenize)."""
    return [0, *(m.end() for m in re.finditer("\n", text))]


def words(text: str) -> set[str]:
    """The identifiers in a text, also with its backslash escapes read as breaks ("\\nx" names ``x``)."""
    return set(WORD.findall(text)) | set(WORD.findall(re.sub(r"\\.", " ", text)))


def is_fstring(token: str) -> bool:
    m = re.match(r"([A-Za-z]*)['\"]", token)
    return bool(m) and "f" in m[1].lower()


def fstring_parts(s: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
    """(its text, its expressions) of an f-string literal as spans of ``s``; None where it is not understood
    (the caller then takes all of it as text: a mention, never renamed). Python 3.11 gives an f-string as one
    token."""
    m = re.match(r"([A-Za-z]*)('''|\"\"\"|'|\")", s)
    if not m or len(s) < m.end() + len(m[2]) or not s.endswith(m[2]):
        return None
    raw = "r" in m[1].lower()
    end = len(s) - len(m[2])
    texts: list[tuple[int, int]] = []
    expressions: list[tuple[int, int]] = []

    def field_at(i: int) -> int:
        """The replacement field whose expression starts at ``i`` (after its '{'): the index after its '}'."""
        depth, j = 0, i
        while j < end:
            c = s[j]
            if c in "'\"":
                quote = s[j : j + 3] if s[j : j + 3] in ("'''", '"""') else c
                k = s.find(quote, j + len(quote))
                if k < 0 or k + len(quote) > end:
                    raise ValueError(s)
                j = k + len(quote)
                continue
            if c in "\\#":
                raise ValueError(s)  # neither may appear in an f-string's expression before Python 3.12
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (c == ":" or (c == "!" and s[j + 1 : j + 2] != "=")):
                break
            j += 1
        if j >= end or j == i:
            raise ValueError(s)
        expressions.append((i, j))
        if s[j] == "!":
            j += 2
        if j < end and s[j] == ":":
            j = spec_at(j + 1)
        if j >= end or s[j] != "}":
            raise ValueError(s)
        return j + 1

    def spec_at(j: int) -> int:
        """A format spec from ``j``, its nested fields read as fields: the index of its closing '}'."""
        while j < end:
            if s[j] == "{":
                j = field_at(j + 1)
            elif s[j] == "}":
                return j
            else:
                j += 1
        raise ValueError(s)

    i = text_start = m.end()
    try:
        while i < end:
            c = s[i]
            if c == "\\" and not raw:
                if s[i + 1 : i + 3] == "N{":  # \N{NAME}: its braces are no field
                    k = s.find("}", i)
                    if k < 0 or k >= end:
                        return None
                    i = k + 1
                else:
                    i += 1 if s[i + 1 : i + 2] in ("{", "}") else 2
                continue
            if s[i : i + 2] in ("{{", "}}"):
                i += 2
                continue
            if c == "{":
                texts.append((text_start, i))
                i = text_start = field_at(i + 1)
                continue
            if c == "}":
                return None
            i += 1
    except (ValueError, IndexError, RecursionError):
        return None
    texts.append((text_start, end))
    return texts, expressions


def fstring_tokens(s: str, at: int) -> list[Tok]:
    """A Python 3.11 f-string token as its text parts and the tokens of its expressions (as 3.12 gives)."""
    parts = fstring_parts(s)
    if parts is None:
        return [Tok("str", s, at, at + len(s))]
    texts, expressions = parts
    out = [Tok("str", s[a:b], at + a, at + b) for a, b in texts if b > a]
    try:
        for a, b in expressions:
            # In parentheses, as an expression may span lines; "(" stands where its '{' is.
            out += scan("(" + s[a:b] + ")", base=at + a - 1)
    except (tokenize.TokenError, SyntaxError, ValueError, IndexError, RecursionError):
        return [Tok("str", s, at, at + len(s))]
    return sorted(out, key=lambda t: t.start)


def scan(text: str, docstrings: frozenset[tuple[int, int]] = frozenset(), base: int = 0) -> list[Tok]:
    """The tokens of Python or Snakemake source, without line breaks and indents; raises as tokenize does."""
    starts = line_starts(text)
    out: list[Tok] = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in LAYOUT:  # (the end marker may stand on a line after the text's last)
            continue
        a = base + starts[tok.start[0] - 1] + tok.start[1]
        b = base + starts[tok.end[0] - 1] + tok.end[1]
        if tok.type == tokenize.NAME:
            out.append(Tok("name", tok.string, a, b))
        elif tok.type == tokenize.OP:
            out.append(Tok("op", tok.string, a, b))
        elif tok.type == tokenize.COMMENT:
            out.append(Tok("comment", tok.string, a, b))
        elif tok.type == tokenize.STRING:
            if tok.start in docstrings:
                out.append(Tok("doc", tok.string, a, b))
            elif is_fstring(tok.string):
                out += fstring_tokens(tok.string, a)
            else:
                out.append(Tok("str", tok.string, a, b))
        elif tok.type == FSTRING_MIDDLE:
            out.append(Tok("str", tok.string, a, b))
        else:
            out.append(Tok("other", tok.string, a, b))
    return out


def char_col(lines: list[str], lineno: int, byte_col: int) -> int:
    """ast's column (UTF-8 bytes) as characters."""
    return len(lines[lineno - 1].encode()[:byte_col].decode(errors="ignore"))


def docstring_starts(tree: ast.Module, text: str) -> frozenset[tuple[int, int]]:
    """(line, column) of every string that is a statement of its own (docstrings): prose, not data."""
    lines = text.split("\n")
    found = set()
    for node in ast.walk(tree):
        value = node.value if isinstance(node, ast.Expr) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.add((node.lineno, char_col(lines, node.lineno, node.col_offset)))
    return frozenset(found)


@dataclass
class Source:
    """A text file of the checkout: its text, its syntax tree (Python) and its tokens (Python, Snakemake)."""

    path: str
    text: str
    tree: ast.Module | None = None
    toks: list[Tok] | None = None
    tok_words: list[set[str]] = field(default_factory=list)  # the words of each token of toks
    words: set[str] = field(default_factory=set)  # the words of the whole file
    dumped: str | None = None  # ast.dump(tree), once

    def dump(self) -> str:
        if self.dumped is None:
            self.dumped = ast.dump(self.tree)
        return self.dumped

    def line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def offset(self, lineno: int, byte_col: int) -> int:
        lines = self.text.split("\n")
        return line_starts(self.text)[lineno - 1] + char_col(lines, lineno, byte_col)


def is_python(path: str, text: str) -> bool:
    return path.endswith(".py") or (not Path(path).suffix and text.startswith("#!") and "python" in text[:80])


def is_snakemake(path: str) -> bool:
    return path.endswith(".smk") or Path(path).name == "Snakefile"


def load(path: str) -> Source | None:
    """The file as a Source, or None for a binary file."""
    try:
        data = Path(path).read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if "\0" in text:
        return None
    src = Source(path, text)
    if is_python(path, text):
        try:
            src.tree = ast.parse(text)
        except (SyntaxError, ValueError):
            src.tree = None
    if is_python(path, text) or is_snakemake(path):
        try:
            docs = docstring_starts(src.tree, text) if src.tree else frozenset()
            src.toks = scan(text, docs)
        except (tokenize.TokenError, SyntaxError, ValueError, IndexError):
            src.toks = None
    if src.toks is not None:
        src.tok_words = [words(tok.text) for tok in src.toks]
        for found in src.tok_words:
            src.words |= found
    else:
        src.words = words(text)
    return src


# ---- the syntax tree: where a name occurs -----------------------------------------------------------------------

IDENTIFIER_FIELDS = ("id", "attr", "arg", "name", "asname", "rest")
IDENTIFIER_LIST_FIELDS = ("names", "kwd_attrs")

# What an occurrence of a name is, for the report.
ROLE = {
    "Attribute": "an attribute (obj.name)",
    "arg": "a parameter",
    "keyword": "a keyword argument",
    "alias": "an import",
    "ImportFrom": "part of a module's path",
    "Global": "a global statement's",
    "Nonlocal": "a nonlocal statement's",
    "ExceptHandler": "an exception's name",
    "FunctionDef": "a nested function",
    "AsyncFunctionDef": "a nested function",
    "ClassDef": "a nested class",
    "Name": "a local, loop or class variable (or a dataclass field)",
}


def identifier_index(tree: ast.AST) -> dict[str, list[tuple[ast.AST, str]]]:
    """identifier -> every (node, field) of the tree that holds it: a variable, a definition, an attribute, a
    parameter, a keyword, an import, a pattern's capture, part of a module's dotted path."""
    index: dict[str, list[tuple[ast.AST, str]]] = {}
    for node in ast.walk(tree):
        for fld, value in ast.iter_fields(node):
            if fld in IDENTIFIER_FIELDS and isinstance(value, str):
                parts = value.split(".") if isinstance(node, ast.alias) else [value]
            elif fld in IDENTIFIER_LIST_FIELDS and isinstance(value, list):
                parts = [v for v in value if isinstance(v, str)]
            elif fld == "module" and isinstance(value, str):
                parts = value.split(".")
            else:
                continue
            for part in dict.fromkeys(parts):
                index.setdefault(part, []).append((node, fld))
    return index


# The indexes of the files' trees, each kept with its tree (so that no other tree takes its id).
INDEXES: dict[int, tuple[ast.AST, dict[str, list[tuple[ast.AST, str]]]]] = {}


def occurrences(tree: ast.AST, name: str) -> list[tuple[ast.AST, str]]:
    """Every (node, field) of a file's tree that holds ``name`` as an identifier (identifier_index, kept)."""
    if id(tree) not in INDEXES:
        INDEXES[id(tree)] = (tree, identifier_index(tree))
    return INDEXES[id(tree)][1].get(name, [])


def role(node: ast.AST) -> str:
    return ROLE.get(type(node).__name__, type(node).__name__)


def dotted_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted_name(node.value)}.{node.attr}"
    return "?"


def import_statements(tree: ast.AST) -> dict[int, ast.Import | ast.ImportFrom]:
    """id(alias) -> the import statement that holds it."""
    return {
        id(a): node
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for a in node.names
    }


def top_level_names(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """The public names a module defines at its top (def, class, NAME = ..., NAME: T = ...), with their
    statements."""
    found: dict[str, list[ast.stmt]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found.setdefault(node.target.id, []).append(node)
    return {name: nodes for name, nodes in found.items() if not name.startswith("_")}


def top_level_targets(tree: ast.Module) -> set[int]:
    """id() of the Name nodes the module's own top-level assignments bind."""
    allowed: set[int] = set()

    def add(target: ast.AST) -> None:
        if isinstance(target, ast.Name):
            allowed.add(id(target))
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                add(element)
        elif isinstance(target, ast.Starred):
            add(target.value)

    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                add(target)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            add(node.target)
    return allowed


def module_bindings(tree: ast.AST, modules: set[str]) -> dict[str, set[str]]:
    """Local name -> the rootparams modules (dotted) a file's imports bind it to."""
    binds: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                if f"{node.module}.{a.name}" in modules:
                    binds.setdefault(a.asname or a.name, set()).add(f"{node.module}.{a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules and a.asname:
                    binds.setdefault(a.asname, set()).add(a.name)
    return binds


def binds_module_only(tree: ast.AST, local: str, dotted: str) -> bool:
    """Whether ``local`` is, all through a file, the module ``dotted``: bound by imports of it, nothing else."""
    statements = import_statements(tree)
    bound = False
    for node, fld in occurrences(tree, local):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            continue
        if isinstance(node, ast.Attribute | ast.keyword) or fld == "module":
            continue  # x.local, f(local=...), from local.x import y: no binding of local
        stmt = statements.get(id(node))
        if isinstance(node, ast.alias) and stmt is not None:
            if (node.asname or node.name.split(".")[0]) != local:
                continue  # import local.x as y, from x import local as y: binds something else
            full = (
                f"{stmt.module}.{node.name}" if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 else ""
            )
            if full == dotted:
                bound = True
                continue
            if isinstance(stmt, ast.Import) and node.asname == local and node.name == dotted:
                bound = True
                continue
        return False
    return bound


# ---- what makes a module's names public anyway ------------------------------------------------------------------


def looks_up_names(tree: ast.Module) -> str | None:
    """Why any name of this module may be looked up by a string (globals(), eval, a module __getattr__)."""
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            function = node.func.id
            if function in ("globals", "locals", "eval", "exec") or (function == "vars" and not node.args):
                return f"{function}() at line {node.lineno}"
        elif isinstance(node, ast.Attribute) and dotted_name(node) == "sys.modules":
            return f"sys.modules at line {node.lineno}"
        elif (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name in ("__getattr__", "__dir__")
            and id(node) in top
        ):
            return f"a module {node.name} at line {node.lineno}"
    return None


def reads_object_names(tree: ast.Module) -> str | None:
    """Where the module reads __name__/__qualname__ of its objects (names as data: {f.__name__: f for f in
    ...}); type(error).__name__ of an exception caught (``except ... as error``) does not count."""
    caught = {h.name for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and h.name}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("__name__", "__qualname__"):
            value = node.value
            if (
                isinstance(value, ast.Call)
                and dotted_name(value.func) == "type"
                and len(value.args) == 1
                and isinstance(value.args[0], ast.Name)
                and value.args[0].id in caught
            ):
                continue
            return f"{dotted_name(node)} at line {node.lineno}"
    return None


def is_import_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    return dotted_name(node.func).split(".")[-1] in ("import_module", "__import__")


def dynamic_reads(src: Source, modules: set[str]) -> tuple[dict[str, str], str | None]:
    """The package's modules this file reads by a computed name (getattr, hasattr, setattr with a name that is
    no literal; vars, dir, inspect.getmembers, __dict__; import *), and where it so reads a module it imported
    by a computed name (import_module, __import__, sys.modules: any module)."""
    found: dict[str, str] = {}
    if src.tree is None:
        if is_snakemake(src.path):  # no syntax tree: its text
            last = {m.rsplit(".", 1)[-1]: m for m in modules}
            pattern = r"\b(?:getattr|hasattr|setattr|delattr|vars|dir)\(\s*([\w.]+)\s*(?:,\s*(?![\"'])|\))"
            for m in re.finditer(pattern, src.text):
                module = m[1] if m[1] in modules else last.get(m[1].rsplit(".", 1)[-1])
                if module:
                    found[module] = f"{src.path}:{src.line(m.start())}"
        return found, None
    tree = src.tree
    binds = module_bindings(tree, modules)
    imported = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and is_import_call(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def targets(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Name) and node.id in binds:
            return binds[node.id]
        return {dotted_name(node)} & modules

    anything = None
    for node in ast.walk(tree):
        where = f"{src.path}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom) and node.level == 0 and any(a.name == "*" for a in node.names):
            if node.module in modules:
                found[node.module] = f"{where} (import *)"
        elif isinstance(node, ast.Call) and node.args:
            function = dotted_name(node.func)
            first = node.args[0]
            if function in ("getattr", "hasattr", "setattr", "delattr"):
                second = node.args[1] if len(node.args) > 1 else None
                if isinstance(second, ast.Constant) and isinstance(second.value, str):
                    continue
                for module in targets(first):
                    found[module] = where
                if (
                    (isinstance(first, ast.Name) and first.id in imported)
                    or is_import_call(first)
                    or (isinstance(first, ast.Subscript) and dotted_name(first.value) == "sys.modules")
                ):
                    anything = where
            elif function in ("vars", "dir") or function.endswith("getmembers"):
                for module in targets(first):
                    found[module] = where
        elif isinstance(node, ast.Attribute) and node.attr == "__dict__":
            for module in targets(node.value):
                found[module] = where
    return found, anything


def entry_points() -> dict[str, str]:
    """name -> 'module:name' for pyproject.toml's scripts and entry points."""
    try:
        import tomllib

        project = tomllib.loads(Path("pyproject.toml").read_text()).get("project", {})
    except (ImportError, OSError, ValueError):
        text = Path("pyproject.toml").read_text() if Path("pyproject.toml").exists() else ""
        return {m[2].split(".")[0]: f"{m[1]}:{m[2]}" for m in re.finditer(r"([\w.]+):([\w.]+)", text)}
    values = list(project.get("scripts", {}).values()) + list(project.get("gui-scripts", {}).values())
    for group in project.get("entry-points", {}).values():
        values += list(group.values())
    found = {}
    for value in values:
        module, _, attr = str(value).partition(":")
        if attr:
            found[attr.split("[")[0].strip().split(".")[0]] = f"{module.strip()}:{attr.strip()}"
    return found


def names_in_all(sources: list[Source]) -> set[str]:
    found = set()
    for src in sources:
        for node in ast.walk(src.tree) if src.tree else ():
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in targets
            ):
                found |= {
                    n.value
                    for n in ast.walk(node)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                }
    return found


def user_kind(path: str) -> str:
    """Why a file's mention makes a name public, by where the file is."""
    if path.startswith(f"{SRC}/"):
        return "named in another module or data file of the package"
    if path.startswith("workflow/") or path == "Snakefile":
        return "named in the workflow (rules, scripts, report)"
    if path.startswith("benchmarks/"):
        return "named in benchmarks/"
    if path.startswith("tools/"):
        return "named in tools/"
    if path.startswith("config/"):
        return "named in config/ (a configuration or its reference)"
    if path.startswith("tests/"):
        return "named in the tests' data or scripts"
    if path == "pyproject.toml":
        return "named in pyproject.toml"
    if path.startswith("docs/") or path.endswith((".md", ".rst")):
        return "named in the documentation (the API it describes)"
    return "named in another file"


USER_ORDER = [
    "named in another module or data file of the package",
    "named in the workflow (rules, scripts, report)",
    "named in benchmarks/",
    "named in tools/",
    "named in config/ (a configuration or its reference)",
    "named in the tests' data or scripts",
    "named in pyproject.toml",
    "named in the documentation (the API it describes)",
    "named in another file",
]


# ---- the tests --------------------------------------------------------------------------------------------------


@dataclass
class InTest:
    """What a test file does with a name: the tokens to rename, the lines of prose (docstrings, comments) that
    name it."""

    edits: list[Tok]
    prose: list[int]


def uses_in_test(src: Source, name: str, dotted: str) -> tuple[InTest | None, str | None]:
    """The tokens of ``name`` to rename in one test file (``module.name``; ``from module import name`` and
    then ``name``), or why the name must stay."""
    if src.tree is None or src.toks is None:
        return None, f"{src.path} cannot be parsed"
    if f"_{name}" in src.words:
        return None, f"{src.path} already names _{name}"
    tree = src.tree
    reliable = {local for local in module_bindings(tree, {dotted}) if binds_module_only(tree, local, dotted)}
    statements = import_statements(tree)
    direct: list[ast.ImportFrom] = []
    allowed = 0
    bare_bound = False
    bare = []
    for node, fld in occurrences(tree, name):
        line = getattr(node, "lineno", "?")
        stmt = statements.get(id(node))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in reliable:
            allowed += 1
        elif (
            isinstance(node, ast.alias)
            and fld == "name"
            and node.name == name
            and isinstance(stmt, ast.ImportFrom)
            and stmt.level == 0
            and stmt.module == dotted
        ):
            allowed += 1
            direct.append(stmt)
            bare_bound |= node.asname is None
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            bare.append(node)
        else:
            return None, f"{src.path}:{line}: {role(node)}"
    if bare:
        if not bare_bound:
            return None, f"{src.path}:{bare[0].lineno}: a name of the test's own"
        allowed += len(bare)
    spans = [(src.offset(s.lineno, s.col_offset), src.offset(s.end_lineno, s.end_col_offset)) for s in direct]
    use = InTest([], [])
    code = []  # the tokens but comments, for what stands before a name
    for tok, found in zip(src.toks, src.tok_words, strict=True):
        if tok.kind in ("doc", "comment"):
            if name in found:
                use.prose.append(src.line(tok.start))
        elif tok.kind in ("str", "other") and name in found:
            where = f"{src.path}:{src.line(tok.start)}"
            return None, f"{where}: in a string (monkeypatch, a patch target, a lookup?)"
        if tok.kind != "comment":
            code.append(tok)
    for i, tok in enumerate(code):
        if tok.kind != "name" or tok.text != name:
            continue
        before = [code[k] for k in range(max(0, i - 3), i)]
        if before and before[-1].text == ".":
            owner = before[-2] if len(before) >= 2 else None
            if (
                owner is not None
                and owner.kind == "name"
                and owner.text in reliable
                and (len(before) < 3 or before[-3].text != ".")
            ):
                use.edits.append(tok)
                continue
            return None, f"{src.path}:{src.line(tok.start)}: an attribute of something else than its module"
        if any(a <= tok.start < b for a, b in spans) or bare_bound:
            use.edits.append(tok)
            continue
        return None, f"{src.path}:{src.line(tok.start)}: a use the script cannot place"
    if len(use.edits) != allowed:
        return None, f"{src.path}: its tokens ({len(use.edits)}) and its syntax tree ({allowed}) disagree"
    return use, None


# ---- checking a rename ------------------------------------------------------------------------------------------


def renamed_text(text: str, toks: list[Tok]) -> str:
    for tok in sorted({t.start: t for t in toks}.values(), key=lambda t: t.start, reverse=True):
        if text[tok.start : tok.end] != tok.text:
            raise RuntimeError(f"internal error: {tok} is not where its token said")
        text = text[: tok.start] + "_" + text[tok.start :]
    return text


def unrename(tree: ast.AST, names: set[str]) -> ast.AST:
    """``_name`` read back as ``name`` in every identifier of the tree."""
    back = {f"_{n}": n for n in names}
    for node in ast.walk(tree):
        for fld, value in ast.iter_fields(node):
            if fld in IDENTIFIER_FIELDS and isinstance(value, str) and value in back:
                setattr(node, fld, back[value])
            elif fld in IDENTIFIER_LIST_FIELDS and isinstance(value, list):
                setattr(node, fld, [back.get(v, v) if isinstance(v, str) else v for v in value])
    return tree


def check(src: Source, new_text: str, names: set[str]) -> str | None:
    """Why the renamed text is wrong, or None: it parses, no identifier ``name`` is left, and its tree is the
    old one once ``_name`` is read back as ``name`` (so every occurrence was renamed and nothing else
    changed)."""
    try:
        new_tree = ast.parse(new_text)
    except (SyntaxError, ValueError) as error:
        return f"{src.path}: does not parse after the rename ({error})"
    index = identifier_index(new_tree)  # not kept: the tree is thrown away
    for name in sorted(names):
        left = index.get(name)
        if left:
            return f"{src.path}:{getattr(left[0][0], 'lineno', '?')}: {name} left as {role(left[0][0])}"
    if ast.dump(unrename(new_tree, names)) != src.dump():
        return f"{src.path}: the syntax tree changed beyond the rename"
    return None


# ---- the plan ---------------------------------------------------------------------------------------------------


@dataclass
class Candidate:
    module: Source
    dotted: str
    name: str
    statements: list[ast.stmt]
    edits: list[Tok] = field(default_factory=list)
    tests: dict[str, InTest] = field(default_factory=dict)
    prose: list[str] = field(default_factory=list)


def module_files() -> list[str]:
    tracked = git("ls-files", "-z", "--", str(SRC)).split("\0")
    return sorted(
        p for p in tracked if p.endswith(".py") and Path(p).name != "__init__.py" and "/cxx/" not in p
    )


def dotted_of(path: str) -> str:
    return ".".join(Path(path).with_suffix("").parts[1:])


def plan(report: Report) -> tuple[dict[str, list[Tok]], list[Candidate], int]:
    """(file -> tokens to rename, the names renamed, how many public top-level names there are)."""
    tracked = [p for p in git("ls-files", "-z").split("\0") if p]
    new = [p for p in git("ls-files", "-z", "--others", "--exclude-standard").split("\0") if p]
    for path in new:
        report.add("untracked files read as users of names (they are not renamed in)", path)
    sources = {p: s for p in sorted(set(tracked + new)) if Path(p).is_file() and (s := load(p)) is not None}
    modules = {p: sources[p] for p in module_files() if p in sources}
    dotted_names = {dotted_of(p): p for p in modules}
    # The tests renamed in: tracked ones only (an untracked test is a user like any file).
    tracked_set = set(tracked)
    tests = {
        p: s for p, s in sources.items() if p in tracked_set and p.startswith("tests/") and p.endswith(".py")
    }
    users = {p: s for p, s in sources.items() if p not in tests and p not in NOT_USERS}

    entries = entry_points()
    exported = names_in_all(list(sources.values()))
    read_elsewhere: dict[str, str] = {}
    read_anything = None
    for src in sources.values():
        if src.path == THIS:
            continue
        found, anything = dynamic_reads(src, set(dotted_names))
        for module, where in found.items():
            read_elsewhere.setdefault(module, where)
        read_anything = read_anything or anything

    def skip(candidate_module: str, name: str, reason: str, detail: str = "") -> None:
        report.add(f"left: {reason}", f"{candidate_module}: {name}" + (f" ({detail})" if detail else ""))

    total = 0
    accepted: list[Candidate] = []
    for path, src in modules.items():
        rel = str(Path(path).relative_to(SRC))
        if src.tree is None or src.toks is None:
            report.add("modules not read (they do not parse or tokenize)", path)
            continue
        names = top_level_names(src.tree)
        total += len(names)
        dotted = dotted_of(path)
        lookup = looks_up_names(src.tree)
        by_name = reads_object_names(src.tree)
        targets = top_level_targets(src.tree)
        body = {id(node) for node in src.tree.body}
        for name, statements in names.items():
            is_def = any(isinstance(s, DEFINITIONS) for s in statements)
            if name == "main":
                skip(rel, name, "main, a module's command (python -m, the cli's table)")
            elif name in entries:
                skip(rel, name, "an entry point in pyproject.toml", entries[name])
            elif name in exported:
                skip(rel, name, "in an __all__")
            elif hasattr(builtins, name):
                skip(rel, name, "the name of a builtin")
            elif lookup:
                skip(rel, name, "its module looks names up by string", lookup)
            elif read_anything:
                skip(rel, name, "some file reads a module imported by a computed name so", read_anything)
            elif dotted in read_elsewhere:
                skip(rel, name, "its module is read by a computed name elsewhere", read_elsewhere[dotted])
            elif is_def and by_name:
                skip(rel, name, "its module reads the __name__ of its functions or classes", by_name)
            else:
                candidate = Candidate(src, dotted, name, statements)
                reason = judge(candidate, users, tests, targets, body)
                if reason:
                    skip(rel, name, *reason)
                else:
                    accepted.append(candidate)

    # Each rename checked alone, in every file it touches.
    edits: dict[str, list[Tok]] = {}
    renamed: list[Candidate] = []
    for c in accepted:
        touched = {c.module.path: c.edits} | {p: u.edits for p, u in c.tests.items() if u.edits}
        problem = None
        for p, toks in touched.items():
            problem = check(sources[p], renamed_text(sources[p].text, toks), {c.name})
            if problem:
                break
        if problem:
            skip(str(Path(c.module.path).relative_to(SRC)), c.name, "the rename did not check out", problem)
            continue
        renamed.append(c)
        for p, toks in touched.items():
            edits.setdefault(p, []).extend(toks)
    # And all of them together, file by file.
    by_file: dict[str, set[str]] = {}
    for c in renamed:
        by_file.setdefault(c.module.path, set()).add(c.name)
        for p, u in c.tests.items():
            if u.edits:
                by_file.setdefault(p, set()).add(c.name)
    for p, toks in edits.items():
        problem = check(sources[p], renamed_text(sources[p].text, toks), by_file[p])
        if problem:
            raise SystemExit(f"the renames together do not check out, nothing written: {problem}")
    return edits, renamed, total


def judge(
    c: Candidate, users: dict[str, Source], tests: dict[str, Source], targets: set[int], body: set[int]
) -> tuple[str, str] | None:
    """(why the name stays, detail), or None with the candidate's edits filled in."""
    name, src = c.name, c.module
    # Another file names it.
    named_by = [p for p, s in users.items() if p != src.path and name in s.words]
    if named_by:
        kinds = {user_kind(p) for p in named_by}
        kind = next(k for k in USER_ORDER if k in kinds)
        shown = ", ".join(named_by[:3]) + (f" and {len(named_by) - 3} more" if len(named_by) > 3 else "")
        return kind, shown
    # Its definitions.
    for statement in c.statements:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for decorator in statement.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if dotted_name(called) not in PLAIN_DECORATORS:
                    return "decorated (a registry, click or another may name or look it up)", (
                        f"@{dotted_name(called)}, line {decorator.lineno}"
                    )
        if not isinstance(statement, ast.ClassDef):
            continue
        bases = [dotted_name(b).split(".")[-1] for b in statement.bases]
        if name.endswith(EXCEPTION_ENDINGS) or any(b.endswith(EXCEPTION_ENDINGS) for b in bases):
            return "an exception class (its name is printed)", f"line {statement.lineno}"
        decorators = [dotted_name(d.func if isinstance(d, ast.Call) else d) for d in statement.decorator_list]
        if any(d.split(".")[-1] == "dataclass" for d in decorators) or any(b in REPR_BASES for b in bases):
            return (
                "a dataclass, named tuple or enum: its name is in its objects' repr and str, which records "
                "and identities may hold (json.dumps(..., default=str))",
                f"line {statement.lineno}",
            )
    # Every occurrence in its module: the module's own variable only.
    expected = 0
    for node, _ in occurrences(src.tree, name):
        is_use = isinstance(node, ast.Name) and (isinstance(node.ctx, ast.Load) or id(node) in targets)
        is_definition = (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and id(node) in body
        )
        if is_use or is_definition:
            expected += 1
        else:
            return f"also {role(node)} in its module", f"line {getattr(node, 'lineno', '?')}"
    for tok, found in zip(src.toks, src.tok_words, strict=True):
        if tok.kind in ("str", "other") and name in found:
            return "named in a string of its module (getattr, a query's @name, an annotation, a table?)", (
                f"line {src.line(tok.start)}"
            )
        if tok.kind in ("doc", "comment") and name in found:
            c.prose.append(f"{src.path}:{src.line(tok.start)}")
    if f"_{name}" in src.words:
        return f"its module already names _{name}", ""
    c.edits = [t for t in src.toks if t.kind == "name" and t.text == name]
    if len(c.edits) != expected:
        return "its tokens and its syntax tree disagree (an f-string this Python cannot open?)", (
            f"{len(c.edits)} tokens, {expected} in the tree"
        )
    # The tests.
    for p, test in tests.items():
        if name not in test.words:
            continue
        use, problem = uses_in_test(test, name, c.dotted)
        if problem:
            return "a test reaches it otherwise than module.name or from module import name", problem
        c.tests[p] = use
        c.prose += [f"{p}:{line}" for line in use.prose]
    return None


# ---- main -------------------------------------------------------------------------------------------------------


def tool(name: str) -> list[str] | None:
    """How to run ruff: the checkout's venv, this Python's, or the PATH."""
    for candidate in (Path(".venv/bin") / name, Path(sys.executable).parent / name):
        if candidate.exists():
            return [str(candidate)]
    found = shutil.which(name)
    return [found] if found else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report what would be renamed, change nothing")
    parser.add_argument("--allow-dirty", action="store_true", help="run on a tree with uncommitted changes")
    parser.add_argument("--report", type=Path, help="write the report here too")
    parser.add_argument("--no-format", action="store_true", help="do not run ruff on the changed files")
    args = parser.parse_args(argv)

    if not SRC.is_dir():
        parser.error(f"run from the checkout's top: no {SRC}")
    if not any(SRC.glob("*/__init__.py")):
        parser.error("the package is flat: this tool works on its subpackages (docs/architecture.md)")
    if (
        not args.dry_run
        and not args.allow_dirty
        and git("status", "--porcelain", "--untracked-files=no").strip()
    ):
        parser.error("uncommitted changes: commit or stash them first (or --allow-dirty)")

    report = Report()
    edits, renamed, total = plan(report)
    for c in sorted(renamed, key=lambda c: (c.module.path, c.name)):
        tests = sorted(p for p, u in c.tests.items() if u.edits)
        line = f"{Path(c.module.path).relative_to(SRC)}: {c.name} -> _{c.name}"
        report.add("renamed", line + (f" (and in {', '.join(tests)})" if tests else ""))
        for where in c.prose:
            report.add(PROSE, f"{where}: {c.name}")
    left = total - len(renamed)
    head = [
        f"# tools/make_private.py{' --dry-run' if args.dry_run else ''}: {total} public top-level names in "
        f"{len(module_files())} modules; {len(renamed)} renamed to _name, {left} left (reasons below); "
        f"{len(edits)} files {'would change' if args.dry_run else 'changed'}.",
    ]
    # Sections: renamed first, then what was left, biggest first.
    others = [s for s in report.sections if s != "renamed"]
    order = ["renamed", *sorted(others, key=lambda s: (not s.startswith("left:"), -len(report.sections[s])))]
    report.sections = {s: report.sections[s] for s in order if s in report.sections}

    if not args.dry_run:
        for path, toks in sorted(edits.items()):
            text = Path(path).read_bytes().decode("utf-8")
            Path(path).write_bytes(renamed_text(text, toks).encode("utf-8"))
        changed = sorted(p for p in edits if p.endswith(".py"))
        if changed and not args.no_format:
            ruff = tool("ruff")
            if ruff:
                subprocess.run([*ruff, "check", "--quiet", "--select", "I", "--fix", *changed], check=False)
                subprocess.run([*ruff, "format", "--quiet", *changed], check=False)
            else:
                report.add(
                    "not done", "ruff not found: run ruff check --select I --fix and ruff format on them"
                )
    text = report.text(head)
    print(text)
    if args.report:
        args.report.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
