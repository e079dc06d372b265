"""Disk footprint of a study, estimated before any job starts (the preflight check).

The estimate needs no ROOT: bytes per event at ZLIB-5 per format (the calibrated generators, docs/formats.md),
times a size factor per algorithm and level measured on the same generators (tests/configs/tiny_full.yaml
and the default study on a 2-core virtual machine), times the events written, plus the per-format content file
(LZ4-1, kept until the last file of the format is written) and the small warm-up files. A 20 % margin covers
AutoFlush and split-level effects (a few percent) and the estimate's own error.

Peak use is the sum over all files when files are kept (``keep_files: true``), and also otherwise: Snakemake
may write every file before it reads the first, because the timed reads wait for all cores.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rootparams.errors import UserError
from rootparams.study.config import left_out_notes, source_of
from rootparams.study.formats import EVENTSIZE_PREFIX, event_size_bytes
from rootparams.study.grid import file_points, format_kind
from rootparams.study.scans import notes as scan_notes

# Bytes per event at ZLIB-5 (docs/formats.md: calibrated against the paper's sizes).
_BYTES_PER_EVENT_ZLIB5 = {
    "xaod": 1.00e6,
    "topq1": 191e3,
    "susy5": 65e3,
    "truth3": 5.6e3,
    "nanoaod": 1.9e3,
    "susy5_skim": 9e3,
    "xaod_long": 1.00e6,  # the xaod recipe, more events (formats.SAME_RECIPE)
}
# The event-size formats' full-precision floats barely compress: this share of their uncompressed bytes.
_EVENTSIZE_ZLIB5_SHARE = 0.92
# File size relative to ZLIB-5, measured on these generators (xAOD and TRUTH3 agree within ~10 %); one factor
# per algorithm of vocabulary.ALGORITHMS (tests/test_vocabulary.py checks that none is missing).
_SIZE_FACTOR = {"none": 2.6, "lz4": 1.35, "zlib": 1.05, "lzma": 0.85, "zstd": 0.95}
_LEVEL_SLOPE = {"zlib": -0.012, "lzma": -0.01, "lz4": -0.02, "zstd": -0.015}  # per level above 1, roughly
_MARGIN = 1.2
WARMUP_EVENTS = 10


class DiskSpaceError(UserError):
    """The study's files would not fit in data_dir."""


@dataclass(frozen=True)
class Footprint:
    files: int
    peak_bytes: float
    free_bytes: int
    data_dir: str

    @property
    def fits(self) -> bool:
        return self.peak_bytes <= self.free_bytes


def _factor(algorithm: str, level: int) -> float:
    factor = _SIZE_FACTOR[algorithm]
    if algorithm in _LEVEL_SLOPE:
        factor *= 1 + _LEVEL_SLOPE[algorithm] * (level - 1)
    return factor


def file_bytes(
    fmt: str, algorithm: str, level: int, events: int, per_event_zlib5: float | None = None
) -> float:
    """``per_event_zlib5``: the format's bytes per event at ZLIB-5 where it is not a built-in format."""
    return (per_event_zlib5 or _BYTES_PER_EVENT_ZLIB5[fmt]) * _factor(algorithm, level) * events


def _bytes_per_event_zlib5(config: dict[str, Any], fmt: str) -> float:
    """A built-in format's calibrated size; a format made from a file: the file's size per entry, taken from
    its own compression to ZLIB-5 with the same factors."""
    if format_kind(config, fmt) == "recipe":
        if fmt.startswith(EVENTSIZE_PREFIX):
            return _EVENTSIZE_ZLIB5_SHARE * event_size_bytes(fmt)
        return _BYTES_PER_EVENT_ZLIB5[fmt]
    src = source_of(config, fmt)
    return Path(src.path).stat().st_size / src.entries / _factor(*src.algorithm_level)


def estimate(config: dict[str, Any], points) -> float:
    """Peak bytes in data_dir for the study's points (grid.Point list), with the margin. A source as it is
    takes none (it is the user's file); its rewrites and a clone's files count like generated ones."""
    per_event = {fmt: _bytes_per_event_zlib5(config, fmt) for fmt in config["formats"]}
    total = 0.0
    for f in file_points(points):
        if f.origin != "asis":
            total += file_bytes(
                f.format, f.algorithm, f.level, config["formats"][f.format]["written"], per_event[f.format]
            )
    for fmt, events in config["formats"].items():
        if format_kind(config, fmt) != "source":
            total += file_bytes(fmt, "lz4", 1, events["written"], per_event[fmt])  # the content file
            total += file_bytes(fmt, "zlib", 5, WARMUP_EVENTS, per_event[fmt])
    return total * _MARGIN


def _existing_bytes(data_dir: str | Path) -> int:
    """Bytes already in data_dir (files of an earlier run count against the estimate, not the free space)."""
    root = Path(data_dir)
    return sum(p.stat().st_size for p in root.rglob("*.root") if p.is_file()) if root.exists() else 0


def check(config: dict[str, Any], points) -> Footprint:
    """Raise DiskSpaceError naming both numbers if the study's files cannot fit in data_dir."""
    data_dir = Path(config["data_dir"])
    probe = data_dir
    while not probe.exists():  # the nearest existing parent holds the filesystem data_dir will be on
        probe = probe.parent
    free = shutil.disk_usage(probe).free + _existing_bytes(data_dir)
    fp = Footprint(len(file_points(points)), estimate(config, points), free, str(data_dir))
    if not fp.fits:
        raise DiskSpaceError(
            f"data_dir {data_dir}: the study writes {fp.files} ROOT file(s), estimated at {fp.peak_bytes / 1e9:.1f} GB "
            f"at peak (with a {_MARGIN - 1:.0%} margin), but only {free / 1e9:.1f} GB are free there. Use a "
            "data_dir on a larger disk (--config data_dir=/path), fewer events or points, or remove old files."
        )
    return fp


def scheduling_notes(config: dict[str, Any], points) -> list[str]:
    """What the workflow says once when it schedules a study (also on a dry run, so that e.g. config/paper.yaml
    can be sized anywhere): the scans that leave a user's file out, the scans' own notes, and the number of
    points with the estimated peak disk use of their files in data_dir."""
    return [
        *left_out_notes(config),
        *scan_notes(config["scans"]),
        f"{len(points)} points; the study's ROOT files need about {estimate(config, points) / 1e9:.1f} GB at "
        f"peak in {config['data_dir']}",
    ]
