"""Snakemake entry point: a user's source file at one grid point's settings (its baskets recompressed, or
rewritten by ROOT), in a process of its own."""

from rootparams.measure.generate import rewrite_point
from rootparams.tools.records import read_json
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    rewrite_point(
        smk.params.point,
        source=smk.input.source,
        tree=smk.params.tree,
        rewriter=smk.input.rewriter,
        reader=smk.input.reader,
        output=smk.output.root,
        catalogue=smk.output.catalogue,
        on_failure=smk.params.on_failure,
        say=say,
        log_path=f"{smk.log[0]}.root.log",
        selections=smk.params.selections,
        recompressor=smk.input.recompressor,
        source_settings=smk.params.source_settings,
        tiled=read_json(smk.input.tiled) if smk.input.get("tiled") else None,
        original=smk.input.original,
    )


run_logged(snakemake, main)
