"""Snakemake entry point: the drift sentinel's figure (rootparams.drift)."""

import pandas as pd

from rootparams import drift
from rootparams.figures import save
from rootparams.snakescript import run_logged


def main(smk):
    save(
        drift.draw(pd.read_csv(smk.input.sentinel), pd.read_csv(smk.input.jobs)),
        smk.output.png,
        smk.output.pdf,
    )


run_logged(snakemake, main)
