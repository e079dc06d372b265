"""The paper's tables, from the tidy summary and file catalogue.

Table 1 of the paper: algorithm, level, file size in bytes and event rate (mean ± 1σ) of the primary xAOD,
for every compression setting. Here it is written for every format of the study, from the points that vary
only the compression: every other file and read setting at the format's defaults.

Every rate carries the note's 1σ (the spread of the repetitions: how much one read varies), the 95 % interval
of the mean (Student t: how well the mean is known; rootparams.stats.intervals) and n, the unflagged repetitions behind it.

Two event rates are shown (docs/measurement.md, "Spans"): the headline rate over the whole event loop (all N
entries, from the first), which the figures and recommendations use, and the note's own window (from the 2nd
entry). A rate that is not valid (its window misses more than the allowed share of the read's I/O or is too
short, or too few of its repetitions are unflagged) is marked with a dagger and the reason is given under the
table.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from rootparams.results.aggregate import valid_points
from rootparams.stats.compare import summary_interval
from rootparams.study.grid import ReadPoint, format_read_defaults
from rootparams.study.labels import interval_scope, profile_list
from rootparams.vocabulary import ALGORITHMS, CONTAINERS, LATER_FILE_KEY_DEFAULTS, RNTUPLE, TTREE

# By file id, not by settings: a byte-based AutoFlush reads back from the file as an entry count.
_FILE_JOIN_KEYS = ["format", "file_id"]


# What a rate cell shows, said in every caption.
def _rate_legend(table: pd.DataFrame) -> str:
    """How to read a rate: its mean, 1σ, interval (and what the interval covers: labels.interval_scope) and n."""
    scope = interval_scope(table.get("passes", []))
    return (
        f"mean ± 1σ of the repetitions; [95 % CI of the mean, Student t, {scope}]; n: unflagged repetitions"
    )


EMPTY = "no point of this format at the default settings in this study"


def _default_read_ids(config: dict[str, Any], fmt: str) -> dict[str, str]:
    """The read id of ``fmt``'s default read per container: every read setting at the study's read_defaults, the
    branch selection the format's own where it has one (formats.<f>.branches, e.g. 'all' for a flat format), and
    the fixed values a container gives the settings it does not have (grid.ReadPoint.for_container), as the
    study's points are made (grid.expand_points)."""
    read = ReadPoint(**format_read_defaults(config, fmt))
    return {container: read.for_container(container).id for container in CONTAINERS}


def compression_table(
    summary: pd.DataFrame, files: pd.DataFrame, config: dict[str, Any], fmt: str
) -> pd.DataFrame:
    """One row per container and compression setting of ``fmt`` at its default AutoFlush (the cluster size),
    split level and basket size (TTree) or page size (RNTuple), and at its default read (default_read_ids: every
    read setting, so that a point of another scan at the same file, e.g. with parallel unzip, is not a row):
    container, algorithm, level, size_bytes, and per rate its mean, 1σ spread, 95 % interval of the mean and
    validity; n, n_flagged. Empty (with its columns) where the study has no such point."""
    file_defaults = config["file_defaults"][fmt]
    rows = summary[summary["format"] == fmt]
    if "container" not in rows:  # tables made before RNTuple
        rows = rows.assign(container=TTREE, page_size=0)
    per_container = {TTREE: ("split_level", "basket_size"), RNTUPLE: ("page_size",)}
    read_ids = _default_read_ids(config, fmt)
    keep = pd.Series(False, index=rows.index)
    for container, keys in per_container.items():
        match = (rows["container"] == container) & (rows["autoflush"] == file_defaults["autoflush"])
        for key in keys:
            match &= rows[key] == file_defaults[key]
        # The read id names every read setting (ReadPoint.id): one comparison covers all of them.
        match &= rows["read_id"].astype(str) == read_ids[container]
        keep |= match
    rows = rows[keep]
    # Files at the format's default per-branch compression and float precision only (uniform, full): a per-branch
    # or reduced-precision file at the same algorithm and level is another file, not a row of this table.
    for key, default in LATER_FILE_KEY_DEFAULTS.items():
        if key in rows:
            rows = rows[rows[key].fillna(default).astype(str) == str(file_defaults.get(key, default))]
    table = rows.merge(files[[*_FILE_JOIN_KEYS, "size_bytes"]], on=_FILE_JOIN_KEYS, how="left")
    # The event loop's rate is valid when the point is (its window and its unflagged repetitions: ``valid``;
    # tables from before it: ``window_valid``); the note's window is judged on its own window.
    loop_reasons = (
        table["invalid_reasons"] if "invalid_reasons" in table else table.get("window_invalid_reasons")
    )
    table = table.assign(
        **_rate_columns(table, "event_rate_hz", "rate_hz"),
        rate_valid=valid_points(table),
        rate_invalid_reasons=loop_reasons if loop_reasons is not None else "",
        **_rate_columns(table, "note_window_event_rate_hz", "note_window_rate_hz"),
        note_window_valid=table.get("note_window_valid", True),
        algorithm_order=table["algorithm"].map(ALGORITHMS.index),
        passes=table.get("passes", 1),
        container_order=table["container"].map({c: i for i, c in enumerate(CONTAINERS)}),
    )
    for column in ("rate_invalid_reasons", "note_window_invalid_reasons"):
        table[column] = table[column].fillna("") if column in table else ""
    columns = [
        "container",
        "algorithm",
        "level",
        "size_bytes",
        "rate_hz_mean",
        "rate_hz_std",
        "rate_hz_ci95_low",
        "rate_hz_ci95_high",
        "rate_valid",
        "rate_invalid_reasons",
        "note_window_rate_hz_mean",
        "note_window_rate_hz_std",
        "note_window_rate_hz_ci95_low",
        "note_window_rate_hz_ci95_high",
        "note_window_valid",
        "note_window_invalid_reasons",
        "n",
        "n_flagged",
        "cache_state",
        "storage_profile",
        "passes",
    ]
    if table.empty:
        return pd.DataFrame(columns=columns)
    return table.sort_values(["container_order", "algorithm_order", "level"])[columns].reset_index(drop=True)


def _rate_columns(table: pd.DataFrame, metric: str, name: str) -> dict[str, pd.Series]:
    """``metric``'s mean, 1σ spread and 95 % interval of the mean as ``name``_mean, _std, _ci95_low, _ci95_high.
    The interval is summary.csv's; a summary from before it had one gets it from its mean, spread and n."""
    nan = pd.Series(float("nan"), index=table.index)
    out = {f"{name}_mean": table.get(f"{metric}_mean", nan), f"{name}_std": table.get(f"{metric}_std", nan)}
    if f"{metric}_ci95_low" in table and f"{metric}_ci95_high" in table:
        out[f"{name}_ci95_low"] = table[f"{metric}_ci95_low"]
        out[f"{name}_ci95_high"] = table[f"{metric}_ci95_high"]
    else:
        intervals = [summary_interval(row, metric) for row in table.to_dict("records")]
        out[f"{name}_ci95_low"] = pd.Series([i.low for i in intervals], index=table.index, dtype=float)
        out[f"{name}_ci95_high"] = pd.Series([i.high for i in intervals], index=table.index, dtype=float)
    return out


def _rate(mean: float, std: float, low: float, high: float) -> str:
    """ "63.0 ± 1.1 [62.2, 63.8]": mean ± 1σ spread [95 % interval of the mean]."""
    if pd.isna(mean):
        return "n/a"
    if pd.isna(std):
        return f"{mean:.1f} (n = 1: no spread, no interval)"
    interval = f"[{low:.1f}, {high:.1f}]" if pd.notna(low) and pd.notna(high) else "[no interval]"
    return f"{mean:.1f} ± {std:.1f} {interval}"


def _size(size: float) -> tuple[str, str]:
    """Plain and LaTeX scientific notation, as the paper prints sizes (8.756 × 10^9)."""
    if pd.isna(size):
        return "n/a", "n/a"
    mantissa, exponent = f"{size:.3e}".split("e")
    return f"{mantissa} × 10^{int(exponent)}", f"${mantissa} \\times 10^{{{int(exponent)}}}$"


_DAGGER = "†"


def _marked(r, prefix: str, valid: bool) -> str:
    rate = _rate(*(getattr(r, f"{prefix}_{part}") for part in ("mean", "std", "ci95_low", "ci95_high")))
    return rate + ("" if valid else f" {_DAGGER}")


def _invalid_notes(table: pd.DataFrame) -> list[str]:
    notes = []
    for r in table.itertuples():
        for what, valid, reasons in (
            ("event loop", r.rate_valid, r.rate_invalid_reasons),
            ("note's window", r.note_window_valid, r.note_window_invalid_reasons),
        ):
            if not valid:
                notes.append(
                    f"{_DAGGER} {r.container} {r.algorithm}-{r.level}, {what}: {reasons or 'invalid'}"
                )
    return notes


def _conditions(table: pd.DataFrame) -> str:
    return (
        f"{', '.join(sorted(set(table['cache_state'].astype(str))))} reads, storage "
        f"{profile_list(table['storage_profile'])}"
    )


def to_markdown(table: pd.DataFrame, fmt: str) -> str:
    if table.empty:
        return (
            f"Table 1 ({fmt}): {EMPTY} (Table 1 takes the compression scan's points at the format's default "
            "file and read settings).\n"
        )
    lines = [
        f"Table 1 ({fmt}): file size and event rate per compression setting over the unflagged repetitions "
        f"({_conditions(table)}). Event rates: {_rate_legend(table)}. Event loop: all events from the first entry "
        "(the rate the figures use); note's window: from the 2nd entry, as in the ATLAS note.",
        "",
        "| Container | Algorithm | Level | File size (B) | Event rate, event loop (Hz) | Event rate, note's window (Hz) | n |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        lines.append(
            f"| {r.container} | {r.algorithm} | {r.level} | {_size(r.size_bytes)[0]} | "
            f"{_marked(r, 'rate_hz', r.rate_valid)} | "
            f"{_marked(r, 'note_window_rate_hz', r.note_window_valid)} | {r.n} |"
        )
    notes = _invalid_notes(table)
    if notes:
        lines += [
            "",
            f"{_DAGGER} Not valid: the timed span does not measure what the rate claims, or too few repetitions "
            "are unflagged (docs/measurement.md):",
            "",
        ]
        lines += [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def _latex(text: str) -> str:
    """Plain text as LaTeX: its signs, the dagger, and the characters LaTeX reserves."""
    for plain, latex in (
        ("%", "\\%"),
        ("_", "\\_"),
        ("±", "$\\pm$"),
        (_DAGGER, "$^\\dagger$"),
        ("σ", "$\\sigma$"),
    ):
        text = text.replace(plain, latex)
    return text


def to_latex(table: pd.DataFrame, fmt: str) -> str:
    columns = 7
    if table.empty:
        lines = [
            "\\begin{tabular}{l}",
            "\\hline",
            f"Table 1 ({_latex(fmt)}): {EMPTY}. \\\\",
            "\\hline",
            "\\end{tabular}",
        ]
        return "\n".join([*lines, f"% rootparams: Table 1 for {fmt}: {EMPTY}"]) + "\n"
    lines = [
        "\\begin{tabular}{lllrrrr}",
        "\\hline",
        "Container & Algorithm & Level & File size (B) & Event rate (Hz) & Note's window (Hz) & $n$ \\\\",
        "\\hline",
    ]
    for r in table.itertuples():
        rate = _latex(_marked(r, "rate_hz", r.rate_valid))
        note = _latex(_marked(r, "note_window_rate_hz", r.note_window_valid))
        lines.append(
            f"{r.container} & {r.algorithm} & {r.level} & {_size(r.size_bytes)[1]} & {rate} & {note} & {r.n} \\\\"
        )
    lines += [
        "\\hline",
        f"\\multicolumn{{{columns}}}{{l}}{{\\footnotesize Event rates: {_latex(_rate_legend(table))}; "
        f"{_latex(_conditions(table))}.}} \\\\",
        "\\end{tabular}",
        f"% rootparams: Table 1 for {fmt}",
    ]
    lines += [f"% {n}" for n in _invalid_notes(table)]
    return "\n".join(lines) + "\n"
