"""The files a study's points read and are made from, as paths (rootparams.tools.paths) chosen by the kind of format.

A built-in format or a clone of a user's file is written by our writer: from the format's content file (a
built-in, non-flat format's events, generated once) or its calibrated recipe (a clone). A source, a user's file
(docs/formats.md, "Your own files"), is read as it is or rewritten by ROOT, from the file itself or its tiled copy
(formats.<name>.tile > 1). Every function takes the loaded study configuration (rootparams.study.config) and names;
none writes or reads a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rootparams.study.config import source_of
from rootparams.study.formats import is_flat_format
from rootparams.study.grid import ASIS_ID, format_kind
from rootparams.tools import paths


def _is_source(study: Mapping[str, Any], fmt: str) -> bool:
    return format_kind(study, fmt) == "source"


def tile_copies(study: Mapping[str, Any], fmt: str) -> int:
    """How many times a format's file is repeated (formats.<name>.tile; 1: not tiled)."""
    return int(study["formats"][fmt].get("tile", 1))


def events_written(study: Mapping[str, Any], fmt: str) -> int:
    """The events each of a format's files is written with (formats.<name>.written)."""
    return study["formats"][fmt]["written"]


def original_source_file(study: Mapping[str, Any], fmt: str) -> str:
    """The user's file a source or clone format is made from, as the configuration names it."""
    return source_of(study, fmt).path


def source_file(study: Mapping[str, Any], fmt: str) -> str:
    """What a source's points are made from: the user's file, or its tiled copy (formats.<name>.tile > 1). A
    clone's recipe is always calibrated on the file itself."""
    if _is_source(study, fmt) and tile_copies(study, fmt) > 1:
        return paths.tiled_source_file(study["data_dir"], fmt, tile_copies(study, fmt))
    return original_source_file(study, fmt)


def tile_record(study: Mapping[str, Any], fmt: str) -> str | None:
    """A tiled source's record (copies, the original, the checks), which every point of the format carries; None
    for any other format."""
    if _is_source(study, fmt) and tile_copies(study, fmt) > 1:
        return paths.tile_record(fmt, tile_copies(study, fmt))
    return None


def point_root_file(study: Mapping[str, Any], fmt: str, file_id: str) -> str:
    """The file a point reads: a source as it is is the user's file itself (never copied) or its tiled copy; any
    other file is the study's own, in its data_dir."""
    if file_id == ASIS_ID:
        return source_file(study, fmt)
    return paths.root_file(study["data_dir"], fmt, file_id)


def tree_name(study: Mapping[str, Any], fmt: str) -> str | None:
    """The tree or RNTuple a source's points read; None: the reader's default, CollectionTree (our writer's), or
    for a decompression sample the one inspect finds."""
    return source_of(study, fmt).tree if _is_source(study, fmt) else None


def recipe_file(study: Mapping[str, Any], fmt: str) -> str | None:
    """A clone's calibrated recipe; None for a built-in format (its recipe comes from rootparams.study.formats) or a
    source."""
    return paths.recipe_file(fmt) if format_kind(study, fmt) == "clone" else None


def content_file(study: Mapping[str, Any], fmt: str) -> str | None:
    """The content file a format's files are written from, or None. A built-in format's events are generated
    once and read back for every file; a clone's files are each generated from the seed (the same events: the
    writer is deterministic), as its recipe may hold flat columns and scalars, which the writer cannot read back
    from a content file. Generating costs less than ROOT's writing of the same events
    (benchmarks/clone_generation.py)."""
    if format_kind(study, fmt) == "clone" or is_flat_format(fmt):
        return None
    return paths.content_file(study["data_dir"], fmt)


def warmup_file(study: Mapping[str, Any], fmt: str) -> str:
    """The file read after a drop_caches (measurement.eviction: system) so that the reader's code pages are back:
    the format's default file point written with few events; a source's is the source itself (evicted and
    verified cold after it)."""
    if _is_source(study, fmt):
        return original_source_file(study, fmt)
    return paths.warmup_file(study["data_dir"], fmt)


def unzip_sample(study: Mapping[str, Any], fmt: str) -> str:
    """The file the decompression per content kind is measured on: a user's file as it is, any other format's
    default file, written again."""
    if _is_source(study, fmt):
        return original_source_file(study, fmt)
    return paths.unzip_sample_file(study["data_dir"], fmt)


def file_selections(points: Iterable[Any], fmt: str, file_id: str | None = None) -> list[str]:
    """The branch selections the study reads a format's files with (only file ``file_id``'s, when given), sorted:
    what a rewrite or a tiled copy is checked to hold before any timed read."""
    return sorted(
        {
            p.read.branches
            for p in points
            if p.file.format == fmt and (file_id is None or p.file.id == file_id)
        }
    )
