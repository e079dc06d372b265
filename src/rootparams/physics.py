"""The instrument's physics checks: what a trustworthy measurement of ROOT reads must show, whatever the machine
(docs/measurement.md, "The instrument checks its own physics"). Each is a verdict in three states
(rootparams.stats): the physics *holds*, is *violated*, or the run *cannot tell* at its noise, with the margin it
could resolve; a check that cannot tell is not counted as passed. Used by every study's run summary
(``study_checks``: results/tables/physics_checks.csv), by benchmarks/physics_checks.py on purpose-made files, and,
for the one that holds on any host (b), by tests/test_physics.py; the statistics themselves are tested on
hand-made numbers there, where they must fail.

(a) ``level_check``: the loop's CPU time outside ROOT's decompression, per event, does not depend on the
    compression level of an algorithm: the same events, branches and objects are built at every level, only the
    decompression differs. Equal within LEVEL_MARGIN, pairwise over the levels, paired by round where the points
    were measured in the same rounds. LZ4 levels 1-3 (fast mode) and 4-9 (high-compression mode) are separate
    groups. Beside it, ``decompression_check`` reports the note's claim that decompression speed does not depend on
    the level (ROOT's unzip MB/s per level): a finding about the codecs, not a check of the instrument (zlib
    inflates faster at higher levels on our data: docs/measurement.md).
(b) ``bandwidth_check``: under a bandwidth-limited storage profile a read of B bytes takes at least
    B / bandwidth (``mode="floor"``, every throttled point of a study), and an I/O-bound read takes B / bandwidth
    (``mode="equal"``, the test at 4 MB/s): the loop's seconds over B / bandwidth, B the bytes the disk completed
    during the loop, within BANDWIDTH_MARGIN.
(c) ``repeat_check``: the same point measured at different times gives the same rate: equal within
    REPEAT_MARGIN (in a study: the drift sentinel's first third of reads against its last third).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from rootparams.aggregate import scan_rows, valid_points
from rootparams.compare import Repetitions
from rootparams.measure import PlannedPoint, measure_block
from rootparams.stats import (
    CANNOT_TELL,
    DIFFERENT,
    EQUAL,
    MIN_PAIRS,
    Interval,
    Ratio,
    combine,
    ratio_paired,
    ratio_unpaired,
)
from rootparams.storage import resolve_profile
from rootparams.vocabulary import TTREE, UNCOMPRESSED

# The margins the checks claim equality at. Level: a level may change the decompression, nothing else; 5 % is
# what a quiet run resolves (docs/measurement.md). Bandwidth: the throttle is exact for streaming reads
# (0.997-1.008 measured), 5 % leaves room for one read-ahead window at either end. Repeat: the same point twice.
LEVEL_MARGIN = 0.05
DECOMPRESSION_MARGIN = 0.10
BANDWIDTH_MARGIN = 0.05
REPEAT_MARGIN = 0.03

HOLDS, VIOLATED = "holds", "violated"


@dataclass(frozen=True)
class Check:
    """One check's verdict: ``verdict`` is holds / violated / cannot tell (``passed`` True / False / None);
    ``statement`` the stats verdict behind it (equal, different, ...); ``resolvable`` the margin the data could
    resolve; ``estimate`` the ratio judged (the pair furthest from 1 for a group)."""

    check: str
    subject: str
    verdict: str
    statement: str
    margin: float
    resolvable: float
    estimate: float
    n: int
    detail: str

    @property
    def passed(self) -> bool | None:
        return {HOLDS: True, VIOLATED: False}.get(self.verdict)


def _from_equivalence(statement: str) -> str:
    return {EQUAL: HOLDS, DIFFERENT: VIOLATED}.get(statement, CANNOT_TELL)


def level_groups(algorithm: str, levels: Iterable[int]) -> list[tuple[int, ...]]:
    """The levels of ``algorithm`` that must read alike: all of them, except that LZ4 levels 1-3 (fast mode)
    and 4-9 (high-compression mode) are separate groups."""
    levels = sorted(levels)
    if algorithm == "lz4":
        return [g for g in (tuple(x for x in levels if x <= 3), tuple(x for x in levels if x > 3)) if g]
    return [tuple(levels)]


def compare_series(a: pd.Series, b: pd.Series) -> Ratio:
    """a / b of two points' values (Series indexed by round key, None where unknown): paired by round where they
    share at least 3 rounds, unpaired otherwise."""
    keyed_a = a[[k is not None for k in a.index]]
    keyed_b = b[[k is not None for k in b.index]]
    common = [k for k in keyed_a.index if k in set(keyed_b.index)]
    if len(set(common)) >= MIN_PAIRS:
        return ratio_paired(keyed_a[common].to_numpy(), keyed_b[common].to_numpy())
    return ratio_unpaired(Interval.of(a), Interval.of(b))


def _group_check(name: str, subject: str, values: Mapping[Any, pd.Series], margin: float, unit: str) -> Check:
    """Every pair of ``values``' members equal within ``margin``: the combined verdict, the widest resolvable
    margin, the pair furthest from 1."""
    keys = list(values)
    pairs = [(a, b, compare_series(values[a], values[b])) for i, a in enumerate(keys) for b in keys[i + 1 :]]
    statement = combine(r.equivalence(margin) for _, _, r in pairs)
    resolvable = max((r.resolvable_margin for _, _, r in pairs), default=math.nan)
    worst = max(pairs, key=lambda p: abs(math.log(p[2].estimate)) if p[2].estimate > 0 else 0.0)
    n = min((len(v) for v in values.values()), default=0)
    means = ", ".join(f"{k}: {Interval.of(values[k]).text(unit)}" for k in keys)
    detail = f"{means}; furthest pair {worst[0]}/{worst[1]} {worst[2].text()}"
    return Check(
        name,
        subject,
        _from_equivalence(statement),
        statement,
        margin,
        resolvable,
        worst[2].estimate,
        n,
        detail,
    )


def level_check(values_by_level: Mapping[int, pd.Series], subject: str, algorithm: str) -> list[Check]:
    """(a): per LZ4 mode (or the whole algorithm), the loop's CPU microseconds per event outside decompression at
    every level, equal within LEVEL_MARGIN. ``values_by_level``: each level's per-repetition values, indexed by
    round key (None: no pairing)."""
    out = []
    for group in level_groups(algorithm, values_by_level):
        if len(group) < 2:
            continue
        values = {f"{algorithm}-{lv}": values_by_level[lv] for lv in group}
        name = f"{subject} {algorithm} levels {'/'.join(map(str, group))}"
        out.append(
            _group_check(
                "CPU outside decompression does not depend on the level",
                name,
                values,
                LEVEL_MARGIN,
                "µs/event",
            )
        )
    return out


def decompression_check(
    values_by_level: Mapping[int, pd.Series], subject: str, algorithm: str
) -> list[Check]:
    """The note's "decompression times are almost constant" across levels: ROOT's unzip MB/s (uncompressed bytes
    out per second of decompression) per level, equal within DECOMPRESSION_MARGIN: a finding, reported with the
    checks."""
    out = []
    for group in level_groups(algorithm, values_by_level):
        if len(group) < 2:
            continue
        values = {f"{algorithm}-{lv}": values_by_level[lv] for lv in group}
        name = f"{subject} {algorithm} levels {'/'.join(map(str, group))}"
        out.append(
            _group_check(
                "decompression speed does not depend on the level (the note)",
                name,
                values,
                DECOMPRESSION_MARGIN,
                "MB/s",
            )
        )
    return out


def bandwidth_ratios(records: Iterable[Mapping], bandwidth: float) -> list[float]:
    """Per repetition, the timed loop's seconds over B / bandwidth, B the bytes the disk completed during the loop
    (``loop_disk_completed_read_bytes``, /proc/diskstats). Not the bytes the reader submitted
    (``loop_storage_read_bytes``): the kernel submits a last read-ahead window near the end of the loop that the
    throttle holds back and the loop never waits for (docs/measurement.md, "Storage profiles"). The disk's count
    is every process's, so it needs a quiet machine. Records without it fall back to the submitted bytes."""
    out = []
    for r in records:
        completed = r.get("loop_disk_completed_read_bytes")
        counted = (
            completed if completed is not None and completed == completed else r["loop_storage_read_bytes"]
        )
        out.append(r["loop_seconds"] / (counted / bandwidth) if counted else math.nan)
    return out


def bandwidth_check(
    records: Sequence[Mapping], bandwidth: float, subject: str = "", mode: str = "equal"
) -> Check:
    """(b): the mean of bandwidth_ratios with its 95 % interval. ``mode="equal"`` (an I/O-bound read): the ratio
    equals 1 within BANDWIDTH_MARGIN. ``mode="floor"`` (any read under the limit): at least 1 - BANDWIDTH_MARGIN;
    violated where the whole interval lies below it, holds where it lies above, cannot tell otherwise."""
    ratios = bandwidth_ratios(records, bandwidth)
    interval = Interval.of(ratios)
    finite = [x for x in ratios if x == x]
    detail = (
        f"loop time / (B / bandwidth): {interval.text()}; per repetition {min(finite):.3f}-{max(finite):.3f}"
        if finite
        else "no repetition with a byte count"
    )
    if mode == "floor":
        floor = 1 - BANDWIDTH_MARGIN
        verdict = HOLDS if interval.low >= floor else VIOLATED if interval.high < floor else CANNOT_TELL
        if interval.n < 2:
            verdict = CANNOT_TELL
        statement = {HOLDS: "at least B / bandwidth", VIOLATED: "faster than the bandwidth allows"}.get(
            verdict, CANNOT_TELL
        )
        return Check(
            "a read of B bytes takes at least B / bandwidth",
            subject,
            verdict,
            statement,
            BANDWIDTH_MARGIN,
            math.nan,
            interval.mean,
            interval.n,
            detail,
        )
    ratio = Ratio(interval.mean, interval.low, interval.high, interval.n, False)
    statement = ratio.equivalence(BANDWIDTH_MARGIN)
    return Check(
        "an I/O-bound read of B bytes takes B / bandwidth",
        subject,
        _from_equivalence(statement),
        statement,
        BANDWIDTH_MARGIN,
        ratio.resolvable_margin,
        interval.mean,
        interval.n,
        detail,
    )


def repeat_check(first: Sequence[float], second: Sequence[float], subject: str = "") -> Check:
    """(c): two separate measurements of one point (their per-repetition rates) give the same mean, within
    REPEAT_MARGIN; unpaired (they were taken at different times, which is the point)."""
    a, b = Interval.of(first), Interval.of(second)
    ratio = ratio_unpaired(b, a)
    statement = ratio.equivalence(REPEAT_MARGIN)
    detail = f"first {a.text('Hz')}, then {b.text('Hz')}: second / first {ratio.text()}"
    return Check(
        "the same point measured twice gives the same rate",
        subject,
        _from_equivalence(statement),
        statement,
        REPEAT_MARGIN,
        ratio.resolvable_margin,
        ratio.estimate,
        min(a.n, b.n),
        detail,
    )


CHECK_COLUMNS = [
    "check",
    "subject",
    "verdict",
    "statement",
    "margin",
    "resolvable",
    "estimate",
    "n",
    "detail",
]


def table(checks: Iterable[Check]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in checks], columns=CHECK_COLUMNS)


def markdown(checks: Iterable[Check]) -> str:
    lines = [
        "| check | subject | verdict | margin | could resolve | n | detail |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in checks:
        resolvable = f"±{c.resolvable:.1%}" if c.resolvable == c.resolvable else "-"
        statement = f" ({c.statement})" if c.statement != c.verdict else ""
        lines.append(
            f"| {c.check} | {c.subject} | **{c.verdict}**{statement} | ±{c.margin:.0%} | "
            f"{resolvable} | {c.n} | {c.detail} |"
        )
    return "\n".join(lines)


def study_checks(
    summary: pd.DataFrame,
    repetitions: pd.DataFrame,
    points: pd.DataFrame,
    sentinel: pd.DataFrame,
    config: Mapping[str, Any],
) -> list[Check]:
    """The physics checks of one study's own reads: (a) on the compression scan's valid TTree points at each
    format's defaults, (b) on every valid point read under a bandwidth limit, (c) on the drift sentinel."""
    checks: list[Check] = []
    reps = Repetitions(repetitions)
    compression = scan_rows(summary, points, pd.DataFrame(columns=["format", "file_id"]), "compression")
    compression = compression[valid_points(compression) & (compression.get("container", TTREE) == TTREE)]
    for (fmt, alg), group in compression.groupby(["format", "algorithm"], sort=True):
        if alg == UNCOMPRESSED or group["level"].nunique() < 2:
            continue
        rows = {int(r["level"]): r for r in group.to_dict("records")}
        cpu = {lv: reps.values(r, "loop_cpu_outside_unzip_us_per_event") for lv, r in rows.items()}
        speed = {lv: reps.values(r, "unzip_mb_per_s") for lv, r in rows.items()}
        checks += level_check(cpu, fmt, alg)
        checks += decompression_check(speed, fmt, alg)
    custom = config["measurement"]["storage_profiles"]
    valid = summary[valid_points(summary)]
    for row in valid.to_dict("records"):
        profile = resolve_profile(str(row.get("storage_profile", "native")), custom)
        if not profile.read_bps or profile.access != "local":
            continue
        mine = repetitions[
            (repetitions["format"] == row["format"])
            & (repetitions["file_id"] == row["file_id"])
            & (repetitions["read_id"] == row["read_id"])
            & ~repetitions["flagged"].astype(bool)
        ]
        subject = f"{row['format']} {row['file_id']} {row['read_id']}"
        checks.append(bandwidth_check(mine.to_dict("records"), profile.read_bps, subject, mode="floor"))
    if len(sentinel) >= 6:
        good = sentinel[~sentinel["flagged"].astype(bool)].sort_values("process_start_time")
        third = len(good) // 3
        if third >= 2:
            subject = (
                f"drift sentinel ({good['format'].iloc[0]} {good['file_id'].iloc[0]}), first and last third"
            )
            checks.append(
                repeat_check(
                    good["event_rate_hz"].iloc[:third].tolist(),
                    good["event_rate_hz"].iloc[-third:].tolist(),
                    subject,
                )
            )
    return checks


def summarize_checks(checks: Sequence[Check]) -> pd.DataFrame:
    """Per check: how many subjects hold, are violated, cannot tell, and the median margin they could resolve."""
    frame = table(checks)
    if frame.empty:
        return pd.DataFrame(columns=["check", "holds", "violated", "cannot tell", "median resolvable"])
    out = frame.groupby("check", sort=False).agg(
        holds=("verdict", lambda v: int((v == HOLDS).sum())),
        violated=("verdict", lambda v: int((v == VIOLATED).sum())),
        cannot_tell=("verdict", lambda v: int((v == CANNOT_TELL).sum())),
        median_resolvable=("resolvable", "median"),
    )
    return out.reset_index().rename(
        columns={"cannot_tell": "cannot tell", "median_resolvable": "median resolvable"}
    )


def measure(
    files: Mapping[Any, str],
    *,
    reader: str,
    events: int,
    read: Mapping,
    measurement: Mapping,
    repetitions: int,
    scratch,
    read_of: Mapping[Any, Mapping] | None = None,
    block: str = "physics",
) -> dict[Any, list[dict]]:
    """Cold repetitions of several points through the study's own instrument (measure.measure_block), in
    interleaved, shuffled rounds: a slow drift of the shared machine shifts every point alike, and the points can
    be compared pair by pair. ``read_of`` overrides read settings per key (e.g. the container of each file).
    Returns, per key of ``files``, every record (with its round_key)."""
    keys = list(files)
    points = [
        PlannedPoint(
            str(files[key]),
            events,
            {**read, **(read_of or {}).get(key, {})},
            {"point": str(key)},
            {rep: str(Path(scratch) / f"point{i}" / f"rep{rep}.json") for rep in range(repetitions)},
        )
        for i, key in enumerate(keys)
    ]
    result = measure_block(
        block=block,
        points=points,
        reader=reader,
        measurement=dict(measurement),
        monitor_csv=str(Path(scratch) / "monitor.csv"),
    )
    return dict(zip(keys, result.records, strict=True))


def by_round(records: Iterable[Mapping], metric) -> pd.Series:
    """The unflagged records' ``metric`` (a key, or a function of the record) indexed by round key: what the
    checks compare."""
    good = [r for r in records if not r.get("flagged")]
    values = [metric(r) if callable(metric) else r.get(metric) for r in good]
    return pd.Series(values, index=[r.get("round_key") for r in good], dtype=float)


def outside_unzip_us_per_event(record: Mapping) -> float:
    """The loop's CPU microseconds per event outside ROOT's decompression (what no level may change)."""
    return 1e6 * (record["loop_cpu_seconds"] - record["loop_unzip_seconds"]) / record["events_read"]


def unzip_mb_per_s(record: Mapping) -> float:
    """ROOT's decompression speed in the loop: uncompressed MB out per second of unzip time."""
    seconds = record.get("loop_unzip_seconds") or math.nan
    return record.get("loop_unzip_output_bytes", math.nan) / seconds / 1e6
