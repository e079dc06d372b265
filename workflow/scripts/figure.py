"""Snakemake entry point: one of the paper's figures (PNG and PDF) from the tidy tables."""

import json
from pathlib import Path

import pandas as pd

from rootparams.present.figures import FIGURES, draw, save
from rootparams.stats.compare import Repetitions
from rootparams.tools.snakescript import run_logged


def main(smk):
    figure = next(f for f in FIGURES if f.name == smk.wildcards.figure)
    provenance = json.loads(Path(smk.input.provenance).read_text())
    ctx = {
        "cores": provenance.get("usable_cores"),
        # Validity judged by the rule of this figure's scans (a lenient scan rule reaches its own figures only).
        "measurement": smk.params.measurement,
        # Each repetition's round: ratios of points measured in the same rounds are paired (Fig. 15).
        "repetitions": Repetitions.read(smk.input.repetitions, metrics=["event_rate_hz"]),
    }
    fig = draw(
        figure,
        pd.read_csv(smk.input.summary),
        pd.read_csv(smk.input.points),
        pd.read_csv(smk.input.files),
        ctx,
    )
    save(fig, smk.output.png, smk.output.pdf)


run_logged(snakemake, main)
