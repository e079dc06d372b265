"""Snakemake entry point: one format's predicted parts of the time per event beside the measured time."""

import pandas as pd

from rootparams.model import model
from rootparams.present.figures import save
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    predicted = pd.read_csv(smk.input.points)
    save(model.draw_parts(predicted, smk.wildcards.format), smk.output.png, smk.output.pdf)


run_logged(snakemake, main)
