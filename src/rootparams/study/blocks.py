"""How a study's timed reads are cut into measuring jobs: blocks and passes.

A *block* is the points of one format, measured by one job in interleaved rounds (rootparams.measure.measure). With
``measurement.passes`` P > 1, each format's repetitions are split into P *passes*, each a block job of its own,
and pass k + 1 of any format starts only after pass k of every format: a point's repetitions are then taken at P
moments of the study, with the other formats' reads between them. The spread of a point's passes is the host's
drift over the study, which no single job's rounds can show; the rates' intervals hold it
(intervals.HostVariance, docs/statistics.md, "Intervals that hold on a repeat").

Block names: the format itself with one pass (the instrument before passes, whose records a study keeps), else
``<format>.pass<k>``. The repetitions of a point are split into P contiguous ranges, the first ones one longer
where they do not divide evenly. The warm reads (measurement.warm_reads) are taken once, by the last pass, and so
are the sequential rounds (measurement.target_half_width), which add repetitions beyond the planned ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

_PASS_SEPARATOR = ".pass"


def passes(measurement: Mapping[str, Any], repetitions: int) -> int:
    """The passes a study's blocks are measured in: measurement.passes, never more than the repetitions (each
    pass needs one), and one for an adaptive plan (its survey and its full rounds are one job's decision)."""
    if measurement.get("adaptive"):
        return 1
    return max(1, min(int(measurement.get("passes", 1)), max(repetitions, 1)))


def _block_name(fmt: str, pass_number: int, total: int) -> str:
    """The block of ``fmt``'s pass ``pass_number`` (1-based) of ``total``."""
    return fmt if total == 1 else f"{fmt}{_PASS_SEPARATOR}{pass_number}"


def _block_names(formats: Iterable[str], total: int) -> list[str]:
    """Every block of the study, pass by pass: the order their jobs run in."""
    formats = list(formats)
    return [_block_name(fmt, k, total) for k in range(1, total + 1) for fmt in formats]


def _split_block(block: str) -> tuple[str, int]:
    """(format, pass number) of a block name."""
    fmt, separator, number = block.rpartition(_PASS_SEPARATOR)
    if separator and number.isdigit():
        return fmt, int(number)
    return block, 1


def format_of(block: str) -> str:
    return _split_block(block)[0]


def _pass_repetitions(repetitions: int, total: int, pass_number: int) -> list[int]:
    """The repetition numbers of pass ``pass_number`` (1-based) of ``total``: contiguous ranges, the first
    passes one longer where ``total`` does not divide ``repetitions``."""
    size, extra = divmod(repetitions, total)
    start = (pass_number - 1) * size + min(pass_number - 1, extra)
    return list(range(start, start + size + (1 if pass_number <= extra else 0)))


def is_last_pass(block: str, total: int) -> bool:
    return _split_block(block)[1] == total


def earlier_blocks(block: str, formats: Sequence[str], total: int) -> list[str]:
    """The blocks a block waits for: every format's previous pass (none for the first)."""
    _, number = _split_block(block)
    return [_block_name(fmt, number - 1, total) for fmt in formats] if number > 1 else []


def measured_formats(study: Mapping[str, Any], points: Iterable[Any]) -> list[str]:
    """The study's formats that have points to measure, in the study's order: each has blocks of its own."""
    formats = {p.file.format for p in points}
    return [f for f in study["formats"] if f in formats]


def study_blocks(study: Mapping[str, Any], points: Sequence[Any], total: int) -> dict[str, list[Any]]:
    """Every block of the study (in the order their jobs run) with its points: a format's, in every pass."""
    return {
        block: [p for p in points if p.file.format == format_of(block)]
        for block in _block_names(measured_formats(study, points), total)
    }


def block_repetitions(repetitions: int, block: str, total: int) -> list[int]:
    """The repetition numbers a block (a pass) takes of each of its points: all of them with one pass."""
    return _pass_repetitions(repetitions, total, _split_block(block)[1])


def block_pattern(formats: Iterable[str]) -> str:
    """The block wildcard: a format, with or without a pass number."""
    names = "|".join(re.escape(f) for f in formats) or "(?!)"
    return rf"(?:{names})(?:{re.escape(_PASS_SEPARATOR)}\d+)?"


def level_pairs(points: Sequence[Any]) -> list[tuple[int, int]]:
    """The pairs of a block's points (by index) whose paired ratio a verdict of the study judges at the margin
    of the physics checks: the compression scan's levels of one algorithm that must read alike
    (instrument_checks.level_groups: LZ4's fast mode apart from its high-compression mode), at the same read. What the
    sequential rounds (measurement.target_half_width) measure until resolved, beside every point's own rate."""
    groups: dict[tuple, list[tuple[int, int]]] = {}
    for i, p in enumerate(points):
        if "compression" not in getattr(p, "scans", ()):
            continue
        algorithm, level = p.file.algorithm, int(p.file.level)
        if algorithm == "none":
            continue
        mode = (level <= 3) if algorithm == "lz4" else None
        others = {k: v for k, v in asdict(p.file).items() if k not in ("algorithm", "level")}
        key = (algorithm, mode, p.read.id, tuple(sorted((k, str(v)) for k, v in others.items())))
        groups.setdefault(key, []).append((level, i))
    pairs = []
    for members in groups.values():
        members.sort()
        pairs += [(a[1], b[1]) for j, a in enumerate(members) for b in members[j + 1 :]]
    return pairs
