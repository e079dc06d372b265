"""Snakemake entry point: results/run_summary.md with the run's physics checks (tables/physics_checks.csv), and the
noise figure printed at the end of the run."""

from pathlib import Path

import pandas as pd

from rootparams.decide import instrument_checks
from rootparams.present.report import run_summary_markdown
from rootparams.stats import drift
from rootparams.tools.records import read_json
from rootparams.tools.snakescript import run_logged


def main(smk):
    summary = pd.read_csv(smk.input.summary)
    sentinel = pd.read_csv(smk.input.sentinel)
    repetitions = pd.read_csv(smk.input.repetitions, low_memory=False)
    points = pd.read_csv(smk.input.points)
    checks = instrument_checks.study_checks(summary, repetitions, points, sentinel, smk.params.study)
    instrument_checks.table(checks).to_csv(smk.output.checks, index=False)
    # The sequential rounds' effect on the verdicts: the same checks on the planned repetitions alone.
    planned = smk.params.study["repetitions"]
    resolved = ""
    if "rep" in repetitions and (repetitions["rep"] >= planned).any():
        before = instrument_checks.study_checks(
            summary, repetitions[repetitions["rep"] < planned], points, sentinel, smk.params.study
        )
        resolved = instrument_checks.resolved_text(before, checks)
    text = run_summary_markdown(
        summary,
        pd.read_csv(smk.input.files),
        read_json(smk.input.provenance),
        pd.read_csv(smk.input.jobs),
        smk.params.study["repetitions"],
        drift.analyse(sentinel),
        checks,
        resolved,
        points,
        smk.params.study["measurement"],
    )
    Path(smk.output.summary).write_text(text)
    rel = summary["event_rate_rel_std"].dropna()
    if len(rel):
        print(f"rootparams: median sigma/mean of the event rate over {len(rel)} points: {rel.median():.2%}")


run_logged(snakemake, main)
