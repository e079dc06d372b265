"""Snakemake entry point: repetitions.csv, monitor_samples.csv and summary.csv, after checking that no timed
read overlapped other work."""

import pandas as pd

from rootparams import paths
from rootparams.aggregate import check_no_overlap, load_monitor_samples, load_records, summarize
from rootparams.snakescript import run_logged


def main(smk):
    repetitions = load_records(smk.input.records)
    files = pd.read_csv(smk.input.files)
    check_no_overlap(repetitions, files)
    samples = load_monitor_samples(
        (paths.monitor_samples(r.format, r.file_id, r.read_id, r.rep), r._asdict())
        for r in repetitions[["format", "file_id", "read_id", "rep"]].itertuples(index=False)
    )
    repetitions.sort_values(["format", "file_id", "read_id", "rep"]).to_csv(
        smk.output.repetitions, index=False
    )
    samples.to_csv(smk.output.samples, index=False)
    summarize(repetitions).to_csv(smk.output.summary, index=False)


run_logged(snakemake, main)
