"""Snakemake entry point: describe a user's source file as it is (it is never written to)."""

from rootparams.generate import catalogue_source
from rootparams.snakescript import run_logged


def main(smk):
    catalogue_source(
        smk.params.point,
        source=smk.input.source,
        tree=smk.params.tree,
        reader=smk.input.reader,
        catalogue=smk.output.catalogue,
    )


run_logged(snakemake, main)
