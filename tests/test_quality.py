"""Quality gates: Snakemake's linter, snakefmt and ruff report nothing; user-facing text names no internal
reference; config/README.md names every key of the schema."""

import re
import subprocess
import sys
from pathlib import Path

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
