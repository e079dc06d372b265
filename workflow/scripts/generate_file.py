"""Snakemake entry point: write one grid point's ROOT file and its catalogue entry."""

from rootparams.measure.generate import generate_file
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    generate_file(
        smk.params.point,
        events=smk.params.events,
        seed=smk.params.seed,
        writer=smk.input.writer,
        reader=smk.input.reader,
        output=smk.output.root,
        catalogue=smk.output.get("catalogue"),  # content and warm-up files have no catalogue entry
        content=smk.input.get("content") or None,  # events written once per format, read back here
        recipe=smk.input.get("recipe") or None,  # a clone's recipe (built-in formats: their own)
        threads=smk.threads,
        # A point's own file only (content and warm-up files serve every point of a format: their failure is one)
        on_failure=smk.params.get("on_failure", "fail") if smk.output.get("catalogue") else "fail",
        say=say,
    )


run_logged(snakemake, main)
