"""Snakemake entry point: the live adaptive plan of every block (measurement.adaptive; rootparams.decide.adaptive)."""

import json
from pathlib import Path

import pandas as pd

from rootparams.decide import adaptive
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    blocks = [json.loads(Path(block).read_text()) for block in smk.input.blocks]
    table = adaptive.plan_table(blocks)
    table.to_csv(smk.output.csv, index=False)
    text = adaptive.plan_markdown(
        table,
        pd.read_csv(smk.input.repetitions, low_memory=False),
        pd.read_csv(smk.input.measure_jobs),
        pd.read_csv(smk.input.choice),
        smk.params.repetitions,
        pd.read_csv(smk.input.warm_reads),
    )
    Path(smk.output.md).write_text(text)
    say(text)


run_logged(snakemake, main)
