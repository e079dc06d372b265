"""The paper's Table 1 from a known summary and catalogue."""

import pandas as pd

from rootparams.config import load_study_config
from rootparams.tables import compression_table, to_latex, to_markdown

CONFIG = load_study_config(
    {"formats": {"xaod": {"written": 10, "read": 10}}, "read_defaults": {"storage_profile": "native"}}
)


def summary_row(
    algorithm, level, mean, std, n=10, autoflush=100, threads=1, valid=True, container="ttree", page_size=0
):
    file_id = f"{container}{algorithm}-{level}_af{autoflush}_page{page_size}"
    split, basket = (-1, 0) if container == "rntuple" else (0, 32000)
    return {"format": "xaod", "file_id": file_id, "read_id": f"mt{threads}", "algorithm": algorithm, "level": level,
            "container": container, "page_size": page_size,
            "autoflush": autoflush, "split_level": split, "basket_size": basket, "cache_size": -1, "learn_entries": "default",
            "threads": threads, "branches": "particle", "cache_state": "cold", "storage_profile": "native",
            "event_rate_hz_mean": mean, "event_rate_hz_std": std, "n": n, "n_flagged": 10 - n,
            "window_valid": valid, "window_invalid_reasons": "" if valid else "lasts as little as 0.50 s (< 1 s)",
            "note_window_event_rate_hz_mean": mean * 1.1, "note_window_event_rate_hz_std": std,
            "note_window_valid": False,
            "note_window_invalid_reasons": "holds as little as 40% of the read's I/O (< 90%)"}  # fmt: skip


def test_table1_has_the_compression_points_only_in_the_papers_order():
    summary = pd.DataFrame([
        summary_row("zlib", 5, 59.4, 0.7), summary_row("lz4", 1, 63.0, 1.1),
        summary_row("lzma", 9, 15.5, 0.0, n=1, valid=False),
        summary_row("zlib", 5, 70.0, 1.0, autoflush=10),  # another scan's point: not in Table 1
        summary_row("zlib", 5, 80.0, 1.0, threads=2),  # another scan's point: not in Table 1
        summary_row("zstd", 5, 90.0, 1.0, container="rntuple", page_size=1048576),  # the RNTuple beside it
        summary_row("zstd", 5, 91.0, 1.0, container="rntuple", page_size=65536),  # page-size scan: not in Table 1
    ])  # fmt: skip
    sizes = [7.03e9, 8.756e9, 5.901e9, 7.4e9, 7.03e9, 5.0e9, 5.1e9]
    files = pd.DataFrame([{"format": "xaod", "file_id": r["file_id"], "size_bytes": s}
                          for r, s in zip(summary.to_dict("records"), sizes, strict=True)])  # fmt: skip
    files = files.drop_duplicates("file_id")
    table = compression_table(summary, files, CONFIG, "xaod")
    assert list(zip(table["container"], table["algorithm"], table["level"], strict=True)) == [
        ("ttree", "lz4", 1),
        ("ttree", "zlib", 5),
        ("ttree", "lzma", 9),
        ("rntuple", "zstd", 5),
    ]
    assert list(table["size_bytes"]) == [8.756e9, 7.03e9, 5.901e9, 5.0e9]
    md = to_markdown(table, "xaod")
    # Both rates: the event loop's (valid here) and the note's window (marked: it misses I/O).
    assert "| ttree | lz4 | 1 | 8.756 × 10^9 | 63.0 ± 1.1 | 69.3 ± 1.1 † | 10 |" in md
    assert "| ttree | lzma | 9 | 5.901 × 10^9 | 15.5 ± 0.0 † | 17.1 ± 0.0 † | 1 |" in md
    assert "| rntuple | zstd | 5 | 5.000 × 10^9 | 90.0 ± 1.0 | 99.0 ± 1.0 † | 10 |" in md
    assert "- † ttree lzma-9, event loop: lasts as little as 0.50 s (< 1 s)" in md
    assert "- † ttree lz4-1, note's window: holds as little as 40% of the read's I/O (< 90%)" in md
    assert "cold reads, storage native" in md
    tex = to_latex(table, "xaod")
    assert (
        "ttree & lz4 & 1 & $8.756 \\times 10^{9}$ & 63.0 $\\pm$ 1.1 & 69.3 $\\pm$ 1.1 $^\\dagger$ \\\\" in tex
    )


def test_table1_leaves_out_per_branch_and_lossy_files_and_old_records_count_as_uniform(tmp_path):
    import json

    from rootparams.aggregate import load_records

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
