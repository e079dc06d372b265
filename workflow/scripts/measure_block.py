"""Snakemake entry point: the timed cold reads of one block (a format's points), in interleaved rounds."""

import time
from pathlib import Path

import pandas as pd

from rootparams.decide import adaptive
from rootparams.host.exclusive import process_start_epoch
from rootparams.measure.measure import PointFailed, Sentinel, measure_block, plan_point
from rootparams.tools import paths
from rootparams.tools.records import read_json, write_json_atomic
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    block, measurement = smk.wildcards.block, smk.params.measurement
    points, refused, kept_entries = planned_points(smk, measurement, say)
    sentinel = None
    if smk.params.sentinel:
        sentinel = Sentinel(
            point=plan_point(smk.params.sentinel, measurement, 0),
            directory=paths.SENTINEL_RECORDS,
            every_seconds=measurement["sentinel"]["every_seconds"],
        )
    pairs = kept_pairs(smk.params.plan, smk.params.pairs, kept_entries)

    def measure(planned):
        return measure_block(
            block=block,
            points=planned,
            reader=smk.input.reader,
            measurement=measurement,
            monitor_csv=lambda start: paths.monitor_samples(block, start),
            seed=smk.params.seed,
            sentinel=sentinel,
            say=say,
            pairs=pairs,
        )

    points, result, plan = measure_points(smk, measurement, points, kept_entries, measure, say)
    timing = measuring_time(block, result, say)
    write_json_atomic(smk.output[0], block_record(block, points, result, refused, timing, plan))


def planned_points(smk, measurement, say):
    """(the block's points to measure, the refused rewrites among its plan, the plan's entries of the points)."""
    points, refused, kept_entries = [], [], []
    for entry in smk.params.plan:
        why = read_json(entry["catalogue"]).get("refused")
        if why:
            # A rewrite ROOT could not make (rewrite_failures: record): no file to read, nothing measured; the
            # refusal is the point's result (run summary and report).
            say(f"{entry['file'].id} {entry['read'].id}: not measured: {why}")
            refused.append(
                {
                    "format": entry["file"].format,
                    "file_id": entry["file"].id,
                    "read_id": entry["read"].id,
                    "refused": why,
                }
            )
            continue
        points.append(plan_point(entry, measurement, smk.params.repetitions, smk.params.reps))
        kept_entries.append(entry)
    return points, refused, kept_entries


def kept_pairs(plan, pairs, kept_entries):
    """The pairs the sequential rounds measure, by index into the plan: renumbered past the refused entries."""
    planned_index = {
        i: j for j, i in enumerate(i for i, e in enumerate(plan) if any(e is k for k in kept_entries))
    }
    return [
        (planned_index[a], planned_index[b]) for a, b in pairs if a in planned_index and b in planned_index
    ]


def measure_points(smk, measurement, points, kept_entries, measure, say):
    """(the points measured, measure's result, the adaptive plan or None). A damaged generated file is removed, so
    that the rerun writes it again instead of failing here again; every other point's records are kept and the
    rerun measures only what is missing."""
    plan = None
    try:
        if plan_of_block := measurement.get("adaptive"):
            # measurement.adaptive: the anchors and the points outside the decision in full, every other candidate
            # once, then in full only those that could be the cheapest (rootparams.decide.adaptive).
            study = plan_of_block["study"]
            point_entries = list(zip(points, kept_entries, strict=True))
            scans = {adaptive.key_of(p): e["scans"] for p, e in point_entries}

            def points_for(full):
                return [
                    plan_point(
                        e, measurement, adaptive.planned_repetitions(p.labels, e["scans"], study, full)
                    )
                    for p, e in point_entries
                ]

            points, result, plan = adaptive.measure_adaptively(
                points_for,
                scans,
                [e["catalogue"] for e in kept_entries],
                measure,
                pd.read_csv(smk.input.storage),
                study,
                {tuple(k) for k in plan_of_block["chosen"]},
                say,
            )
        else:
            result = measure(points)
    except PointFailed as error:
        for path in error.damaged:
            Path(path).unlink(missing_ok=True)
        removed = "".join(
            f"\n{path} is damaged; it was removed, and a rerun of the workflow writes it again."
            for path in error.damaged
        )
        raise PointFailed(f"{error}{removed}", error.damaged) from error
    return points, result, plan


def measuring_time(block, result, say):
    """The job's wall time, from the start of its process (Snakemake runs a script: job as a child process of its
    own) to now, and the timed loops inside it: the measure phase's efficiency. A rerun that took no read (every
    one kept: a changed setting that does not change the reads, a newer version of the workflow) keeps the
    timing of the job that took them, so that the study's measuring time stays what it was."""
    timing = {
        "job_start_time": process_start_epoch(),
        "job_end_time": time.time(),
        "measured_loop_seconds": result.measured_loop_seconds,
        "measured_repetitions": result.measured_repetitions,
        "measured_warm_reads": result.measured_warm_reads,
    }
    measuring_job = Path(paths.block_measuring_job(block))
    if timing["measured_repetitions"] or timing["measured_warm_reads"] or not measuring_job.exists():
        write_json_atomic(measuring_job, timing)
        return timing
    say(f"block {block}: every read was taken before; its measuring time is that of the job that took them")
    return {**timing, **read_json(measuring_job)}


def block_record(block, points, result, refused, timing, plan):
    """What the block's job wrote: every point of the plan with its records; a point the reader could not read also
    its reason ("failed", with the repetitions taken before, if any), a refused rewrite its refusal: results like
    the others."""
    return {
        "block": block,
        "points": [
            {
                "format": p.labels["format"],
                "file_id": p.labels["file_id"],
                "read_id": p.labels["read_id"],
                "records": [p.records[r["rep"]] for r in recs],
                **({"failed": result.failed[i]} if i in result.failed else {}),
                **(
                    {"surveyed": adaptive.SURVEYED_WHY}
                    if plan and adaptive.key_of(p) in adaptive.predicted_keys(plan)
                    else {}
                ),
            }
            for i, (p, recs) in enumerate(zip(points, result.records, strict=True))
        ]
        + [{**r, "records": []} for r in refused],
        "sentinel_records": result.sentinel_records,
        "schedule": result.schedule,
        "reused": sum(1 for recs in result.records for r in recs if r["reused"]),
        **timing,
        # measurement.warm_reads: each warm set's records (rootparams.measure.cpu_primitives), read by the primitives stage.
        "warm_sets": result.warm_sets,
        # measurement.target_half_width: what the sequential rounds found open, resolved and cost.
        **({"sequential": result.sequential} if result.sequential else {}),
        # measurement.adaptive: the plan's steps, its uncertainty and every candidate's role and costs.
        **({"adaptive": plan} if plan else {}),
    }


run_logged(snakemake, main)
