# The study, its points and blocks, and the rules' input functions. This file only wires the package to
# Snakemake: what a block measures (rootparams.decide.blockplan), where a point's files are (rootparams.study.studyfiles),
# the final outputs and the wildcard patterns (rootparams.present.outputs) are decided there, with their tests.
import sys
from types import SimpleNamespace
from snakemake.exceptions import WorkflowError

from rootparams.decide import blockplan
from rootparams.measure import writenoise
from rootparams.present import outputs
from rootparams.study import footprint, studyfiles
from rootparams.tools import paths
from rootparams.tools.build import CXX_SOURCES, source_dir
from rootparams.study.config import format_file_defaults, load_study_config, source_of
from rootparams.study.config import without_throttling
from rootparams.stats.drift import DRIFT_FIGURE
from rootparams.errors import UserError
from rootparams.present.figures import DECISION_FIGURES, pareto_figure_name
from rootparams.study.grid import (
    ASIS_ID,
    FILE_ID_PATTERN,
    REWRITE_ID_PATTERN,
    expand_points,
)
from rootparams.study.grid import content_file_point, default_file_point, file_points
from rootparams.study.grid import points_by_id, sentinel_point
from rootparams.present.outputs import MEDIA_FIGURE, MODEL_FIGURE, parts_figure
from rootparams.measure.measure import reads_measurement
from rootparams.measure.preflight import check_tools, rules_to_run
from rootparams.present.report import print_end_of_run
from rootparams.host.storage import throttling_unavailable_reason

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
# The measurement settings of the reads (blocks, tables, figures), without those that size other jobs.
READS_MEASUREMENT = reads_measurement(STUDY["measurement"])
# How much the storage primitives measure (rule storage_primitives; the defaults are rootparams.measure.storage_primitives's).
STORAGE_PRIMITIVES = STUDY["measurement"]["storage_primitives"]
DATA_DIR = STUDY["data_dir"]
POINTS = expand_points(STUDY)

# Preflight, part 1: the points and their estimated peak disk use, said once in the scheduling process. Part 2,
# the check against the free space and of the programs the run needs, runs in onstart (Snakefile): before the
# first job, and not on a dry run.
if workflow.is_main_process:
    for note in footprint.scheduling_notes(STUDY, POINTS):
        print(f"rootparams: {note}", file=sys.stderr)
# The drift sentinel: one reference point read again through every block (None: measurement.sentinel is off).
SENTINEL = sentinel_point(STUDY)
FILE_POINTS, _ = points_by_id([*POINTS, *([SENTINEL] if SENTINEL else [])])
SENTINEL_FORMAT, SENTINEL_FILE_ID = outputs.sentinel_patterns(SENTINEL)
# The timed reads are made in blocks, one per format and pass (rootparams.study.blocks).
STUDY_BLOCKS = blockplan.StudyBlocks(STUDY, POINTS, SENTINEL)
WARMUP_EVENTS = 10


# The names each wildcard can take (rootparams.present.outputs): every output path has one rule that makes it.
PATTERNS = outputs.wildcard_constraints(STUDY)


wildcard_constraints:
    format=PATTERNS["format"],
    block=PATTERNS["block"],
    file_id=PATTERNS["file_id"],
    read_id=PATTERNS["read_id"],
    rep=PATTERNS["rep"],
    figure=PATTERNS["figure"],


# Who makes a file: the generate rules (built-in formats and clones), rewrite_file (a source's rewrites).
GENERATED_FORMATS = outputs.generated_formats_pattern(STUDY)
SOURCE_FORMATS = outputs.formats_pattern(STUDY, "source")
UNZIP_KIND_SETTINGS = outputs.unzip_kind_settings(STUDY, POINTS)
# Its files and trees, in the order of UNZIP_KIND_SETTINGS (the rule's params.formats).
UNZIP_KIND_SAMPLES = [studyfiles.unzip_sample(STUDY, f) for f in UNZIP_KIND_SETTINGS]
UNZIP_KIND_TREES = {f: studyfiles.tree_name(STUDY, f) for f in UNZIP_KIND_SETTINGS}
WRITE_NOISE_FILES = outputs.write_noise_files(STUDY, POINTS)


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


def of_format(get, absent=None):
    # A rule's input function or parameter of the format wildcard from a package function of (study, format),
    # under its name, which Snakemake's errors show. ``absent``: what the function's None becomes ([]: no input).
    def of_wildcards(wildcards):
        value = get(STUDY, wildcards.format)
        return absent if value is None else value

    of_wildcards.__name__ = of_wildcards.__qualname__ = get.__name__
    return of_wildcards


original_source_file = of_format(studyfiles.original_source_file)
source_file = of_format(studyfiles.source_file)
tile_record_input = of_format(studyfiles.tile_record, absent=[])
tree_name = of_format(studyfiles.tree_name)
recipe_input = of_format(studyfiles.recipe_file, absent=[])
content_input = of_format(studyfiles.content_file, absent=[])
source_settings = of_format(format_file_defaults)
warmup_file_point = of_format(default_file_point)
events_written = of_format(studyfiles.events_written)


def file_point(wildcards):
    return FILE_POINTS[(wildcards.format, wildcards.file_id)]


def file_selections(wildcards):
    return studyfiles.file_selections(POINTS, wildcards.format, wildcards.file_id)


def content_point(wildcards):
    return content_file_point(wildcards.format)


def model_remote_primitives(wildcards):
    # One path (the script reads it as one table) or none.
    return (outputs.remote_primitive_tables(STUDY) or [[]])[0]


# What each block measures (rootparams.decide.blockplan), under the names the rule measure_block gives its inputs and
# parameters; Snakemake's errors show them.
def of_block(get, name):
    def of_wildcards(wildcards):
        return get(wildcards.block)

    of_wildcards.__name__ = of_wildcards.__qualname__ = name
    return of_wildcards


block_root_files = of_block(STUDY_BLOCKS.root_files, "block_root_files")
block_catalogues = of_block(STUDY_BLOCKS.catalogues, "block_catalogues")
block_warmup_files = of_block(STUDY_BLOCKS.warmup_files, "block_warmup_files")
earlier_blocks = of_block(STUDY_BLOCKS.earlier, "earlier_blocks")
block_plan = of_block(STUDY_BLOCKS.plan, "block_plan")
sentinel_plan = of_block(STUDY_BLOCKS.sentinel_plan, "sentinel_plan")
block_repetitions = of_block(STUDY_BLOCKS.repetitions, "block_repetitions")
block_pairs = of_block(STUDY_BLOCKS.pairs, "block_pairs")
block_measurement = of_block(STUDY_BLOCKS.measurement, "block_measurement")
block_storage_primitives = of_block(
    STUDY_BLOCKS.storage_primitives, "block_storage_primitives"
)


def catalogue_entries():
    return [paths.catalogue_entry(f.format, f.id) for f in file_points(POINTS)]


def block_records():
    return STUDY_BLOCKS.records()


def final_outputs():
    return outputs.final_outputs(STUDY, POINTS)


def write_noise_table():
    # The input of the decision's tables (decision_tables): the table where the study measures it, else none.
    return [paths.WRITE_NOISE_TABLE] if WRITE_NOISE_FILES else []


def write_noise_sources(get):
    # Per format written again, its content file or recipe as its own writes get them (content_input,
    # recipe_input), None where it has none.
    formats = sorted({f.format for f in WRITE_NOISE_FILES})
    return {fmt: get(SimpleNamespace(format=fmt)) or None for fmt in formats}


def unless_kept(path):
    # Generated files are removed once all their reads are done, unless keep_files: true.
    return path if STUDY["keep_files"] else temp(path)


def print_noise_summary():
    # At the end of a successful run: the study's noise, and the points not measured.
    print_end_of_run(paths.SUMMARY_TABLE, paths.RUN_SUMMARY)


def preflight():
    # Before any job has started: stops, naming both numbers, if the files cannot fit (DiskSpaceError), and,
    # naming them all, if a program the jobs to run need is not installed (g++, fio, 7-Zip, the monitor, the
    # remote profiles' servers; rootparams.measure.preflight). On a cluster the jobs' nodes may have what this host
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
