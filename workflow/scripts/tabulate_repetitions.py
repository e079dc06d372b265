"""Snakemake entry point: repetitions.csv, monitor_samples.csv, summary.csv and points.csv, after checking
that no timed read overlapped other work."""

import json
from pathlib import Path

import pandas as pd

from rootparams.aggregate import (
    check_no_overlap,
    job_table,
    load_monitor_samples,
    load_records,
    point_table,
    summarize,
)
from rootparams.snakescript import run_logged


def main(smk):
    # Each point record lists its repetitions' records (kept across reruns, see workflow/rules/measure.smk).
    point_records = [json.loads(Path(point).read_text()) for point in smk.input.points]
    record_paths = [p for point in point_records for p in point["records"]]
    repetitions = load_records(record_paths)
    files = pd.read_csv(smk.input.files)
    check_no_overlap(repetitions, files)
    monitor = repetitions[["format", "file_id", "read_id", "monitor_csv"]].drop_duplicates("monitor_csv")
    samples = load_monitor_samples(
        (r.monitor_csv, {"format": r.format, "file_id": r.file_id, "read_id": r.read_id})
        for r in monitor.itertuples(index=False)
    )
    repetitions.sort_values(["format", "file_id", "read_id", "rep"]).to_csv(
        smk.output.repetitions, index=False
    )
    samples.to_csv(smk.output.samples, index=False)
    summarize(repetitions, smk.params.measurement).to_csv(smk.output.summary, index=False)
    point_table(smk.params.points).to_csv(smk.output.point_scans, index=False)
    job_table(point_records).to_csv(smk.output.jobs, index=False)


run_logged(snakemake, main)
