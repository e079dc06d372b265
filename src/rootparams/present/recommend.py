"""Recommendations derived from the measured data, next to the paper's (section 3.1).

Every statement is computed from summary.csv, files.csv, points.csv and repetitions.csv; nothing here knows what
the answer "should" be except the PAPER dictionary, which quotes the paper (and the related studies, and ROOT's own
claims) so that each finding can be compared.

**Numbers.** A rate is the mean of a point's unflagged repetitions with its 95 % interval of the mean (Student's
t, n - 1 degrees of freedom) and n (``intervals.Interval``). A ratio of two points' rates has its 95 % interval on
the log scale, paired by measuring round where both points were measured in the same rounds (a slow spell of
the host then cancels), else unpaired from their means, spreads and n (``compare.Repetitions.ratio``,
``intervals.Ratio``). The spread of the repetitions (summary.csv's ``_std``) describes the repetitions, not the
mean, and is never quoted as an error. File sizes are exact (one file each) and compared directly.

**Claims** on rates are judged on those intervals against a margin, into "yes" (the whole interval lies where the
claim holds), "no" (the whole interval lies where it fails) or "cannot tell" (the interval reaches both):
- equal rates (``claim_equal``): the ratio's interval inside ±EQUAL_MARGIN, [1/1.05, 1.05], is yes; an interval
  wholly outside it is no (one that excludes 1 but reaches inside the margin is cannot tell, not no); anything
  else cannot tell. The text gives the margin the run could resolve;
- a faster than b, a gain worth the name (``claim_faster``): the interval above 1 + EQUAL_MARGIN is yes; at or
  below it (slower, or a gain within the margin) no; anything else cannot tell;
- a at least as fast as b (``claim_not_slower``): the interval above 1 / (1 + EQUAL_MARGIN) is yes (faster, or
  equal within the margin); wholly below it no; anything else cannot tell;
- a gain of at least a factor G (``claim_at_least``): the whole interval above G is yes, the whole interval below
  G no, anything else cannot tell; a gain below G (``claim_below``) the reverse.
The rate claims of one topic are settled together (``Claims``, intervals.Family): a "no" stands only where it
survives Holm's adjustment over the topic's rate comparisons, so that the chance that any "no" of the topic is
false when every claim holds stays at most 2.5 %; the text says when the adjustment took one back.
A topic of several sub-claims (``overall``): "yes" when all hold, "partly" when some hold and some fail, "no"
when some fail and none holds, "cannot tell" when none fails but not all hold (a topic that cannot tell never
counts as agreeing), "n/a" when nothing valid could be compared.

**Points.** Per format, the points of the topic's scans that are valid under those scans' window rule
(``aggregate.scan_rows`` with the study's measurement: a lenient ``window_by_scan`` rule reaches its own topic
only) and have enough unflagged repetitions; invalid points are left out and counted. The paper's topics are
judged on TTree points only; a study that also stores them as RNTuple shows those in the rntuple topic. A
"fastest" or "best" point is the highest mean: the reference a claim is compared against (the hardest one),
never a verdict by itself; the points whose ratio to it is not resolved are named beside it.

Topics, each function's docstring has its rule: compression, autoflush, split, cache, threads (the paper's
section 3.1); rntuple, cluster_cache (ROOT's own claims); remote_cache, access, reading_style, unzip, event_size
(the related studies; docs/measurement.md, "The related studies"); bulk_io, offsets_size, offsets_counts (the
related studies' claims on ROOT's bulk read and entry offsets, drawn from the scans that list the bulk style or
generated offsets, left out of a study without them); skim (ROOT 6.40's release notes); branch_compression,
float_precision (settings beyond the note, from its conclusion and ATLAS practice).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from rootparams.decide.decision import setting_label, surely_beats
from rootparams.results.aggregate import container_ratios, scan_rows, valid_points
from rootparams.stats.compare import Repetitions, point_key
from rootparams.stats.intervals import (
    CANNOT_TELL,
    HIGHER,
    LOWER,
    RATE_MARGIN,
    Family,
    Interval,
    Judgement,
    Ratio,
)
from rootparams.study.formats import EVENTSIZE_PREFIX, base_format, eventsize_written_bytes
from rootparams.study.labels import (
    CONTAINER_LABELS,
    autoflush_label,
    cache_label,
    format_order,
    format_title,
    reading_style_label,
)
from rootparams.study.scans import study_scans
from rootparams.vocabulary import (
    LATER_FILE_KEY_DEFAULTS,
    OFFSETS_GENERATED,
    RNTUPLE,
    TTREE,
    UNCOMPRESSED,
    mantissa_bits,
)

# Two rates count as equal when their ratio's 95 % interval lies within ±5 % (intervals.RATE_MARGIN): what 10
# repetitions resolve unpaired at the larger spreads measured here (σ/mean 5 %; pairing by round resolves less),
# and small against every effect the paper reports.
EQUAL_MARGIN = RATE_MARGIN
YES, NO, PARTLY, NOT_APPLICABLE = "yes", "no", "partly", "n/a"
_VERDICTS = (YES, PARTLY, NO, CANNOT_TELL, NOT_APPLICABLE)
# What the comparisons read from repetitions.csv (workflow/scripts/recommendations.py loads only these).
REPETITION_METRICS = [
    "event_rate_hz",
    "loop_seconds",
    "loop_cpu_seconds",
    "loop_cpu_us_per_event",
    "rss_increase_bytes",
]

# Section 3.1 of the ATLAS note, one entry per topic.
_PAPER = {
    "compression": "LZ4 is best for fast reading, LZMA for the smallest files; ZLIB is in between and best for "
    "formats with very small events.",
    "autoflush": "AutoFlush 100 events is good for the primary xAOD; for derivations 10 MB is too small for "
    "larger events (~170 kB/event) and should be doubled to 20 MB.",
    "split": "Split level 0 for derivations (instead of 1): smaller files and slightly faster reading.",
    "cache": "Use a TTreeCache of -1 (the AutoFlush cluster); most important for high-latency storage.",
    "threads": "Parallel branch decompression helps large (D)xAODs with LZMA, sometimes ZLIB and LZ4 too "
    "(primary xAOD: ~25% for all three; derivations: only LZMA gains).",
}
# Beyond the paper: what ROOT's own publications claim for RNTuple (the headline figures).
_PAPER["rntuple"] = (
    "RNTuple (ROOT's RNTuple papers and blog): files 10-50 % smaller than TTree and reading several "
    "times faster."
)
_PAPER["cluster_cache"] = (
    "ROOT's default: the cluster cache on (a background thread reads whole clusters with "
    "vector reads); off reads page by page."
)
# The 2019 ATLAS CHEP study ("ATLAS I/O performance optimization in as-deployed environments", Figure 5), for the
# remote scan.
_PAPER["remote_cache"] = (
    'ATLAS CHEP 2019: the TTreeCache "gives a slight improvement for locally read data, it is crucial for '
    'remotely accessed data" (XRootD).'
)
# The related studies, quoted: the 2019 ATLAS CHEP study "ATLAS I/O performance optimization in as-deployed
# environments" (access), the 2017 talk "LZ4, BulkIO, and offset removal performance" and the paper "Optimizing ROOT
# IO For Analysis" (reading styles), the latter alone (event size, parallel unzip); the skim claim from
# root-project/root#21753 and ROOT 6.40's release notes.
_PAPER["access"] = (
    'ATLAS CHEP 2019: branch-wise reading "increases reading speed when only a small subset of variables of '
    'the accessed container is actually used"; the effect is "quite large" for full xAODs, "a lot '
    'less" for DxAODs (no numbers).'
)
_PAPER["reading_style"] = (
    '"LZ4, BulkIO, and offset removal performance" (2017) and "Optimizing ROOT IO For Analysis": bulk '
    'reading is "an order of magnitude faster than GetEntry, especially with LZ4" (the talk), "up to 10x" '
    'in events/s, and the difference is "almost entirely washed out by deflate (ZLIB)" (the paper). '
    "RDataFrame and uproot are in neither: uproot (columnar, like bulk I/O) is judged, RDataFrame (per "
    "event, through TTreeReader) reported."
)
_PAPER["event_size"] = (
    '"Optimizing ROOT IO For Analysis" (400 MB at 40 B to 4 MB per event): "decompression time is '
    "roughly consistent across event size, other CPU costs come to dominate as the event size "
    'decreases"; overheads "first become measurable" below one kilobyte per event.'
)
_PAPER["unzip"] = (
    '"Optimizing ROOT IO For Analysis": "Parallel unzipping takes 52% - 58% processing time of serial '
    'unzipping", for "8% - 13% more CPU cycles" (4-core desktop).'
)
_PAPER["skim"] = (
    'ROOT 6.40 (PR root-project/root#21753, release notes): TTree "branches of type ROOT::RVec where many '
    '(if not all) of the collections are empty are compressed better with ZLIB than with ZSTD" (no '
    "numbers given); Snapshot's TTree default went back to ZLIB-1."
)
# The BulkIO talk's and "Optimizing ROOT IO For Analysis"' claims on ROOT's bulk read and on entry offsets (ROOT's
# kGenerateOffsetMap, root-project/root#1003), each a topic of its own with the margin it is judged at.
_PAPER["bulk_io"] = (
    '"LZ4, BulkIO, and offset removal performance" (2017): BulkIO is "an order of magnitude faster than '
    'GetEntry, especially with LZ4"; "Optimizing ROOT IO For Analysis" (Figure 1): bulk APIs up to 10x the '
    'events per second of GetEntry, the gain "almost entirely washed out by deflate (ZLIB)". Judged: TTree bulk '
    "/ GetEntry at least 10x at LZ4 and uncompressed, below 2x at ZLIB."
)
_PAPER["offsets_size"] = (
    '"LZ4, BulkIO, and offset removal performance" (2017; ROOT\'s offset removal, root-project/root#1003): '
    '"unnecessary offsets add ~10 % to file size". Judged: the stored offsets 5-20 % of the file (a factor of 2 '
    "around 10 %)."
)
_PAPER["offsets_counts"] = (
    '"LZ4, BulkIO, and offset removal performance" (2017): "counts compress better than offsets, especially '
    "for LZ4\". Judged: the counters' compression ratio above the offsets' by more than 10 %, and that advantage "
    "larger at LZ4 than at any other algorithm by more than 10 %."
)
# From the note's conclusion (the ATLAS note, section 3).
_PAPER["branch_compression"] = (
    'The ATLAS note, section 3: "Further studies with branch specific settings ... should be done for '
    "the largest N (e.g. 10) branches, which could lead to further compression and reading "
    'speed improvements." Judged: the hot branches fast and the rest small beats the uniform '
    "settings (no uniform point is both smaller and faster)."
)
_PAPER["float_precision"] = (
    "ATLAS float compression (ATLAS derivation practice): an optional mantissa truncation (7 or 15 bits "
    "kept) for some DAOD_PHYS variables; RNTuple stores truncated floats in fewer bits. Judged: "
    "every lossy file smaller than the full one, and no variable loses more than half a unit in "
    "the last kept mantissa bit (relative error <= 2^-(N+1))."
)
# Bulk (columnar) reading "an order of magnitude" faster than GetEntry without deflate (the BulkIO talk and
# "Optimizing ROOT IO For Analysis"): judged as at least this factor for LZ4 and uncompressed files, and less than
# it for ZLIB ("washed out").
_BULK_GAIN = 2.0
# ROOT's own bulk read (reading_style bulk) against GetEntry, as the BulkIO talk and "Optimizing ROOT IO For
# Analysis" state it: "an order of magnitude", "up to 10x" at LZ4 and uncompressed (at least this factor), the
# difference "almost entirely washed out" at ZLIB (below this one: a gain of less than 2x is what is left of 10x).
_BULK_SEED_GAIN = 10.0
_WASHED_OUT_GAIN = 2.0
# "Unnecessary offsets add ~10 % to file size": the stored offsets' share of the file within a factor of 2 of 10 %.
_OFFSETS_SHARE = (0.05, 0.20)
# "Counts compress better than offsets": the counters' compression ratio against the offsets', whose compressed
# bytes are a difference of two files' baskets (data and offsets compressed together), taken to within this.
_COUNTS_MARGIN = 0.10
# Parallel unzip: the 52-58 % of the serial time in "Optimizing ROOT IO For Analysis" is a 1.7-1.9x speed-up on
# 4 cores; on 2 cores "agrees" needs at least this speed-up against the serial read.
_UNZIP_GAIN = 1.5
# "Crucial": the cache at least doubles the rate on every remote profile that adds latency.
_CRUCIAL_GAIN = 2.0
# The paper's format with "very small events", for which it calls ZLIB "a very interesting choice".
_SMALL_EVENT_FORMATS = ("truth3",)


@dataclass
class Finding:
    format: str
    topic: str
    measured: str
    paper: str
    agrees: str  # "yes", "partly", "no", "cannot tell" or "n/a" (nothing valid to compare)


FINDING_COLUMNS = ["format", "topic", "measured", "paper", "agrees"]


# ---- Claims and verdicts ----------------------------------------------------------------------------------------


def word(judgement: Judgement) -> str:
    """A judged claim as the agrees column says it: yes, no or cannot tell."""
    return {True: YES, False: NO}.get(judgement.supported, CANNOT_TELL)


def _claim_equal(ratio: Ratio) -> Judgement:
    """Two rates equal (``ratio`` = a / b): supported where the 95 % interval lies within ±EQUAL_MARGIN,
    contradicted only where it lies wholly outside it."""
    return ratio.judge_equal(EQUAL_MARGIN)


def _claim_faster(ratio: Ratio) -> Judgement:
    """a faster than b by a gain worth the name: supported where the interval lies above 1 + EQUAL_MARGIN,
    contradicted where it lies at or below it (slower, or a gain within the margin)."""
    return ratio.judge_above(1 + EQUAL_MARGIN)


def _claim_not_slower(ratio: Ratio) -> Judgement:
    """a at least as fast as b: supported where the interval lies above 1 / (1 + EQUAL_MARGIN) (faster, or equal
    within the margin), contradicted where it lies wholly below it."""
    return ratio.judge_above(1 / (1 + EQUAL_MARGIN))


def _claim_at_least(ratio: Ratio, factor: float) -> Judgement:
    """A gain of at least ``factor``: supported with the whole interval above it, contradicted with the whole
    interval below it."""
    return ratio.judge_above(factor)


def _claim_below(ratio: Ratio, factor: float) -> Judgement:
    """A gain below ``factor``: the reverse of ``claim_at_least``."""
    return ratio.judge_below(factor)


def _equal_rates(ratio: Ratio) -> str:
    return word(_claim_equal(ratio))


def faster(ratio: Ratio) -> str:
    return word(_claim_faster(ratio))


def _not_slower(ratio: Ratio) -> str:
    return word(_claim_not_slower(ratio))


def _at_least(ratio: Ratio, factor: float) -> str:
    return word(_claim_at_least(ratio, factor))


def below(ratio: Ratio, factor: float) -> str:
    return word(_claim_below(ratio, factor))


class Claims:
    """The rate claims of one topic, settled together (intervals.Family): a "no" stands only where it survives Holm's
    adjustment over the topic's rate claims, so that a topic of many comparisons is not contradicted by one of
    them by chance; a "yes" needs its own interval. ``mark`` adds a claim and returns a mark to put in the text
    where its verdict goes; ``fill`` writes the settled verdicts in; ``verdicts`` lists them. Exact claims (file
    sizes) are added as their word and pass through unchanged."""

    _MARK = "\x00claim{}\x00"

    def __init__(self) -> None:
        self._family = Family()
        self._claims: list[int | str] = []  # a family index, or an exact verdict

    def mark(self, claim: Judgement | str) -> str:
        self._claims.append(self._family.add(claim) if isinstance(claim, Judgement) else claim)
        return self._MARK.format(len(self._claims) - 1)

    def verdicts(self) -> list[str]:
        settled = self._family.settled()
        return [word(settled[c]) if isinstance(c, int) else c for c in self._claims]

    def fill(self, text: str) -> str:
        verdicts = self.verdicts()
        for i, verdict in enumerate(verdicts):
            text = text.replace(self._MARK.format(i), verdict)
        if self.taken_back():
            text += (
                f' ({self.taken_back()} "no" at its own 95 % interval not kept after the adjustment for the '
                f"{len(self._family)} rate comparisons of this topic, Holm)"
            )
        return text

    def taken_back(self) -> int:
        return self._family.unadjusted_contradictions() - sum(
            j.supported is False for j in self._family.settled()
        )


def overall(verdicts: Iterable[str]) -> str:
    """A topic's verdict from its sub-claims': YES when all hold, PARTLY when some hold and some fail (or a
    sub-claim is itself partly), NO when some fail and none holds, CANNOT_TELL when none fails and not all hold,
    NOT_APPLICABLE without any."""
    found = set(verdicts)
    if not found:
        return NOT_APPLICABLE
    if found == {YES}:
        return YES
    if PARTLY in found or {YES, NO} <= found:
        return PARTLY
    return NO if NO in found else CANNOT_TELL


def _repetitions(repetitions: Repetitions | None) -> Repetitions:
    return Repetitions() if repetitions is None else repetitions


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.0f} %" if abs(fraction) >= 0.1 else f"{100 * fraction:.1f} %"


_MARGIN_TEXT = f"±{100 * EQUAL_MARGIN:g} %"


def _quote(interval: Interval, unit: str) -> str:
    """A mean with its 95 % interval and n; says so where the value or its spread was not recorded."""
    if math.isnan(interval.mean):
        return "not recorded"
    if interval.n >= 2 and math.isnan(interval.spread):
        return f"{interval.mean:.3g} {unit} (no spread recorded, n = {interval.n})"
    return interval.text(unit)


def _rate(row: Mapping[str, Any], repetitions: Repetitions) -> str:
    return _quote(repetitions.interval(row, "event_rate_hz"), "Hz")


def _megabytes(interval: Interval) -> Interval:
    return replace(interval, mean=interval.mean / 1e6, spread=interval.spread / 1e6)


def _with_margin(ratio: Ratio) -> str:
    """A ratio judged for equality, with the smallest margin within which this run could have called it equal
    (``Ratio.resolvable_margin``): what to weigh a "cannot tell" by."""
    margin = ratio.resolvable_margin
    return f"{ratio.text()}, resolvable margin ±{_percent(margin)}" if margin == margin else ratio.text()


def _claims_text(claims: list[tuple[str, str, str]]) -> str:
    """Sub-claims as "name: verdict (evidence)"."""
    return ", ".join(f"{name}: {verdict} ({evidence})" for name, verdict, evidence in claims)


def _highest(rows: pd.DataFrame) -> pd.Series:
    """The point with the highest mean rate: the reference of a comparison, not a verdict."""
    return rows.loc[rows["event_rate_hz_mean"].idxmax()]


def _same_point(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return point_key(a) == point_key(b)


def _setting(row: Mapping[str, Any]) -> str:
    return f"{row['algorithm']}-{int(row['level'])}"


# The most points named as not resolved from the fastest (the rest counted).
_UNRESOLVED_NAMED = 5


def _best_text(best, rows: pd.DataFrame, repetitions: Repetitions, label) -> str:
    """The fastest point by mean with its rate, and the points whose rate ratio to it holds 1 (not resolved)."""
    tied = [
        label(r)
        for _, r in rows.iterrows()
        if not _same_point(r, best) and repetitions.ratio(r, best).direction not in (HIGHER, LOWER)
    ]
    text = f"{label(best)} ({_rate(best, repetitions)})"
    if tied:
        more = f" and {len(tied) - _UNRESOLVED_NAMED} more" if len(tied) > _UNRESOLVED_NAMED else ""
        text += f"; not resolved from it: {', '.join(tied[:_UNRESOLVED_NAMED])}{more}"
    return text


# ---- The paper's topics (section 3.1) ---------------------------------------------------------------------------


def compression(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """The compression scan: the fastest point by mean (and the fastest compressed one), the smallest file, and
    the paper's claims one by one:
    - "LZ4 fastest" ("best for fast reading"): the fastest LZ4 point against the fastest ZLIB or LZMA point,
      ``claim_not_slower``: no other algorithm reads faster by more than the margin;
    - "LZMA smallest": the smallest file of the three algorithms is LZMA's (sizes: exact);
    - for the formats with very small events (SMALL_EVENT_FORMATS), "ZLIB sized like LZMA": ZLIB's median file
      size over its levels nearer to LZMA's than to LZ4's (exact), and "ZLIB reads like LZ4": the fastest ZLIB
      point against the fastest LZ4 point, ``equal_rates``.
    The verdict: ``overall`` of the claims that could be checked."""
    repetitions = _repetitions(repetitions)
    fastest = _highest(rows)
    smallest = rows.loc[rows["size_bytes"].idxmin()]
    measured = f"fastest by mean: {_best_text(fastest, rows, repetitions, _setting)}"
    compressed = rows[rows["algorithm"] != UNCOMPRESSED]
    if fastest["algorithm"] == UNCOMPRESSED and len(compressed):
        fastest_compressed = _highest(compressed)
        measured += (
            f"; fastest compressed: {_setting(fastest_compressed)} ({_rate(fastest_compressed, repetitions)})"
        )
    measured += f"; smallest: {_setting(smallest)} ({smallest['size_bytes'] / 1e6:.1f} MB)"
    paper_algs = compressed[compressed["algorithm"].isin(["lz4", "zlib", "lzma"])]
    by_alg = {a: g for a, g in paper_algs.groupby("algorithm")}
    claims, family = [], Claims()
    if "lz4" in by_alg and len(by_alg) > 1:
        lz4, other = _highest(by_alg["lz4"]), _highest(paper_algs[paper_algs["algorithm"] != "lz4"])
        ratio = repetitions.ratio(lz4, other)
        claims.append(
            (
                f"LZ4 fastest (none faster by more than {_MARGIN_TEXT})",
                family.mark(_claim_not_slower(ratio)),
                f"{_setting(lz4)} against {_setting(other)}: {ratio.text()}",
            )
        )
    if "lzma" in by_alg and len(by_alg) > 1:
        least = paper_algs.loc[paper_algs["size_bytes"].idxmin()]
        claims.append(
            (
                "LZMA smallest",
                family.mark(YES if least["algorithm"] == "lzma" else NO),
                f"{_setting(least)}, {least['size_bytes'] / 1e6:.1f} MB",
            )
        )
    if fmt in _SMALL_EVENT_FORMATS and {"lz4", "zlib", "lzma"} <= set(by_alg):
        size = {a: g["size_bytes"].median() for a, g in by_alg.items()}
        like_lzma = abs(size["zlib"] - size["lzma"]) < abs(size["zlib"] - size["lz4"])
        claims.append(
            (
                "ZLIB sized like LZMA",
                family.mark(YES if like_lzma else NO),
                "median sizes: "
                + ", ".join(f"{a.upper()} {size[a] / 1e6:.1f} MB" for a in ("lz4", "zlib", "lzma")),
            )
        )
        zlib, lz4 = _highest(by_alg["zlib"]), _highest(by_alg["lz4"])
        ratio = repetitions.ratio(zlib, lz4)
        claims.append(
            (
                f"ZLIB reads like LZ4 (within {_MARGIN_TEXT})",
                family.mark(_claim_equal(ratio)),
                f"{_setting(zlib)} against {_setting(lz4)}: {_with_margin(ratio)}",
            )
        )
    if not claims:
        return Finding(fmt, "compression", measured, _PAPER["compression"], NOT_APPLICABLE)
    measured = family.fill(measured + "; " + _claims_text(claims))
    return Finding(fmt, "compression", measured, _PAPER["compression"], overall(family.verdicts()))


def autoflush(
    rows: pd.DataFrame,
    fmt: str,
    default_algorithm: str,
    default_autoflush: int,
    repetitions: Repetitions | None = None,
) -> Finding:
    """The AutoFlush scan at the format's default algorithm, clusters as written (events per cluster, read back:
    byte-based and disabled AutoFlush resolve to real event counts). The best rate by mean; the plateau starts at
    the smallest cluster at least as fast as the best (``not_slower``: within ±EQUAL_MARGIN); its reader memory
    (RSS increase, with its interval) beside the smallest cluster's. The default is "on the plateau" where
    ``not_slower`` against the best holds, "below" where it fails, else cannot tell. The paper: 100 events is on
    the plateau for the primary xAOD, 10 MB is below it for every derivation (large and very small events alike);
    yes where the run finds what the paper says, no where it finds the opposite, cannot tell where it cannot."""
    repetitions = _repetitions(repetitions)
    rows = rows[rows["algorithm"] == default_algorithm]
    if rows.empty:
        return Finding(
            fmt,
            "autoflush",
            f"no {default_algorithm} points in the AutoFlush scan",
            _PAPER["autoflush"],
            NOT_APPLICABLE,
        )
    rows = rows.assign(events_per_cluster=rows["events"] / rows["clusters"].clip(lower=1)).sort_values(
        ["events_per_cluster", "autoflush"]
    )
    best = _highest(rows)

    def against_best(row) -> tuple[str, Ratio | None]:
        if _same_point(row, best):
            return YES, None
        ratio = repetitions.ratio(row, best)
        return _not_slower(ratio), ratio

    standing = [against_best(r) for _, r in rows.iterrows()]
    start = next(i for i, (verdict, _) in enumerate(standing) if verdict == YES)
    plateau, smallest = rows.iloc[start], rows.iloc[0]
    undecided = [
        autoflush_label(r["autoflush"])
        for (v, _), (_, r) in zip(standing[:start], rows.iloc[:start].iterrows(), strict=True)
        if v == CANNOT_TELL
    ]
    memory = [
        _quote(_megabytes(repetitions.interval(r, "rss_increase_bytes")), "MB") for r in (plateau, smallest)
    ]
    measured = (
        f"{default_algorithm}: best by mean {autoflush_label(best['autoflush'])} ({_rate(best, repetitions)}); "
        f"plateau (at least as fast as the best within {_MARGIN_TEXT}) from "
        f"{autoflush_label(plateau['autoflush'])} (~{plateau['events_per_cluster']:.0f} events/cluster, "
        f"{_rate(plateau, repetitions)})"
    )
    if undecided:
        measured += f", or from a smaller cluster: cannot tell at {', '.join(undecided)}"
    measured += f"; reader memory increase {memory[0]}"
    if not _same_point(plateau, smallest):
        measured += f", against {memory[1]} at {autoflush_label(smallest['autoflush'])}"
    default = rows[rows["autoflush"] == default_autoflush]
    if default.empty:
        return Finding(fmt, "autoflush", measured, _PAPER["autoflush"], NOT_APPLICABLE)
    verdict, ratio = against_best(default.iloc[0])
    where = {YES: "on the plateau", NO: "below the plateau"}.get(
        verdict, "cannot tell whether on the plateau"
    )
    measured += f"; the default {autoflush_label(default_autoflush)}: {where}"
    if ratio is not None:
        measured += f" ({_with_margin(ratio)}, against the best)"
    # The paper: on the plateau for the primary xAOD, below it for the derivations.
    agrees = verdict if base_format(fmt) == "xaod" else {YES: NO, NO: YES}.get(verdict, CANNOT_TELL)
    return Finding(fmt, "autoflush", measured, _PAPER["autoflush"], agrees)


def split(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """The split scan: the fastest point by mean and the smallest file. The paper's claim for split 0, in two
    parts: the smallest file (exact, within 0.1 %), and reading at least as fast as the fastest other split level
    (``not_slower``). The verdict: ``overall`` of the two; n/a without split 0 and another level."""
    repetitions = _repetitions(repetitions)
    best = _highest(rows)
    smallest = rows.loc[rows["size_bytes"].idxmin()]

    def label(r):
        return f"split {int(r['split_level'])}"

    measured = (
        f"fastest by mean: {_best_text(best, rows, repetitions, label)}; smallest: "
        f"{label(smallest)} ({smallest['size_bytes'] / 1e6:.1f} MB)"
    )
    zero, others = rows[rows["split_level"] == 0], rows[rows["split_level"] != 0]
    if zero.empty or others.empty:
        return Finding(fmt, "split", measured, _PAPER["split"], NOT_APPLICABLE)
    zero, other = zero.iloc[0], _highest(others)
    small = YES if zero["size_bytes"] <= smallest["size_bytes"] * 1.001 else NO
    ratio = repetitions.ratio(zero, other)
    fast = _not_slower(ratio)
    claims = [
        ("split 0 smallest", small, f"{zero['size_bytes'] / 1e6:.1f} MB"),
        ("split 0 at least as fast", fast, f"against {label(other)}: {_with_margin(ratio)}"),
    ]
    return Finding(
        fmt, "split", measured + "; " + _claims_text(claims), _PAPER["split"], overall([small, fast])
    )


def cache(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """The TTreeCache scan (learning phase at ROOT's default where the scan has it): the best rate by mean, the
    smallest explicit size (bytes > 0) at least as fast as the best (``not_slower``), the rates of "off" and of
    -1, and the share of the reads served from the cache's learning phase (summary.csv's cache_learning_share,
    where recorded). The paper's "-1 is as good as the best": -1 against the fastest other setting, ``not_slower``
    (equal within ±EQUAL_MARGIN, or faster); n/a without -1 and another setting."""
    repetitions = _repetitions(repetitions)
    if "default" in set(rows["learn_entries"].astype(str)):
        rows = rows[rows["learn_entries"].astype(str) == "default"]
    best = _highest(rows)

    def label(r):
        return cache_label(int(r["cache_size"]))

    parts = [f"best by mean: {_best_text(best, rows, repetitions, label)}"]
    explicit = rows[rows["cache_size"] > 0].sort_values("cache_size")
    reach = [
        r
        for _, r in explicit.iterrows()
        if _same_point(r, best) or _not_slower(repetitions.ratio(r, best)) == YES
    ]
    parts.append(
        f"smallest size on the plateau (at least as fast as the best within {_MARGIN_TEXT}): {label(reach[0])}"
        if reach
        else "no explicit size reaches the plateau"
    )
    for size in (0, -1):
        r = rows[rows["cache_size"] == size]
        if len(r):
            parts.append(f"{cache_label(size)}: {_rate(r.iloc[0], repetitions)}")
    if "cache_learning_share_mean" in rows:
        # What the scan measures of the cache at steady state (grid.cache_learning_entries): the reads' share served
        # from the learning phase, as the reader recorded it (the same at every repetition of a point).
        share = rows["cache_learning_share_mean"].dropna()
        if len(share):
            lo, hi = share.min(), share.max()
            span = _percent(lo) if lo == hi else f"{_percent(lo)}-{_percent(hi)}"
            parts.append(f"learning phase {span} of each read with a cache")
    auto, others = rows[rows["cache_size"] == -1], rows[rows["cache_size"] != -1]
    if auto.empty or others.empty:
        return Finding(fmt, "cache", "; ".join(parts), _PAPER["cache"], NOT_APPLICABLE)
    other = _highest(others)
    ratio = repetitions.ratio(auto.iloc[0], other)
    verdict = _not_slower(ratio)
    parts.append(f"-1 as good as the best: {verdict} (against {label(other)}: {_with_margin(ratio)})")
    return Finding(fmt, "cache", "; ".join(parts), _PAPER["cache"], verdict)


def threads(
    rows: pd.DataFrame, fmt: str, cores: int | None, repetitions: Repetitions | None = None
) -> Finding:
    """The threads scan, per algorithm: the rate at the most threads against 1 thread, and whether that
    oversubscribed the machine. The paper: every algorithm gains for the primary xAOD; for the derivations only
    LZMA gains. A gain is ``faster`` (the interval above 1); "does not gain" is ``not_slower`` of 1 thread
    against the most (any gain within ±EQUAL_MARGIN). The verdict: ``overall`` over the algorithms."""
    repetitions = _repetitions(repetitions)
    parts, family = [], Claims()
    for alg, group in rows.groupby("algorithm"):
        one = group[group["threads"] == 1]
        most = group.loc[group["threads"].idxmax()]
        if one.empty or most["threads"] == 1:
            continue
        one = one.iloc[0]
        ratio = repetitions.ratio(most, one)
        gains = base_format(fmt) == "xaod" or alg == "lzma"  # what the paper says
        verdict = family.mark(
            _claim_faster(ratio) if gains else _claim_not_slower(repetitions.ratio(one, most))
        )
        over = " (oversubscribed)" if cores and most["threads"] > cores else ""
        claim = f"gains more than {_MARGIN_TEXT}" if gains else f"no gain beyond {_MARGIN_TEXT}"
        parts.append(
            f"{alg}: {int(most['threads'])} threads{over} give {ratio.text()} the 1-thread rate "
            f"({claim}: {verdict})"
        )
    if not parts:
        return Finding(fmt, "threads", "only 1 thread measured", _PAPER["threads"], NOT_APPLICABLE)
    return Finding(
        fmt, "threads", family.fill("; ".join(parts)), _PAPER["threads"], overall(family.verdicts())
    )


# ---- Beyond the paper: RNTuple and the remote cache -------------------------------------------------------------


def rntuple(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """The container scans, per compression setting and storage profile measured in both containers: RNTuple's
    file size and rate over TTree's (the same events, each at the format's other defaults;
    ``aggregate.container_ratios``). Against the published headline, per setting: "10-50 % smaller", the size
    ratio within 0.5-0.9 (exact), and "several times faster", ``at_least`` 2 (the interval at or above 2 is yes,
    entirely below 2 no). The verdict: ``overall`` of every setting's two claims."""
    ratios = container_ratios(rows, _repetitions(repetitions))
    if ratios.empty:
        return Finding(
            fmt,
            "rntuple",
            "no compression setting measured in both containers",
            _PAPER["rntuple"],
            NOT_APPLICABLE,
        )
    parts, family = [], Claims()
    for r in ratios.itertuples():
        rate = Ratio(
            r.rate_ratio,
            r.rate_ratio_low,
            r.rate_ratio_high,
            int(r.rate_ratio_n),
            bool(r.rate_ratio_paired),
            df=getattr(r, "rate_ratio_df", float("nan")),
            log_se=getattr(r, "rate_ratio_log_se", float("nan")),
        )
        smaller = family.mark(YES if 0.5 <= r.size_ratio <= 0.9 else NO)
        several = family.mark(_claim_at_least(rate, 2.0))
        parts.append(
            f"{r.algorithm}-{int(r.level)} ({r.storage_profile}): size {r.size_ratio:.2f}x (10-50 % smaller: "
            f"{smaller}), rate {rate.text()} (several times faster: {several})"
        )
    return Finding(
        fmt,
        "rntuple",
        family.fill("RNTuple / TTree: " + "; ".join(parts)),
        _PAPER["rntuple"],
        overall(family.verdicts()),
    )


def cluster_cache(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """RNTuple's cluster cache on against off per storage profile. ROOT's default is on: "yes" where on is at
    least as fast as off (``not_slower``) on every profile; ``overall`` over the profiles."""
    repetitions = _repetitions(repetitions)
    parts, family = [], Claims()
    for profile, group in rows.groupby("storage_profile"):
        on, off = group[group["cache_size"] == -1], group[group["cache_size"] == 0]
        if on.empty or off.empty:
            continue
        on, off = on.iloc[0], off.iloc[0]
        ratio = repetitions.ratio(on, off)
        verdict = family.mark(_claim_not_slower(ratio))
        parts.append(
            f"{profile}: on {_rate(on, repetitions)}, off {_rate(off, repetitions)}; on / off "
            f"{_with_margin(ratio)}; at least as fast: {verdict}"
        )
    if not parts:
        return Finding(
            fmt, "cluster_cache", "on and off not both measured", _PAPER["cluster_cache"], NOT_APPLICABLE
        )
    return Finding(
        fmt,
        "cluster_cache",
        family.fill("; ".join(parts)),
        _PAPER["cluster_cache"],
        overall(family.verdicts()),
    )


def _cpu_efficiency(row: Mapping[str, Any], repetitions: Repetitions) -> str:
    """The loop's CPU time over its wall time (the ATLAS CHEP study's measure): per repetition where the
    repetitions give both, matched by round, with the interval of its mean; else the ratio of the means, without
    one."""
    cpu, wall = repetitions.values(row, "loop_cpu_seconds"), repetitions.values(row, "loop_seconds")
    rounds = list(cpu.index)
    if len(cpu) >= 2 and None not in rounds and cpu.index.is_unique and rounds == list(wall.index):
        share = Interval.of(100 * cpu.to_numpy() / wall.to_numpy())
        return f"{share.mean:.0f} % (95 % CI {share.low:.0f}-{share.high:.0f} %, n = {share.n})"
    share = row.get("loop_cpu_seconds_mean", math.nan) / row.get("loop_seconds_mean", math.nan)
    return f"{share:.0%} (ratio of the means, no interval)" if share == share else "not recorded"


def _apart(a: Ratio, b: Ratio) -> str:
    """Whether gain a is larger than gain b: YES where their 95 % intervals do not overlap with a above, NO where
    they do not overlap with a below, CANNOT_TELL where they overlap (non-overlap: a conservative test)."""
    if a.low > b.high:
        return YES
    if a.high < b.low:
        return NO
    return CANNOT_TELL


def remote_cache(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """TTreeCache -1 against off per storage profile: the rate ratio, and the loop's CPU efficiency (the ATLAS CHEP
    study's measure: loop CPU / loop wall time). The 2019 ATLAS CHEP study, in two claims: "crucial" remotely,
    the ratio ``at_least`` CRUCIAL_GAIN on every profile that adds at least 1 ms of round-trip time; and it helps
    more there than on any local profile, each remote ratio's interval above each local one's (``_apart``). The
    verdict: ``overall`` of the two; n/a without a local and a remote profile with latency."""
    repetitions = _repetitions(repetitions)
    rows = rows[rows["container"] == TTREE] if "container" in rows else rows
    rows = rows[~rows.get("async_prefetch", pd.Series(False, index=rows.index)).fillna(False).astype(bool)]
    gains, parts = {}, []
    for profile, group in rows.groupby("storage_profile"):
        on, off = group[group["cache_size"] == -1], group[group["cache_size"] == 0]
        if on.empty or off.empty:
            continue
        on, off = on.iloc[0], off.iloc[0]
        ratio = repetitions.ratio(on, off)
        gains[profile] = (ratio, on.get("remote_rtt_ms_mean"))
        parts.append(
            f"{profile}: -1 {_rate(on, repetitions)}, off {_rate(off, repetitions)}, -1 / off "
            f"{ratio.text()}; CPU efficiency {_cpu_efficiency(on, repetitions)} against "
            f"{_cpu_efficiency(off, repetitions)}"
        )
    remote = {p: g for p, (g, rtt) in gains.items() if rtt is not None and rtt == rtt and rtt >= 1}
    local = {p: g for p, (g, rtt) in gains.items() if rtt is None or rtt != rtt}
    if not parts:
        return Finding(
            fmt, "remote_cache", "cache -1 and off not both measured", _PAPER["remote_cache"], NOT_APPLICABLE
        )
    if not remote or not local:
        return Finding(
            fmt,
            "remote_cache",
            "; ".join(parts) + " (needs a local and a remote profile with latency)",
            _PAPER["remote_cache"],
            NOT_APPLICABLE,
        )
    family = Claims()
    for g in remote.values():
        family.mark(_claim_at_least(g, _CRUCIAL_GAIN))
    crucial = overall(family.verdicts())
    larger = overall(_apart(r, lo) for r in remote.values() for lo in local.values())
    claims = [
        (f"crucial remotely (at least {_CRUCIAL_GAIN:g}x with latency)", crucial, ", ".join(remote)),
        ("more than locally (intervals apart)", larger, f"{', '.join(remote)} against {', '.join(local)}"),
    ]
    return Finding(
        fmt,
        "remote_cache",
        family.fill("; ".join(parts) + "; " + _claims_text(claims)),
        _PAPER["remote_cache"],
        overall([crucial, larger]),
    )


# ---- The related studies ---------------------------------------------------------------------------------------


def _verdict(fmt: str, topic: str, parts: list[str], verdicts: list[str] | Claims, nothing: str) -> Finding:
    """A topic's finding from its comparisons' verdicts (``overall``; a topic's ``Claims`` settled together first);
    NOT_APPLICABLE, saying ``nothing``, when nothing could be compared."""
    measured = "; ".join(parts)
    if isinstance(verdicts, Claims):
        measured, verdicts = verdicts.fill(measured), verdicts.verdicts()
    if not verdicts:
        return Finding(fmt, topic, measured or nothing, _PAPER[topic], NOT_APPLICABLE)
    return Finding(fmt, topic, measured, _PAPER[topic], overall(verdicts))


def access(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """The 2019 ATLAS CHEP study's branch-wise against class-wise question: for each selection and cluster size,
    the rate at the highest split level (each variable its own branch) against split 0 (the whole container's
    branch). Judged for the partial selections (analysis, sparse, a list of variables): branch-wise ``faster``;
    the full read is reported. The verdict: ``overall`` over the partial selections."""
    repetitions = _repetitions(repetitions)
    parts, family = [], Claims()
    for (selection, autoflush_), group in rows.groupby(["branches", "autoflush"], sort=True):
        partial = selection in ("analysis", "sparse") or str(selection).startswith("vars:")
        split0, split_hi = group[group["split_level"] == 0], group[group["split_level"] > 0]
        if not (partial or selection == "all") or split0.empty or split_hi.empty:
            continue
        branchwise, classwise = split_hi.sort_values("split_level").iloc[-1], split0.iloc[0]
        ratio = repetitions.ratio(branchwise, classwise)
        text = (
            f"{selection}, AutoFlush {autoflush_label(int(autoflush_))}: split "
            f"{int(branchwise['split_level'])} {_rate(branchwise, repetitions)} against split 0 "
            f"{_rate(classwise, repetitions)}: {ratio.text()}"
        )
        if partial:
            text += f" (branch-wise faster by more than {_MARGIN_TEXT}: {family.mark(_claim_faster(ratio))})"
        else:
            text += " (reported, not judged)"
        parts.append(text)
    return _verdict(fmt, "access", parts, family, "no partial selection at split 0 and split > 0")


def reading_style(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """The reading styles of the BulkIO talk and "Optimizing ROOT IO For Analysis": each style's rate and CPU per
    event against TTree::GetEntry with one thread, per selection and compression setting. uproot (columnar, their
    bulk reading) is judged: on LZ4 or uncompressed files its rate ratio ``at_least`` BULK_GAIN, on ZLIB ``below``
    it ("washed out"); other algorithms and RDataFrame (per event) are reported only. The verdict: ``overall`` of
    the judged."""
    repetitions = _repetitions(repetitions)
    parts, family = [], Claims()
    for (selection, alg, level), group in rows.groupby(["branches", "algorithm", "level"], sort=True):
        base = group[(group["reading_style"] == "getentry") & (group["threads"] == 1)]
        if base.empty:
            continue
        base = base.iloc[0]
        base_cpu = _quote(repetitions.interval(base, "loop_cpu_us_per_event"), "µs")
        for _, row in group.sort_values(["reading_style", "threads"]).iterrows():
            if _same_point(row, base):
                continue
            ratio = repetitions.ratio(row, base)
            cpu = _quote(repetitions.interval(row, "loop_cpu_us_per_event"), "µs")
            text = (
                f"{selection}, {alg}-{int(level)}: {reading_style_label(row['reading_style'], row['threads'])} "
                f"{_rate(row, repetitions)}, {ratio.text()} GetEntry's {_rate(base, repetitions)}; CPU per "
                f"event {cpu} against {base_cpu}"
            )
            if row["reading_style"] == "uproot" and alg in ("lz4", "none", "zlib"):
                lz4_like = alg != "zlib"
                verdict = family.mark(
                    _claim_at_least(ratio, _BULK_GAIN) if lz4_like else _claim_below(ratio, _BULK_GAIN)
                )
                text += f" ({'at least' if lz4_like else 'less than'} {_BULK_GAIN:g}x: {verdict})"
            parts.append(text)
    return _verdict(fmt, "reading_style", parts, family, "GetEntry and uproot not both measured")


def unzip(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """Parallel unzipping, as in "Optimizing ROOT IO For Analysis", per compression setting: the serial read (1
    thread, unzip off), implicit MT alone (the most threads, unzip off: branch-parallel GetEntry) and with
    parallel unzip (unzip on), with the CPU each costs against the serial read (a ratio of loop CPU times, with
    its interval). Judged: parallel unzip's rate ratio to the serial read ``at_least`` UNZIP_GAIN. The verdict:
    ``overall`` of the settings."""
    repetitions = _repetitions(repetitions)
    parts, family = [], Claims()
    for (alg, level), group in rows.groupby(["algorithm", "level"], sort=True):
        on = group["unzip"].astype(bool)
        serial = group[~on & (group["threads"] == 1)]
        top = group["threads"].max()
        mt, both = group[~on & (group["threads"] == top)], group[on & (group["threads"] == top)]
        if serial.empty or both.empty or top == 1:
            continue
        serial, both = serial.iloc[0], both.iloc[0]
        ratio = repetitions.ratio(both, serial)
        verdict = family.mark(_claim_at_least(ratio, _UNZIP_GAIN))
        text = (
            f"{alg}-{int(level)}: serial {_rate(serial, repetitions)}, {int(top)} threads + parallel unzip "
            f"{_rate(both, repetitions)}: {ratio.text()} (at least {_UNZIP_GAIN:g}x: {verdict}), CPU "
            f"{repetitions.ratio(both, serial, 'loop_cpu_seconds').text()} the serial read's"
        )
        if not mt.empty:
            text += (
                f"; {int(top)} threads alone {_rate(mt.iloc[0], repetitions)}: "
                f"{repetitions.ratio(mt.iloc[0], serial).text()}"
            )
        parts.append(text)
    return _verdict(
        fmt, "unzip", parts, family, "the serial read and parallel unzip with > 1 thread not both measured"
    )


def skim(rows: pd.DataFrame, fmt: str) -> Finding:
    """The mostly-empty-collections claim: ZLIB's compression ratio against ZSTD's on this format, for ROOT's two
    defaults (ZLIB-1, Snapshot's TTree default, against ZSTD-5, RNTuple's) and at every level measured with
    both. Compression ratios are exact (one file each): yes when ZLIB's is the higher in every comparison,
    partly in some, no in none."""
    files = rows.drop_duplicates("file_id").assign(level=lambda f: f["level"].astype(int))
    ratio = {
        (a, lv): r
        for a, lv, r in zip(files["algorithm"], files["level"], files["compression_ratio"], strict=True)
    }
    pairs = (
        [((("zlib", 1), ("zstd", 5)), "ZLIB-1 against ZSTD-5")]
        if ("zlib", 1) in ratio and ("zstd", 5) in ratio
        else []
    )
    pairs += [
        ((("zlib", lv), ("zstd", lv)), f"level {lv}")
        for lv in sorted({lv for _, lv in ratio})
        if ("zlib", lv) in ratio and ("zstd", lv) in ratio
    ]
    parts = (
        [
            "compression ratio (ZLIB against ZSTD), "
            + "; ".join(f"{what}: {ratio[z]:.3f} against {ratio[s]:.3f}" for (z, s), what in pairs)
        ]
        if pairs
        else []
    )
    verdicts = [YES if ratio[z] > ratio[s] else NO for (z, s), _ in pairs]
    return _verdict(fmt, "skim", parts, verdicts, "ZLIB and ZSTD not both measured")


# ---- The related studies' bulk-read and offsets claims ---------------------------------------------------------

# Every file setting but the offsets: two files that differ in nothing else are a stored/generated pair.
_OTHER_FILE_SETTINGS = (
    "container",
    "algorithm",
    "level",
    "autoflush",
    "split_level",
    "basket_size",
    "page_size",
    "branch_compression",
    "float_precision",
)
# Every read setting but the reading style: a bulk read and a GetEntry read that differ in nothing else are a pair.
_OTHER_READ_SETTINGS = (
    "branches",
    "storage_profile",
    "cache_size",
    "learn_entries",
    "cluster_bunch",
    "async_prefetch",
    "unzip",
)


def _offsets(rows: pd.DataFrame) -> pd.Series:
    """The offsets setting of each row; "stored" (ROOT's default) where the tables predate the setting."""
    default = LATER_FILE_KEY_DEFAULTS["offsets"]
    if "offsets" not in rows:
        return pd.Series(default, index=rows.index)
    return rows["offsets"].fillna(default).astype(str)


def _present(rows: pd.DataFrame, keys: Iterable[str]) -> list[str]:
    return [k for k in keys if k in rows]


def _setting_text(row: Mapping[str, Any]) -> str:
    container = CONTAINER_LABELS.get(row.get("container", TTREE), row.get("container", TTREE))
    return f"{container} {_setting(row)}"


def bulk_io(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """ROOT's bulk read against TTree::GetEntry (one thread), per container, selection, compression setting, storage
    profile and offsets setting: the bulk style's rate over GetEntry's, paired by round where both were measured in
    the same rounds, with its 95 % interval and n, beside both rates with theirs. The related studies' claims,
    judged on TTree files with stored offsets: on LZ4 and uncompressed files the ratio ``at_least`` BULK_SEED_GAIN
    ("an order of magnitude", "up to 10x"); on ZLIB ``below`` WASHED_OUT_GAIN ("almost entirely washed out"). Other
    algorithms, RNTuple's bulk read (against its views) and files with generated offsets are reported. The rate
    claims are settled together (``Claims``, Holm); the verdict: ``overall`` of the judged."""
    repetitions = _repetitions(repetitions)
    rows = rows.assign(offsets=_offsets(rows))
    keys = _present(rows, ("container", "algorithm", "level", "offsets", *_OTHER_READ_SETTINGS))
    parts, family = [], Claims()
    for _, group in rows.groupby(keys, sort=True, dropna=False):
        base = group[(group["reading_style"] == "getentry") & (group["threads"] == 1)]
        bulk = group[group["reading_style"] == "bulk"]
        if base.empty or bulk.empty:
            continue
        base, bulk = base.iloc[0], bulk.iloc[0]
        ratio = repetitions.ratio(bulk, base)
        generated = bulk["offsets"] != LATER_FILE_KEY_DEFAULTS["offsets"]
        text = (
            f"{_setting_text(bulk)}, {bulk['branches']}{', offsets generated' if generated else ''}: bulk "
            f"{_rate(bulk, repetitions)}, GetEntry {_rate(base, repetitions)}; bulk / GetEntry {ratio.text()}"
        )
        alg = bulk["algorithm"]
        if bulk.get("container", TTREE) != TTREE or generated or alg not in ("lz4", UNCOMPRESSED, "zlib"):
            text += " (reported, not judged)"
        elif alg == "zlib":
            verdict = family.mark(_claim_below(ratio, _WASHED_OUT_GAIN))
            text += f" (washed out, below {_WASHED_OUT_GAIN:g}x: {verdict})"
        else:
            verdict = family.mark(_claim_at_least(ratio, _BULK_SEED_GAIN))
            text += f" (at least {_BULK_SEED_GAIN:g}x: {verdict})"
        parts.append(text)
    return _verdict(
        fmt,
        "bulk_io",
        parts,
        family,
        "TTree::GetEntry and the bulk style not both measured on the same file and read",
    )


def _offsets_pairs(rows: pd.DataFrame) -> list[tuple[pd.Series, pd.Series]]:
    """(stored, generated) file rows of the same other file settings, one row per file, in setting order."""
    files = rows.assign(offsets=_offsets(rows)).drop_duplicates(["format", "file_id"])
    keys = _present(files, _OTHER_FILE_SETTINGS)
    pairs = []
    for _, group in files.groupby(keys, sort=True, dropna=False):
        stored = group[group["offsets"] == LATER_FILE_KEY_DEFAULTS["offsets"]]
        generated = group[group["offsets"] != LATER_FILE_KEY_DEFAULTS["offsets"]]
        if len(stored) and len(generated):
            pairs.append((stored.iloc[0], generated.iloc[0]))
    return pairs


def _offsets_rates(rows: pd.DataFrame, stored: Mapping, generated: Mapping, repetitions: Repetitions) -> str:
    """The rate with generated offsets over the rate with stored offsets, per read of both files (valid points
    only), with the 95 % interval and n of each: what rebuilding the offsets on read costs."""
    valid = rows[valid_points(rows) & rows["event_rate_hz_mean"].notna()]
    keys = _present(valid, ("reading_style", "threads", *_OTHER_READ_SETTINGS))
    texts = []
    for _, group in valid.groupby(keys, sort=True, dropna=False):
        a = group[group["file_id"] == generated["file_id"]]
        b = group[group["file_id"] == stored["file_id"]]
        if len(a) and len(b):
            a, b = a.iloc[0], b.iloc[0]
            texts.append(
                f"{reading_style_label(a['reading_style'], a['threads'])} ({a['branches']}) "
                f"{repetitions.ratio(a, b).text()}, generated {_rate(a, repetitions)}, stored {_rate(b, repetitions)}"
            )
    return "; rate, generated / stored: " + "; ".join(texts) if texts else "; no valid read of both files"


def offsets_size(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """The stored offsets' share of the file: per pair of files that differ only in their offsets (stored, ROOT's
    default, against generated on read: kGenerateOffsetMap), 1 - size(generated) / size(stored). The claim "~10 %
    of the file size", judged at a stated margin, a factor of 2 around it: yes where the share lies within
    OFFSETS_SHARE (5-20 %), no outside. File sizes are exact (one file each, the same events), so this claim has no
    "cannot tell". Beside each pair, the rate with generated offsets over the rate with stored ones per read (95 %
    interval and n, reported: rebuilding the offsets costs CPU on read). The verdict: ``overall`` of the pairs."""
    repetitions = _repetitions(repetitions)
    low, high = _OFFSETS_SHARE
    parts, verdicts = [], []
    for stored, generated in _offsets_pairs(rows):
        if not (stored["size_bytes"] > 0 and generated["size_bytes"] > 0):
            continue  # a file not catalogued: no size to compare
        share = 1 - generated["size_bytes"] / stored["size_bytes"]
        verdict = YES if low <= share <= high else NO
        parts.append(
            f"{_setting_text(stored)}: stored offsets {_percent(share)} of the file ({stored['size_bytes'] / 1e6:.2f} "
            f"MB, {generated['size_bytes'] / 1e6:.2f} MB with generated offsets; within "
            f"{_percent(low)}-{_percent(high)}: {verdict})"
            + _offsets_rates(rows, stored, generated, repetitions)
        )
        verdicts.append(verdict)
    return _verdict(
        fmt, "offsets_size", parts, verdicts, "no file written with both stored and generated offsets"
    )


def offsets_counts(rows: pd.DataFrame, fmt: str, repetitions: Repetitions | None = None) -> Finding:
    """Counts against offsets, per compressing algorithm of a stored/generated pair (``_offsets_pairs``): the
    counters' compression ratio (files.csv's counter_tot_bytes / counter_zip_bytes: one count per entry, as ROOT
    stores ``nMuon``) against the offsets' (the counted arrays' uncompressed and compressed bytes that generating
    the offsets removes: counted_*_bytes of the stored file minus the generated file's). The offsets' bytes are the
    difference of two files' baskets, which hold data and offsets compressed together: an attribution taken to
    ±COUNTS_MARGIN. Two claims, sizes only (a compression ratio has no repetitions, so no rate interval): "counts
    compress better", yes where the counters' ratio exceeds the offsets' by more than the margin, no where it falls
    short of it by more, cannot tell within; "especially for LZ4", yes where LZ4's advantage (counters' ratio over
    offsets') exceeds every other algorithm's by more than the margin, no where another's exceeds LZ4's by more,
    cannot tell otherwise (needs LZ4 and another algorithm). The verdict: ``overall`` of the two."""
    needed = ("counter_zip_bytes", "counter_tot_bytes", "counted_zip_bytes", "counted_tot_bytes")
    if not set(needed) <= set(rows.columns):
        why = "files.csv does not name the counters (an older catalogue)"
        return _verdict(fmt, "offsets_counts", [], [], why)
    advantage, parts = {}, []
    for stored, generated in _offsets_pairs(rows):
        alg = stored["algorithm"]
        if alg == UNCOMPRESSED or any(pd.isna(stored[k]) or pd.isna(generated[k]) for k in needed):
            continue
        raw = stored["counted_tot_bytes"] - generated["counted_tot_bytes"]
        packed = stored["counted_zip_bytes"] - generated["counted_zip_bytes"]
        if raw <= 0 or packed <= 0:
            parts.append(f"{_setting_text(stored)}: generating the offsets removed no bytes ({raw:.0f} raw)")
            continue
        offsets_ratio = raw / packed
        counts_ratio = stored["counter_tot_bytes"] / stored["counter_zip_bytes"]
        advantage[alg] = counts_ratio / offsets_ratio
        parts.append(
            f"{_setting_text(stored)}: counters' compression ratio {counts_ratio:.2f} "
            f"({stored['counter_zip_bytes'] / 1e6:.3f} MB), offsets' {offsets_ratio:.2f} ({packed / 1e6:.3f} MB of "
            f"{raw / 1e6:.3f} MB, {int(stored['counted_branches'])} counted arrays): {advantage[alg]:.2f}x"
        )
    if not advantage:
        return _verdict(
            fmt, "offsets_counts", parts, [], "no compressed stored/generated pair with counted arrays"
        )
    margin = 1 + _COUNTS_MARGIN

    def beyond(a: float, b: float) -> str:
        return YES if a > b * margin else NO if a * margin < b else CANNOT_TELL

    better = overall(beyond(x, 1.0) for x in advantage.values())
    claims = [(f"counts compress better (beyond ±{_percent(_COUNTS_MARGIN)})", better, "every algorithm")]
    verdicts = [better]
    others = {a: x for a, x in advantage.items() if a != "lz4"}
    if "lz4" in advantage and others:
        lz4 = advantage["lz4"]
        if any(beyond(x, lz4) == YES for x in others.values()):
            most = NO  # another algorithm's advantage is surely the larger
        else:
            most = YES if all(beyond(lz4, x) == YES for x in others.values()) else CANNOT_TELL
        claims.append(("especially for LZ4", most, f"against {', '.join(sorted(others))}"))
        verdicts.append(most)
    return _verdict(fmt, "offsets_counts", [*parts, _claims_text(claims)], verdicts, "")


def _uniform(row) -> bool:
    return str(row.get("branch_compression", "uniform")) in ("uniform", "nan")


def _size_and_rate(row: Mapping[str, Any]) -> dict[str, Any]:
    """What the size-rate front compares (decision.surely_beats): bytes per event, exact; no write cost here."""
    return {"bytes_per_event": row["size_bytes"] / row["events"], "write_core_us_per_event": None}


def branch_compression(
    rows: pd.DataFrame, fmt: str, others: pd.DataFrame | None = None, repetitions: Repetitions | None = None
) -> Finding:
    """Per-branch compression (the branch_compression scans): per read selection, each per-branch setting ("hot"
    branches at their own algorithm, the rest at the file's) against the uniform settings of the same read, by
    bytes per event (exact) and rate (intervals). ``others``: every valid uniform, lossless point of the format
    in the whole study (with a ``setting`` label), so that a uniform setting from another scan (another
    algorithm, AutoFlush, cache) on the same read and storage profile counts too. The claim, per hot point: no
    uniform point beats it on size and rate. "no" where one surely beats it (``decision.surely_beats`` at
    ±EQUAL_MARGIN: not larger, its rate not lower, and smaller or surely faster); "yes" where every uniform point
    not larger than it is surely slower (the rate ratio's interval below 1); else cannot tell. The verdict:
    ``overall`` of the hot points."""
    repetitions = _repetitions(repetitions)
    parts, verdicts = [], []
    rows = rows.assign(bytes_per_event=rows["size_bytes"] / rows["events"])
    for selection, group in rows.groupby("branches", sort=True):
        uniform = group[[_uniform(r) for r in group.to_dict("records")]]
        hot = group[[not _uniform(r) for r in group.to_dict("records")]]
        if uniform.empty or hot.empty:
            continue
        for _, h in hot.iterrows():
            text = (
                f"{selection}: {_setting(h)} + hot {h['branch_compression']}: {_rate(h, repetitions)}, "
                f"{h['bytes_per_event'] / 1e3:.1f} kB/event"
            )
            for _, u in uniform.sort_values("bytes_per_event").iterrows():
                text += (
                    f"; against uniform {_setting(u)} ({_rate(u, repetitions)}): "
                    f"{h['bytes_per_event'] / u['bytes_per_event']:.2f}x its size, "
                    f"{repetitions.ratio(h, u).text()} its rate"
                )
            candidates = [(u, None) for _, u in uniform.iterrows()]
            if others is not None and not others.empty:
                same = others[
                    (others["branches"] == selection) & (others["storage_profile"] == h["storage_profile"])
                ]
                own = {point_key(u) for u, _ in candidates}
                candidates += [(o, o["setting"]) for _, o in same.iterrows() if point_key(o) not in own]
            verdict, beaten_by, undecided = YES, None, []
            for u, setting in candidates:
                if u["size_bytes"] / u["events"] > h["bytes_per_event"]:
                    continue  # larger: it cannot beat the hot point
                ratio = repetitions.ratio(u, h)
                if surely_beats(_size_and_rate(u), _size_and_rate(h), ratio, EQUAL_MARGIN):
                    verdict, beaten_by = NO, (u, setting, ratio)
                    break
                if ratio.direction != LOWER:
                    verdict = CANNOT_TELL
                    undecided.append(setting or f"uniform {_setting(u)}")
            if beaten_by is not None:
                u, setting, ratio = beaten_by
                text += (
                    f" (beaten by uniform {_setting(u)}: its rate {ratio.text()})"
                    if setting is None
                    else f" (but beaten by {setting} of another scan: {u['size_bytes'] / u['events'] / 1e3:.1f} "
                    f"kB/event, {_rate(u, repetitions)}, its rate {ratio.text()})"
                )
            elif undecided:
                text += (
                    f" (cannot tell whether beaten by {', '.join(undecided)}: not larger, rate not resolved)"
                )
            parts.append(text)
            verdicts.append(verdict)
    return _verdict(
        fmt, "branch_compression", parts, verdicts, "no per-branch and uniform points of the same read"
    )


def _uniform_lossless(summary, points, files, config, fmt: str) -> pd.DataFrame:
    """Every valid point of ``fmt`` in the study with one compression for all branches and full float precision,
    with its setting's label (rootparams.decide.decision.setting_label). Drawn from every scan, so always judged by the
    study's window rule: a scan's lenient rule stays in its own topic."""
    strict = {**config["measurement"], "window_by_scan": {}}
    rows = scan_rows(summary, points, files, ("default", *config["scans"]), measurement=strict)
    rows = rows[(rows["format"] == fmt) & valid_points(rows) & rows["event_rate_hz_mean"].notna()]
    for key, default in LATER_FILE_KEY_DEFAULTS.items():
        if key in rows:
            rows = rows[rows[key].fillna(default).astype(str) == default]
    defaults = config["file_defaults"][fmt]
    return rows.assign(
        setting=[setting_label(r, defaults, config["read_defaults"]) for r in rows.to_dict("records")]
    )


def float_precision(
    rows: pd.DataFrame, fmt: str, precision: pd.DataFrame | None, repetitions: Repetitions | None = None
) -> Finding:
    """Lossy floats (the float_precision scan): per container and compression, each reduced precision against
    the full one: file size (exact), rate (the ratio with its interval, reported), and the precision lost
    (float_precision.csv: the worst variable's largest relative error against the bound 2^-(N+1) of N kept
    mantissa bits). Per lossy file, yes when it is smaller and within its bound, else no; ``overall``."""
    repetitions = _repetitions(repetitions)
    parts, verdicts = [], []
    for (container, alg, level), group in rows.groupby(["container", "algorithm", "level"], sort=True):
        full = group[group["float_precision"].astype(str) == "full"]
        if full.empty:
            continue
        full = full.iloc[0]
        for _, row in group[group["float_precision"].astype(str) != "full"].iterrows():
            bits = mantissa_bits(str(row["float_precision"]))
            size = row["size_bytes"] / full["size_bytes"]
            text = (
                f"{CONTAINER_LABELS.get(container, container)} {alg}-{int(level)}, {row['float_precision']}: "
                f"{size:.2f}x the full file's size ({100 * (1 - size):.0f} % saved), rate "
                f"{_rate(row, repetitions)}, {repetitions.ratio(row, full).text()} the full file's"
            )
            within = True
            if precision is not None and not precision.empty:
                lost = precision[(precision["format"] == fmt) & (precision["file_id"] == row["file_id"])]
                if not lost.empty:
                    worst = lost.loc[lost["max_rel_error"].idxmax()]
                    bound = 2.0 ** -(bits + 1) if bits is not None else float("nan")
                    within = bool(worst["max_rel_error"] <= bound * (1 + 1e-9)) if bits is not None else True
                    text += (
                        f"; {len(lost)} float variables, worst relative error {worst['max_rel_error']:.2g} "
                        f"({worst['variable']}; bound {bound:.2g}), median over variables of the RMS "
                        f"{lost['rms_rel_error'].median():.2g}"
                    )
            parts.append(text)
            verdicts.append(YES if size < 1.0 and within else NO)
    return _verdict(
        fmt, "float_precision", parts, verdicts, "no full and reduced precision of the same file settings"
    )


def event_size(
    summary, points, files, repetitions: Repetitions | None = None, measurement: dict | None = None
) -> Finding | None:
    """The event-size scan of "Optimizing ROOT IO For Analysis" at a fixed volume, per container and reading
    style: the CPU one event costs at the smallest and the largest size (with their intervals), and the size below
    which per-event overhead outweighs the per-byte work. The per-byte cost b is the largest events' CPU per byte,
    the per-event overhead a the smallest events' CPU per event minus b x their bytes; the crossover a / b =
    B_large x R - B_small, with R the ratio of the two CPU costs per event, so its interval is R's. Yes
    ("measurable below one kilobyte") where the crossover's interval lies within a decade of 1 kB (100 B - 10 kB);
    outside that decade, partly where overhead still dominates the smallest events (the crossover above their
    size), no where it does not; cannot tell where the interval straddles either line. ``overall`` over the
    groups."""
    repetitions = _repetitions(repetitions)
    rows = scan_rows(summary, points, files, "event_size", measurement=measurement)
    if rows.empty:
        return None
    valid = valid_points(rows)
    left_out = int((~valid).sum())
    rows = rows[rows["event_rate_hz_mean"].notna() & valid]
    if rows.empty:
        why = _NO_VALID_POINT.format(left_out=left_out)
        return Finding("event sizes", "event_size", why, _PAPER["event_size"], NOT_APPLICABLE)
    rows = rows.assign(event_bytes=rows["format"].map(eventsize_written_bytes))
    parts, verdicts = [], []
    for (container, style, n), group in rows.groupby(["container", "reading_style", "threads"], sort=True):
        group = group.sort_values("event_bytes")
        if len(group) < 2:
            continue
        small, large = group.iloc[0], group.iloc[-1]
        cpu = [_quote(repetitions.interval(r, "loop_cpu_us_per_event"), "µs") for r in (small, large)]
        ratio = repetitions.ratio(small, large, "loop_cpu_us_per_event")
        # a / b = B_large x R - B_small grows with R: its interval is R's, mapped.
        at, low, high = (
            large["event_bytes"] * r - small["event_bytes"] for r in (ratio.estimate, ratio.low, ratio.high)
        )
        interval = f"95 % CI {low:.0f}-{high:.0f}" if low == low else "no interval"
        parts.append(
            f"{CONTAINER_LABELS.get(container, container)}, {reading_style_label(style, n)}: CPU per event "
            f"{cpu[0]} at {int(small['event_bytes'])} B, {cpu[1]} at {int(large['event_bytes'])} B; "
            f"overhead and per-byte work equal at {at:.0f} B/event ({interval}; from the CPU ratio {ratio.text()})"
        )
        if low >= 100 and high <= 10_000:
            verdicts.append(YES)
        elif high < 100 or low > 10_000:
            dominates = (
                YES if low > small["event_bytes"] else NO if high <= small["event_bytes"] else CANNOT_TELL
            )
            verdicts.append({YES: PARTLY}.get(dominates, dominates))
        else:
            verdicts.append(CANNOT_TELL)
    measured = "; ".join(parts) + (f" ({left_out} invalid point(s) left out)" if left_out else "")
    if not verdicts:
        return Finding(
            "event sizes",
            "event_size",
            measured or "fewer than two event sizes measured",
            _PAPER["event_size"],
            NOT_APPLICABLE,
        )
    return Finding("event sizes", "event_size", measured, _PAPER["event_size"], overall(verdicts))


_SEED_TOPICS = {"access": access, "reading_style": reading_style, "unzip": unzip, "skim": skim}
# File settings beyond the paper, each with its scans (reported where the study has one of them).
_FILE_TOPICS = {
    "branch_compression": ("branch_compression", "branch_compression_uniform"),
    "float_precision": ("float_precision",),
}
# Each topic and the scan(s) it draws, in the order of recommendations.md.
_TOPIC_SCANS = {
    "compression": ("compression",),
    "autoflush": ("autoflush",),
    "split": ("split",),
    "cache": ("cache", "cache_learn"),
    "threads": ("threads",),
    "rntuple": ("container", "container_storage"),
    "cluster_cache": ("rntuple_cache",),
    "remote_cache": ("remote_cache",),
    **{t: (t,) for t in _SEED_TOPICS},
    **_FILE_TOPICS,
}
_PAPER_TOPICS = ("compression", "autoflush", "split", "cache", "threads")
# Topics that compare containers, or judge each container on its own: every container's points.
_EVERY_CONTAINER_TOPICS = ("rntuple", "cluster_cache", "remote_cache", "float_precision", "bulk_io")
_NO_VALID_POINT = (
    "no valid point: all {left_out} points of the scan are invalid (a timed loop that misses I/O or "
    "is too short, or too few unflagged repetitions; see summary.csv, invalid_reasons)"
)


# The related studies' claims on ROOT's bulk read and on entry offsets: each topic's function, and the setting a
# scan must list for the topic to draw it (the topic is left out of a study where no scan lists it).
_CLAIM_TOPICS = {
    "bulk_io": (bulk_io, ("reading_style", "bulk")),
    "offsets_size": (offsets_size, ("offsets", OFFSETS_GENERATED)),
    "offsets_counts": (offsets_counts, ("offsets", OFFSETS_GENERATED)),
}
# Topics that compare files: a read with no unflagged repetition, or not valid, still has its file.
_FILE_COMPARING_TOPICS = ("skim", "offsets_size", "offsets_counts")


def _claim_topic_scans(scans: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """The claim topics of a study and the scans each draws: those that list its setting (a scan of the bulk
    style, of generated offsets), whatever they are named."""
    out = {}
    for topic, (_, (key, value)) in _CLAIM_TOPICS.items():
        drawn = tuple(sorted(name for name, scan in scans.items() if value in scan.get(key, [])))
        if drawn:
            out[topic] = drawn
    return out


def findings(
    summary,
    points,
    files,
    config,
    cores: int | None,
    precision: pd.DataFrame | None = None,
    repetitions: Repetitions | None = None,
) -> list[Finding]:
    """Every topic's finding per format; ``precision`` is float_precision.csv (the float_precision topic),
    ``repetitions`` the repetitions by round (comparisons paired by round where they can be; without them every
    comparison is unpaired, from summary.csv's means, spreads and n). Each topic judges validity by its own
    scans' window rule (``aggregate.scan_rows``)."""
    repetitions = _repetitions(repetitions)
    measurement = config["measurement"]
    out = []
    for fmt in format_order(config["formats"]):
        if fmt.startswith(EVENTSIZE_PREFIX):
            continue  # the event-size formats have one finding together (event_size, below)
        defaults = config["file_defaults"][fmt]
        # A format that keeps to some scans: only their topics.
        own_scans = config["formats"][fmt].get("scans")
        for topic, scans in {**_TOPIC_SCANS, **_claim_topic_scans(config["scans"])}.items():
            if topic not in _PAPER_TOPICS and not set(scans) & study_scans(config["scans"]):
                continue  # beyond the paper: reported only where the study has the scan
            if own_scans and not set(scans) & set(own_scans):
                continue
            in_scans = scan_rows(summary, points, files, scans, measurement=measurement)
            in_scans = in_scans[in_scans["format"] == fmt]
            if (topic in _SEED_TOPICS or topic in _FILE_TOPICS or topic in _CLAIM_TOPICS) and in_scans.empty:
                continue  # the study's scan leaves this format out (it names others): nothing to say
            # A topic that compares files: a read with no unflagged repetition still has its file.
            rows = in_scans[in_scans["event_rate_hz_mean"].notna() | (topic in _FILE_COMPARING_TOPICS)]
            if "container" in rows and topic not in _EVERY_CONTAINER_TOPICS:
                rows = rows[rows["container"] == defaults["container"]]  # the paper's topics: one container
            if topic == "cluster_cache":
                rows = rows[rows["container"] == RNTUPLE]
            # A topic that compares files: a read's window has nothing to do with it (the offsets topics judge the
            # rates they quote on valid points only).
            valid = (
                valid_points(rows)
                if topic not in _FILE_COMPARING_TOPICS
                else pd.Series(True, index=rows.index)
            )
            left_out = int((~valid).sum())
            rows = rows[valid]
            if rows.empty:
                # A longer read of this format's recipe under a name of its own (xaod_long) that has the scan.
                longer = [
                    f
                    for f, entry in config["formats"].items()
                    if f != fmt and base_format(f) == fmt and set(scans) & set(entry.get("scans", []))
                ]
                also = f"; measured as {', '.join(longer)}" if longer else ""
                why = (
                    _NO_VALID_POINT.format(left_out=left_out)
                    if left_out
                    else f"not measured (no {' or '.join(repr(s) for s in scans)} scan for {fmt}{also})"
                )
                out.append(Finding(fmt, topic, why, _PAPER[topic], NOT_APPLICABLE))
                continue
            if topic == "skim":
                finding = skim(rows, fmt)
            elif topic in _SEED_TOPICS:
                finding = _SEED_TOPICS[topic](rows, fmt, repetitions)
            elif topic in _CLAIM_TOPICS:
                finding = _CLAIM_TOPICS[topic][0](rows, fmt, repetitions)
            elif topic == "branch_compression":
                others = _uniform_lossless(summary, points, files, config, fmt)
                finding = branch_compression(rows, fmt, others, repetitions)
            elif topic == "float_precision":
                finding = float_precision(rows, fmt, precision, repetitions)
            elif topic == "autoflush":
                finding = autoflush(rows, fmt, defaults["algorithm"], defaults["autoflush"], repetitions)
            elif topic == "threads":
                finding = threads(rows, fmt, cores, repetitions)
            else:
                topic_function = {
                    "compression": compression,
                    "split": split,
                    "cache": cache,
                    "rntuple": rntuple,
                    "cluster_cache": cluster_cache,
                    "remote_cache": remote_cache,
                }[topic]
                finding = topic_function(rows, fmt, repetitions)
            if left_out:
                finding.measured += f" ({left_out} invalid point(s) left out)"
            out.append(finding)
    if "event_size" in study_scans(config["scans"]) and (
        found := event_size(summary, points, files, repetitions, measurement)
    ):
        out.append(found)
    return out


def _verdict_counts(found: list[Finding]) -> str:
    """ "12 yes, 2 partly, 1 no, 3 cannot tell, 4 n/a": every verdict, also those that do not occur."""
    return ", ".join(f"{sum(f.agrees == v for f in found)} {v}" for v in _VERDICTS)


def markdown(found: list[Finding], storage_profiles: str, context: str, lead: str = "") -> str:
    """recommendations.md: ``lead`` first (the cost model's answer, rootparams.decide.decision), then the scans'
    findings per format, after the rules their verdicts follow."""
    lines = [
        "# Recommendations derived from this run",
        "",
        f"Computed from `results/tables/summary.csv`, `repetitions.csv` and `files.csv` by `rootparams.decide.decision` "
        f"and `rootparams.present.recommend` (rules in their docstrings); storage profile(s) of the timed reads: "
        f"{storage_profiles}. {context}",
        "",
    ]
    if lead:
        lines += [lead, "## The scans in detail", ""]
    lines += [
        "How to read the findings. Every rate is the mean of a point's unflagged repetitions with the 95 % "
        "confidence interval of that mean (Student's t, n - 1 degrees of freedom) and n, the number of "
        "repetitions; the spread of single repetitions is not quoted as an error. Every ratio of two rates has its "
        "95 % interval, on the log scale: paired by measuring round where both points were measured in the same "
        "rounds (a slow spell of the host then moves both alike and cancels), else unpaired (Welch). File sizes "
        'are exact, one file each, and compared directly. A "fastest" or "best" point is the highest mean: the '
        "reference a claim is compared with, not a verdict by itself.",
        "",
        f"Each claim is judged on those intervals against a margin: **yes** where the whole interval lies where "
        f"the claim holds, **no** only where the whole interval lies where it fails, **cannot tell** where it "
        f"reaches both. Two rates are equal when the interval of their ratio lies within {_MARGIN_TEXT}, and "
        f"different only when it lies wholly outside it; beside such a comparison, the resolvable margin is the "
        f'smallest margin within which this run could have called the two equal. A gain, or "faster", needs the '
        f'interval above 1 + {100 * EQUAL_MARGIN:g} % (an interval at or below it is "no": no gain worth the '
        f'name); "at least as fast" holds with the interval above 1 / (1 + {100 * EQUAL_MARGIN:g} %); a gain of at '
        "least a factor needs the whole interval above it and fails with the whole interval below it. The rate "
        'claims of one topic are settled together: a "no" stands only where it survives Holm\'s adjustment for '
        "the topic's number of rate comparisons. The agrees column: **yes** the intervals support the claim, "
        "**no** they contradict it, **cannot tell** the noise of this run does not decide (never counted as "
        "agreeing), **partly** some parts of the claim hold and others fail, **n/a** nothing valid to compare.",
        "",
        f"Verdicts in this run: {_verdict_counts(found)}.",
        "",
    ]
    for fmt in dict.fromkeys(f.format for f in found):
        lines += [
            f"### {format_title(fmt)}",
            "",
            "| topic | this run | paper (section 3.1); ROOT's own claims (rntuple, cluster_cache, skim); the "
            "related studies' (remote_cache, access, reading_style, unzip, event_size, bulk_io, offsets_size, "
            "offsets_counts) | agrees |",
            "|---|---|---|---|",
        ]
        for f in (f for f in found if f.format == fmt):
            lines.append(f"| {f.topic} | {f.measured} | {f.paper} | {f.agrees} |")
        lines.append("")
    return "\n".join(lines)
