"""Human-readable summaries of a run."""

from __future__ import annotations

from typing import Any

import pandas as pd


def run_summary_markdown(summary: pd.DataFrame, files: pd.DataFrame, provenance: dict[str, Any]) -> str:
    storage = provenance["storage"]
    cold = set(summary["cache_state"]) if "cache_state" in summary else {"cold"}
    lines = [
        "# Run summary",
        "",
        f"- Machine: {provenance['host']}, {provenance['cpu_model']}, {provenance['usable_cores']} usable cores, "
        f"{provenance['memory_bytes'] / 2**30:.1f} GiB, kernel {provenance['kernel']}",
        f"- Storage under test: {storage['data_dir']} on {storage['device']} ({storage['filesystem']}, "
        f"rotational: {storage['rotational']}); storage profile(s): {', '.join(sorted(set(summary.get('storage_profile', ['native']))))}",
        f"- Page cache: {', '.join(sorted(cold))} reads",
        f"- ROOT {provenance['root_version']}, Snakemake {provenance['snakemake']}, dool {provenance['dool']}, "
        f"config hash {provenance['config_hash']}",
        f"- {len(files)} files written, {len(summary)} read points, "
        f"{int(summary['n'].sum())} repetitions used, {int(summary['n_flagged'].sum())} flagged and excluded",
    ]
    lines.append(f"- Noise: {noise_line(summary)}")
    if "cpu_steal_during_mean" in summary:
        steal = summary["cpu_steal_during_mean"].dropna()
        if len(steal):
            lines.append(
                f"- CPU stolen by the hypervisor during the accepted reads: median {steal.median():.1%}, "
                f"worst point {steal.max():.1%} (of all CPUs)"
            )
    lines += [
        "",
        "| format | file | read | events/s (mean ± 1σ) | n | flagged |",
        "|---|---|---|---|---|---|",
    ]
    file_ids = dict(zip(summary.index, _file_ids(summary), strict=True))
    for i, row in summary.iterrows():
        lines.append(
            f"| {row['format']} | {file_ids[i]} | cache {row['cache_size']}, learn {row['learn_entries']}, "
            f"{row['threads']} thread(s), {row['branches']}, {row.get('storage_profile', 'native')} storage | "
            f"{row['event_rate_hz_mean']:.1f} ± "
            f"{row['event_rate_hz_std']:.1f} | {row['n']} | {row['n_flagged']} |"
        )
    return "\n".join(lines) + "\n"


def _file_ids(summary: pd.DataFrame) -> list[str]:
    return [
        f"{r.algorithm}-{r.level}, AutoFlush {r.autoflush}, split {r.split_level}"
        for r in summary.itertuples()
    ]


def noise_line(summary: pd.DataFrame) -> str:
    """The run's noise in one line: the median σ/mean of the event rate over the points, and what was
    excluded (printed when the workflow finishes)."""
    rel = (
        summary["event_rate_rel_std"].dropna() if "event_rate_rel_std" in summary else pd.Series(dtype=float)
    )
    median = f"{rel.median():.2%}" if len(rel) else "n/a (fewer than 2 unflagged repetitions per point)"
    return (
        f"median sigma/mean of the event rate over {len(rel)} points: {median}; "
        f"{int(summary['n'].sum())} repetitions used, {int(summary['n_flagged'].sum())} flagged and excluded"
    )
