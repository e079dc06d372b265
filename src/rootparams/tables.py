"""The paper's tables, from the tidy summary and file catalogue.

Table 1 of the paper: algorithm, level, file size in bytes and event rate (mean ± 1σ) of the primary xAOD,
for every compression setting. Here it is written for every format of the study, from the points that vary
only the compression: every other file and read setting at the format's defaults.

Two event rates are shown (docs/measurement.md, "Spans"): the headline rate over the whole event loop (all N
entries, from the first), which the figures and recommendations use, and the note's own window (from the 2nd
entry). A rate whose window misses more than the allowed share of the read's I/O, or is too short, is marked
with a dagger and the reason is given under the table.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from rootparams.aggregate import LATER_FILE_KEY_DEFAULTS
from rootparams.labels import ALGORITHM_ORDER

# By file id, not by settings: a byte-based AutoFlush reads back from the file as an entry count.
FILE_JOIN_KEYS = ["format", "file_id"]


def compression_table(
    summary: pd.DataFrame, files: pd.DataFrame, config: dict[str, Any], fmt: str
) -> pd.DataFrame:
    """One row per container and compression setting of ``fmt`` at its default AutoFlush (the cluster size),
    split level and basket size (TTree) or page size (RNTuple), and read settings: container, algorithm,
    level, size_bytes, rate_hz_mean, rate_hz_std, n, n_flagged."""
    file_defaults = config["file_defaults"][fmt]
    read_defaults = config["read_defaults"]
    rows = summary[summary["format"] == fmt]
    if "container" not in rows:  # tables made before RNTuple
        rows = rows.assign(container="ttree", page_size=0)
    per_container = {"ttree": ("split_level", "basket_size"), "rntuple": ("page_size",)}
    keep = pd.Series(False, index=rows.index)
    for container, keys in per_container.items():
        match = (rows["container"] == container) & (rows["autoflush"] == file_defaults["autoflush"])
        for key in keys:
            match &= rows[key] == file_defaults[key]
        keep |= match
    rows = rows[keep]
    # Files at the format's default per-branch compression and float precision only (uniform, full): a per-branch
    # or reduced-precision file at the same algorithm and level is another file, not a row of this table.
    for key, default in LATER_FILE_KEY_DEFAULTS.items():
        if key in rows:
            rows = rows[rows[key].fillna(default).astype(str) == str(file_defaults.get(key, default))]
    for key in ("cache_size", "threads", "branches", "storage_profile"):
        rows = rows[rows[key] == read_defaults[key]]
    ttree = rows["container"] == "ttree"  # RNTuple reads have no learning phase
    rows = rows[~ttree | (rows["learn_entries"].astype(str) == str(read_defaults["learn_entries"]))]
    table = rows.merge(files[[*FILE_JOIN_KEYS, "size_bytes"]], on=FILE_JOIN_KEYS, how="left")
    table = table.assign(
        rate_hz_mean=table["event_rate_hz_mean"],
        rate_hz_std=table["event_rate_hz_std"],
        rate_valid=table.get("window_valid", True),
        note_window_rate_hz_mean=table.get("note_window_event_rate_hz_mean", float("nan")),
        note_window_rate_hz_std=table.get("note_window_event_rate_hz_std", float("nan")),
        note_window_valid=table.get("note_window_valid", True),
        algorithm_order=table["algorithm"].map(ALGORITHM_ORDER.index),
        container_order=table["container"].map({"ttree": 0, "rntuple": 1}),
    )
    for column in ("window_invalid_reasons", "note_window_invalid_reasons"):
        table[column] = table[column].fillna("") if column in table else ""
    columns = [
        "container",
        "algorithm",
        "level",
        "size_bytes",
        "rate_hz_mean",
        "rate_hz_std",
        "rate_valid",
        "window_invalid_reasons",
        "note_window_rate_hz_mean",
        "note_window_rate_hz_std",
        "note_window_valid",
        "note_window_invalid_reasons",
        "n",
        "n_flagged",
        "cache_state",
        "storage_profile",
    ]
    return table.sort_values(["container_order", "algorithm_order", "level"])[columns].reset_index(drop=True)


def _rate(mean: float, std: float) -> str:
    if pd.isna(mean):
        return "n/a"
    return f"{mean:.1f} ± {std:.1f}" if pd.notna(std) else f"{mean:.1f} (n=1)"


def _size(size: float) -> tuple[str, str]:
    """Plain and LaTeX scientific notation, as the paper prints sizes (8.756 × 10^9)."""
    if pd.isna(size):
        return "n/a", "n/a"
    mantissa, exponent = f"{size:.3e}".split("e")
    return f"{mantissa} × 10^{int(exponent)}", f"${mantissa} \\times 10^{{{int(exponent)}}}$"


DAGGER = "†"


def _marked(mean: float, std: float, valid: bool) -> str:
    return _rate(mean, std) + ("" if valid else f" {DAGGER}")


def _invalid_notes(table: pd.DataFrame) -> list[str]:
    notes = []
    for r in table.itertuples():
        for what, valid, reasons in (("event loop", r.rate_valid, r.window_invalid_reasons),
                                     ("note's window", r.note_window_valid, r.note_window_invalid_reasons)):  # fmt: skip
            if not valid:
                notes.append(
                    f"{DAGGER} {r.container} {r.algorithm}-{r.level}, {what}: {reasons or 'invalid'}"
                )
    return notes


def to_markdown(table: pd.DataFrame, fmt: str) -> str:
    lines = [
        f"Table 1 ({fmt}): file size and event rate per compression setting, mean ± 1σ over unflagged "
        f"repetitions ({', '.join(sorted(set(table['cache_state'])))} reads, storage "
        f"{', '.join(sorted(set(table['storage_profile'])))}). Event loop: all events from the first entry "
        "(the rate the figures use); note's window: from the 2nd entry, as in the ATLAS note.",
        "",
        "| Container | Algorithm | Level | File size (B) | Event rate, event loop (Hz) | Event rate, note's window (Hz) | n |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        lines.append(
            f"| {r.container} | {r.algorithm} | {r.level} | {_size(r.size_bytes)[0]} | "
            f"{_marked(r.rate_hz_mean, r.rate_hz_std, r.rate_valid)} | "
            f"{_marked(r.note_window_rate_hz_mean, r.note_window_rate_hz_std, r.note_window_valid)} | {r.n} |"
        )
    notes = _invalid_notes(table)
    if notes:
        lines += [
            "",
            f"{DAGGER} The timed span does not measure what the rate claims (docs/measurement.md):",
            "",
        ]
        lines += [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def to_latex(table: pd.DataFrame, fmt: str) -> str:
    lines = [
        "\\begin{tabular}{lllrrr}",
        "\\hline",
        "Container & Algorithm & Level & File size (B) & Event rate (Hz) & Note's window (Hz) \\\\",
        "\\hline",
    ]
    for r in table.itertuples():
        rate = _marked(r.rate_hz_mean, r.rate_hz_std, r.rate_valid)
        note = _marked(r.note_window_rate_hz_mean, r.note_window_rate_hz_std, r.note_window_valid)
        rate, note = (x.replace("±", "$\\pm$").replace(DAGGER, "$^\\dagger$") for x in (rate, note))
        lines.append(
            f"{r.container} & {r.algorithm} & {r.level} & {_size(r.size_bytes)[1]} & {rate} & {note} \\\\"
        )
    lines += ["\\hline", "\\end{tabular}", f"% rootparams: Table 1 for {fmt}"]
    lines += [f"% {n}" for n in _invalid_notes(table)]
    return "\n".join(lines) + "\n"
