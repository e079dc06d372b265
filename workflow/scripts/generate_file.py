"""Snakemake entry point: write one grid point's ROOT file and its catalogue entry."""

from rootparams.generate import generate_file
from rootparams.snakescript import run_logged


def main(smk):
    generate_file(
        smk.params.point,
        events=smk.params.events,
        seed=smk.params.seed,
        writer=smk.input.writer,
        reader=smk.input.reader,
        output=smk.output.root,
        catalogue=smk.output.get("catalogue"),  # the warm-up file has no catalogue entry
    )


run_logged(snakemake, main)
