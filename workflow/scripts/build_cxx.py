"""Snakemake entry point: compile the xAOD-like classes (ACLiC) and the writer/reader executables."""

from pathlib import Path

from rootparams.tools.build import build_all
from rootparams.tools.snakescript import run_logged


def main(smk):
    build_all(Path(smk.output.info).parent, jobs=smk.threads)


run_logged(snakemake, main)
