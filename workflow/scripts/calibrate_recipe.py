"""Snakemake entry point: clone a user's file's profile into a synthetic recipe (rootparams.ownfile.calibrate)."""

from pathlib import Path

from rootparams.ownfile.calibrate import recipe_from_file
from rootparams.tools.records import write_text_atomic
from rootparams.tools.snakescript import run_logged


def main(smk):
    text = recipe_from_file(smk.input.source, tree=smk.params.tree)
    Path(smk.output[0]).parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(smk.output[0], text)


run_logged(snakemake, main)
