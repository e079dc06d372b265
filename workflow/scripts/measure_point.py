"""Snakemake entry point: the timed cold reads of one grid point."""

import time
from dataclasses import asdict
from pathlib import Path

from rootparams import paths
from rootparams.exclusive import process_start_epoch
from rootparams.measure import measure_point, point_identity
from rootparams.native import DamagedFileError
from rootparams.records import read_json, write_json_atomic
from rootparams.snakescript import run_logged


def main(smk, say):
    file_point, read_point = smk.params.file, smk.params.read
    fmt, file_id, read_id = file_point.format, file_point.id, read_point.id
    refused = read_json(smk.input.catalogue).get("refused")
    if refused:
        # A rewrite ROOT could not make (rewrite_failures: record): no file to read, nothing measured; the
        # refusal is the point's result (run summary and report).
        say(f"not measured: {refused}")
        write_json_atomic(smk.output[0], {"format": fmt, "file_id": file_id, "read_id": read_id, "records": [],
                                          "refused": refused})  # fmt: skip
        return
    labels = {
        **asdict(file_point),
        **asdict(read_point),
        "file_id": file_id,
        "read_id": read_id,
        "events_requested": smk.params.events,
        **point_identity(smk.input.root, smk.params.measurement),
    }
    records = {
        rep: paths.repetition_record(fmt, file_id, read_id, rep) for rep in range(smk.params.repetitions)
    }
    try:
        done = measure_point(
            root_file=smk.input.root,
            warmup_file=smk.input.warmup,
            reader=smk.input.reader,
            events=smk.params.events,
            read={**asdict(read_point), "container": file_point.container, "tree": smk.params.tree},
            measurement=smk.params.measurement,
            monitor_csv=lambda first_rep: paths.monitor_samples(fmt, file_id, read_id, first_rep),
            records=records,
            labels=labels,
            say=say,
            remote_logs=paths.remote_logs(fmt, file_id, read_id),
        )
    except DamagedFileError as error:
        # A damaged generated file: remove it, so that the rerun writes it again instead of failing here
        # again (records taken before are kept, see workflow/rules/measure.smk).
        Path(smk.input.root).unlink(missing_ok=True)
        raise DamagedFileError(
            f"{error}\n{smk.input.root} is damaged; it was removed, and a rerun of the workflow writes it again."
        ) from error
    write_json_atomic(
        smk.output[0],
        {
            "format": fmt,
            "file_id": file_id,
            "read_id": read_id,
            "records": [records[rep] for rep in sorted(records)],
            "reused": sum(1 for r in done if r["reused"]),
            # The job's wall time, from the start of its process (Snakemake runs a script: job as a child
            # process of its own) to now, and the timed loops inside it: the measure phase's efficiency.
            "job_start_time": process_start_epoch(),
            "job_end_time": time.time(),
            "measured_loop_seconds": sum(r["loop_seconds"] for r in done if not r["reused"]),
            "measured_repetitions": sum(1 for r in done if not r["reused"]),
        },
    )


run_logged(snakemake, main)
