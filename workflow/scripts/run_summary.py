"""Snakemake entry point: results/run_summary.md, and the noise figure printed at the end of the run."""

from pathlib import Path

import pandas as pd

from rootparams.records import read_json
from rootparams.report import run_summary_markdown
from rootparams.snakescript import run_logged


def main(smk):
    summary = pd.read_csv(smk.input.summary)
    text = run_summary_markdown(
        summary,
        pd.read_csv(smk.input.files),
        read_json(smk.input.provenance),
        pd.read_csv(smk.input.jobs),
        smk.params.study["repetitions"],
    )
    Path(smk.output[0]).write_text(text)
    rel = summary["event_rate_rel_std"].dropna()
    if len(rel):
        print(f"rootparams: median sigma/mean of the event rate over {len(rel)} points: {rel.median():.2%}")


run_logged(snakemake, main)
