"""Snakemake entry point: a source too short to time, repeated (formats.<name>.tile), in a process of its own."""

from rootparams.measure.generate import tile_source
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    tile_source(
        smk.input.source,
        tree=smk.params.tree,
        copies=int(smk.wildcards.copies),
        output=smk.output.root,
        record=smk.output.record,
        recompressor=smk.input.recompressor,
        reader=smk.input.reader,
        selections=smk.params.selections,
        say=say,
        log_path=f"{smk.log[0]}.root.log",
    )


run_logged(snakemake, main)
