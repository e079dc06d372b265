"""What a study's workflow produces, and the patterns its names follow.

The final outputs are every table, figure and record a finished study holds (the workflow's default target);
which of them a study has depends on its configuration: its formats, whether it measures the primitives
(measurement.primitives) and the warm reads (measurement.warm_reads) the model needs, whether its plan is adaptive,
and whether it reads on remote storage. The wildcard patterns say which names a rule's wildcards can take, so that
each output path has exactly one rule that makes it. Every function takes the loaded study configuration
(rootparams.study.config) and, where it needs them, its grid points (rootparams.study.grid).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rootparams.measure import remote_primitives, writenoise
from rootparams.measure.unzipkinds import study_settings
from rootparams.present.figures import DECISION_FIGURES, FIGURE_NAMES, pareto_figure_name
from rootparams.stats.drift import DRIFT_FIGURE
from rootparams.study import blocks
from rootparams.study.formats import is_longer_read
from rootparams.study.grid import (
    ASIS_ID,
    FILE_ID_PATTERN,
    READ_ID_PATTERN,
    REWRITE_ID_PATTERN,
    FilePoint,
    default_file_point,
    format_kind,
)
from rootparams.tools import paths
from rootparams.vocabulary import TTREE

# The model's figures (workflow/rules/model.smk): against the measured rates, the parts per format, other media.
MODEL_FIGURE = "fig33_model_vs_measured"
MEDIA_FIGURE = "fig35_predicted_media"

# "(?!)" matches nothing: the pattern of an empty set of names.
_NOTHING = "(?!)"


def parts_figure(fmt: str) -> str:
    """The model's figure of a format's predicted parts."""
    return f"fig34_model_parts_{fmt}"


def _decided_formats(study: Mapping[str, Any]) -> list[str]:
    """The formats with a Table 1, a Pareto front and a cost decision of their own, in the study's order: every
    format of the study but a longer read of another format's recipe (xaod_long, the cache scans' xAOD:
    formats.is_longer_read), whose base format's are the recipe's."""
    return [f for f in study["formats"] if not is_longer_read(f)]


def formats_pattern(study: Mapping[str, Any], *kinds: str) -> str:
    """The study's formats made in one of these ways (grid.format_kind: "recipe", "clone", "source"), as a
    wildcard pattern; one that matches nothing for a study without such formats."""
    names = [f for f in study["formats"] if format_kind(study, f) in kinds]
    return "|".join(names) or _NOTHING


def generated_formats_pattern(study: Mapping[str, Any]) -> str:
    """The formats whose files the generate rules write: built-in formats and clones (recipe file ids). A
    source's rewrites are rewrite_file's; a source as it is is no rule's output (catalogue_source describes it)."""
    return formats_pattern(study, "recipe", "clone")


def sentinel_patterns(sentinel: Any | None) -> tuple[str, str]:
    """(format, file id) of the drift sentinel's file as wildcard patterns; ones that match nothing when the
    study has no sentinel, or its sentinel reads a user's file as it is (which no rule writes)."""
    if sentinel is None or sentinel.file.id == ASIS_ID:
        return _NOTHING, _NOTHING
    return re.escape(sentinel.file.format), re.escape(sentinel.file.id)


def wildcard_constraints(study: Mapping[str, Any]) -> dict[str, str]:
    """The patterns of the workflow's wildcards: a format, a block (a format, with or without its pass), a file
    id (written from a recipe, rewritten, or a source as it is), a read id, a repetition, a figure."""
    return {
        "format": "|".join(study["formats"]),
        "block": blocks.block_pattern(study["formats"]),
        "file_id": "|".join((FILE_ID_PATTERN, REWRITE_ID_PATTERN, ASIS_ID)),
        "read_id": READ_ID_PATTERN,
        "rep": r"\d+",
        "figure": "|".join(FIGURE_NAMES),
    }


def unzip_kind_settings(study: Mapping[str, Any], points: Sequence[Any]) -> dict[str, list[int]]:
    """What the decompression per content kind measures (rule unzip_kinds): per format whose default file is a
    TTree, the compressing settings of the study's TTree files of that format, as ROOT's numbers; not for a longer
    read of another format's recipe (xaod_long), whose content kinds are its base format's
    (formats.is_longer_read): its sample would be the same recipe again, ~0.93 GB in the default study."""
    return {
        fmt: settings
        for fmt, settings in study_settings(points).items()
        if default_file_point(study, fmt).container == TTREE and not is_longer_read(fmt)
    }


def write_noise_files(study: Mapping[str, Any], points: Sequence[Any]) -> list[FilePoint]:
    """The study's files written again to measure the spread of a write's cost (rootparams.measure.writenoise), where the
    study measures its primitives; none without them, or with only users' files, and the decision then borrows
    the reads' CPU noise and says so."""
    return writenoise.files_to_write(study, points) if study["measurement"]["primitives"] else []


def remote_primitive_tables(study: Mapping[str, Any]) -> list[str]:
    """The remote profiles' round trips and bandwidth, where the study measures primitives and reads on any
    remote profile (the model predicts their points from them); none for a study on local storage only."""
    if study["measurement"]["primitives"] and remote_primitives.profiles_to_measure(study):
        return [paths.REMOTE_PRIMITIVES_TABLE]
    return []


def _figures(*names: str) -> list[str]:
    return [paths.figure(name, ext) for name in names for ext in ("png", "pdf")]


def _model_outputs(study: Mapping[str, Any]) -> list[str]:
    # The model needs both the primitives and the warm reads. A replay needs every point measured; a live
    # adaptive plan has its own table.
    plan = paths.ADAPTIVE_PLAN_TABLE if study["measurement"]["adaptive"] else paths.ADAPTIVE_REPLAY_TABLE
    return [
        paths.MODEL_POINTS_TABLE,
        paths.MODEL_ERRORS_TABLE,
        paths.MODEL_MEDIA_TABLE,
        f"{paths.NOTE_TESTBED_TABLE}.csv",
        f"{paths.NOTE_TESTBED_TABLE}.md",
        *(f"{plan}.{ext}" for ext in ("csv", "md")),
        *([paths.PREDICTED_CHOICE_TABLE] if study["cost"]["predicted_media"] else []),
        *_figures(MODEL_FIGURE, MEDIA_FIGURE, *(parts_figure(fmt) for fmt in study["formats"])),
    ]


def final_outputs(study: Mapping[str, Any], points: Sequence[Any]) -> list[str]:
    """Every output of a finished study, in a fixed order: its records and tables, Table 1 and the Pareto
    figure of each format with a decision of its own (decided_formats), the paper's figures, the cost tables and
    recommendations; where the study measures them, the storage, remote, decompression and CPU primitives; and
    with both primitives and warm reads, the model's tables and figures."""
    measurement = study["measurement"]
    primitives, warm_reads = measurement["primitives"], measurement["warm_reads"]
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
        *(paths.table1(fmt, ext) for fmt in _decided_formats(study) for ext in ("csv", "md", "tex")),
        *_figures(*FIGURE_NAMES),
        *_figures(DRIFT_FIGURE),
        paths.PARETO_TABLE,
        paths.COST_TABLE,
        paths.COST_CHOICE_TABLE,
        paths.COST_CROSSOVERS_TABLE,
        paths.COST_RANKING_TABLE,
        *_figures(*(pareto_figure_name(fmt) for fmt in _decided_formats(study))),
        *_figures(DECISION_FIGURES[1]),
        paths.RECOMMENDATIONS,
        *([paths.STORAGE_PRIMITIVES_TABLE] if primitives else []),
        *remote_primitive_tables(study),
        *([paths.UNZIP_KINDS_TABLE] if primitives and unzip_kind_settings(study, points) else []),
        *([paths.CPU_PRIMITIVES_TABLE, paths.CPU_PRIMITIVES_SUMMARY] if warm_reads else []),
        *(_model_outputs(study) if warm_reads and primitives else []),
    ]
