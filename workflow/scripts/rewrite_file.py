"""Snakemake entry point: rewrite a user's source file at one grid point's settings, in a process of its own."""

from rootparams.generate import rewrite_point
from rootparams.snakescript import run_logged


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
    )


run_logged(snakemake, main)
