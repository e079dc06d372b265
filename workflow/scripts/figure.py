"""Snakemake entry point: one of the paper's figures (PNG and PDF) from the tidy tables."""

import json
from pathlib import Path

import pandas as pd

from rootparams.figures import FIGURES, draw, save
from rootparams.snakescript import run_logged


def main(smk):
    figure = next(f for f in FIGURES if f.name == smk.wildcards.figure)
    provenance = json.loads(Path(smk.input.provenance).read_text())
    fig = draw(
        figure,
        pd.read_csv(smk.input.summary),
        pd.read_csv(smk.input.points),
        pd.read_csv(smk.input.files),
        {"cores": provenance.get("usable_cores")},
    )
    save(fig, smk.output.png, smk.output.pdf)


run_logged(snakemake, main)
