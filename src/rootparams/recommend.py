"""Recommendations derived from the measured data, next to the paper's (section 3.1).

Every statement is computed from summary.csv, files.csv and points.csv; nothing here knows what the answer
"should" be except the PAPER dictionary, which quotes the paper so that each finding can be compared.

Rules (all per format, on the unflagged means of the points whose timed loop is valid; invalid points are
left out and counted):
- compression: the fastest point (highest event rate) and the smallest file of the compression scan. The
  paper's claims are checked one by one: LZ4 the fastest of LZ4/ZLIB/LZMA, LZMA the smallest, and for the
  format with very small events (TRUTH3) ZLIB sized like LZMA (nearer to LZMA's size than to LZ4's) while
  reading like LZ4 (nearer to LZ4's rate than to LZMA's);
- AutoFlush plateau: the best rate R of the AutoFlush scan for the format's default algorithm; the plateau
  is the smallest cluster (fewest events per cluster, as read back from the file) whose rate is at least
  (1 - TOLERANCE) * R; its memory cost is the reader's RSS increase against the smallest AutoFlush measured.
  The paper: 100 events is on the plateau for the xAOD, 10 MB is below it for every derivation;
- split level: the fastest of the split scan, with its file size against the smallest;
- TTreeCache: the smallest explicit size (bytes > 0) whose rate reaches (1 - TOLERANCE) times the best rate
  of the cache scan, with the rate of "off" and of -1 beside it;
- threads: the rate at the most threads against 1 thread, and whether that oversubscribed the machine. The
  paper: every algorithm gains for the large primary xAOD; for derivations only LZMA gains.
- rntuple (beyond the paper, the container and container_storage scans): per compression setting and storage
  profile measured in both containers,
  RNTuple's file size and event rate over TTree's (the same events, each at the format's other defaults).
  The published headline (ROOT's RNTuple papers and blog): 10-50 % smaller, several times faster. "yes" when
  every size ratio is within 0.5-0.9 and every rate ratio is at least 2; "no" when no size ratio is in that
  range and RNTuple is nowhere faster; "partly" otherwise;
- cluster_cache (the rntuple_cache scan): RNTuple's cluster cache on against off per storage profile. ROOT's
  default is on; "yes" when on is at least as fast as off (within the tolerance) on every profile.
- remote_cache (the remote_cache scan, config/remote.yaml): TTreeCache -1 against off on local profiles and
  over XRootD with added latency, next to seed 001 ("slight improvement" locally, "crucial" remotely): "yes"
  when -1 is at least CRUCIAL_GAIN times as fast as off on every profile adding >= 1 ms RTT and gains more
  there than on any local profile.
- the seeds' related studies (issue #16; docs/measurement.md, "The seeds' studies"), each next to the seed's own
  words: access (split level > 0, branch-wise, against split 0, class-wise, for the partial selections),
  reading_style (uproot against GetEntry by compression: at least BULK_GAIN faster on LZ4/uncompressed, less on
  ZLIB), unzip (parallel unzip against the serial read: at least UNZIP_GAIN), skim (ZLIB's compression ratio
  above ZSTD's), event_size (the size at which per-event overhead equals the per-byte work, within a decade of
  1 kB); each function's docstring has the rule.
The paper's topics are judged on TTree points only; a study that also stores them as RNTuple shows those in
the rntuple topic.
Two rates count as equal when their means differ by less than TOLERANCE or by less than their combined 1σ.
Every verdict ("yes", "partly", "no") is computed from measured values; "n/a" means there was nothing valid
to compare.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from rootparams.aggregate import LATER_FILE_KEY_DEFAULTS, container_ratios, scan_rows, valid_points
from rootparams.grid import mantissa_bits
from rootparams.labels import (
    CONTAINER_LABELS,
    autoflush_label,
    cache_label,
    format_order,
    format_title,
    reading_style_label,
)

TOLERANCE = 0.05  # 5 %: about the spread of single points here (σ/mean 1-5 %)

# Section 3.1 of the paper (seed 000), one entry per topic.
PAPER = {
    "compression": "LZ4 is best for fast reading, LZMA for the smallest files; ZLIB is in between and best for "
    "formats with very small events.",
    "autoflush": "AutoFlush 100 events is good for the primary xAOD; for derivations 10 MB is too small for "
    "larger events (~170 kB/event) and should be doubled to 20 MB.",
    "split": "Split level 0 for derivations (instead of 1): smaller files and slightly faster reading.",
    "cache": "Use a TTreeCache of -1 (the AutoFlush cluster); most important for high-latency storage.",
    "threads": "Parallel branch decompression helps large (D)xAODs with LZMA, sometimes ZLIB and LZ4 too "
    "(primary xAOD: ~25% for all three; derivations: only LZMA gains).",
}
# Beyond the paper: what ROOT's own publications claim for RNTuple (issue #13 quotes the headline).
PAPER["rntuple"] = ("RNTuple (ROOT's RNTuple papers and blog): files 10-50 % smaller than TTree and reading several "
                    "times faster.")  # fmt: skip
PAPER["cluster_cache"] = ("ROOT's default: the cluster cache on (a background thread reads whole clusters with "
                          "vector reads); off reads page by page.")  # fmt: skip
# Seed 001 (ATLAS CHEP, "I/O performance optimization in as-deployed environments", Figure 5), for the remote scan.
PAPER["remote_cache"] = ("Seed 001: the TTreeCache \"gives a slight improvement for locally read data, it is crucial for "
                         "remotely accessed data\" (XRootD).")  # fmt: skip
# The seeds' related studies (issue #16), quoted from ../shared/seeds/: 001 line 91 (access), 002 line 119 and 003
# lines 23-24 (reading styles), 003 lines 21 and 28 (event size), 003 line 32 (parallel unzip); the skim claim from
# root-project/root#21753 and ROOT 6.40's release notes.
PAPER["access"] = ("Seed 001: branch-wise reading \"increases reading speed when only a small subset of variables of "
                   "the accessed container is actually used\"; the effect is \"quite large\" for full xAODs, \"a lot "
                   "less\" for DxAODs (no numbers).")  # fmt: skip
PAPER["reading_style"] = ("Seeds 002, 003: bulk reading is \"an order of magnitude faster than GetEntry, especially with "
                          "LZ4\" (002), \"up to 10x\" in events/s, and the difference is \"almost entirely washed out by "
                          "deflate (ZLIB)\" (003). RDataFrame and uproot are not in the seeds: uproot (columnar, like "
                          "bulk I/O) is judged, RDataFrame (per event, through TTreeReader) reported.")  # fmt: skip
PAPER["event_size"] = ("Seed 003 (400 MB at 40 B to 4 MB per event): \"decompression time is roughly consistent across "
                       "event size, other CPU costs come to dominate as the event size decreases\"; overheads \"first "
                       "become measurable\" below one kilobyte per event.")  # fmt: skip
PAPER["unzip"] = ("Seed 003: \"Parallel unzipping takes 52% - 58% processing time of serial unzipping\", for \"8% - 13% "
                  "more CPU cycles\" (4-core desktop).")  # fmt: skip
PAPER["skim"] = ("ROOT 6.40 (PR root-project/root#21753, release notes): TTree \"branches of type ROOT::RVec where many "
                 "(if not all) of the collections are empty are compressed better with ZLIB than with ZSTD\" (no "
                 "numbers given); Snapshot's TTree default went back to ZLIB-1.")  # fmt: skip
# Issue #17, from the note's conclusion (seed 000, section 3).
PAPER["branch_compression"] = ("Seed 000, section 3: \"Further studies with branch specific settings ... should be done for "
                               "the largest N (e.g. 10) branches, which could lead to further compression and reading "
                               "speed improvements.\" Judged: the hot branches fast and the rest small beats the uniform "
                               "settings (no uniform point is both smaller and faster).")  # fmt: skip
PAPER["float_precision"] = ("ATLAS float compression (shared/notes/formats.md): an optional mantissa truncation (7 or 15 bits "
                            "kept) for some DAOD_PHYS variables; RNTuple stores truncated floats in fewer bits. Judged: "
                            "every lossy file smaller than the full one, and no variable loses more than half a unit in "
                            "the last kept mantissa bit (relative error <= 2^-(N+1)).")  # fmt: skip
# Bulk (columnar) reading "an order of magnitude" faster than GetEntry without deflate (seeds 002, 003): judged as
# at least this factor for LZ4 and uncompressed files, and less than it for ZLIB ("washed out").
BULK_GAIN = 2.0
# Parallel unzip: seed 003's 52-58 % of the serial time is a 1.7-1.9x speed-up on 4 cores; on 2 cores "agrees"
# needs at least this speed-up against the serial read.
UNZIP_GAIN = 1.5
# "Crucial": the cache at least doubles the rate on every remote profile that adds latency.
CRUCIAL_GAIN = 2.0
# The paper's format with "very small events", for which it calls ZLIB "a very interesting choice".
SMALL_EVENT_FORMATS = ("truth3",)


@dataclass
class Finding:
    format: str
    topic: str
    measured: str
    paper: str
    agrees: str  # "yes", "no", "partly" or "n/a" (not measured)


def _rate(row) -> str:
    std = row["event_rate_hz_std"]
    return (
        f"{row['event_rate_hz_mean']:.1f} ± {std:.1f} Hz"
        if not math.isnan(std)
        else f"{row['event_rate_hz_mean']:.1f} Hz"
    )


def same_rate(a, b) -> bool:
    """Equal within TOLERANCE or within the combined 1σ of the two means."""
    ma, mb = a["event_rate_hz_mean"], b["event_rate_hz_mean"]
    sa, sb = (0.0 if math.isnan(x) else x for x in (a["event_rate_hz_std"], b["event_rate_hz_std"]))
    return abs(ma - mb) <= max(TOLERANCE * max(ma, mb), math.hypot(sa, sb))


def compression(rows: pd.DataFrame, fmt: str) -> Finding:
    fastest = rows.loc[rows["event_rate_hz_mean"].idxmax()]
    smallest = rows.loc[rows["size_bytes"].idxmin()]
    compressed = rows[rows["algorithm"] != "none"]
    fastest_c = compressed.loc[compressed["event_rate_hz_mean"].idxmax()] if len(compressed) else fastest
    measured = (
        f"fastest: {fastest['algorithm']}-{fastest['level']} ({_rate(fastest)}); fastest compressed: "
        f"{fastest_c['algorithm']}-{fastest_c['level']}; smallest: {smallest['algorithm']}-{smallest['level']} "
        f"({smallest['size_bytes'] / 1e6:.1f} MB)"
    )
    # The paper's claims, each checked on the measured values.
    paper_algs = compressed[compressed["algorithm"].isin(["lz4", "zlib", "lzma"])]
    if paper_algs.empty:
        return Finding(fmt, "compression", measured, PAPER["compression"], "n/a")
    best = paper_algs.loc[paper_algs["event_rate_hz_mean"].idxmax()]
    by_alg = {a: g for a, g in paper_algs.groupby("algorithm")}
    claims = []
    if "lz4" in by_alg:
        lz4 = by_alg["lz4"].loc[by_alg["lz4"]["event_rate_hz_mean"].idxmax()]
        claims.append(("LZ4 fastest", same_rate(lz4, best)))
    if "lzma" in by_alg and len(by_alg) > 1:
        claims.append(
            ("LZMA smallest", paper_algs.loc[paper_algs["size_bytes"].idxmin(), "algorithm"] == "lzma")
        )
    if fmt in SMALL_EVENT_FORMATS and {"lz4", "zlib", "lzma"} <= set(by_alg):
        size = {a: g["size_bytes"].median() for a, g in by_alg.items()}
        rate = {a: g["event_rate_hz_mean"].median() for a, g in by_alg.items()}
        claims.append(
            ("ZLIB sized like LZMA", abs(size["zlib"] - size["lzma"]) < abs(size["zlib"] - size["lz4"]))
        )
        claims.append(
            ("ZLIB reads like LZ4", abs(rate["zlib"] - rate["lz4"]) < abs(rate["zlib"] - rate["lzma"]))
        )
    if not claims:
        return Finding(fmt, "compression", measured, PAPER["compression"], "n/a")
    held = sum(ok for _, ok in claims)
    agrees = "yes" if held == len(claims) else ("no" if held == 0 else "partly")
    measured += "; " + ", ".join(f"{name}: {'yes' if ok else 'no'}" for name, ok in claims)
    return Finding(fmt, "compression", measured, PAPER["compression"], agrees)


def autoflush(rows: pd.DataFrame, fmt: str, default_algorithm: str, default_autoflush: int) -> Finding:
    rows = rows[rows["algorithm"] == default_algorithm]
    if rows.empty:
        return Finding(
            fmt,
            "autoflush",
            f"no {default_algorithm} points in the AutoFlush scan",
            PAPER["autoflush"],
            "n/a",
        )
    # Cluster size in events as written (byte-based and disabled AutoFlush resolve to a real event count).
    rows = rows.assign(events_per_cluster=rows["events"] / rows["clusters"].clip(lower=1)).sort_values(
        ["events_per_cluster", "autoflush"]
    )
    best = rows.loc[rows["event_rate_hz_mean"].idxmax()]
    plateau = rows[rows["event_rate_hz_mean"] >= (1 - TOLERANCE) * best["event_rate_hz_mean"]].iloc[0]
    smallest = rows.iloc[0]
    memory = (plateau["rss_increase_bytes_mean"] - smallest["rss_increase_bytes_mean"]) / 1e6
    measured = (
        f"{default_algorithm}: best {autoflush_label(best['autoflush'])} ({_rate(best)}); plateau (within "
        f"{TOLERANCE:.0%}) from {autoflush_label(plateau['autoflush'])} (~{plateau['events_per_cluster']:.0f} "
        f"events/cluster, {_rate(plateau)}), reader memory +{plateau['rss_increase_bytes_mean'] / 1e6:.0f} MB "
        f"({memory:+.0f} MB against {autoflush_label(smallest['autoflush'])})"
    )
    default = rows[rows["autoflush"] == default_autoflush]
    if default.empty:
        return Finding(fmt, "autoflush", measured, PAPER["autoflush"], "n/a")
    default = default.iloc[0]
    on_plateau = default["event_rate_hz_mean"] >= (1 - TOLERANCE) * best["event_rate_hz_mean"]
    # The paper: 100 events is good for the primary xAOD (the default is on the plateau); 10 MB is too small
    # for derivations, large (TOPQ1) and very small (TRUTH3) alike (the default is below it).
    expected_on_plateau = fmt == "xaod"
    agrees = "yes" if on_plateau == expected_on_plateau else "no"
    return Finding(fmt, "autoflush", measured + f"; the default {autoflush_label(default_autoflush)} is "
                   f"{'on' if on_plateau else 'below'} the plateau", PAPER["autoflush"], agrees)  # fmt: skip


def split(rows: pd.DataFrame, fmt: str) -> Finding:
    best = rows.loc[rows["event_rate_hz_mean"].idxmax()]
    smallest = rows.loc[rows["size_bytes"].idxmin()]
    zero = rows[rows["split_level"] == 0]
    measured = (
        f"fastest: split {best['split_level']} ({_rate(best)}); smallest: split {smallest['split_level']} "
        f"({smallest['size_bytes'] / 1e6:.1f} MB)"
    )
    if zero.empty:
        return Finding(fmt, "split", measured, PAPER["split"], "n/a")
    zero = zero.iloc[0]
    small = zero["size_bytes"] <= smallest["size_bytes"] * 1.001
    fast = same_rate(zero, best) or zero["event_rate_hz_mean"] >= best["event_rate_hz_mean"]
    agrees = "yes" if small and fast else ("partly" if small or fast else "no")
    return Finding(fmt, "split", measured, PAPER["split"], agrees)


def cache(rows: pd.DataFrame, fmt: str) -> Finding:
    rows = (
        rows[rows["learn_entries"].astype(str) == "default"]
        if "default" in set(rows["learn_entries"].astype(str))
        else rows
    )
    best = rows.loc[rows["event_rate_hz_mean"].idxmax()]
    explicit = rows[rows["cache_size"] > 0].sort_values("cache_size")
    reach = explicit[explicit["event_rate_hz_mean"] >= (1 - TOLERANCE) * best["event_rate_hz_mean"]]
    parts = [f"best: {cache_label(best['cache_size'])} ({_rate(best)})"]
    parts.append(f"smallest size on the plateau: {cache_label(reach.iloc[0]['cache_size'])}" if len(reach) else
                 "no explicit size reaches the plateau")  # fmt: skip
    for size in (0, -1):
        r = rows[rows["cache_size"] == size]
        if len(r):
            parts.append(f"{cache_label(size)}: {_rate(r.iloc[0])}")
    auto = rows[rows["cache_size"] == -1]
    agrees = (
        "n/a"
        if auto.empty
        else (
            "yes"
            if same_rate(auto.iloc[0], best) or auto.iloc[0]["cache_size"] == best["cache_size"]
            else "no"
        )
    )
    return Finding(fmt, "cache", "; ".join(parts), PAPER["cache"], agrees)


def threads(rows: pd.DataFrame, fmt: str, cores: int | None) -> Finding:
    parts, gains = [], {}
    for alg, group in rows.groupby("algorithm"):
        one = group[group["threads"] == 1]
        most = group.loc[group["threads"].idxmax()]
        if one.empty or most["threads"] == 1:
            continue
        gain = most["event_rate_hz_mean"] / one.iloc[0]["event_rate_hz_mean"]
        gains[alg] = gain > 1 and not same_rate(most, one.iloc[0])
        over = " (oversubscribed)" if cores and most["threads"] > cores else ""
        parts.append(f"{alg}: {most['threads']} threads{over} give {gain:.2f}x the 1-thread rate")
    if not parts:
        return Finding(fmt, "threads", "only 1 thread measured", PAPER["threads"], "n/a")
    # The paper: for the primary xAOD every algorithm gains; for derivations LZMA gains, ZLIB and LZ4 do not.
    expected = {alg: True for alg in gains} if fmt == "xaod" else {alg: alg == "lzma" for alg in gains}
    held = sum(gains[alg] == expected[alg] for alg in gains)
    agrees = "yes" if held == len(gains) else ("no" if held == 0 else "partly")
    return Finding(fmt, "threads", "; ".join(parts), PAPER["threads"], agrees)


def rntuple(rows: pd.DataFrame, fmt: str) -> Finding:
    ratios = container_ratios(rows)
    if ratios.empty:
        return Finding(
            fmt, "rntuple", "no compression setting measured in both containers", PAPER["rntuple"], "n/a"
        )
    parts = [f"{r.algorithm}-{r.level} ({r.storage_profile}): size {r.size_ratio:.2f}x, rate {r.rate_ratio:.2f}x ± "
             f"{r.rate_ratio_std:.2f}" for r in ratios.itertuples()]  # fmt: skip
    smaller = ratios["size_ratio"].between(0.5, 0.9)
    faster = ratios["rate_ratio"] >= 2
    if smaller.all() and faster.all():
        agrees = "yes"
    elif not smaller.any() and not (ratios["rate_ratio"] > 1 + TOLERANCE).any():
        agrees = "no"
    else:
        agrees = "partly"
    return Finding(fmt, "rntuple", "RNTuple / TTree: " + "; ".join(parts), PAPER["rntuple"], agrees)


def cluster_cache(rows: pd.DataFrame, fmt: str) -> Finding:
    parts, held = [], []
    for profile, group in rows.groupby("storage_profile"):
        on, off = group[group["cache_size"] == -1], group[group["cache_size"] == 0]
        if on.empty or off.empty:
            continue
        on, off = on.iloc[0], off.iloc[0]
        parts.append(
            f"{profile}: on {_rate(on)}, off {_rate(off)} ({on['event_rate_hz_mean'] / off['event_rate_hz_mean']:.2f}x)"
        )
        held.append(same_rate(on, off) or on["event_rate_hz_mean"] > off["event_rate_hz_mean"])
    if not parts:
        return Finding(fmt, "cluster_cache", "on and off not both measured", PAPER["cluster_cache"], "n/a")
    agrees = "yes" if all(held) else ("no" if not any(held) else "partly")
    return Finding(fmt, "cluster_cache", "; ".join(parts), PAPER["cluster_cache"], agrees)


def remote_cache(rows: pd.DataFrame, fmt: str) -> Finding:
    """TTreeCache -1 against off per storage profile (rate gain, and the loop's CPU efficiency, seed 001's
    measure: loop CPU / loop wall time). Agrees when the cache is crucial remotely (at least CRUCIAL_GAIN on
    every profile that adds latency) and helps less locally than on any of them."""
    rows = rows[rows["container"] == "ttree"] if "container" in rows else rows
    rows = rows[~rows.get("async_prefetch", pd.Series(False, index=rows.index)).fillna(False).astype(bool)]
    gains, parts = {}, []
    for profile, group in rows.groupby("storage_profile"):
        on, off = group[group["cache_size"] == -1], group[group["cache_size"] == 0]
        if on.empty or off.empty:
            continue
        on, off = on.iloc[0], off.iloc[0]
        gains[profile] = (on["event_rate_hz_mean"] / off["event_rate_hz_mean"], on.get("remote_rtt_ms_mean"))
        eff = [r["loop_cpu_seconds_mean"] / r["loop_seconds_mean"] for r in (on, off)]
        parts.append(f"{profile}: -1 {_rate(on)}, off {_rate(off)} ({gains[profile][0]:.2f}x; CPU efficiency "
                     f"{eff[0]:.0%} against {eff[1]:.0%})")  # fmt: skip
    remote = {p: g for p, (g, rtt) in gains.items() if rtt == rtt and rtt is not None and rtt >= 1}
    local = {p: g for p, (g, rtt) in gains.items() if rtt != rtt or rtt is None}
    if not parts:
        return Finding(
            fmt, "remote_cache", "cache -1 and off not both measured", PAPER["remote_cache"], "n/a"
        )
    if not remote or not local:
        return Finding(fmt, "remote_cache", "; ".join(parts) + " (needs a local and a remote profile with latency)",
                       PAPER["remote_cache"], "n/a")  # fmt: skip
    crucial = all(g >= CRUCIAL_GAIN for g in remote.values())
    larger = max(local.values()) < min(remote.values())
    agrees = "yes" if crucial and larger else ("partly" if crucial or larger else "no")
    return Finding(fmt, "remote_cache", "; ".join(parts), PAPER["remote_cache"], agrees)


# ---- The seeds' related studies (issue #16) --------------------------------------------------------------------


def _verdict(fmt: str, topic: str, parts: list[str], verdicts: list[bool], nothing: str) -> Finding:
    """A seed topic's finding: "yes" when every comparison agrees with the seed, "partly" when some do, "no"
    when none does, "n/a" (saying ``nothing``) when nothing could be compared."""
    measured = "; ".join(parts)
    if not verdicts:
        return Finding(fmt, topic, measured or nothing, PAPER[topic], "n/a")
    agrees = "yes" if all(verdicts) else "partly" if any(verdicts) else "no"
    return Finding(fmt, topic, measured, PAPER[topic], agrees)


def _ratio_text(a, b) -> str:
    return f"{a['event_rate_hz_mean'] / b['event_rate_hz_mean']:.2f}x"


def access(rows: pd.DataFrame, fmt: str) -> Finding:
    """Seed 001's branch-wise against class-wise question: for each partial selection (analysis, sparse) and
    cluster size, the rate at the highest split level (each variable its own branch) against split 0 (the
    whole container's branch). Agrees when branch-wise is faster for every partial selection measured."""
    parts, verdicts = [], []
    for (selection, autoflush_), group in rows.groupby(["branches", "autoflush"], sort=True):
        if selection not in ("analysis", "sparse") and not str(selection).startswith("vars:"):
            continue
        split0, split_hi = group[group["split_level"] == 0], group[group["split_level"] > 0]
        if split0.empty or split_hi.empty:
            continue
        branchwise = split_hi.sort_values("split_level").iloc[-1]
        classwise = split0.iloc[0]
        faster = branchwise["event_rate_hz_mean"] > classwise["event_rate_hz_mean"] and not same_rate(
            branchwise, classwise
        )
        verdicts.append(faster)
        parts.append(f"{selection}, AutoFlush {autoflush_label(int(autoflush_))}: split "
                     f"{int(branchwise['split_level'])} {_rate(branchwise)} against split 0 {_rate(classwise)} "
                     f"({_ratio_text(branchwise, classwise)})")  # fmt: skip
    full = rows[rows["branches"] == "all"]
    if not full.empty:
        best = full.sort_values("event_rate_hz_mean").iloc[-1]
        parts.append(f"all branches: fastest at split {int(best['split_level'])} ({_rate(best)})")
    return _verdict(fmt, "access", parts, verdicts, "no partial selection at split 0 and split > 0")


def reading_style(rows: pd.DataFrame, fmt: str) -> Finding:
    """Seeds 002/003's reading styles: each style's rate and CPU per event against TTree::GetEntry with one
    thread, per selection and compression setting. uproot (columnar, the bulk reading of the seeds) is judged:
    it agrees where it reads at least BULK_GAIN times GetEntry's rate on LZ4 or uncompressed files and less
    than that on ZLIB ("washed out"); other algorithms and RDataFrame (per event) are reported only."""
    parts, verdicts = [], []
    keys = ["branches", "algorithm", "level"]
    for (selection, alg, level), group in rows.groupby(keys, sort=True):
        base = group[(group["reading_style"] == "getentry") & (group["threads"] == 1)]
        if base.empty:
            continue
        base = base.iloc[0]
        base_cpu = base.get("loop_cpu_us_per_event_mean", float("nan"))
        for _, row in group.sort_values(["reading_style", "threads"]).iterrows():
            if row["reading_style"] == "getentry" and row["threads"] == 1:
                continue
            gain = row["event_rate_hz_mean"] / base["event_rate_hz_mean"]
            cpu = row.get("loop_cpu_us_per_event_mean", float("nan"))
            parts.append(f"{selection}, {alg}-{int(level)}: {reading_style_label(row['reading_style'], row['threads'])} "
                         f"{_rate(row)} ({gain:.2f}x GetEntry's {_rate(base)}), {cpu:.1f} µs CPU/event against "
                         f"{base_cpu:.1f}")  # fmt: skip
            if row["reading_style"] == "uproot" and alg in ("lz4", "none"):
                verdicts.append(gain >= BULK_GAIN)
            elif row["reading_style"] == "uproot" and alg == "zlib":
                verdicts.append(gain < BULK_GAIN)
    return _verdict(fmt, "reading_style", parts, verdicts, "GetEntry and uproot not both measured")


def unzip(rows: pd.DataFrame, fmt: str) -> Finding:
    """Seed 003's parallel unzipping, per compression setting: the serial read (1 thread, unzip off), implicit
    MT alone (the most threads, unzip off: branch-parallel GetEntry) and with parallel unzip (unzip on), with
    the CPU each costs. Agrees where parallel unzip is at least UNZIP_GAIN times as fast as the serial read."""
    parts, verdicts = [], []
    for (alg, level), group in rows.groupby(["algorithm", "level"], sort=True):
        on = group["unzip"].astype(bool)
        serial = group[~on & (group["threads"] == 1)]
        top = group["threads"].max()
        mt, both = group[~on & (group["threads"] == top)], group[on & (group["threads"] == top)]
        if serial.empty or both.empty or top == 1:
            continue
        serial, both = serial.iloc[0], both.iloc[0]
        cpu = [r.get("loop_cpu_seconds_mean", float("nan")) for r in (both, serial)]
        text = (f"{alg}-{int(level)}: serial {_rate(serial)}, {int(top)} threads + parallel unzip {_rate(both)} "
                f"({_ratio_text(both, serial)}, CPU {cpu[0] / cpu[1] - 1:+.0%})")  # fmt: skip
        if not mt.empty:
            text += f", {int(top)} threads alone {_rate(mt.iloc[0])} ({_ratio_text(mt.iloc[0], serial)})"
        parts.append(text)
        verdicts.append(both["event_rate_hz_mean"] / serial["event_rate_hz_mean"] >= UNZIP_GAIN)
    return _verdict(
        fmt, "unzip", parts, verdicts, "the serial read and parallel unzip with > 1 thread not both measured"
    )


def skim(rows: pd.DataFrame, fmt: str) -> Finding:
    """The mostly-empty-collections claim: ZLIB's compression ratio against ZSTD's on this format, for ROOT's two
    defaults (ZLIB-1, Snapshot's TTree default, against ZSTD-5, RNTuple's) and at every level measured with
    both. Agrees when ZLIB's ratio is the higher in every comparison."""
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
    pairs += [((("zlib", lv), ("zstd", lv)), f"level {lv}") for lv in sorted({lv for _, lv in ratio})
              if ("zlib", lv) in ratio and ("zstd", lv) in ratio]  # fmt: skip
    parts = (
        [
            "compression ratio (ZLIB against ZSTD), "
            + "; ".join(f"{what}: {ratio[z]:.3f} against {ratio[s]:.3f}" for (z, s), what in pairs)
        ]
        if pairs
        else []
    )
    verdicts = [ratio[z] > ratio[s] for (z, s), _ in pairs]
    return _verdict(fmt, "skim", parts, verdicts, "ZLIB and ZSTD not both measured")


def _uniform(row) -> bool:
    return str(row.get("branch_compression", "uniform")) in ("uniform", "nan")


def branch_compression(rows: pd.DataFrame, fmt: str, others: pd.DataFrame | None = None) -> Finding:
    """Per-branch compression (the branch_compression scans): per read selection, each per-branch setting ("hot"
    branches at their own algorithm, the rest at the file's) against the uniform settings of the same reads, by
    file size and rate. ``others``: every valid uniform, lossless point of the format in the whole study (with a
    ``setting`` label), so that a uniform setting from another scan (another algorithm, AutoFlush, cache) that is
    both smaller and faster is found too. Agrees where no uniform point is both at least as small and at least as
    fast (it is on the size-rate front), for every selection measured; "partly" where it is for some."""
    parts, verdicts = [], []
    sizes = rows["size_bytes"] / rows["events"]
    rows = rows.assign(bytes_per_event=sizes)
    for selection, group in rows.groupby("branches", sort=True):
        uniform = group[[_uniform(r) for r in group.to_dict("records")]]
        hot = group[[not _uniform(r) for r in group.to_dict("records")]]
        if uniform.empty or hot.empty:
            continue
        for _, h in hot.iterrows():
            beaten = uniform[(uniform["bytes_per_event"] <= h["bytes_per_event"])
                             & (uniform["event_rate_hz_mean"] >= h["event_rate_hz_mean"])]  # fmt: skip
            text = (
                f"{selection}: {h['algorithm']}-{int(h['level'])} + hot {h['branch_compression']}: {_rate(h)}"
            )
            text += f", {h['bytes_per_event'] / 1e3:.1f} kB/event"
            for _, u in uniform.sort_values("bytes_per_event").iterrows():
                text += (f"; against uniform {u['algorithm']}-{int(u['level'])} ({_rate(u)}): "
                         f"{h['bytes_per_event'] / u['bytes_per_event']:.2f}x its size, {_ratio_text(h, u)} its rate")  # fmt: skip
            if not beaten.empty:
                b = beaten.iloc[0]
                text += f" (beaten by uniform {b['algorithm']}-{int(b['level'])})"
            elif others is not None and not others.empty:
                same = others[
                    (others["branches"] == selection) & (others["storage_profile"] == h["storage_profile"])
                ]
                size = same["size_bytes"] / same["events"]
                better = same[
                    (size <= h["bytes_per_event"]) & (same["event_rate_hz_mean"] >= h["event_rate_hz_mean"])
                ]
                if not better.empty:
                    b = better.loc[better["event_rate_hz_mean"].idxmax()]
                    beaten = better
                    text += (f" (but beaten by {b['setting']} of another scan: {b['size_bytes'] / b['events'] / 1e3:.1f} "
                             f"kB/event, {_rate(b)})")  # fmt: skip
            parts.append(text)
            verdicts.append(beaten.empty)
    return _verdict(
        fmt, "branch_compression", parts, verdicts, "no per-branch and uniform points of the same read"
    )


def _uniform_lossless(summary, points, files, config, fmt: str) -> pd.DataFrame:
    """Every valid point of ``fmt`` in the study with one compression for all branches and full float precision,
    with its setting's label (rootparams.decision.setting_label)."""
    from rootparams.decision import setting_label

    rows = scan_rows(summary, points, files, ("default", *config["scans"]))
    rows = rows[(rows["format"] == fmt) & valid_points(rows) & rows["event_rate_hz_mean"].notna()]
    for key, default in LATER_FILE_KEY_DEFAULTS.items():
        if key in rows:
            rows = rows[rows[key].fillna(default).astype(str) == default]
    defaults = config["file_defaults"][fmt]
    return rows.assign(
        setting=[setting_label(r, defaults, config["read_defaults"]) for r in rows.to_dict("records")]
    )


def float_precision(rows: pd.DataFrame, fmt: str, precision: pd.DataFrame | None) -> Finding:
    """Lossy floats (the float_precision scan): per container and compression, each reduced precision against
    the full one: file size, rate, and the precision lost (float_precision.csv: the worst variable's largest
    relative error against the bound 2^-(N+1) of N kept mantissa bits). Agrees when every lossy file is smaller
    and within its bound."""
    parts, verdicts = [], []
    keys = ["container", "algorithm", "level"]
    for (container, alg, level), group in rows.groupby(keys, sort=True):
        full = group[group["float_precision"].astype(str) == "full"]
        if full.empty:
            continue
        full = full.iloc[0]
        for _, row in group[group["float_precision"].astype(str) != "full"].iterrows():
            bits = mantissa_bits(str(row["float_precision"]))
            size = row["size_bytes"] / full["size_bytes"]
            text = (f"{CONTAINER_LABELS.get(container, container)} {alg}-{int(level)}, {row['float_precision']}: "
                    f"{size:.2f}x the full file's size ({100 * (1 - size):.0f} % saved), {_ratio_text(row, full)} its "
                    f"rate ({_rate(row)})")  # fmt: skip
            within = True
            if precision is not None and not precision.empty:
                lost = precision[(precision["format"] == fmt) & (precision["file_id"] == row["file_id"])]
                if not lost.empty:
                    worst = lost.loc[lost["max_rel_error"].idxmax()]
                    bound = 2.0 ** -(bits + 1) if bits is not None else float("nan")
                    within = bool(worst["max_rel_error"] <= bound * (1 + 1e-9)) if bits is not None else True
                    text += (f"; {len(lost)} float variables, worst relative error {worst['max_rel_error']:.2g} "
                             f"({worst['variable']}; bound {bound:.2g}), median over variables of the RMS "
                             f"{lost['rms_rel_error'].median():.2g}")  # fmt: skip
            parts.append(text)
            verdicts.append(size < 1.0 and within)
    return _verdict(
        fmt, "float_precision", parts, verdicts, "no full and reduced precision of the same file settings"
    )


def event_size(summary, points, files) -> Finding | None:
    """Seed 003's event-size scan at a fixed volume, per container and reading style: the CPU one event costs at
    the smallest and the largest size, and the size below which per-event overhead outweighs the per-byte work.
    The per-byte cost b is the largest events' CPU per byte, the per-event overhead a the smallest events' CPU
    per event minus b x their bytes; the crossover is a / b. Agrees with the seed ("measurable below one
    kilobyte", dominating below) where the crossover lies within a decade of 1 kB (100 B - 10 kB); partly where
    overhead dominates the smallest events but the crossover is elsewhere."""
    from rootparams.formats import eventsize_written_bytes

    rows = scan_rows(summary, points, files, "event_size")
    if rows.empty:
        return None
    valid = valid_points(rows)
    left_out = int((~valid).sum())
    rows = rows[rows["event_rate_hz_mean"].notna() & valid]
    if rows.empty:
        return Finding("event sizes", "event_size", f"no valid point: all {left_out} points of the scan have a timed "
                       "loop that misses I/O or is too short (see summary.csv, window_invalid_reasons)",
                       PAPER["event_size"], "n/a")  # fmt: skip
    rows = rows.assign(event_bytes=rows["format"].map(eventsize_written_bytes))
    parts, verdicts = [], []
    for (container, style, n), group in rows.groupby(["container", "reading_style", "threads"], sort=True):
        group = group.sort_values("event_bytes")
        if len(group) < 2:
            continue
        small, large = group.iloc[0], group.iloc[-1]
        cpu_small, cpu_large = small["loop_cpu_us_per_event_mean"], large["loop_cpu_us_per_event_mean"]
        per_byte = cpu_large / large["event_bytes"]
        overhead = cpu_small - per_byte * small["event_bytes"]
        crossover = overhead / per_byte if per_byte > 0 else float("nan")
        parts.append(f"{CONTAINER_LABELS.get(container, container)}, {reading_style_label(style, n)}: "
                     f"{cpu_small:.2f} µs/event at {int(small['event_bytes'])} B, {cpu_large:.0f} µs/event at "
                     f"{int(large['event_bytes'])} B; overhead {overhead:.2f} µs/event, {per_byte * 1e3:.3f} µs/kB: "
                     f"they are equal at {crossover:.0f} B/event")  # fmt: skip
        if 100 <= crossover <= 10_000:
            verdicts.append("yes")
        else:
            verdicts.append("partly" if overhead > per_byte * small["event_bytes"] else "no")
    measured = "; ".join(parts) + (f" ({left_out} invalid point(s) left out)" if left_out else "")
    if not verdicts:
        return Finding("event sizes", "event_size", measured or "fewer than two event sizes measured",
                       PAPER["event_size"], "n/a")  # fmt: skip
    agrees = "yes" if set(verdicts) == {"yes"} else "no" if set(verdicts) == {"no"} else "partly"
    return Finding("event sizes", "event_size", measured, PAPER["event_size"], agrees)


SEED_TOPICS = {"access": access, "reading_style": reading_style, "unzip": unzip, "skim": skim}
# Issue #17's file settings beyond the paper, each with its scans (reported where the study has one of them).
FILE_TOPICS = {"branch_compression": ("branch_compression", "branch_compression_uniform"),
               "float_precision": ("float_precision",)}  # fmt: skip


def findings(
    summary, points, files, config, cores: int | None, precision: pd.DataFrame | None = None
) -> list[Finding]:
    """Every topic's finding per format; ``precision`` is float_precision.csv (the float_precision topic)."""
    from rootparams.formats import EVENTSIZE_PREFIX

    out = []
    for fmt in format_order(config["formats"]):
        if fmt.startswith(EVENTSIZE_PREFIX):
            continue  # the event-size formats have one finding together (event_size, below)
        defaults = config["file_defaults"][fmt]
        own_scans = config["formats"][fmt].get(
            "scans"
        )  # a format that keeps to some scans: only their topics
        for topic, scan in (("compression", "compression"), ("autoflush", "autoflush"), ("split", "split"),
                            ("cache", ("cache", "cache_learn")), ("threads", "threads"), ("rntuple", ("container", "container_storage")),
                            ("cluster_cache", "rntuple_cache"), ("remote_cache", "remote_cache"),
                            *((t, t) for t in SEED_TOPICS), *FILE_TOPICS.items()):  # fmt: skip
            beyond = topic in ("rntuple", "cluster_cache", "remote_cache", *SEED_TOPICS, *FILE_TOPICS)
            if beyond and not set(scan if isinstance(scan, tuple) else [scan]) & set(config["scans"]):
                continue  # beyond the paper: reported only where the study has the scan
            if own_scans and not set(scan if isinstance(scan, tuple) else [scan]) & set(own_scans):
                continue
            rows = scan_rows(summary, points, files, scan)
            # The skim topic compares the files: a read with no unflagged repetition still has its file.
            rows = rows[(rows["format"] == fmt) & (rows["event_rate_hz_mean"].notna() | (topic == "skim"))]
            if (topic in SEED_TOPICS or topic in FILE_TOPICS) and not (
                scan_rows(summary, points, files, scan)["format"] == fmt
            ).any():
                continue  # the seed's scan leaves this format out (it names others): nothing to say
            if "container" in rows and topic not in (
                "rntuple",
                "cluster_cache",
                "remote_cache",
                "float_precision",
            ):
                rows = rows[rows["container"] == defaults["container"]]  # the paper's topics: one container
            if topic == "cluster_cache":
                rows = rows[rows["container"] == "rntuple"]
            # The skim topic compares the files' compression: a read's window has nothing to do with it.
            valid = valid_points(rows) if topic != "skim" else pd.Series(True, index=rows.index)
            left_out = int((~valid).sum())
            rows = rows[valid]
            if rows.empty:
                why = (
                    f"no valid point: all {left_out} points of the scan have a timed loop that misses I/O "
                    "or is too short (see summary.csv, window_invalid_reasons)"
                    if left_out
                    else f"not measured (no '{scan}' scan for {fmt})"
                )
                out.append(Finding(fmt, topic, why, PAPER[topic], "n/a"))
                continue
            if topic == "compression":
                finding = compression(rows, fmt)
            elif topic in SEED_TOPICS:
                finding = SEED_TOPICS[topic](rows, fmt)
            elif topic == "branch_compression":
                finding = branch_compression(
                    rows, fmt, _uniform_lossless(summary, points, files, config, fmt)
                )
            elif topic == "float_precision":
                finding = float_precision(rows, fmt, precision)
            elif topic == "autoflush":
                finding = autoflush(rows, fmt, defaults["algorithm"], defaults["autoflush"])
            elif topic == "split":
                finding = split(rows, fmt)
            elif topic == "cache":
                finding = cache(rows, fmt)
            elif topic == "rntuple":
                finding = rntuple(rows, fmt)
            elif topic == "cluster_cache":
                finding = cluster_cache(rows, fmt)
            elif topic == "remote_cache":
                finding = remote_cache(rows, fmt)
            else:
                finding = threads(rows, fmt, cores)
            if left_out:
                finding.measured += f" ({left_out} invalid point(s) left out)"
            out.append(finding)
    if "event_size" in config["scans"] and (found := event_size(summary, points, files)):
        out.append(found)
    return out


def markdown(found: list[Finding], storage_profiles: str, context: str, lead: str = "") -> str:
    """recommendations.md: ``lead`` first (the cost model's answer, rootparams.decision), then the scans'
    findings per format."""
    lines = [
        "# Recommendations derived from this run",
        "",
        f"Computed from `results/tables/summary.csv` and `files.csv` by `rootparams.decision` and "
        f"`rootparams.recommend` (rules in their docstrings); storage profile(s) of the timed reads: "
        f"{storage_profiles}. {context}",
        "",
    ]
    if lead:
        lines += [lead, "## The scans in detail", ""]
    lines += [f"Rates within {TOLERANCE:.0%} or within their combined 1σ count as equal.", ""]
    for fmt in dict.fromkeys(f.format for f in found):
        lines += [
            f"### {format_title(fmt)}",
            "",
            "| topic | this run | paper (section 3.1); ROOT's own claims (rntuple, cluster_cache, skim); the seeds' "
            "(remote_cache, access, reading_style, unzip, event_size) | agrees |",
            "|---|---|---|---|",
        ]
        for f in (f for f in found if f.format == fmt):
            lines.append(f"| {f.topic} | {f.measured} | {f.paper} | {f.agrees} |")
        lines.append("")
    return "\n".join(lines)
