"""Snakemake entry point: a format's Pareto front (fig30_pareto_<format>) or the cost against reads (fig31)."""

import pandas as pd

from rootparams.decide.decision import prices
from rootparams.present.figures import draw_cost, draw_pareto, save
from rootparams.tools.snakescript import run_logged


def main(smk):
    if hasattr(smk.input, "front"):
        fig = draw_pareto(pd.read_csv(smk.input.front), smk.wildcards.format)
    else:
        fig = draw_cost(pd.read_csv(smk.input.costs), pd.read_csv(smk.input.choice), prices(smk.params.study))
    save(fig, smk.output.png, smk.output.pdf)


run_logged(snakemake, main)
