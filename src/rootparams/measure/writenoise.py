"""How much a file's write cost scatters when the same file is written again: a primitive of the study.

The decision prices ROOT's part of writing a file by its CPU time (files.csv ``root_write_cpu_seconds``), and the
study writes each file once: one measurement, with no spread of its own. To know how far two settings' write costs
may differ by chance, a few of the study's own files are written again, several times each, with the study's
writer, events, seed and threads, scheduled like any other file write (so under the same sharing of the cores as
the study's writes): ``results/primitives/write_noise.csv``, one row per write.

The spread: per file, the logarithm of the CPU time per event; pooled over the files, the within-file standard
deviation (the files' own means removed, so that files of different cost pool) with its degrees of freedom
Σ (writes − 1). On the log scale it is the relative spread σ/mean of one write, what the decision's bootstrap
draws each file's write cost with (rootparams.decide.decision). Its 95 % interval is the chi-square interval of a
standard deviation: s · sqrt(df / χ²_{0.975, df}) to s · sqrt(df / χ²_{0.025, df}), which assumes the logs are
normal; with 3 files written 3 times (df = 6) it spans about 0.64 s to 2.2 s.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rootparams.measure.generate import generate_file
from rootparams.stats.intervals import scipy_stats
from rootparams.study.formats import SAME_RECIPE
from rootparams.study.grid import FilePoint, default_file_point, format_kind

# How many of the study's files are written again, and how often each: 3 x 3 writes give 6 degrees of freedom
# for the spread, about three minutes on the default study's three default files (each written and read back in
# 15-25 s on 2 cores).
_FILES = 3
WRITES = 3
CONFIDENCE = 0.95
COLUMNS = [
    "format",
    "file_id",
    "write",
    "events",
    "root_write_cpu_seconds",
    "root_write_seconds",
    "write_threads",
    "cpu_us_per_event",
    "write_start_time",
]
# Where the decision's write noise came from (its tables' ``write_noise_source``); a noise passed in by hand is
# "given".
MEASURED, BORROWED, NONE = "measured", "borrowed", "none"


@dataclass(frozen=True)
class WriteNoise:
    """The relative 1σ spread of one write's CPU time (``sigma``) with its 95 % interval, the writes and files it
    comes from and its degrees of freedom, and where it came from (``source``: MEASURED from files written again,
    BORROWED from the timed loops' CPU time, NONE: writes taken as exact)."""

    sigma: float
    low: float = math.nan
    high: float = math.nan
    writes: int = 0
    files: int = 0
    df: int = 0
    source: str = NONE

    def describe(self) -> str:
        """For people, e.g. "σ/mean 2.1 % (95 % CI 1.4-4.6 %), measured on 9 writes of the study's own files, each
        file written several times"."""
        if self.source == MEASURED:
            return (
                f"σ/mean {100 * self.sigma:.1f} % (95 % CI {100 * self.low:.1f}-{100 * self.high:.1f} %), measured "
                f"on {self.writes} writes of the study's own files, each file written several times"
            )
        if self.source == BORROWED:
            return (
                f"σ/mean {100 * self.sigma:.1f} %, borrowed from the reads: the median spread of the timed loops' "
                f"CPU time over {self.writes} points (no file was written twice: measurement.primitives off, or "
                "no file of the study's own writer)"
            )
        if self.sigma > 0:
            return f"σ/mean {100 * self.sigma:.1f} %, as given"
        return "none known: the writes taken as exact"


def files_to_write(study: Mapping[str, Any], points: Sequence[Any]) -> list[FilePoint]:
    """The study's files written again (at most FILES): the default file of each format the study writes itself
    (not a user's file, which the study rewrites rather than writes), in the study's order, a longer read of
    another format's recipe (xaod_long: formats.SAME_RECIPE) after the others, then the study's other written files
    in their order. Only files the study itself writes, so that each write is one the decision prices."""
    written = {
        p.file for p in points if format_kind(study, p.file.format) != "source" and p.file.origin == "recipe"
    }
    formats = sorted(
        study["formats"], key=lambda fmt: fmt in SAME_RECIPE
    )  # stable: the study's order otherwise
    defaults = [default_file_point(study, fmt) for fmt in formats]
    ordered = [f for f in defaults if f in written] + sorted(written - set(defaults))
    return ordered[:_FILES]


def measure(
    files: Sequence[FilePoint],
    *,
    writer: str,
    reader: str,
    events: Mapping[str, int],
    seed: int,
    scratch: str | Path,
    contents: Mapping[str, str | None],
    recipes: Mapping[str, str | None],
    threads: int,
    writes: int = WRITES,
    say: Callable[[str], None] = print,
) -> pd.DataFrame:
    """Write each of ``files`` ``writes`` times into ``scratch`` (each file removed once written and read back), as
    the study writes it (rootparams.measure.generate.generate_file: ``events`` of its format, ``seed``, the format's
    content file and recipe, ``threads``), and record ROOT's CPU time of each write. The files take turns (one
    write of each, then the next round), so that a slow spell of the host spreads over the files instead of
    moving one file's writes together."""
    scratch = Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    rows = []
    for write in range(writes):
        for point in files:
            output = scratch / f"{point.format}-{point.id}-write{write}.root"
            start = time.time()
            try:
                entry = generate_file(
                    point,
                    events=events[point.format],
                    seed=seed,
                    writer=writer,
                    reader=reader,
                    output=str(output),
                    catalogue=None,
                    content=contents.get(point.format),
                    recipe=recipes.get(point.format),
                    threads=threads,
                    say=say,
                )
            finally:
                output.unlink(missing_ok=True)
            cpu = entry["root_write_cpu_seconds"]
            rows.append(
                {
                    "format": point.format,
                    "file_id": point.id,
                    "write": write,
                    "events": entry["events"],
                    "root_write_cpu_seconds": cpu,
                    "root_write_seconds": entry["root_write_seconds"],
                    "write_threads": entry["write_threads"],
                    "cpu_us_per_event": 1e6 * cpu / entry["events"] if cpu is not None else None,
                    "write_start_time": start,
                }
            )
            said = f"{cpu:.3f} s" if cpu is not None else "not recorded"
            say(f"write noise: {point.format} {point.id}, write {write + 1} of {writes}: ROOT's CPU {said}")
    table = pd.DataFrame(rows, columns=COLUMNS)
    say(f"write noise: {relative_spread(table).describe()}")
    return table


def relative_spread(table: pd.DataFrame) -> WriteNoise:
    """The pooled within-file spread of log(CPU time per event) of ``table``'s writes (the docstring), with its
    95 % chi-square interval. NONE (sigma NaN) where no file has two writes with a CPU time."""
    cpu = pd.to_numeric(table.get("root_write_cpu_seconds"), errors="coerce")
    events = pd.to_numeric(table.get("events"), errors="coerce")
    logs = np.log((cpu / events).where((cpu > 0) & (events > 0)))
    usable = table.assign(log_cpu=logs).dropna(subset=["log_cpu"])
    groups = [g["log_cpu"].to_numpy() for _, g in usable.groupby(["format", "file_id"]) if len(g) >= 2]
    df = sum(len(g) - 1 for g in groups)
    if df < 1:
        return WriteNoise(math.nan)
    squares = sum(float(((g - g.mean()) ** 2).sum()) for g in groups)
    sigma = math.sqrt(squares / df)
    tail = (1 - CONFIDENCE) / 2
    low = sigma * math.sqrt(df / scipy_stats().chi2.ppf(1 - tail, df))
    high = sigma * math.sqrt(df / scipy_stats().chi2.ppf(tail, df))
    return WriteNoise(
        sigma,
        low,
        high,
        writes=sum(len(g) for g in groups),
        files=len(groups),
        df=df,
        source=MEASURED,
    )
