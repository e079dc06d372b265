"""Quality gates: Snakemake's linter, snakefmt and ruff report nothing."""

import subprocess
import sys

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
