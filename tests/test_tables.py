"""The paper's Table 1 from a known summary and catalogue."""

import math

import pandas as pd

from rootparams.results.tables import EMPTY, compression_table, to_latex, to_markdown
from rootparams.study.config import load_study_config
from rootparams.study.grid import ReadPoint

CONFIG = load_study_config(
    {
        "formats": {"xaod": {"written": 10, "read": 10}, "nanoaod": {"written": 10, "read": 10}},
        "read_defaults": {"storage_profile": "native"},
    }
)


def summary_row(
    algorithm,
    level,
    mean,
    std,
    n=10,
    autoflush=None,
    valid=True,
    container="ttree",
    page_size=None,
    fmt="xaod",
    ci95=None,
    **read,
):
    """A summary row of ``fmt`` at its file defaults and the study's read defaults, but for what is given; ``read``
    (threads, unzip, reading_style, ...) changes the read as the study's points do (its id included)."""
    files = CONFIG["file_defaults"][fmt]
    autoflush = files["autoflush"] if autoflush is None else autoflush
    settings = {
        **CONFIG["read_defaults"],
        "branches": CONFIG["formats"][fmt].get("branches", "particle"),
        **read,
    }
    point = ReadPoint(**settings).for_container(container)
    page_size = (files["page_size"] if container == "rntuple" else 0) if page_size is None else page_size
    file_id = f"{container}{algorithm}-{level}_af{autoflush}_page{page_size}"
    split, basket = (-1, 0) if container == "rntuple" else (files["split_level"], files["basket_size"])
    low, high = (mean - 0.5 * std, mean + 0.5 * std) if ci95 is None else ci95
    return {
        "format": fmt,
        "file_id": file_id,
        "read_id": point.id,
        "algorithm": algorithm,
        "level": level,
        "container": container,
        "page_size": page_size,
        "autoflush": autoflush,
        "split_level": split,
        "basket_size": basket,
        "cache_size": point.cache_size,
        "learn_entries": str(point.learn_entries),
        "cluster_bunch": point.cluster_bunch,
        "async_prefetch": point.async_prefetch,
        "threads": point.threads,
        "reading_style": point.reading_style,
        "unzip": point.unzip,
        "branches": point.branches,
        "cache_state": "cold",
        "storage_profile": point.storage_profile,
        "event_rate_hz_mean": mean,
        "event_rate_hz_std": std,
        "event_rate_hz_ci95_low": low,
        "event_rate_hz_ci95_high": high,
        "n": n,
        "n_flagged": 10 - n,
        "window_valid": valid,
        "window_invalid_reasons": "" if valid else "lasts as little as 0.50 s (< 1 s)",
        "note_window_event_rate_hz_mean": mean * 1.1,
        "note_window_event_rate_hz_std": std,
        "note_window_event_rate_hz_ci95_low": low * 1.1,
        "note_window_event_rate_hz_ci95_high": high * 1.1,
        "note_window_valid": False,
        "note_window_invalid_reasons": "holds as little as 40% of the read's I/O (< 90%)",
    }


def catalogue(summary: pd.DataFrame, size: float = 1e9) -> pd.DataFrame:
    files = pd.DataFrame({"format": summary["format"], "file_id": summary["file_id"], "size_bytes": size})
    return files.drop_duplicates(["format", "file_id"])


def test_table1_has_the_compression_points_only_in_the_papers_order():
    nan = float("nan")
    summary = pd.DataFrame(
        [
            summary_row("zlib", 5, 59.4, 0.7),
            summary_row("lz4", 1, 63.0, 1.1, ci95=(62.2, 63.8)),
            summary_row("lzma", 9, 15.5, nan, n=1, valid=False, ci95=(nan, nan)),
            summary_row("zlib", 5, 70.0, 1.0, autoflush=10),  # another scan's point: not in Table 1
            summary_row("zlib", 5, 80.0, 1.0, threads=2),  # another scan's point: not in Table 1
            summary_row(
                "zstd", 5, 90.0, 1.0, container="rntuple", ci95=(89.3, 90.7)
            ),  # the RNTuple beside it
            summary_row(
                "zstd", 5, 91.0, 1.0, container="rntuple", page_size=65536
            ),  # page-size scan: not in Table 1
        ]
    )
    sizes = [7.03e9, 8.756e9, 5.901e9, 7.4e9, 7.03e9, 5.0e9, 5.1e9]
    files = pd.DataFrame(
        [
            {"format": "xaod", "file_id": r["file_id"], "size_bytes": s}
            for r, s in zip(summary.to_dict("records"), sizes, strict=True)
        ]
    )
    files = files.drop_duplicates("file_id")
    table = compression_table(summary, files, CONFIG, "xaod")
    assert list(zip(table["container"], table["algorithm"], table["level"], strict=True)) == [
        ("ttree", "lz4", 1),
        ("ttree", "zlib", 5),
        ("ttree", "lzma", 9),
        ("rntuple", "zstd", 5),
    ]
    assert list(table["size_bytes"]) == [8.756e9, 7.03e9, 5.901e9, 5.0e9]
    # The CSV has the mean, the 1σ spread, the 95 % interval of the mean and n of each rate.
    lz4 = table.iloc[0]
    assert (
        lz4["rate_hz_mean"],
        lz4["rate_hz_std"],
        lz4["rate_hz_ci95_low"],
        lz4["rate_hz_ci95_high"],
        lz4["n"],
    ) == (63.0, 1.1, 62.2, 63.8, 10)
    md = to_markdown(table, "xaod")
    # Both rates: the event loop's (valid here) and the note's window (marked: it misses I/O).
    assert (
        "| ttree | lz4 | 1 | 8.756 × 10^9 | 63.0 ± 1.1 [62.2, 63.8] | 69.3 ± 1.1 [68.4, 70.2] † | 10 |" in md
    )
    assert "| ttree | lzma | 9 | 5.901 × 10^9 | 15.5 (n = 1: no spread, no interval) † |" in md
    assert "| rntuple | zstd | 5 | 5.000 × 10^9 | 90.0 ± 1.0 [89.3, 90.7] | " in md
    assert "- † ttree lzma-9, event loop: lasts as little as 0.50 s (< 1 s)" in md
    assert "- † ttree lz4-1, note's window: holds as little as 40% of the read's I/O (< 90%)" in md
    assert "cold reads, storage native" in md
    # The caption says which number is which.
    assert "± 1σ of the repetitions; [95 % CI of the mean, Student t, this run only" in md
    tex = to_latex(table, "xaod")
    assert (
        "ttree & lz4 & 1 & $8.756 \\times 10^{9}$ & 63.0 $\\pm$ 1.1 [62.2, 63.8] & "
        "69.3 $\\pm$ 1.1 [68.4, 70.2] $^\\dagger$ & 10 \\\\" in tex
    )
    assert "\\begin{tabular}{lllrrrr}" in tex
    assert "& $n$ \\\\" in tex
    assert "$\\pm$ 1$\\sigma$ of the repetitions; [95 \\% CI of the mean, Student t, this run only" in tex


def test_table1_has_n_in_latex_for_every_row():
    summary = pd.DataFrame([summary_row("lz4", 1, 63.0, 1.1, n=8), summary_row("zlib", 5, 59.4, 0.7, n=10)])
    tex = to_latex(compression_table(summary, catalogue(summary), CONFIG, "xaod"), "xaod")
    rows = [line for line in tex.splitlines() if line.startswith("ttree &")]
    assert [row.removesuffix(" \\\\").rsplit(" & ", 1)[1] for row in rows] == ["8", "10"]


def test_table1_takes_the_compression_point_at_every_read_default():
    # Beside the default read of the same file: the parallel-unzip scan's, async prefetching, RDataFrame, and for
    # the RNTuple another cluster bunch. Only the default read is a row of Table 1.
    summary = pd.DataFrame(
        [
            summary_row("lzma", 5, 40.0, 1.0),
            summary_row("lzma", 5, 52.0, 1.0, unzip=True),
            summary_row("lzma", 5, 44.0, 1.0, async_prefetch=True),
            summary_row("lzma", 5, 47.0, 1.0, reading_style="rdataframe"),
            summary_row("lzma", 5, 30.0, 1.0, container="rntuple"),
            summary_row("lzma", 5, 33.0, 1.0, container="rntuple", cluster_bunch=2),
        ]
    )
    assert len(summary[["file_id", "read_id"]].drop_duplicates()) == 6  # six points
    table = compression_table(summary, catalogue(summary), CONFIG, "xaod")
    assert list(zip(table["container"], table["algorithm"], table["rate_hz_mean"], strict=True)) == [
        ("ttree", "lzma", 40.0),
        ("rntuple", "lzma", 30.0),
    ]


def test_table1_of_a_format_with_its_own_selection_and_an_empty_one_says_so():
    # nanoaod reads all its branches (formats.nanoaod.branches, as a flat format), not read_defaults' "particle".
    assert CONFIG["formats"]["nanoaod"]["branches"] == "all"
    summary = pd.DataFrame(
        [
            summary_row("zlib", 1, 500.0, 5.0, fmt="nanoaod"),
            summary_row(
                "zlib", 1, 900.0, 5.0, fmt="nanoaod", branches="analysis"
            ),  # another selection: not a row
        ]
    )
    table = compression_table(summary, catalogue(summary), CONFIG, "nanoaod")
    assert list(table["rate_hz_mean"]) == [500.0]
    # No point of this format at its defaults: the Markdown and LaTeX say so instead of an empty table.
    empty = compression_table(summary, catalogue(summary), CONFIG, "xaod")
    assert empty.empty and "rate_hz_ci95_low" in empty
    md, tex = to_markdown(empty, "xaod"), to_latex(empty, "xaod")
    assert EMPTY == "no point of this format at the default settings in this study"
    assert EMPTY in md and "|" not in md
    assert EMPTY in tex and "& " not in tex


def test_table1_from_a_summary_without_intervals_derives_them_from_mean_spread_and_n():
    row = summary_row("lz4", 1, 63.0, 1.0, n=10)
    row = {k: v for k, v in row.items() if "ci95" not in k}
    table = compression_table(pd.DataFrame([row]), catalogue(pd.DataFrame([row])), CONFIG, "xaod")
    half = 2.2621571627409915 * 1.0 / math.sqrt(10)  # t(0.975, 9) s / sqrt(n)
    assert math.isclose(table["rate_hz_ci95_low"].iloc[0], 63.0 - half)
    assert math.isclose(table["rate_hz_ci95_high"].iloc[0], 63.0 + half)


def test_table1_leaves_out_per_branch_and_lossy_files_and_old_records_count_as_uniform(tmp_path):
    import json

    from rootparams.results.aggregate import load_records

    rows = [
        summary_row("lzma", 5, 40.0, 1.0),
        summary_row("lzma", 5, 45.0, 1.0),
        summary_row("lzma", 5, 41.0, 1.0),
    ]
    rows[1] |= {"file_id": "hot", "branch_compression": "largest4:lz4-1"}
    rows[2] |= {"file_id": "lossy", "float_precision": "mantissa7"}
    # The first record predates both settings: loaded, it is at their defaults.
    for i, row in enumerate(rows):
        if i == 0:
            row = {k: v for k, v in row.items() if k not in ("branch_compression", "float_precision")}
        (tmp_path / f"{i}.json").write_text(json.dumps(row))
    summary = load_records(sorted(tmp_path.glob("*.json")))
    assert list(summary["branch_compression"]) == ["uniform", "largest4:lz4-1", "uniform"]
    assert list(summary["float_precision"]) == ["full", "full", "mantissa7"]
    files = pd.DataFrame([{"format": "xaod", "file_id": r["file_id"], "size_bytes": 1e9} for r in rows])
    table = compression_table(summary, files, CONFIG, "xaod")
    assert list(table["rate_hz_mean"]) == [40.0]
