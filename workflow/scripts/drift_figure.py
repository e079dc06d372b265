"""Snakemake entry point: the drift sentinel's figure (rootparams.stats.drift)."""

import pandas as pd

from rootparams.present.figures import save
from rootparams.stats import drift
from rootparams.tools.snakescript import run_logged


def main(smk):
    save(
        drift.draw(pd.read_csv(smk.input.sentinel), pd.read_csv(smk.input.jobs)),
        smk.output.png,
        smk.output.pdf,
    )


run_logged(snakemake, main)
