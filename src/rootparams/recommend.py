"""Recommendations derived from the measured data, next to the paper's (section 3.1).

Every statement is computed from summary.csv, files.csv and points.csv; nothing here knows what the answer
"should" be except the PAPER dictionary, which quotes the paper so that each finding can be compared.

Rules (all per format, on the unflagged means):
- compression: the fastest point (highest event rate) and the smallest file of the compression scan;
- AutoFlush plateau: the best rate R of the AutoFlush scan for the format's default algorithm; the plateau
  is the smallest cluster (fewest events per cluster, as read back from the file) whose rate is at least
  (1 - TOLERANCE) * R; its memory cost is its peak RSS against the smallest AutoFlush measured;
- split level: the fastest of the split scan, with its file size against the smallest;
- TTreeCache: the smallest explicit size (bytes > 0) whose rate reaches (1 - TOLERANCE) times the best rate
  of the cache scan, with the rate of "off" and of -1 beside it;
- threads: the rate at the most threads against 1 thread, and whether that oversubscribed the machine.
Two rates count as equal when their means differ by less than TOLERANCE or by less than their combined 1σ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from rootparams.figures import FORMAT_TITLES, autoflush_label, cache_label, scan_rows

TOLERANCE = 0.05  # 5 %: about the spread of single points here (σ/mean 1-5 %)

# Section 3.1 of the paper (seed 000), one entry per topic.
PAPER = {
    "compression": "LZ4 is best for fast reading, LZMA for the smallest files; ZLIB is in between and best for "
    "formats with very small events.",
    "autoflush": "AutoFlush 100 events is good for the primary xAOD; for derivations 10 MB is too small for "
    "larger events (~170 kB/event) and should be doubled to 20 MB.",
    "split": "Split level 0 for derivations (instead of 1): smaller files and slightly faster reading.",
    "cache": "Use a TTreeCache of -1 (the AutoFlush cluster); most important for high-latency storage.",
    "threads": "Parallel branch decompression helps large (D)xAODs with LZMA, sometimes ZLIB and LZ4 too.",
}


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
    # The paper's claim per format: LZ4 fastest among LZ4/ZLIB/LZMA (ZLIB for very small events), LZMA smallest.
    paper_algs = compressed[compressed["algorithm"].isin(["lz4", "zlib", "lzma"])]
    if paper_algs.empty:
        return Finding(fmt, "compression", measured, PAPER["compression"], "n/a")
    best = paper_algs.loc[paper_algs["event_rate_hz_mean"].idxmax()]
    best_lz4 = paper_algs[paper_algs["algorithm"] == "lz4"]
    lz4_fastest = not best_lz4.empty and same_rate(
        best_lz4.loc[best_lz4["event_rate_hz_mean"].idxmax()], best
    )
    lzma_smallest = paper_algs.loc[paper_algs["size_bytes"].idxmin(), "algorithm"] == "lzma"
    agrees = "yes" if lz4_fastest and lzma_smallest else ("partly" if lz4_fastest or lzma_smallest else "no")
    if best["algorithm"] == "zlib" and fmt == "truth3" and lzma_smallest:
        agrees = "yes"  # the paper's own exception: ZLIB best for very small events
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
    memory = (plateau["peak_rss_bytes_mean"] - smallest["peak_rss_bytes_mean"]) / 1e6
    measured = (
        f"{default_algorithm}: best {autoflush_label(best['autoflush'])} ({_rate(best)}); plateau (within "
        f"{TOLERANCE:.0%}) from {autoflush_label(plateau['autoflush'])} (~{plateau['events_per_cluster']:.0f} "
        f"events/cluster, {_rate(plateau)}), peak RSS {plateau['peak_rss_bytes_mean'] / 1e6:.0f} MB "
        f"({memory:+.0f} MB against {autoflush_label(smallest['autoflush'])})"
    )
    default = rows[rows["autoflush"] == default_autoflush]
    if default.empty:
        return Finding(fmt, "autoflush", measured, PAPER["autoflush"], "n/a")
    default = default.iloc[0]
    on_plateau = default["event_rate_hz_mean"] >= (1 - TOLERANCE) * best["event_rate_hz_mean"]
    if fmt == "xaod":
        agrees = "yes" if on_plateau else "no"  # the paper: 100 events is good for the primary xAOD
    else:
        agrees = "no" if on_plateau else "yes"  # the paper: 10 MB is too small for the larger derivations
        if fmt == "truth3":
            agrees = "n/a"  # the paper's advice concerns larger derivations, not 5 kB/event TRUTH3
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
    parts, gains = [], []
    for alg, group in rows.groupby("algorithm"):
        one = group[group["threads"] == 1]
        most = group.loc[group["threads"].idxmax()]
        if one.empty or most["threads"] == 1:
            continue
        gain = most["event_rate_hz_mean"] / one.iloc[0]["event_rate_hz_mean"]
        gains.append((gain, same_rate(most, one.iloc[0])))
        over = " (oversubscribed)" if cores and most["threads"] > cores else ""
        parts.append(f"{alg}: {most['threads']} threads{over} give {gain:.2f}x the 1-thread rate")
    if not parts:
        return Finding(fmt, "threads", "only 1 thread measured", PAPER["threads"], "n/a")
    helps = any(g > 1 and not same for g, same in gains)
    agrees = "yes" if helps == (fmt in ("xaod", "topq1")) else "partly"
    return Finding(fmt, "threads", "; ".join(parts), PAPER["threads"], agrees)


def findings(summary, points, files, config, cores: int | None) -> list[Finding]:
    out = []
    for fmt in [f for f in FORMAT_TITLES if f in config["formats"]]:
        defaults = config["file_defaults"][fmt]
        for topic, scan in (("compression", "compression"), ("autoflush", "autoflush"), ("split", "split"),
                            ("cache", ("cache", "cache_learn")), ("threads", "threads")):  # fmt: skip
            rows = scan_rows(summary, points, files, scan)
            rows = rows[(rows["format"] == fmt) & rows["event_rate_hz_mean"].notna()]
            if rows.empty:
                out.append(
                    Finding(fmt, topic, f"not measured (no '{scan}' scan for {fmt})", PAPER[topic], "n/a")
                )
            elif topic == "compression":
                out.append(compression(rows, fmt))
            elif topic == "autoflush":
                out.append(autoflush(rows, fmt, defaults["algorithm"], defaults["autoflush"]))
            elif topic == "split":
                out.append(split(rows, fmt))
            elif topic == "cache":
                out.append(cache(rows, fmt))
            else:
                out.append(threads(rows, fmt, cores))
    return out


def markdown(found: list[Finding], storage_profiles: str, context: str) -> str:
    lines = [
        "# Recommendations derived from this run",
        "",
        f"Computed from `results/tables/summary.csv` by `rootparams.recommend` (rules in its docstring); "
        f"storage profile(s) of the timed reads: {storage_profiles}. {context}",
        f"Rates within {TOLERANCE:.0%} or within their combined 1σ count as equal.",
        "",
    ]
    for fmt in dict.fromkeys(f.format for f in found):
        lines += [
            f"## {FORMAT_TITLES.get(fmt, fmt)}",
            "",
            "| topic | this run | paper (section 3.1) | agrees |",
            "|---|---|---|---|",
        ]
        for f in (f for f in found if f.format == fmt):
            lines.append(f"| {f.topic} | {f.measured} | {f.paper} | {f.agrees} |")
        lines.append("")
    return "\n".join(lines)
