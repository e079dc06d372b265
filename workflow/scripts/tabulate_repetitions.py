"""Snakemake entry point: repetitions.csv, monitor_samples.csv, summary.csv, points.csv, measure_jobs.csv and
sentinel.csv, after checking that no timed read overlapped other work."""

import json
from pathlib import Path

import pandas as pd

from rootparams.results.aggregate import (
    check_no_overlap,
    derive_metrics,
    job_table,
    load_monitor_samples,
    load_records,
    point_status,
    point_table,
    sentinel_table,
    summarize,
    with_status,
)
from rootparams.tools.snakescript import run_logged


def main(smk):
    # Each block record lists its points' repetition records (kept across reruns, see workflow/rules/measure.smk).
    blocks = [json.loads(Path(block).read_text()) for block in smk.input.blocks]
    record_paths = [p for block in blocks for point in block["points"] for p in point["records"]]
    repetitions = derive_metrics(load_records(record_paths))
    sentinel = load_records(p for block in blocks for p in block.get("sentinel_records", []))
    files = pd.read_csv(smk.input.files)
    check_no_overlap(pd.concat([repetitions, sentinel], ignore_index=True), files)
    monitors = pd.concat([repetitions, sentinel], ignore_index=True)
    monitors = (
        monitors[["block", "monitor_csv"]].drop_duplicates("monitor_csv") if len(monitors) else monitors
    )
    samples = load_monitor_samples(
        (r.monitor_csv, {"block": r.block}) for r in monitors.itertuples(index=False)
    )
    if len(repetitions):  # none when every point failed or was refused
        repetitions = repetitions.sort_values(["format", "file_id", "read_id", "rep"])
    repetitions.to_csv(smk.output.repetitions, index=False)
    samples.to_csv(smk.output.samples, index=False)
    # Every point, whatever became of it: a point the reader could not read, or a rewrite that was refused, is a
    # row with its status and reason (rootparams.results.aggregate.with_status), never left out.
    status = point_status(blocks)
    measurement, planned = smk.params.measurement, smk.params.repetitions
    summary = summarize(repetitions, measurement, planned)
    with_status(summary, status, smk.params.points, measurement, planned).to_csv(
        smk.output.summary, index=False
    )
    point_table(smk.params.points, status).to_csv(smk.output.point_scans, index=False)
    job_table(blocks).to_csv(smk.output.jobs, index=False)
    sentinel_table(sentinel).to_csv(smk.output.sentinel, index=False)


run_logged(snakemake, main)
