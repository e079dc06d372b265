"""ROOT's decompression per content kind: CPU seconds per uncompressed MB for each compression setting on each kind
of content (rootparams.ownfile.contentkinds) of a format, warm (the bytes in memory).

The warm reads (rootparams.measure.cpu_primitives) give each file's decompression for its own mix of content. This primitive
splits it by kind, so that a mix that was not measured can be predicted: for a read whose decompressed bytes are the
fractions f_k of kind k, ``mixed_rate`` gives sum_k f_k x rate_k.

How it is measured (``measure``, rootparams-unzipkinds, src/rootparams/cxx/unzip_kinds.cxx): one TTree file per
format; its branches grouped by kind with rootparams.ownfile.inspection (the same kinds ``rootparams inspect`` gives); of
each kind a sample of its baskets (``sample_plan``: evenly spaced over all of the kind's baskets, through its
branches, about BYTES_PER_KIND uncompressed bytes in all), loaded by ROOT and kept as their object bytes. For each
setting every basket is compressed in memory as ROOT's TBasket::WriteBuffer does (R__zipMultipleAlgorithm, blocks
of at most 16 MB, a basket that does not shrink stored as it is), and ROOT's R__unzip is timed on one kind's
baskets at a time, as TBasket::ReadBasketBuffers calls it, with the thread's CPU clock, REPETITIONS times in
rounds over every setting and kind. A kind is timed as a whole, not branch by branch: most branches give the sample
one basket of tens of kB, which LZ4 unzips in microseconds, where a kind's baskets take milliseconds (and a kind too
fast for MIN_SECONDS is unzipped several times over per repetition).

Why the baskets are compressed in memory rather than read from a file written at each setting: the bytes a
setting's file holds are exactly what ROOT's compressor makes of the same basket content (the writer calls the same
function on the same buffers), so a file per setting would only add the writing (minutes for LZMA-9 on a whole
format) and the I/O, and its basket boundaries would differ slightly between settings where AutoFlush is in bytes,
which mixes a second variable into the comparison. What is timed is ROOT's own unzip on ROOT's own compressed
blocks; the one difference from a read is that a kind's baskets stay in the CPU's caches between passes, where a
read's compressed basket has just been copied from the TTreeCache (so it is in the cache as well).

What is counted as a kind's uncompressed bytes: the baskets ROOT stores compressed (its unzip output); a basket that
does not shrink at a setting is stored as it is and costs no unzip (``stored_raw_bytes``), which is how the warm
reads count too (PerfStats sees only the baskets it unzips).

TTree files only: an RNTuple's pages are compressed page by page and its kinds are fields; it has no figure here.
"""

from __future__ import annotations

import math
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from rootparams.errors import UserError
from rootparams.host.exclusive import DEFAULT_LOCK, HostLock
from rootparams.ownfile.inspection import Inspection, inspect_file
from rootparams.stats.intervals import Interval
from rootparams.tools.processes import run_tool
from rootparams.vocabulary import TTREE, UNCOMPRESSED, decode, encode

# Uncompressed bytes sampled of each kind: enough baskets (32 kB to a few MB each) for a figure that does not depend
# much on which baskets were taken, and few enough that a format's kinds at the default study's 12 settings take
# 25-40 s on 2 cores (most of it LZMA's compression, which is not timed).
BYTES_PER_KIND = 2_000_000
REPETITIONS = 5
# The least CPU time of one timed repetition: a kind whose sample unzips faster is unzipped that many times over
# (the thread's CPU clock resolves far below this, but its reading costs about a microsecond).
_MIN_SECONDS = 0.01


class UnzipKindsError(UserError):
    """A file this primitive cannot be measured on (not a TTree, no data)."""


@dataclass(frozen=True)
class PlanEntry:
    """One branch of the sample: its position in the tree's branches (depth first), its name, its kind and the
    share of its baskets to load."""

    index: int
    name: str
    kind: str
    share: float


def sample_plan(inspection: Inspection, bytes_per_kind: int = BYTES_PER_KIND) -> list[PlanEntry]:
    """Every branch holding baskets, with the share of its kind's baskets to load: the same for every branch of a
    kind, about ``bytes_per_kind`` of the kind in all (rootparams-unzipkinds spaces them evenly over all of the
    kind's baskets, through its branches, so that a branch is sampled in proportion to its baskets).
    ``inspection``: rootparams.ownfile.inspection.inspect_file(..., all_branches=True) of a TTree."""
    if inspection.container != TTREE:
        raise UnzipKindsError(
            f"{inspection.source}: {inspection.name} is an RNTuple; decompression per kind is measured on TTree "
            "baskets only"
        )
    if not inspection.all_branches:
        raise ValueError("sample_plan needs the inspection of every branch (all_branches=True)")
    totals = _uncompressed_by_kind(inspection)
    plan = [
        PlanEntry(i, row.name, row.kind, min(1.0, bytes_per_kind / totals[row.kind]))
        for i, row in enumerate(inspection.rows)
        if row.uncompressed > 0
    ]
    if not plan:
        raise UnzipKindsError(
            f"{inspection.source}: no branch of {inspection.name} has baskets of its own (an empty tree, or every "
            "basket kept inside the TTree object)"
        )
    return plan


def _plan_text(plan: Sequence[PlanEntry]) -> str:
    """The plan as rootparams-unzipkinds reads it: index, name, kind, share, tab-separated."""
    return "".join(f"{e.index}\t{e.name}\t{e.kind}\t{e.share:.9g}\n" for e in plan)


def measure(
    tool: str,
    root_file: str,
    settings: Iterable[int],
    tree: str | None = None,
    bytes_per_kind: int = BYTES_PER_KIND,
    repetitions: int = REPETITIONS,
    min_seconds: float = _MIN_SECONDS,
    host_lock: str | Path = DEFAULT_LOCK,
    say: Callable[[str], None] = print,
    jobs: int = 1,
) -> tuple[dict[str, Any], Inspection]:
    """The tool's result on ``root_file`` (its branches' kinds from rootparams.ownfile.inspection), at ROOT's compression
    ``settings`` (uncompressed ones left out: nothing to unzip), under the host's timed-read lock; and the
    inspection it was planned from. ``jobs``: threads that compress the samples (not timed); the timings run
    on one thread after them."""
    settings = sorted({int(s) for s in settings if decode(int(s))[0] != UNCOMPRESSED})
    if not settings:
        raise UnzipKindsError("no compressing setting to measure (every setting given is uncompressed)")
    inspection = inspect_file(str(root_file), tree, all_branches=True)
    plan = sample_plan(inspection, bytes_per_kind)
    with tempfile.TemporaryDirectory(prefix="rootparams-unzipkinds-") as tmp:
        plan_file = Path(tmp) / "plan.tsv"
        plan_file.write_text(_plan_text(plan))
        cmd = [
            tool,
            "--file",
            str(root_file),
            "--tree",
            inspection.name,
            "--plan",
            str(plan_file),
            "--settings",
            ",".join(map(str, settings)),
            "--repetitions",
            str(repetitions),
            "--min-seconds",
            str(min_seconds),
            "--jobs",
            str(jobs),
        ]
        with HostLock(host_lock, say):
            result = run_tool(cmd, f"timing ROOT's decompression per content kind on {root_file}")
    return result, inspection


# The columns of results/primitives/unzip_kinds.csv, one row per format, kind and setting.
SUMMARY_COLUMNS = [
    "format",
    "file",
    "layout",
    "kind",
    "algorithm",
    "level",
    "compression_setting",
    "branches",
    "kind_uncompressed_bytes_in_file",
    "sample_baskets",
    "sample_uncompressed_bytes",
    "sample_compressed_bytes",
    "sample_file_bytes",
    "compression_ratio",
    "unzip_output_bytes",
    "unzip_input_bytes",
    "stored_raw_bytes",
    "stored_raw_fraction",
    "passes",
    "unzip_cpu_s_per_mb_uncompressed_mean",
    "unzip_cpu_s_per_mb_uncompressed_ci95_low",
    "unzip_cpu_s_per_mb_uncompressed_ci95_high",
    "unzip_cpu_s_per_mb_uncompressed_n",
    "unzip_wall_s_per_mb_uncompressed_mean",
]


def kind_summary(fmt: str, result: Mapping[str, Any], inspection: Inspection) -> pd.DataFrame:
    """One row per kind and setting of one format's measurement (``measure``): the sample's bytes before and after
    compression (and as the file it came from holds them, at the file's own setting), its ratio, the bytes stored
    as they are, and ROOT's unzip CPU seconds per MB (1e6 bytes) it put out, the mean over the repetitions with its
    95 % interval (rootparams.stats.intervals.Interval) and n."""
    in_file = _uncompressed_by_kind(inspection)
    branches: dict[str, int] = defaultdict(int)
    file_bytes: dict[str, int] = defaultdict(int)
    for b in result["branches"]:
        branches[b["group"]] += 1
        file_bytes[b["group"]] += int(b["file_bytes"])
    rows = []
    for t in result["timings"]:
        algorithm, level = decode(int(t["setting"]))
        out_bytes, raw_bytes = int(t["unzip_output_bytes"]), int(t["stored_raw_bytes"])
        uncompressed, compressed = out_bytes + raw_bytes, int(t["unzip_input_bytes"]) + raw_bytes
        per_mb = [1e6 * s / out_bytes for s in t["cpu_seconds"]] if out_bytes else []
        wall = [1e6 * s / out_bytes for s in t["wall_seconds"]] if out_bytes else []
        interval = Interval.of(per_mb)
        rows.append(
            {
                "format": fmt,
                "file": result["file"],
                "layout": inspection.layout,
                "kind": t["group"],
                "algorithm": algorithm,
                "level": level,
                "compression_setting": int(t["setting"]),
                "branches": branches[t["group"]],
                "kind_uncompressed_bytes_in_file": in_file[t["group"]],
                "sample_baskets": int(t["baskets"]) + int(t["stored_raw_baskets"]),
                "sample_uncompressed_bytes": uncompressed,
                "sample_compressed_bytes": compressed,
                "sample_file_bytes": file_bytes[t["group"]],
                "compression_ratio": uncompressed / compressed if compressed else math.nan,
                "unzip_output_bytes": out_bytes,
                "unzip_input_bytes": int(t["unzip_input_bytes"]),
                "stored_raw_bytes": raw_bytes,
                "stored_raw_fraction": raw_bytes / uncompressed if uncompressed else math.nan,
                "passes": int(t["passes"]),
                "unzip_cpu_s_per_mb_uncompressed_mean": interval.mean,
                "unzip_cpu_s_per_mb_uncompressed_ci95_low": interval.low,
                "unzip_cpu_s_per_mb_uncompressed_ci95_high": interval.high,
                "unzip_cpu_s_per_mb_uncompressed_n": interval.n,
                "unzip_wall_s_per_mb_uncompressed_mean": Interval.of(wall).mean,
            }
        )
    table = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    return table.sort_values(["format", "compression_setting", "kind"], kind="stable").reset_index(drop=True)


def _uncompressed_by_kind(inspection: Inspection, tops: Iterable[str] | None = None) -> dict[str, int]:
    """Each kind's uncompressed bytes in the branches of ``tops`` (top-level branch names; None: every branch)."""
    chosen = None if tops is None else set(tops)
    bytes_of: dict[str, int] = defaultdict(int)
    for row in inspection.rows:
        if chosen is None or row.top in chosen:
            bytes_of[row.kind] += row.uncompressed
    return bytes_of


def kind_fractions(inspection: Inspection, tops: Iterable[str] | None = None) -> dict[str, float]:
    """Each kind's share of the uncompressed bytes of the branches of ``tops`` (top-level branch names; None:
    every branch): the mix of content a read of those branches decompresses."""
    bytes_of = _uncompressed_by_kind(inspection, tops)
    total = sum(bytes_of.values())
    if not total:
        return {}
    return {kind: b / total for kind, b in bytes_of.items() if b}


def mixed_rate(
    summary: pd.DataFrame, fmt: str, algorithm: str, level: int, fractions: Mapping[str, float]
) -> float:
    """The unzip CPU seconds per uncompressed MB of a read whose uncompressed bytes are the kinds' ``fractions``,
    at one setting: sum_k f_k x rate_k, over the bytes ROOT unzips. A kind's baskets that the setting stores as
    they are (``stored_raw_fraction``) cost nothing and are not in a read's unzip output either, so each kind
    weighs f_k x (1 - its stored-raw fraction); the result is per MB of what is unzipped, as the warm reads count.
    NaN where a kind with bytes has no figure at this setting."""
    rows = summary[
        (summary["format"] == fmt) & (summary["algorithm"] == algorithm) & (summary["level"] == int(level))
    ].set_index("kind")
    weighted, weights = 0.0, 0.0
    for kind, fraction in fractions.items():
        if not fraction:
            continue
        if kind not in rows.index:
            return math.nan
        row = rows.loc[kind]
        weight = fraction * (1.0 - float(row["stored_raw_fraction"]))
        if weight <= 0:
            continue
        rate = float(row["unzip_cpu_s_per_mb_uncompressed_mean"])
        if not math.isfinite(rate):
            return math.nan
        weighted += weight * rate
        weights += weight
    return weighted / weights if weights else math.nan


def study_settings(points: Iterable[Any]) -> dict[str, list[int]]:
    """Per format, the compressing settings of its TTree files in the study (``points``: rootparams.study.grid
    Points), as ROOT's numbers."""
    out: dict[str, set[int]] = defaultdict(set)
    for p in points:
        f = p.file
        if f.container == TTREE and f.algorithm != UNCOMPRESSED:
            out[f.format].add(encode(f.algorithm, f.level))
    return {fmt: sorted(s) for fmt, s in out.items()}
