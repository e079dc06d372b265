"""Quality gates: Snakemake's linter, snakefmt and ruff report nothing; no Python function is over 120 lines
without a reason in its docstring; user-facing text names no internal reference; config/README.md names every key
of the schema."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, snakemake


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)


def test_snakemake_lint_is_clean(tmp_path):
    proc = snakemake(
        tmp_path, "--configfile", str(REPO / "tests" / "configs" / "tiny.yaml"), "--lint", check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Congratulations, your workflow is in a good condition!" in proc.stdout + proc.stderr


def test_snakefmt_is_clean():
    proc = run(sys.executable, "-m", "snakefmt", "--check", "Snakefile", "workflow/rules")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_lint_is_clean():
    proc = run(sys.executable, "-m", "ruff", "check", "src", "tests", "workflow", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean():
    proc = run(sys.executable, "-m", "ruff", "format", "--check", "src", "tests", "workflow", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---- No long function without a reason ----------------------------------------------------------------------

# A Python function of the package or of the workflow's scripts longer than this (its lines, from its `def` to its
# last line, docstring and comments included) says why in its docstring, on a line of its own starting with
# "Long because"; else it is split into named steps.
MAX_FUNCTION_LINES = 120
LONG_BECAUSE = re.compile(r"^\s*Long because\b", re.M)


def long_functions(paths: list[Path], limit: int = MAX_FUNCTION_LINES) -> list[tuple[Path, int, str, int]]:
    """(path, line, name, lines) of every function over ``limit`` lines whose docstring gives no reason."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = node.end_lineno - node.lineno + 1
            if lines > limit and not LONG_BECAUSE.search(ast.get_docstring(node) or ""):
                found.append((path, node.lineno, node.name, lines))
    return found


def test_no_function_is_longer_than_120_lines_without_a_reason_in_its_docstring():
    paths = sorted((REPO / "src" / "rootparams").rglob("*.py")) + sorted(
        (REPO / "workflow" / "scripts").glob("*.py")
    )
    found = [
        f"{path.relative_to(REPO)}:{line} {name} ({lines} lines)"
        for path, line, name, lines in long_functions(paths)
    ]
    assert not found, (
        f"over {MAX_FUNCTION_LINES} lines: split these into named steps, or say why on a line of the docstring "
        "that starts with 'Long because':\n" + "\n".join(found)
    )


def test_the_long_function_check_catches_what_it_should(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    sources = {
        "long.py": f'def long():\n    """Many steps."""\n{body}',
        "said.py": f'def said():\n    """Many steps.\n\n    Long because one table of {MAX_FUNCTION_LINES} rows.\n    """\n{body}',
        "mentioned.py": f'def mentioned():\n    """Not long because of anything."""\n{body}',
        "short.py": 'def short():\n    """One step."""\n    return 1\n',
        "nested.py": f"class C:\n    def method(self):\n        def inner():\n{body.replace('    ', '            ')}",
    }
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
    found = long_functions([tmp_path / name for name in sources])
    assert [name for _, _, name, _ in found] == ["long", "mentioned", "method", "inner"]


# ---- User-facing text names public things only --------------------------------------------------------------

# What a reader outside the project cannot follow: the project's own issue numbers, commit hashes, the numbers of
# its reference documents ("seed 001"), its development machines ("this VM") and their shared folders. Citing
# ROOT's public issues and pull requests (root-project/root#NNNN) is fine; CHANGELOG.md keeps the history.
INTERNAL_REFERENCES = {
    "an issue number of the project": re.compile(r"\(#\d+\)|\bissues? #?\d+\b|(?<![\w&/])#\d{1,3}\b", re.I),
    "a seed document's number": re.compile(r"\bseeds?[ _/]*0\d\d(?!\d)", re.I),
    "a commit hash": re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b"),
    "the development machine": re.compile(r"\b(?:this|these|the development) VMs?\b", re.I),
    "a path of the development machines": re.compile(r"(?:\.\./|/work/)?\bshared/(?:data|notes|seeds)\b"),
}
PUBLIC_ISSUE = re.compile(r"root-project/root#\d+")
CHECKED_SUFFIXES = {".py", ".smk", ".yaml", ".md", ".rst", ".cxx", ".h", ".txt"}


def user_facing_files() -> list[Path]:
    files = [REPO / "README.md", REPO / "Snakefile"]
    for top in ("config", "docs", "src", "workflow"):
        files += sorted(
            p
            for p in (REPO / top).rglob("*")
            if p.is_file() and p.suffix in CHECKED_SUFFIXES and "__pycache__" not in p.parts
        )
    return files


def test_user_facing_text_names_no_internal_reference():
    found = []
    for path in user_facing_files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            text = PUBLIC_ISSUE.sub("", line)
            for what, pattern in INTERNAL_REFERENCES.items():
                found += [
                    f"{path.relative_to(REPO)}:{number}: {what}: {m.group(0)!r}"
                    for m in pattern.finditer(text)
                ]
    assert not found, "name the public title, the date or 'a 2-core virtual machine' instead:\n" + "\n".join(
        found
    )


def test_the_internal_reference_check_catches_what_it_should():
    def caught(text):
        text = PUBLIC_ISSUE.sub("", text)
        return [what for what, pattern in INTERNAL_REFERENCES.items() if pattern.search(text)]

    for text in (
        "done in (#16)",
        "see issue 21",
        "Issue #17: lossy",
        "as #7 said",
        "Fig. 22 (seed 001)",
        "seeds/003_7890.txt",
        "Seeds 002, 003",
        "a fresh clone at d301fb6",
        "this VM's disk",
        "on these VMs",
        "../shared/data/x.root",
    ):
        assert caught(text), text
    for text in (
        "root-project/root#21753",
        "seed 20200326",
        "colour #1f77b4",
        "0xFFFFFFFF",
        "## 2026-11-25",
        "level 9, 100 events",
        "a 2-core VM",
        "sha256 of its first 64 kB",
        "/shared/scratch/rootparams",
    ):
        assert not caught(text), text


# ---- config/README.md documents every key of the schema --------------------------------------------------------


def schema_keys() -> dict[str, list[str]]:
    schema = yaml.safe_load((REPO / "src" / "rootparams" / "schemas" / "config.schema.yaml").read_text())
    props = schema["properties"]
    return {
        "top level": list(props),
        "scans.<name>": list(schema["$defs"]["scan"]["properties"]),
        "formats.<name>": list(schema["$defs"]["events"]["properties"]),
        "event_size": list(props["event_size"]["properties"]),
        "cost": list(props["cost"]["properties"]),
        "measurement": list(props["measurement"]["properties"]),
    }


def test_config_readme_names_every_key_of_the_schema():
    text = (REPO / "config" / "README.md").read_text()
    missing = [
        f"{where}: {key}" for where, keys in schema_keys().items() for key in keys if f"`{key}`" not in text
    ]
    assert not missing, "config/README.md does not name:\n" + "\n".join(missing)


def test_config_readme_lists_every_named_config():
    text = (REPO / "config" / "README.md").read_text()
    configs = [p.relative_to(REPO / "config").as_posix() for p in (REPO / "config").rglob("*.yaml")]
    assert configs and not [c for c in configs if f"**`{c}`**" not in text], configs


# ---- README and docs: references that resolve, figures that agree ------------------------------------------------

DOCS = REPO / "docs"


def doc_files() -> list[Path]:
    return [REPO / "README.md", REPO / "config" / "README.md", *sorted(DOCS.glob("*.md"))]


def anchors(path: Path) -> list[str]:
    """What a reference can name in ``path``: its headings and the bold words that lead a paragraph or item."""
    text = path.read_text()
    found = re.findall(r"^#+ (.+)$", text, re.M) + re.findall(r"^\s*(?:[-\d.]+\s+)?\*\*(.+?)\*\*", text, re.M)
    return [squeeze(a) for a in found]


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("`", "")).strip()


# `docs/measurement.md`, "Wall times" / [quickstart.md](quickstart.md), "How long it takes" / formats.md ("RNTuple")
SECTION_REFERENCE = re.compile(
    r"(?<![\w/])(?P<dir>docs/|config/)?(?P<file>[\w-]+\.md)[`)\]]*(?:,\s*|\s*\()\"(?P<section>[^\"]{3,100})\""
)
SAME_PAGE_REFERENCE = re.compile(r"\((?:below|above),\s*\"(?P<section>[^\"]{3,100})\"")


def test_the_docs_references_to_sections_and_pages_resolve():
    broken = []
    for src in doc_files():
        text = src.read_text()
        for m in SECTION_REFERENCE.finditer(text):
            if m["file"] == "README.md":
                target = REPO / "config" / "README.md" if m["dir"] == "config/" else REPO / "README.md"
            else:
                target = DOCS / m["file"]
            where = f"{src.relative_to(REPO)}: {m['file']}, {m['section']!r}"
            if not target.exists():
                broken.append(f"{where}: no such page")
            elif not any(a.startswith(squeeze(m["section"])) for a in anchors(target)):
                broken.append(f"{where}: no such section")
        own = anchors(src)
        broken += [
            f"{src.relative_to(REPO)}: {m['section']!r} (below/above): no such section"
            for m in SAME_PAGE_REFERENCE.finditer(text)
            if not any(a.startswith(squeeze(m["section"])) for a in own)
        ]
        for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" not in m[1] and not (src.parent / m[1]).exists():
                broken.append(f"{src.relative_to(REPO)}: link to {m[1]}: no such file")
    assert not broken, "\n".join(broken)


def test_the_docs_index_lists_every_page():
    index = (DOCS / "index.md").read_text()
    missing = [
        p.name for p in sorted(DOCS.glob("*.md")) if p.name != "index.md" and f"]({p.name})" not in index
    ]
    assert not missing, f"docs/index.md does not link {missing}"


def test_the_readme_fits_a_screenful_and_starts_with_advise():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move the detail into docs/"
    assert any("./run advise FILE" in line for line in lines[:40]), (
        "./run advise FILE is not on the first screen"
    )
    for command in ("./run study", "./run tests", "docs/index.md", "https://cds.cern.ch/record/2723199"):
        assert command in "\n".join(lines), command


def test_the_note_is_cited_by_its_public_record():
    # Its internal number (the collaboration's review copy) means nothing outside ATLAS; CDS 2723199 is public.
    internal = re.compile(r"ATL-COM-[A-Z]+-\d{4}-\d+")
    found = [
        f"{p.relative_to(REPO)}:{n}"
        for p in user_facing_files()
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if internal.search(line)
    ]
    assert not found, found


def time_table(path: Path) -> dict[str, tuple[str, str]]:
    """Rows of a Markdown table whose first cell is a `./run ...` command: command -> (bold wall time, first date)."""
    rows = {}
    for line in path.read_text().splitlines():
        m = re.match(r"\| `(\./run [^`]+)` \|(.*)\|\s*$", line)
        if m:
            time, date = re.search(r"\*\*([^*]+)\*\*", m[2]), re.search(r"\d{4}-\d\d-\d\d", m[2])
            rows[m[1]] = (time and time[1], date and date[0])
    return rows


def test_the_readme_quotes_the_quickstarts_times():
    readme, quickstart = time_table(REPO / "README.md"), time_table(DOCS / "quickstart.md")
    assert {"./run advise FILE", "./run study", "./run tests"} <= set(readme), readme
    differ = {c: (t, quickstart.get(c)) for c, t in readme.items() if quickstart.get(c) != t}
    assert not differ, f"README.md and docs/quickstart.md, 'How long it takes', differ: {differ}"


def section_of(path: Path, heading: str) -> str:
    text = path.read_text()
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def test_the_times_quoted_are_the_measured_ones():
    quoted = time_table(DOCS / "quickstart.md")
    measurement = DOCS / "measurement.md"
    # The default study: its first run in "The default study, as measured", and config/config.yaml's comment.
    run = re.search(
        r"\*\*Run of (\d{4}-\d\d-\d\d)[^*]*\*\*[^*]*?\*\*(\d+ h \d+ min)\*\*",
        section_of(measurement, "The default study, as measured"),
    )
    assert quoted["./run study"] == (run[2], run[1])
    config_comment = re.search(r"it took (\d+ h \d+ min)", (REPO / "config" / "config.yaml").read_text())
    assert config_comment[1] == run[2]
    # The quick study, in "Wall times".
    row = re.search(
        r"config/quick\.yaml` \|[^|]*\| ([^(|]+?) \((\d{4}-\d\d-\d\d)", section_of(measurement, "Wall times")
    )
    assert quoted["./run study --configfile config/quick.yaml"] == (row[1], row[2])
    # advise: the range of the files measured in "advise on the file's own bytes", and of its --quick paragraph.
    advise = section_of(measurement, "advise on the file's own bytes")
    header, *rows = [line for line in advise.splitlines() if line.startswith("| ") and "---" not in line]
    column = [c.strip() for c in header.split("|")].index("wall time")
    minutes = [float(r.split("|")[column].split()[0]) for r in rows if "copies" in r]
    date = re.search(r"\((\d{4}-\d\d-\d\d)\)", advise)[1]  # the section's heading
    assert quoted["./run advise FILE"] == (f"{min(minutes):.1f}-{max(minutes):.1f} min", date)
    quick = advise[advise.index("**`advise --quick`**") :].split("\n\n")[0]
    minutes = [float(x) for x in re.findall(r"(\d+\.\d)\s+min", quick)]
    date = re.search(r"\d{4}-\d\d-\d\d", quick)[0]
    assert quoted["./run advise FILE --quick"] == (f"{min(minutes):.1f}-{max(minutes):.1f} min", date)


# Where the number of points of a named config is quoted: (file, pattern whose group 1 is the number).
POINT_COUNT_QUOTES = {
    "config/config.yaml": [
        ("README.md", r"\| `\./run study` \|[^\n]*?\b(\d+) points? × \d"),
        ("docs/quickstart.md", r"\| `\./run study` \|[^\n]*?\| (\d+) × \d"),
        ("config/README.md", r"\*\*`config\.yaml`\*\*.*?(\d+) points"),
        ("docs/studies.md", r"`config/config\.yaml`, the default,.*?(\d+) points"),
        ("docs/measurement.md", r"## The default study, as measured.*?\d+ of\s+(\d+) points valid"),
    ],
    "config/quick.yaml": [
        ("README.md", r"config/quick\.yaml` \|[^\n]*?\b(\d+) points? × \d"),
        ("docs/quickstart.md", r"config/quick\.yaml` \| (?:[^\n]*?\| )?(\d+) × \d"),
        ("docs/measurement.md", r"config/quick\.yaml` \| (?:[^\n]*?\| )?(\d+) × \d"),
        ("config/README.md", r"\*\*`quick\.yaml`\*\*.*?(\d+) points"),
        ("docs/studies.md", r"`config/quick\.yaml` is a smoke study \([^)]*?(\d+) points"),
        ("docs/model.md", r"quick study[^.]*?of its (\d+) points"),
    ],
}


@pytest.mark.parametrize("config", sorted(POINT_COUNT_QUOTES))
def test_the_point_counts_quoted_are_the_grids(config):
    from rootparams.study.config import load_study_config
    from rootparams.study.grid import expand_points

    points = len(expand_points(load_study_config(yaml.safe_load((REPO / config).read_text()))))
    quoted = {}
    for path, pattern in POINT_COUNT_QUOTES[config]:
        m = re.search(pattern, (REPO / path).read_text(), re.S)
        assert m, f"{path} no longer quotes the points of {config} where this test looks ({pattern})"
        quoted[path] = int(m[1])
    assert all(n == points for n in quoted.values()), f"{config} has {points} points; quoted: {quoted}"
