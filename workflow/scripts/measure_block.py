"""Snakemake entry point: the timed cold reads of one block (a format's points), in interleaved rounds."""

import time
from dataclasses import asdict
from pathlib import Path

from rootparams import paths
from rootparams.exclusive import process_start_epoch
from rootparams.measure import PlannedPoint, PointFailed, Sentinel, measure_block, point_identity
from rootparams.records import read_json, write_json_atomic
from rootparams.snakescript import run_logged


def planned(entry, measurement, repetitions):
    """A point of the plan (workflow/rules/common.smk, block_plan) with its records' paths and identity."""
    file_point, read_point = entry["file"], entry["read"]
    fmt, file_id, read_id = file_point.format, file_point.id, read_point.id
    labels = {
        **asdict(file_point),
        **asdict(read_point),
        "file_id": file_id,
        "read_id": read_id,
        "events_requested": entry["events"],
        **point_identity(entry["root"], measurement),
    }
    return PlannedPoint(
        root_file=entry["root"],
        events=entry["events"],
        read={**asdict(read_point), "container": file_point.container, "tree": entry["tree"]},
        labels=labels,
        records={rep: paths.repetition_record(fmt, file_id, read_id, rep) for rep in range(repetitions)},
        warmup_file=entry["warmup"],
        remote_logs=paths.remote_logs(fmt, file_id, read_id),
    )


def main(smk, say):
    block, measurement = smk.wildcards.block, smk.params.measurement
    points, refused = [], []
    for entry in smk.params.plan:
        why = read_json(entry["catalogue"]).get("refused")
        if why:
            # A rewrite ROOT could not make (rewrite_failures: record): no file to read, nothing measured; the
            # refusal is the point's result (run summary and report).
            say(f"{entry['file'].id} {entry['read'].id}: not measured: {why}")
            refused.append({"format": entry["file"].format, "file_id": entry["file"].id,
                            "read_id": entry["read"].id, "refused": why})  # fmt: skip
            continue
        points.append(planned(entry, measurement, smk.params.repetitions))
    sentinel = None
    if smk.params.sentinel:
        sentinel = Sentinel(
            point=planned(smk.params.sentinel, measurement, 0),
            directory=paths.SENTINEL_RECORDS,
            every_seconds=measurement["sentinel"]["every_seconds"],
        )
    try:
        result = measure_block(
            block=block,
            points=points,
            reader=smk.input.reader,
            measurement=measurement,
            monitor_csv=lambda start: paths.monitor_samples(block, start),
            seed=smk.params.seed,
            sentinel=sentinel,
            say=say,
        )
    except PointFailed as error:
        # A damaged generated file: removed, so that the rerun writes it again instead of failing here again; every
        # other point's records are kept and the rerun measures only what is missing.
        for path in error.damaged:
            Path(path).unlink(missing_ok=True)
        removed = "".join(
            f"\n{path} is damaged; it was removed, and a rerun of the workflow writes it again."
            for path in error.damaged
        )
        raise PointFailed(f"{error}{removed}", error.damaged) from error
    write_json_atomic(
        smk.output[0],
        {
            "block": block,
            "points": [
                {"format": p.labels["format"], "file_id": p.labels["file_id"], "read_id": p.labels["read_id"],
                 "records": [p.records[r["rep"]] for r in recs]}
                for p, recs in zip(points, result.records, strict=True)
            ] + [{**r, "records": []} for r in refused],
            "sentinel_records": result.sentinel_records,
            "schedule": result.schedule,
            "reused": sum(1 for recs in result.records for r in recs if r["reused"]),
            # The job's wall time, from the start of its process (Snakemake runs a script: job as a child process of
            # its own) to now, and the timed loops inside it: the measure phase's efficiency.
            "job_start_time": process_start_epoch(),
            "job_end_time": time.time(),
            "measured_loop_seconds": result.measured_loop_seconds,
            "measured_repetitions": result.measured_repetitions,
        },
    )  # fmt: skip


run_logged(snakemake, main)
