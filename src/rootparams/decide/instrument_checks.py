"""The instrument's physics checks: what a trustworthy measurement of ROOT reads must show, whatever the machine
(docs/measurement.md, "The instrument checks its own physics"). Each is a verdict in three states at a stated
margin (rootparams.stats.intervals): the physics *holds* (the whole interval inside the margin), is *violated* (the whole
interval outside it), or the run *cannot tell* (anything else), with the margin it could resolve; a check that
cannot tell is not counted as passed. A group check (every pair of levels) holds when every pair holds and is
violated when a pair's violation survives Holm's adjustment over the group's pairs; the checks of one study are a
family too (``settle``): a violation stands only where it survives Holm's adjustment over all of them, so that
the chance of one or more false *violated* verdicts when everything holds is at most 2.5 %. Used by every study's run summary
(``study_checks``: results/tables/physics_checks.csv), by benchmarks/physics_checks.py on purpose-made files, and,
for the one that holds on any host (b), by tests/test_instrument_checks.py; the statistics themselves are tested on
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
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from rootparams.host.storage import resolve_profile
from rootparams.measure.measure import PlannedPoint, measure_block
from rootparams.results.aggregate import scan_rows, valid_points
from rootparams.stats.compare import Repetitions
from rootparams.stats.intervals import (
    CANNOT_TELL,
    CONFIDENCE,
    DIFFERENT,
    EQUAL,
    MIN_PAIRS,
    Interval,
    Judgement,
    Ratio,
    expected_false,
    holm,
    ratio_paired,
    ratio_unpaired,
)
from rootparams.vocabulary import TTREE, UNCOMPRESSED

# The margins the checks claim equality at. Level: a level may change the decompression, nothing else; 5 % is
# what a quiet run resolves (docs/measurement.md). Bandwidth: the throttle is exact for streaming reads
# (0.997-1.008 measured), 5 % leaves room for one read-ahead window at either end. Repeat: the same point twice.
_LEVEL_MARGIN = 0.05
DECOMPRESSION_MARGIN = 0.10
_BANDWIDTH_MARGIN = 0.05
_REPEAT_MARGIN = 0.03

HOLDS, VIOLATED = "holds", "violated"


@dataclass(frozen=True)
class Check:
    """One check's verdict: ``verdict`` is holds / violated / cannot tell (``passed`` True / False / None);
    ``statement`` the stats verdict behind it (equal, different, ...); ``resolvable`` the margin the data could
    resolve; ``estimate`` the ratio judged (the pair furthest from 1 for a group). ``p_holds`` and
    ``p_violated``: the p-values of the two tests behind the verdict (a group's: its weakest pair's support, its
    Holm-adjusted strongest violation); ``comparisons`` how many ratios the check judged; ``per_comparison`` the
    verdict each ratio's own 95 % interval gives before any adjustment for the family (``settle``)."""

    check: str
    subject: str
    verdict: str
    statement: str
    margin: float
    resolvable: float
    estimate: float
    n: int
    detail: str
    p_holds: float = math.nan
    p_violated: float = math.nan
    comparisons: int = 1
    per_comparison: str = ""

    @property
    def passed(self) -> bool | None:
        return {HOLDS: True, VIOLATED: False}.get(self.verdict)


def _verdict(judgement: Judgement) -> str:
    return {True: HOLDS, False: VIOLATED}.get(judgement.supported, CANNOT_TELL)


def _statement(verdict: str) -> str:
    return {HOLDS: EQUAL, VIOLATED: DIFFERENT}.get(verdict, CANNOT_TELL)


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
    """Every pair of ``values``' members equal within ``margin``: holds when every pair's interval lies inside the
    margin, violated when a pair's interval lies wholly outside it and that survives Holm's adjustment over the
    group's pairs, cannot tell otherwise; the widest resolvable margin, the pair furthest from 1."""
    keys = list(values)
    pairs = [(a, b, compare_series(values[a], values[b])) for i, a in enumerate(keys) for b in keys[i + 1 :]]
    judgements = [r.judge_equal(margin) for _, _, r in pairs]
    per_pair = [_verdict(j) for j in judgements]
    group = Judgement.of(
        max((j.p_support for j in judgements), default=1.0),
        min(holm([j.p_contradict for j in judgements]), default=1.0),
    )
    verdict = _verdict(group)
    resolvable = max((r.resolvable_margin for _, _, r in pairs), default=math.nan)
    worst = max(pairs, key=lambda p: abs(math.log(p[2].estimate)) if p[2].estimate > 0 else 0.0)
    n = min((len(v) for v in values.values()), default=0)
    means = ", ".join(f"{k}: {Interval.of(values[k]).text(unit)}" for k in keys)
    detail = f"{means}; furthest pair {worst[0]}/{worst[1]} {worst[2].text()}"
    if len(pairs) > 1:
        detail += f"; {len(pairs)} pairs, violations adjusted for them (Holm)"
    return Check(
        name,
        subject,
        verdict,
        _statement(verdict),
        margin,
        resolvable,
        worst[2].estimate,
        n,
        detail,
        group.p_support,
        group.p_contradict,
        len(pairs),
        _per_comparison_text(per_pair),
    )


def _per_comparison_text(verdicts: Sequence[str]) -> str:
    """ "2 holds, 1 cannot tell": what the comparisons' own intervals said, before any adjustment."""
    counts = {v: sum(x == v for x in verdicts) for v in (HOLDS, VIOLATED, CANNOT_TELL)}
    return ", ".join(f"{c} {v}" for v, c in counts.items() if c)


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
                _LEVEL_MARGIN,
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


def _bandwidth_ratios(records: Iterable[Mapping], bandwidth: float) -> list[float]:
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
    ratios = _bandwidth_ratios(records, bandwidth)
    interval = Interval.of(ratios)
    finite = [x for x in ratios if x == x]
    detail = (
        f"loop time / (B / bandwidth): {interval.text()}; per repetition {min(finite):.3f}-{max(finite):.3f}"
        if finite
        else "no repetition with a byte count"
    )
    if mode == "floor":
        judgement = interval.judge_above(1 - _BANDWIDTH_MARGIN)
        verdict = _verdict(judgement)
        statement = {HOLDS: "at least B / bandwidth", VIOLATED: "faster than the bandwidth allows"}.get(
            verdict, CANNOT_TELL
        )
        return Check(
            "a read of B bytes takes at least B / bandwidth",
            subject,
            verdict,
            statement,
            _BANDWIDTH_MARGIN,
            math.nan,
            interval.mean,
            interval.n,
            detail,
            judgement.p_support,
            judgement.p_contradict,
            1,
            verdict,
        )
    judgement = interval.judge_within(1 / (1 + _BANDWIDTH_MARGIN), 1 + _BANDWIDTH_MARGIN)
    verdict = _verdict(judgement)
    ratio = Ratio(interval.mean, interval.low, interval.high, interval.n, False)
    return Check(
        "an I/O-bound read of B bytes takes B / bandwidth",
        subject,
        verdict,
        _statement(verdict),
        _BANDWIDTH_MARGIN,
        ratio.resolvable_margin,
        interval.mean,
        interval.n,
        detail,
        judgement.p_support,
        judgement.p_contradict,
        1,
        verdict,
    )


def repeat_check(first: Sequence[float], second: Sequence[float], subject: str = "") -> Check:
    """(c): two separate measurements of one point (their per-repetition rates) give the same mean, within
    REPEAT_MARGIN; unpaired (they were taken at different times, which is the point)."""
    a, b = Interval.of(first), Interval.of(second)
    ratio = ratio_unpaired(b, a)
    judgement = ratio.judge_equal(_REPEAT_MARGIN)
    verdict = _verdict(judgement)
    detail = f"first {a.text('Hz')}, then {b.text('Hz')}: second / first {ratio.text()}"
    return Check(
        "the same point measured twice gives the same rate",
        subject,
        verdict,
        _statement(verdict),
        _REPEAT_MARGIN,
        ratio.resolvable_margin,
        ratio.estimate,
        min(a.n, b.n),
        detail,
        judgement.p_support,
        judgement.p_contradict,
        1,
        verdict,
    )


_CHECK_COLUMNS = [
    "check",
    "subject",
    "verdict",
    "statement",
    "margin",
    "resolvable",
    "estimate",
    "n",
    "detail",
    "p_holds",
    "p_violated",
    "comparisons",
    "per_comparison",
]


def settle(checks: Sequence[Check]) -> list[Check]:
    """The checks of one study (or one benchmark run) as one family: a violation stands only where its p-value
    survives Holm's adjustment over every check's (each group's already adjusted over its pairs), so that when
    every check holds the chance of one or more false *violated* verdicts stays at most 2.5 %. A violation the
    adjustment takes back becomes *cannot tell*, and its detail says so."""
    adjusted = holm([c.p_violated if c.p_violated == c.p_violated else 1.0 for c in checks])
    out = []
    for c, p in zip(checks, adjusted, strict=True):
        if c.verdict == VIOLATED and p > 1 - CONFIDENCE:
            c = replace(
                c,
                verdict=CANNOT_TELL,
                statement=CANNOT_TELL,
                detail=f"{c.detail}; outside the margin at its own 95 % interval, but not after the adjustment for "
                f"the {len(checks)} checks of the run (Holm, adjusted p {p:.3f})",
            )
        out.append(replace(c, p_violated=p))
    return out


def family_text(checks: Sequence[Check]) -> str:
    """What the run's family of checks should expect when everything holds, and what the adjustment took back."""
    if not checks:
        return "No physics check could be made."
    comparisons = sum(c.comparisons for c in checks)
    unadjusted, _ = expected_false(comparisons)
    taken_back = sum("not after the adjustment" in c.detail for c in checks)
    return (
        f"{len(checks)} checks of {comparisons} comparisons, settled as one family. Were every check to hold, each "
        f"comparison's own 95 % interval would still call up to 2.5 % of them violated (at the edge of the margin; "
        f"fewer inside it): up to {unadjusted:.1f} false *violated* verdicts expected in this run without an "
        f"adjustment. With Holm's adjustment over the checks (and, within a group of levels, over its pairs) the "
        f"chance of even one false *violated* is at most 2.5 %: {taken_back} violation(s) at their own interval "
        "did not survive it and are reported as *cannot tell*."
    )


def table(checks: Iterable[Check]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in checks], columns=_CHECK_COLUMNS)


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
    return settle(checks)


def resolved_text(before: Sequence[Check], after: Sequence[Check]) -> str:
    """How the physics checks' verdicts changed from ``before`` (the planned repetitions alone) to ``after`` (with
    the sequential rounds): the checks that could not tell before and now hold or are violated, and any other
    change."""
    old = {(c.check, c.subject): c.verdict for c in before}
    resolved = [c for c in after if old.get((c.check, c.subject)) == CANNOT_TELL and c.verdict != CANNOT_TELL]
    changed = [
        c
        for c in after
        if (c.check, c.subject) in old and old[(c.check, c.subject)] not in (CANNOT_TELL, c.verdict)
    ]
    still = sum(c.verdict == CANNOT_TELL for c in after)
    text = (
        f"of the physics checks, {sum(v == CANNOT_TELL for v in old.values())} could not tell on the planned "
        f"repetitions alone; the extra rounds resolved {len(resolved)} "
        f"({sum(c.verdict == HOLDS for c in resolved)} hold, {sum(c.verdict == VIOLATED for c in resolved)} "
        f"violated), {still} still cannot tell"
    )
    if changed:
        text += f", and {len(changed)} changed verdict ({', '.join(c.subject for c in changed)})"
    return text


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
