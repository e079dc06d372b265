"""Snakemake entry point: one timed cold read of one grid point."""

from dataclasses import asdict

from rootparams.measure import measure_repetition
from rootparams.snakescript import run_logged


def main(smk):
    file_point, read_point = smk.params.file, smk.params.read
    labels = {
        **asdict(file_point),
        **asdict(read_point),
        "file_id": file_point.id,
        "read_id": read_point.id,
        "rep": int(smk.wildcards.rep),
        "events_requested": smk.params.events,
    }
    measure_repetition(
        root_file=smk.input.root,
        warmup_file=smk.input.warmup,
        reader=smk.input.reader,
        events=smk.params.events,
        read=asdict(read_point),
        measurement=smk.params.measurement,
        monitor_csv=smk.output.samples,
        record_path=smk.output.record,
        labels=labels,
    )


run_logged(snakemake, main)
