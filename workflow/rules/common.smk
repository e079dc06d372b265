# Configuration, grid and path helpers. Rules below only wire these; the logic is in src/rootparams.
import functools
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from snakemake.exceptions import WorkflowError

from dataclasses import asdict

from rootparams import adaptive, blocks, footprint, paths, remotebench, writenoise
from rootparams.errors import UserError
from rootparams.measure import ELSEWHERE_KEYS, needs_measuring, plan_point
from rootparams.records import read_json
from rootparams.build import CXX_SOURCES, source_dir
from rootparams.config import (
    format_file_defaults,
    left_out_notes,
    load_study_config,
    source_of,
    without_throttling,
)
from rootparams.grid import (
    ASIS_ID,
    FILE_ID_PATTERN,
    READ_ID_PATTERN,
    REWRITE_ID_PATTERN,
    content_file_point,
    default_file_point,
    expand_points,
    file_points,
    format_kind,
    points_by_id,
    sentinel_point,
)
from rootparams.drift import DRIFT_FIGURE
from rootparams.figures import DECISION_FIGURES, FIGURE_NAMES, pareto_figure_name
from rootparams.formats import is_flat_format
from rootparams.preflight import check_tools, rules_to_run
from rootparams.scans import notes as scan_notes
from rootparams.storage import throttling_unavailable_reason
from rootparams.unzipkinds import study_settings
from rootparams.vocabulary import TTREE

# One software environment for every rule (used with --sdm conda); it mirrors pyproject.toml's pins.
CONDA_ENV = "../../envs/rootparams.yaml"

# Validated, with every default filled in; an invalid config stops here, before any job is scheduled, with its
# message alone: SystemExit passes through Snakemake, which would add its own traceback to any other exception.
try:
    STUDY = load_study_config(
        config, source="config/config.yaml and any --configfile/--config given"
    )
except UserError as error:
    sys.exit(f"rootparams: {error}")
# "Timed reads use the hdd profile wherever the machine allows it": where it does not (not root, no cgroup
# v1 blkio), throttled profiles become native, loudly, unless measurement.unthrottled_fallback is "fail".
if reason := throttling_unavailable_reason():
    STUDY = without_throttling(STUDY, reason)
    if "storage_note" in STUDY["measurement"]:
        print(f"rootparams: {STUDY['measurement']['storage_note']}", file=sys.stderr)
# The measurement settings of the reads, for the blocks, tables and figures: without those that size other jobs
# (measure.ELSEWHERE_KEYS: measurement.storage_primitives), so that a study that sets them, or did not have them,
# runs none of those jobs again.
READS_MEASUREMENT = {
    k: v for k, v in STUDY["measurement"].items() if k not in ELSEWHERE_KEYS
}
# How much the storage primitives measure (rule storage_primitives; the defaults are rootparams.storagebench's).
STORAGE_PRIMITIVES = STUDY["measurement"]["storage_primitives"]
DATA_DIR = STUDY["data_dir"]
POINTS = expand_points(STUDY)

# Preflight, part 1: the estimated peak disk use of the study's files, said once in the scheduling process
# (also on a dry run, so that e.g. config/paper.yaml can be sized anywhere). Part 2, the check against the
# free space and of the programs the run needs, runs in onstart (Snakefile): before the first job, and not on a
# dry run.
if workflow.is_main_process:
    for note in [*left_out_notes(STUDY), *scan_notes(STUDY["scans"])]:
        print(f"rootparams: {note}", file=sys.stderr)
    print(
        f"rootparams: {len(POINTS)} points; the study's ROOT files need about "
        f"{footprint.estimate(STUDY, POINTS) / 1e9:.1f} GB at peak in {DATA_DIR}",
        file=sys.stderr,
    )
# The drift sentinel: one reference point read again through every block (None: measurement.sentinel is off).
SENTINEL = sentinel_point(STUDY)
FILE_POINTS, READ_POINTS = points_by_id([*POINTS, *([SENTINEL] if SENTINEL else [])])
# The sentinel's file, as wildcard constraints ("(?!)" matches nothing: no sentinel, or a user's file as it is).
_sentinel_written = SENTINEL is not None and SENTINEL.file.id != ASIS_ID
SENTINEL_FORMAT = re.escape(SENTINEL.file.format) if _sentinel_written else "(?!)"
SENTINEL_FILE_ID = re.escape(SENTINEL.file.id) if _sentinel_written else "(?!)"
# The timed reads are made in blocks, one per format and pass (rootparams.blocks): a block's points are measured
# in interleaved rounds, and pass k + 1 of any format after pass k of every format.
PASSES = blocks.passes(STUDY["measurement"], STUDY["repetitions"])
_MEASURED_FORMATS = [
    f for f in STUDY["formats"] if any(p.file.format == f for p in POINTS)
]
BLOCKS = {
    block: [p for p in POINTS if p.file.format == blocks.format_of(block)]
    for block in blocks.block_names(_MEASURED_FORMATS, PASSES)
}
WARMUP_EVENTS = 10
# Measure only where the decision needs it (rootparams.adaptive).
ADAPTIVE = STUDY["measurement"]["adaptive"]


wildcard_constraints:
    format="|".join(STUDY["formats"]),
    block=blocks.block_pattern(STUDY["formats"]),
    file_id="|".join((FILE_ID_PATTERN, REWRITE_ID_PATTERN, ASIS_ID)),
    read_id=READ_ID_PATTERN,
    rep=r"\d+",
    figure="|".join(FIGURE_NAMES),


# The model's figures (workflow/rules/model.smk): against the measured rates, the parts per format, other media.
MODEL_FIGURE = "fig33_model_vs_measured"
MEDIA_FIGURE = "fig35_predicted_media"


def parts_figure(fmt):
    return f"fig34_model_parts_{fmt}"


def formats_pattern(*kinds):
    # The study's formats made in one of these ways (format_kind), as a wildcard constraint; "(?!)" matches
    # nothing, for a study without such formats.
    names = [f for f in STUDY["formats"] if format_kind(STUDY, f) in kinds]
    return "|".join(names) or "(?!)"


# Who makes a file: the generate rules write the files of built-in formats and clones (recipe file ids),
# rewrite_file the rewrites of a source; a source as it is is no rule's output (catalogue_source describes it).
GENERATED_FORMATS = formats_pattern("recipe", "clone")
SOURCE_FORMATS = formats_pattern("source")


def cxx_sources():
    # Inputs of the C++ build, so that editing the xAOD-like classes, the writer or the reader rebuilds them.
    return [str(source_dir() / name) for name in CXX_SOURCES]


def all_cores(wildcards):
    # A timed read takes every core Snakemake was given, so that no other job can run beside it.
    # (A function, not `workflow.cores` directly: the latter fails when no --cores is given, e.g. --report,
    # which runs no job and may still ask a job without wildcards for its threads.)
    try:
        return workflow.cores
    except WorkflowError:
        return 1


def file_point(wildcards):
    return FILE_POINTS[(wildcards.format, wildcards.file_id)]


def read_point(wildcards):
    return READ_POINTS[wildcards.read_id]


def point_root_file(fmt, file_id):
    # The file a point reads: a source as it is is the user's file itself, never copied, or its tiled copy.
    if file_id == ASIS_ID:
        return source_file(SimpleNamespace(format=fmt))
    return paths.root_file(DATA_DIR, fmt, file_id)


def file_selections(wildcards):
    # The branch selections the study reads a file with, in a fixed order.
    return sorted(
        {
            p.read.branches
            for p in POINTS
            if (p.file.format, p.file.id) == (wildcards.format, wildcards.file_id)
        }
    )


def original_source_file(wildcards):
    return source_of(STUDY, wildcards.format).path


def tile_copies_of(fmt):
    return int(STUDY["formats"][fmt].get("tile", 1))


def source_file(wildcards):
    # What a source's points are made from: the file, or its tiled copy (formats.<name>.tile > 1). A clone's
    # recipe is always calibrated on the file itself.
    if (
        format_kind(STUDY, wildcards.format) == "source"
        and tile_copies_of(wildcards.format) > 1
    ):
        return paths.tiled_source_file(
            DATA_DIR, wildcards.format, tile_copies_of(wildcards.format)
        )
    return source_of(STUDY, wildcards.format).path


def tile_record_input(wildcards):
    # A tiled source's record (copies, the original, the checks), which every point of the format carries.
    if (
        format_kind(STUDY, wildcards.format) == "source"
        and tile_copies_of(wildcards.format) > 1
    ):
        return paths.tile_record(wildcards.format, tile_copies_of(wildcards.format))
    return []


def source_settings(wildcards):
    # The file's own settings: a rewrite that keeps them but the compression recompresses the baskets.
    return format_file_defaults(STUDY, wildcards.format)


def tree_name(wildcards):
    # The tree or RNTuple a source's points read; None: the reader's default, CollectionTree (our writer's).
    if format_kind(STUDY, wildcards.format) == "source":
        return source_of(STUDY, wildcards.format).tree
    return None


def recipe_input(wildcards):
    # A clone's calibrated recipe; a built-in format's recipe comes from rootparams.formats.
    if format_kind(STUDY, wildcards.format) == "clone":
        return paths.recipe_file(wildcards.format)
    return []


def content_input(wildcards):
    # A built-in format's events are generated once and read back for every file; a clone's files are each
    # generated from the seed (the same events: the writer is deterministic), as its recipe may hold flat
    # columns and scalars, which the writer cannot read back from a content file. Generating costs less than
    # ROOT's writing of the same events (benchmarks/clone_generation.py).
    if format_kind(STUDY, wildcards.format) == "clone" or is_flat_format(
        wildcards.format
    ):
        return []
    return paths.content_file(DATA_DIR, wildcards.format)


def format_warmup_file(fmt):
    # The format's default file point, written with few events: read after a drop_caches (eviction: system) so
    # that the reader's code pages are back. A source's is the source itself (evicted and verified cold after it).
    if format_kind(STUDY, fmt) == "source":
        return source_of(STUDY, fmt).path
    return paths.warmup_file(DATA_DIR, fmt)


# The decompression per content kind, measured by the unzip_kinds rule. Per format whose default file is a TTree,
# the compressing settings of the study's TTree files of that format.
UNZIP_KIND_SETTINGS = {
    fmt: settings
    for fmt, settings in study_settings(POINTS).items()
    if default_file_point(STUDY, fmt).container == TTREE
}


def unzip_kind_sample(fmt):
    # A user's file as it is is measured itself; any other format on its default file, written again.
    if format_kind(STUDY, fmt) == "source":
        return source_of(STUDY, fmt).path
    return paths.unzip_sample_file(DATA_DIR, fmt)


def unzip_kind_samples(wildcards):
    # In the order of UNZIP_KIND_SETTINGS (the rule's params.formats).
    return [unzip_kind_sample(fmt) for fmt in UNZIP_KIND_SETTINGS]


def unzip_kind_trees(wildcards):
    # The tree of a user's file; None: the one inspect finds (CollectionTree, Events, or the only one).
    return {
        fmt: (
            source_of(STUDY, fmt).tree if format_kind(STUDY, fmt) == "source" else None
        )
        for fmt in UNZIP_KIND_SETTINGS
    }


def content_point(wildcards):
    return content_file_point(wildcards.format)


def warmup_file_point(wildcards):
    return default_file_point(STUDY, wildcards.format)


def events_written(wildcards):
    return STUDY["formats"][wildcards.format]["written"]


def _plan_entry(point):
    fmt = point.file.format
    return {
        "file": point.file,
        "read": point.read,
        "root": point_root_file(fmt, point.file.id),
        "catalogue": paths.catalogue_entry(fmt, point.file.id),
        "warmup": format_warmup_file(fmt),
        "tree": (
            source_of(STUDY, fmt).tree if format_kind(STUDY, fmt) == "source" else None
        ),
        "events": STUDY["formats"][fmt]["read"],
        # measurement.adaptive: the anchors are the points of the default scan.
        **({"scans": list(point.scans)} if ADAPTIVE else {}),
    }


def block_plan(wildcards):
    # Every point of the block, with its file, catalogue entry, warm-up file and events.
    return [_plan_entry(p) for p in BLOCKS[wildcards.block]]


@functools.cache
def chosen_before(block):
    # measurement.adaptive: the candidates the block's plan chose in an earlier run (its record, read before the
    # job replaces it).
    record = Path(paths.block_record(block))
    return adaptive.chosen_before(read_json(record) if record.exists() else None)


def remote_primitives():
    # The remote profiles' round trips and bandwidth, where the study reads on any (the model predicts their
    # points from them); nothing for a study on local storage only.
    if STUDY["measurement"]["primitives"] and remotebench.profiles_to_measure(STUDY):
        return [paths.REMOTE_PRIMITIVES_TABLE]
    return []


def model_remote_primitives(wildcards):
    # One path (the script reads it as one table) or none.
    tables = remote_primitives()
    return tables[0] if tables else []


def block_storage_primitives(wildcards):
    # The adaptive plan predicts from the storage primitives.
    return paths.STORAGE_PRIMITIVES_TABLE if ADAPTIVE else []


def planned_repetitions(point):
    # The repetitions a point's plan names (an adaptive plan's candidates may get fewer); a pass measures its own
    # share of them (block_repetitions).
    if not ADAPTIVE:
        return STUDY["repetitions"]
    chosen = chosen_before(point.file.format)
    entry = {
        **asdict(point.file),
        **asdict(point.read),
        "file_id": point.file.id,
        "read_id": point.read.id,
    }
    return adaptive.planned_repetitions(entry, point.scans, STUDY, chosen)


def sentinel_plan(wildcards):
    return _plan_entry(SENTINEL) if SENTINEL else None


def block_repetitions(wildcards):
    # The repetition numbers this block (a pass) takes of each point: all of them with one pass.
    _, number = blocks.split_block(wildcards.block)
    return blocks.pass_repetitions(STUDY["repetitions"], PASSES, number)


def earlier_blocks(wildcards):
    # A pass starts after the previous pass of every format (their records).
    return [
        paths.block_record(b)
        for b in blocks.earlier_blocks(wildcards.block, _MEASURED_FORMATS, PASSES)
    ]


def block_pairs(wildcards):
    # The pairs of points whose ratio the sequential rounds measure until resolved (the physics checks' levels).
    return blocks.level_pairs(BLOCKS[wildcards.block])


def block_measurement(wildcards):
    # The measurement settings, with only the study's own storage profiles this block reads on: redefining a
    # profile reruns the blocks that use it, and in them re-measures the points on it (measure.measurement_key).
    # The warm reads and the sequential rounds are the last pass's.
    points = [*BLOCKS[wildcards.block], *([SENTINEL] if SENTINEL else [])]
    used = {p.read.storage_profile for p in points}
    own = STUDY["measurement"]["storage_profiles"]
    measurement = {
        **READS_MEASUREMENT,
        "storage_profiles": {name: own[name] for name in own if name in used},
    }
    if not blocks.is_last_pass(wildcards.block, PASSES):
        measurement.update(warm_reads=0, target_half_width=None)
    if ADAPTIVE:
        measurement["target_half_width"] = (
            None  # the plan decides what to measure in full
        )
    # measurement.adaptive: what the block's plan needs besides its points (the study: the decision's prices and
    # defaults) and the candidates an earlier run chose. Without it, no key at all: a study that is not adaptive
    # passes its blocks the settings it always did, and they do not run again.
    del measurement["adaptive"]
    measurement_settings = dict(measurement)
    if ADAPTIVE:
        # Of the study, only what the block's decision reads: a change elsewhere (another format, a figure)
        # does not run the block again.
        block = blocks.format_of(wildcards.block)
        measurement["adaptive"] = {
            "study": {
                "formats": {block: STUDY["formats"][block]},
                "file_defaults": {block: STUDY["file_defaults"][block]},
                "read_defaults": STUDY["read_defaults"],
                "cost": STUDY["cost"],
                "repetitions": STUDY["repetitions"],
                "measurement": measurement_settings,
            },
            "chosen": sorted(chosen_before(block)),
        }
    return measurement


@functools.cache
def block_to_measure(block):
    # The block's points that still have reads to take (measure.needs_measuring), judged on the records already on
    # disk when the DAG is built. A point measured before needs neither its file nor its catalogue rewritten, so
    # that adding a scan to a finished study writes and measures only the new points. The sentinel is read only
    # in a block that measures something.
    measurement = block_measurement(SimpleNamespace(block=block))
    reps = block_repetitions(SimpleNamespace(block=block))
    todo, readable = [], []
    for point in BLOCKS[block]:
        entry = _plan_entry(point)
        if not Path(entry["catalogue"]).exists():
            todo.append(point)
            readable.append(point)
            continue
        if read_json(entry["catalogue"]).get("refused"):
            continue  # a rewrite ROOT refused: nothing to read
        readable.append(point)
        if needs_measuring(
            plan_point(entry, measurement, planned_repetitions(point), reps),
            measurement,
        ):
            todo.append(point)
    if ADAPTIVE and todo:
        # The plan may choose any candidate of the block: every file is needed while it runs.
        todo = readable
    return todo + ([SENTINEL] if todo and SENTINEL else [])


def block_root_files(wildcards):
    # The files of the points still to measure, and the sentinel's (kept until the last block has read it).
    points = block_to_measure(wildcards.block)
    return sorted({point_root_file(p.file.format, p.file.id) for p in points})


def block_catalogues(wildcards):
    # Every point's catalogue entry (they are never removed): the plan's identities come from them.
    points = [*BLOCKS[wildcards.block], *([SENTINEL] if SENTINEL else [])]
    return sorted({paths.catalogue_entry(p.file.format, p.file.id) for p in points})


def block_warmup_files(wildcards):
    # Read only after the paper's drop_caches (measurement.eviction: system).
    if STUDY["measurement"]["eviction"] != "system":
        return []
    return format_warmup_file(blocks.format_of(wildcards.block))


def catalogue_entries():
    return [paths.catalogue_entry(f.format, f.id) for f in file_points(POINTS)]


def block_records():
    return [paths.block_record(block) for block in BLOCKS]


def final_outputs():
    return [
        paths.PROVENANCE,
        paths.FILES_TABLE,
        paths.REPETITIONS_TABLE,
        paths.MONITOR_TABLE,
        paths.MEASURE_JOBS_TABLE,
        paths.SENTINEL_TABLE,
        paths.PHYSICS_TABLE,
        paths.SUMMARY_TABLE,
        paths.RUN_SUMMARY,
        *(
            paths.table1(fmt, ext)
            for fmt in STUDY["formats"]
            for ext in ("csv", "md", "tex")
        ),
        *(paths.figure(name, ext) for name in FIGURE_NAMES for ext in ("png", "pdf")),
        *(paths.figure(DRIFT_FIGURE, ext) for ext in ("png", "pdf")),
        paths.PARETO_TABLE,
        paths.COST_TABLE,
        paths.COST_CHOICE_TABLE,
        paths.COST_CROSSOVERS_TABLE,
        paths.COST_RANKING_TABLE,
        *(
            paths.figure(pareto_figure_name(fmt), ext)
            for fmt in STUDY["formats"]
            for ext in ("png", "pdf")
        ),
        *(paths.figure(DECISION_FIGURES[1], ext) for ext in ("png", "pdf")),
        paths.RECOMMENDATIONS,
        *(
            [paths.STORAGE_PRIMITIVES_TABLE]
            if STUDY["measurement"]["primitives"]
            else []
        ),
        *remote_primitives(),
        *(
            [paths.UNZIP_KINDS_TABLE]
            if STUDY["measurement"]["primitives"] and UNZIP_KIND_SETTINGS
            else []
        ),
        *(
            [paths.CPU_PRIMITIVES_TABLE, paths.CPU_PRIMITIVES_SUMMARY]
            if STUDY["measurement"]["warm_reads"]
            else []
        ),
        *(
            [
                paths.MODEL_POINTS_TABLE,
                paths.MODEL_ERRORS_TABLE,
                paths.MODEL_MEDIA_TABLE,
                f"{paths.NOTE_TESTBED_TABLE}.csv",
                f"{paths.NOTE_TESTBED_TABLE}.md",
                # A replay needs every point measured; a live plan has its own table.
                *(
                    f"{paths.ADAPTIVE_PLAN_TABLE if ADAPTIVE else paths.ADAPTIVE_REPLAY_TABLE}.{ext}"
                    for ext in ("csv", "md")
                ),
                *(
                    [paths.PREDICTED_CHOICE_TABLE]
                    if STUDY["cost"]["predicted_media"]
                    else []
                ),
                *(
                    paths.figure(name, ext)
                    for name in (
                        MODEL_FIGURE,
                        MEDIA_FIGURE,
                        *(parts_figure(fmt) for fmt in STUDY["formats"]),
                    )
                    for ext in ("png", "pdf")
                ),
            ]
            if STUDY["measurement"]["warm_reads"] and STUDY["measurement"]["primitives"]
            else []
        ),
    ]


def print_noise_summary():
    # At the end of a successful run, the noise of the whole study in one line (also in run_summary.md), and the
    # points that failed or were refused, which the run summary lists with their reasons.
    import pandas as pd
    from rootparams.report import failed_points, noise_line

    if Path(paths.SUMMARY_TABLE).exists():
        summary = pd.read_csv(paths.SUMMARY_TABLE)
        print(f"rootparams: {noise_line(summary)}")
        failed = failed_points(summary)
        if len(failed):
            print(
                f"rootparams: {len(failed)} point(s) not measured, with their reasons in {paths.RUN_SUMMARY} "
                "and the status column of the tables:",
                file=sys.stderr,
            )
            for r in failed.head(10).itertuples():
                print(
                    f"  {r.status}: {r.format} {r.file_id} {r.read_id}: {str(r.failure).splitlines()[0][:300]}",
                    file=sys.stderr,
                )


def unless_kept(path):
    # Generated files are removed once all their reads are done, unless keep_files: true.
    return path if STUDY["keep_files"] else temp(path)


def preflight():
    # Before any job has started: stops, naming both numbers, if the files cannot fit (DiskSpaceError), and,
    # naming them all, if a program the jobs to run need is not installed (g++, fio, 7-Zip, the monitor, the
    # remote profiles' servers; rootparams.preflight). On a cluster the jobs' nodes may have what this host
    # lacks: there it only warns.
    try:
        footprint.check(STUDY, POINTS)
        check_tools(STUDY, rules=rules_to_run(workflow), local=workflow.local_exec)
    except UserError as error:
        sys.exit(f"rootparams: {error}")


def cancel_scheduler_timers():
    # Snakemake's idle re-evaluation timers (profiles/default: one per 100 s) are not daemon threads; the
    # interpreter would wait for the last one before exiting. The run is over, so they can go.
    import threading

    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer):
            thread.cancel()


# The spread of a file's write cost (rootparams.writenoise): the study writes each file once, so a few of its own
# files are written again, each several times, with its writer, events, seed and threads, and scheduled like its
# own writes (no host lock: the study's files are not written under it either), so that their CPU time scatters
# as the study's writes do. The decision (rule decision_tables) draws every file's write cost with it; without it
# (measurement.primitives off, or only users' files) the decision borrows the reads' CPU noise and says so.
WRITE_NOISE_FILES = (
    writenoise.files_to_write(STUDY, POINTS)
    if STUDY["measurement"]["primitives"]
    else []
)


def write_noise_table():
    # The input of the decision's tables (decision_tables): the table where the study measures it, else none.
    return [paths.WRITE_NOISE_TABLE] if WRITE_NOISE_FILES else []


def write_noise_sources(get):
    # Per format written again, its content file or recipe as its own writes get them (content_input,
    # recipe_input), None where it has none.
    formats = sorted({f.format for f in WRITE_NOISE_FILES})
    return {fmt: get(SimpleNamespace(format=fmt)) or None for fmt in formats}
