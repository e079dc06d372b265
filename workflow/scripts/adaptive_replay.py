"""Snakemake entry point: the adaptive plan replayed on this study (rootparams.decide.adaptive)."""

from pathlib import Path

import pandas as pd

from rootparams.decide import adaptive
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    table, facts, candidates = adaptive.replay(
        pd.read_csv(smk.input.summary, low_memory=False),
        pd.read_csv(smk.input.files),
        pd.read_csv(smk.input.repetitions, low_memory=False),
        pd.read_csv(smk.input.points),
        pd.read_csv(smk.input.model_points),
        pd.read_csv(smk.input.measure_jobs),
        smk.params.study,
        pd.read_csv(smk.input.warm_reads),
    )
    table.to_csv(smk.output.csv, index=False)
    # The candidates the plan left predicted, with their distance from the cut, are in the text.
    text = adaptive.markdown(table, facts, candidates)
    Path(smk.output.md).write_text(text)
    say(text)


run_logged(snakemake, main)
