"""Snakemake entry point: describe a user's source file as it is (it is never written to), or its tiled copy."""

from rootparams.measure.generate import catalogue_source
from rootparams.tools.records import read_json
from rootparams.tools.snakescript import run_logged


def main(smk):
    catalogue_source(
        smk.params.point,
        source=smk.input.source,
        tree=smk.params.tree,
        reader=smk.input.reader,
        catalogue=smk.output.catalogue,
        tiled=read_json(smk.input.tiled) if smk.input.get("tiled") else None,
    )


run_logged(snakemake, main)
