"""Snakemake entry point: the note's Table 1 predicted for its testbed (rootparams.model.model.note_testbed_table)."""

from pathlib import Path

import pandas as pd

from rootparams.model import model
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    i = smk.input
    points = model.read_study_points(i.repetitions, i.files, i.summary, i.points)
    host_mips = pd.read_csv(smk.input.cpu_reference)["decompression_mips"].iloc[0]
    table = model.note_testbed_table(
        points,
        pd.read_csv(smk.input.storage),
        pd.read_csv(smk.input.warm),
        pd.read_csv(smk.input.files),
        host_mips,
    )
    table.to_csv(smk.output.csv, index=False)
    text = model.note_testbed_markdown(table, host_mips)
    Path(smk.output.md).write_text(text)
    say(text)


run_logged(snakemake, main)
