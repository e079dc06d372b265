"""From measurements to a decision (issue #17): per format, the settings worth considering (the Pareto front of
file size, event rate and write cost) and the cheapest one for a file's life (a cost model whose prices are in
the config, ``cost``).

Every number comes from the run's tables: summary.csv (each point's timed reads: event rate, σ, validity) and
files.csv (each file: size, events, ROOT's write time). Only points with a valid timed loop and unflagged
repetitions enter; the others are counted, never guessed.

Quantities, per event, so that formats and files of any size compare:

- ``bytes_per_event``: the file's size on disk over its events (files.csv ``size_bytes / events``).
- ``event_rate_hz``: the point's timed loop (summary.csv ``event_rate_hz_mean``, span "loop": first entry to the
  end of the loop) for its branch selection, storage profile and read settings.
- ``write_core_us_per_event``: ROOT's part of writing the file in CPU time of all the writer's threads, per event
  (files.csv ``root_write_cpu_seconds``: the fills and the closing flush, which include serialization and
  compression on implicit-MT workers, not the generation of the synthetic content; for a rewrite of a user's
  file, the whole copy, its reading included). CPU time, not wall time, because the workflow writes files side
  by side and a write's wall time grows with what shares its cores. One measurement per file. Catalogues from
  before the CPU time was recorded fall back to ``root_write_seconds`` x the writer's threads.

**Pareto front**, per group (format, container, storage profile, branch selection): a point is on the front if no
other point of its group is at least as good on all three (file not larger, rate not lower, write cost not
higher) and better on one. Means are compared as they are: noise can move a point on or off the front, and the
table gives every rate's σ. A point whose write cost is unknown (a user's file measured as it is) is compared on
size and rate only.

**Cost model**, per million events over the file's life, in the prices' currency:

    storage = bytes_per_event * 1e6 / 1e12 [TB] * disk_per_tb_year * lifetime_years * copies
    write   = write_core_us_per_event * 1e6 / 1e6 / 3600 [core-hours] * cpu_per_core_hour
    read    = 1e6 / event_rate_hz / 3600 * threads [core-hours] * cpu_per_core_hour        (per read)
    total(N) = storage + write + N * read

A read holds its threads' cores for its wall time: a batch slot is paid by the wall clock, also while it waits
for the disk, so the rate of the cost's storage profile is what prices a read. The candidates are the valid
points of that profile and of each format's default branch selection, in both containers; settings that lose
float precision (``float_precision`` other than "full") are left out unless ``cost.lossy`` is true, because what
precision an analysis can lose is a physics decision, not a price.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from rootparams.aggregate import LATER_FILE_KEY_DEFAULTS, valid_points
from rootparams.labels import autoflush_label, cache_label, reading_style_label

# The three objectives and their sense.
OBJECTIVES = {"bytes_per_event": "min", "event_rate_hz": "max", "write_core_us_per_event": "min"}
GROUP_KEYS = ["format", "container", "storage_profile", "branches"]
FILE_SETTING_KEYS = ["container", "algorithm", "level", "autoflush", "split_level", "basket_size", "page_size",
                     "branch_compression", "float_precision"]  # fmt: skip
READ_SETTING_KEYS = ["cache_size", "learn_entries", "cluster_bunch", "async_prefetch", "threads", "reading_style",
                     "unzip"]  # fmt: skip
FILE_COLUMNS = ["format", "file_id", "size_bytes", "events", "root_write_seconds", "root_write_cpu_seconds",
                "write_threads"]  # fmt: skip
# Written next to every cost so that a table read alone says what it assumed.
PRICE_KEYS = ("currency", "disk_per_tb_year", "cpu_per_core_hour", "lifetime_years", "copies")


def _true(value) -> bool:
    return str(value).lower() in ("true", "1")


def _algorithm_level(row) -> str:
    alg = str(row["algorithm"])
    return "uncompressed" if alg == "none" else f"{alg.upper()}-{int(row['level'])}"


def setting_label(
    row: Mapping[str, Any], file_defaults: Mapping[str, Any], read_defaults: Mapping[str, Any]
) -> str:
    """A short name of a point's setting for people: the compression always, then every other setting that
    differs from the format's defaults (``file_defaults``) and the study's read defaults, e.g.
    "LZ4-1, AF 20 MB, cache off", "RNTuple ZSTD-5", "LZMA-5, hot largest4:lz4-1, mt2"."""
    parts = [_algorithm_level(row)]
    if row.get("container", "ttree") == "rntuple":
        parts[0] = f"RNTuple {parts[0]}"

    def differs(key, default=None):
        if key not in row or (isinstance(row[key], float) and math.isnan(row[key])):
            return False
        want = file_defaults.get(key, read_defaults.get(key, default))
        return want is not None and str(row[key]) != str(want)

    if differs("autoflush"):
        parts.append(f"AF {autoflush_label(int(row['autoflush']))}")
    if row.get("container", "ttree") == "ttree":
        if differs("split_level") and int(row["split_level"]) >= 0:
            parts.append(f"split {int(row['split_level'])}")
        if differs("basket_size") and int(row["basket_size"]) > 0:
            parts.append(f"basket {int(row['basket_size']) / 1000:g} kB")
    elif differs("page_size") and int(row["page_size"]) > 0:
        parts.append(f"page {int(row['page_size']) / 1024:g} KiB")
    if str(row.get("branch_compression", "uniform")) not in ("uniform", "nan"):
        parts.append(f"hot {row['branch_compression']}")
    if str(row.get("float_precision", "full")) not in ("full", "nan"):
        parts.append(f"floats {row['float_precision']}")
    if differs("cache_size"):
        parts.append(f"cache {cache_label(int(row['cache_size']))}")
    if differs("learn_entries"):
        parts.append(f"learn {row['learn_entries']}")
    if differs("cluster_bunch", 1):
        parts.append(f"bunch {int(row['cluster_bunch'])}")
    if _true(row.get("async_prefetch", False)):
        parts.append("async prefetch")
    if _true(row.get("unzip", False)):
        parts.append("parallel unzip")
    style = str(row.get("reading_style", "getentry"))
    if style != "getentry":
        parts.append(reading_style_label(style, int(row.get("threads", 1))))
    elif int(row.get("threads", 1)) != 1:
        parts.append(f"mt{int(row['threads'])}")
    return ", ".join(parts)


def candidates(summary: pd.DataFrame, files: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """Every measured point with its three objectives and a label; ``valid`` says whether it may enter a
    decision (a valid timed loop and a rate from unflagged repetitions)."""
    have = [c for c in FILE_COLUMNS if c in files.columns]
    # The summary has hundreds of columns: keep only those the decision uses, or pandas warns at every column
    # added to the fragmented frame.
    wanted = [
        c for c in summary.columns if not c.endswith(("_std", "_mean", "_n")) or c.startswith("event_rate_hz")
    ]
    rows = (
        summary[wanted]
        .merge(files[have], on=["format", "file_id"], how="left", suffixes=("", "_file"))
        .copy()
    )
    if "size_bytes_file" in rows:
        rows["size_bytes"] = rows["size_bytes_file"]
    for key, default in LATER_FILE_KEY_DEFAULTS.items():
        if key not in rows:
            rows[key] = default
        rows[key] = rows[key].fillna(default).astype(str)
    rows["bytes_per_event"] = rows["size_bytes"] / rows["events"]
    rows["event_rate_hz"] = rows["event_rate_hz_mean"]
    threads = rows["write_threads"].fillna(1) if "write_threads" in rows else 1
    write = rows.get("root_write_seconds", np.nan) * threads
    if "root_write_cpu_seconds" in rows:
        write = rows["root_write_cpu_seconds"].fillna(write)
    rows["write_core_us_per_event"] = 1e6 * write / rows["events"]
    rows["valid"] = valid_points(rows) & rows["event_rate_hz"].notna() & (rows["event_rate_hz"] > 0)
    rows["lossy"] = rows["float_precision"] != "full"
    read_defaults = config["read_defaults"]
    rows["setting"] = [
        setting_label(r, config["file_defaults"].get(r["format"], {}), read_defaults)
        for r in rows.to_dict("records")
    ]
    return rows


def dominates(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    """Whether ``a`` is at least as good as ``b`` on every objective both have, and better on one."""
    better = False
    for key, sense in OBJECTIVES.items():
        x, y = a[key], b[key]
        if (
            x is None
            or y is None
            or (isinstance(x, float) and math.isnan(x))
            or (isinstance(y, float) and math.isnan(y))
        ):
            continue
        if sense == "max":
            x, y = -x, -y
        if x > y:
            return False
        better = better or x < y
    return better


def pareto(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (candidates) with ``on_front`` and ``dominated_by`` (the label of one point that beats it, the
    one of its group with the highest rate), per GROUP_KEYS group of the valid points. Invalid points are kept,
    not on any front, with ``dominated_by`` saying why."""
    out = rows.copy()
    out["on_front"] = False
    out["dominated_by"] = np.where(out["valid"], "", "(not valid: timed loop or repetitions)")
    valid = out[out["valid"]]
    for _, group in valid.groupby(GROUP_KEYS, dropna=False):
        records = group.to_dict("records")
        for index, point in zip(group.index, records, strict=True):
            beaten_by = [q for q in records if q is not point and dominates(q, point)]
            if beaten_by:
                best = max(beaten_by, key=lambda q: q["event_rate_hz"])
                out.at[index, "dominated_by"] = best["setting"]
            else:
                out.at[index, "on_front"] = True
    return out


PARETO_COLUMNS = [*GROUP_KEYS, "setting", "algorithm", "on_front", "dominated_by", "bytes_per_event", "event_rate_hz",
                  "event_rate_hz_std", "write_core_us_per_event", "lossy", "valid", "n", "file_id", "read_id"]  # fmt: skip


def pareto_table(summary: pd.DataFrame, files: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """The tidy front table (results/tables/pareto_front.csv): every point, front first within each group."""
    table = pareto(candidates(summary, files, config))
    columns = [c for c in PARETO_COLUMNS if c in table.columns]
    return table.sort_values(
        [*GROUP_KEYS, "on_front", "bytes_per_event"], ascending=[True] * 4 + [False, True]
    )[columns].reset_index(drop=True)


def prices(config: Mapping[str, Any]) -> dict[str, Any]:
    """The cost section with its storage profile resolved (None: the study's read profile)."""
    cost = dict(config["cost"])
    cost["storage_profile"] = cost.get("storage_profile") or config["read_defaults"]["storage_profile"]
    return cost


def default_selection(config: Mapping[str, Any], fmt: str) -> str:
    return config["formats"].get(fmt, {}).get("branches", config["read_defaults"]["branches"])


def cost_parts(rows: pd.DataFrame, price: Mapping[str, Any]) -> pd.DataFrame:
    """Per candidate: storage, write and per-read cost per million events (the docstring's formulas)."""
    out = rows.copy()
    per_core_second = price["cpu_per_core_hour"] / 3600.0
    out["storage_cost"] = (
        out["bytes_per_event"]
        * 1e6
        / 1e12
        * price["disk_per_tb_year"]
        * price["lifetime_years"]
        * price["copies"]
    )
    out["write_cost"] = out["write_core_us_per_event"].fillna(0.0) * per_core_second
    out["read_cost"] = 1e6 / out["event_rate_hz"] * out["threads"].astype(float) * per_core_second
    return out


def cost_candidates(rows: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """The candidates the cost model chooses among: valid points of the cost's storage profile and each
    format's default branch selection, lossless unless cost.lossy, with their cost parts."""
    price = prices(config)
    keep = rows["valid"] & (rows["storage_profile"] == price["storage_profile"])
    keep &= pd.Series(
        [b == default_selection(config, f) for f, b in zip(rows["format"], rows["branches"], strict=True)],
        index=rows.index,
        dtype=bool,
    )
    if not price["lossy"]:
        keep &= ~rows["lossy"]
    return cost_parts(rows[keep], price)


def total_cost(parts: pd.DataFrame, reads: float) -> pd.Series:
    return parts["storage_cost"] + parts["write_cost"] + reads * parts["read_cost"]


CHOICE_COLUMNS = ["format", "reads_per_file", "setting", "container", "total_cost", "storage_cost", "write_cost",
                  "read_cost_total", "bytes_per_event", "event_rate_hz", "file_id", "read_id", "candidates",
                  "runner_up", "runner_up_extra"]  # fmt: skip


def cheapest(parts: pd.DataFrame, reads_list) -> pd.DataFrame:
    """Per format and read count: the cheapest setting, its cost parts, and the runner-up with how much more it
    costs (results/tables/cost_choice.csv). Always the same columns, also when nothing is valid, so that the
    table is readable by the stages after it."""
    out = []
    for fmt, group in parts.groupby("format", sort=False):
        for reads in reads_list:
            total = total_cost(group, reads).sort_values(kind="stable")
            best = group.loc[total.index[0]]
            row = {"format": fmt, "reads_per_file": reads, "setting": best["setting"], "container": best["container"],
                   "total_cost": total.iloc[0], "storage_cost": best["storage_cost"], "write_cost": best["write_cost"],
                   "read_cost_total": reads * best["read_cost"], "bytes_per_event": best["bytes_per_event"],
                   "event_rate_hz": best["event_rate_hz"], "file_id": best["file_id"], "read_id": best["read_id"],
                   "candidates": len(group)}  # fmt: skip
            if len(total) > 1:
                second = group.loc[total.index[1]]
                row |= {
                    "runner_up": second["setting"],
                    "runner_up_extra": total.iloc[1] / total.iloc[0] - 1.0,
                }
            out.append(row)
    return pd.DataFrame(out, columns=CHOICE_COLUMNS)


def crossovers(parts: pd.DataFrame, start: float = 1.0) -> pd.DataFrame:
    """Per format, where the cheapest setting changes as the reads per file grow: the lower envelope of the
    lines storage + write + N * read for N >= ``start``. One row per stretch: from_reads, to_reads (inf for
    the last) and the setting that is cheapest there."""
    rows = []
    for fmt, group in parts.groupby("format", sort=False):
        fixed = (group["storage_cost"] + group["write_cost"]).to_numpy()
        slope = group["read_cost"].to_numpy()
        labels = group["setting"].to_numpy()
        n = start
        current = int(np.lexsort((slope, fixed + n * slope))[0])
        while True:
            # The next line to undercut the current one: a smaller slope, crossing after n.
            with np.errstate(divide="ignore", invalid="ignore"):
                cross = (fixed - fixed[current]) / (slope[current] - slope)
            cross[(slope >= slope[current]) | (cross <= n)] = np.inf
            nxt = int(np.argmin(cross))
            end = float(cross[nxt])
            rows.append({"format": fmt, "from_reads": n, "to_reads": end, "setting": labels[current]})
            if math.isinf(end):
                break
            # Among lines meeting there, the one with the smallest slope stays cheapest beyond.
            tied = np.flatnonzero(np.isclose(cross, end, rtol=1e-12))
            current = int(tied[np.argmin(slope[tied])])
            n = end
    return pd.DataFrame(rows, columns=["format", "from_reads", "to_reads", "setting"])


COST_COLUMNS = ["format", "setting", "container", "algorithm", "storage_profile", "branches", "bytes_per_event", "event_rate_hz",
                "event_rate_hz_std", "threads", "write_core_us_per_event", "storage_cost", "write_cost", "read_cost",
                "file_id", "read_id"]  # fmt: skip


def cost_table(rows: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """results/tables/cost_model.csv: every candidate's cost parts, with the prices that made them."""
    parts = cost_candidates(rows, config)
    table = parts[[c for c in COST_COLUMNS if c in parts.columns]].copy()
    price = prices(config)
    for key in PRICE_KEYS:
        table[f"price_{key}"] = price[key]
    return table.sort_values(["format", "storage_cost"]).reset_index(drop=True)


def money(value: float, currency: str) -> str:
    if value >= 100:
        return f"{value:,.0f} {currency}"
    if value >= 1:
        return f"{value:.2f} {currency}"
    return f"{value:.3g} {currency}"


def reads_label(n: float) -> str:
    return "∞" if math.isinf(n) else f"{n:,.0f}" if n >= 10 else f"{n:.3g}"


def decision_markdown(choice: pd.DataFrame, envelope: pd.DataFrame, front: pd.DataFrame, config) -> str:
    """The lead of recommendations.md: per format, the cost model's choice at each cost.reads_per_file, where the
    choice changes, and the Pareto front of the cost's storage profile and selection."""
    from rootparams.labels import format_order, format_title

    price = prices(config)
    cur = price["currency"]
    lines = [
        "## The decision: the cheapest setting per format (cost model)",
        "",
        f"Per million events over a file's life: disk {price['disk_per_tb_year']:g} {cur} per TB-year x "
        f"{price['lifetime_years']:g} year(s) x {price['copies']} copy(ies), plus ROOT's write time and each read's "
        f"wall time x threads at {price['cpu_per_core_hour']:g} {cur} per core-hour, the reads on "
        f"`{price['storage_profile']}`, each format's default branch selection"
        + ("" if price["lossy"] else ", lossless settings only (cost.lossy: false)")
        + ". Prices: `cost` in the config (schema: their sources). Formulas: `rootparams.decision`; every "
        "candidate's parts: `tables/cost_model.csv`; the figure: `figures/fig31_cost_vs_reads.png`.",
        "",
    ]
    if choice.empty:
        lines += ["No valid point on the cost's storage profile and selection: no choice.", ""]
        return "\n".join(lines)
    lines += [
        "| format | reads per file | cheapest setting | total | disk | write | reads | size/event | rate | runner-up |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for fmt in format_order(choice["format"]):
        for _, r in choice[choice["format"] == fmt].iterrows():
            runner = (f"{r['runner_up']} (+{100 * r['runner_up_extra']:.1f} %)"
                      if isinstance(r.get("runner_up"), str) else "(only candidate)")  # fmt: skip
            lines.append(
                f"| {format_title(fmt)} | {r['reads_per_file']} | **{r['setting']}** | {money(r['total_cost'], cur)} | "
                f"{money(r['storage_cost'], cur)} | {money(r['write_cost'], cur)} | {money(r['read_cost_total'], cur)} | "
                f"{r['bytes_per_event'] / 1e3:.2f} kB | {r['event_rate_hz']:.0f} Hz | {runner} |"
            )
    lines += [
        "",
        "Where the choice changes as the reads per file grow (the lower envelope of the cost lines):",
        "",
    ]
    for fmt in format_order(envelope["format"]):
        stretches = envelope[envelope["format"] == fmt]
        text = "; ".join(
            f"{reads_label(s['from_reads'])}-{reads_label(s['to_reads'])} reads: {s['setting']}"
            for _, s in stretches.iterrows()
        )
        lines.append(f"- {format_title(fmt)}: {text}")
    lines += ["", f"The Pareto fronts on `{price['storage_profile']}` (size, rate, write cost; "
              "`tables/pareto_front.csv`, `figures/fig30_pareto_<format>.png`):", ""]  # fmt: skip
    on = front[front["on_front"].map(lambda v: str(v).lower() == "true")
               & (front["storage_profile"] == price["storage_profile"])]  # fmt: skip
    for (fmt, container, branches), g in on.groupby(["format", "container", "branches"], sort=False):
        total = int(((front["format"] == fmt) & (front["container"] == container) & (front["branches"] == branches)
                     & (front["storage_profile"] == price["storage_profile"]) & front["valid"]).sum())  # fmt: skip
        names = ", ".join(g.sort_values("bytes_per_event")["setting"])
        lines.append(
            f"- {format_title(fmt)}, {container}, {branches}: {len(g)} of {total} valid points: {names}"
        )
    lines.append("")
    return "\n".join(lines)
