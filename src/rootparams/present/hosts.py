"""Several hosts side by side: the "hardware isolation" follow-up of the paper's conclusion.

Run the same study on several machines (each writes its own results/ directory; every record carries its
host fingerprint), then

    rootparams hosts results-hostA results-hostB ... --out results-hosts   (or python -m rootparams.present.hosts)

draws the event rate against the compression settings with one column per host and one row per format
(hosts_rate_vs_compression.{png,pdf}, the 95 % interval of each mean), and writes hosts_summary.csv: every point
measured on every host, with each host's rate and its ratio to the first host's, the ratio's 95 % interval
(unpaired: two hosts share no rounds) and a verdict at ±5 % (rootparams.stats.intervals): *equal* where the whole interval
lies inside the margin, *different* only where it lies wholly outside it, *cannot tell* otherwise. The points of
one host against the first are one family: a *different* stands only where it survives Holm's adjustment over
them. An interval covers the two runs compared, not the hosts at every other moment (docs/statistics.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from rootparams.present.figures import ALGORITHM_COLORS
from rootparams.results.aggregate import scan_rows
from rootparams.stats.compare import summary_interval
from rootparams.stats.intervals import CANNOT_TELL, DIFFERENT, EQUAL, RATE_MARGIN, Family, ratio_unpaired
from rootparams.study.labels import ALGORITHM_LABELS, format_order, format_title
from rootparams.tools import paths
from rootparams.tools.plotting import pyplot, theme
from rootparams.vocabulary import COMPRESSING_ALGORITHMS

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

POINT = ["format", "file_id", "read_id"]


def load(results_dirs: list[Path]) -> pd.DataFrame:
    """The summary of every results directory, labelled with its host (from its provenance), with the
    compression-scan membership and file sizes joined in."""
    frames = []
    for d in results_dirs:
        summary_path = d / Path(paths.SUMMARY_TABLE).relative_to(paths.RESULTS)
        provenance_path = d / Path(paths.PROVENANCE).relative_to(paths.RESULTS)
        for p in (summary_path, provenance_path):
            if not p.exists():
                raise FileNotFoundError(f"{p}: missing; give results/ directories of finished runs")
        host = json.loads(provenance_path.read_text())["host"]
        summary = pd.read_csv(summary_path)
        points = pd.read_csv(d / Path(paths.POINTS_TABLE).relative_to(paths.RESULTS))
        files = pd.read_csv(d / Path(paths.FILES_TABLE).relative_to(paths.RESULTS))
        rows = scan_rows(summary, points, files, "compression").assign(host=host, results_dir=str(d))
        frames.append(rows)
    data = pd.concat(frames, ignore_index=True)
    if data["host"].duplicated().any() and data.groupby("host")["results_dir"].nunique().max() > 1:
        # Two runs of one host: keep them apart by their directory.
        data["host"] = data["host"] + " (" + data["results_dir"] + ")"
    return data


def side_by_side(data: pd.DataFrame) -> plt.Figure:
    theme()
    hosts = list(dict.fromkeys(data["host"]))
    formats = format_order(data["format"])
    fig, axes = pyplot().subplots(
        len(formats), len(hosts), figsize=(4.2 * len(hosts), 3.4 * len(formats)), squeeze=False, sharey="row"
    )
    for i, fmt in enumerate(formats):
        for j, host in enumerate(hosts):
            ax = axes[i][j]
            panel = data[(data["format"] == fmt) & (data["host"] == host)]
            for alg in [a for a in COMPRESSING_ALGORITHMS if a in set(panel["algorithm"])]:
                line = panel[panel["algorithm"] == alg].sort_values("level")
                ax.errorbar(
                    line["level"],
                    line["event_rate_hz_mean"],
                    yerr=[
                        (line["event_rate_hz_mean"] - line["event_rate_hz_ci95_low"]).fillna(0),
                        (line["event_rate_hz_ci95_high"] - line["event_rate_hz_mean"]).fillna(0),
                    ],
                    marker="o",
                    capsize=3,
                    color=ALGORITHM_COLORS[alg],
                    label=ALGORITHM_LABELS[alg],
                )
            ax.set_title(f"{format_title(fmt)} on {host}")
            ax.set_xlabel("Compression level")
            ax.set_ylabel("Event rate [Hz]")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Event rate vs compression, per host (mean and its 95 % interval)")
    fig.tight_layout()
    return fig


def ratios(data: pd.DataFrame, margin: float = RATE_MARGIN) -> pd.DataFrame:
    """One row per point and host: the rate, its ratio to the first host's rate for the same point with the
    ratio's 95 % interval (unpaired, from the two summaries' means, spreads and n), the margin the two runs could
    resolve, and the verdict at ±``margin``; each host's points against the first host's are one family
    (Holm)."""
    first = data["host"].iloc[0]
    reference = {tuple(r[k] for k in POINT): r for r in data[data["host"] == first].to_dict("records")}
    rows = []
    for host, group in data.groupby("host", sort=False):
        family, pending = Family(), []
        for r in group.to_dict("records"):
            ref = reference.get(tuple(r[k] for k in POINT))
            ratio = ratio_unpaired(summary_interval(r), summary_interval(ref)) if ref is not None else None
            index = family.add(ratio.judge_equal(margin)) if ratio is not None and host != first else None
            pending.append((r, ref, ratio, index))
        settled = family.settled()
        for r, ref, ratio, index in pending:
            verdict = (
                {True: EQUAL, False: DIFFERENT}.get(settled[index].supported, CANNOT_TELL)
                if index is not None
                else ""
            )
            rows.append(
                {
                    **{k: r.get(k) for k in (*POINT, "algorithm", "level", "host", "storage_profile", "n")},
                    "event_rate_hz_mean": r["event_rate_hz_mean"],
                    "event_rate_hz_ci95_low": r.get("event_rate_hz_ci95_low"),
                    "event_rate_hz_ci95_high": r.get("event_rate_hz_ci95_high"),
                    "first_host_rate_hz": ref["event_rate_hz_mean"] if ref is not None else float("nan"),
                    "rate_ratio_to_first_host": ratio.estimate if ratio is not None else float("nan"),
                    "rate_ratio_ci95_low": ratio.low if ratio is not None else float("nan"),
                    "rate_ratio_ci95_high": ratio.high if ratio is not None else float("nan"),
                    "resolvable_margin": ratio.resolvable_margin if ratio is not None else float("nan"),
                    "verdict": verdict,
                    "margin": margin,
                }
            )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None, prog: str = "python -m rootparams.present.hosts") -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="results/ directories of finished runs")
    parser.add_argument("--out", type=Path, default=Path("results-hosts"))
    args = parser.parse_args(argv)
    data = load(args.results)
    args.out.mkdir(parents=True, exist_ok=True)
    fig = side_by_side(data)
    for ext in ("png", "pdf"):
        fig.savefig(args.out / f"hosts_rate_vs_compression.{ext}", dpi=130, bbox_inches="tight")
    ratios(data).to_csv(args.out / "hosts_summary.csv", index=False)
    print(
        f"{len(set(data['host']))} hosts, {len(data)} points: {args.out}/hosts_rate_vs_compression.png, hosts_summary.csv"
    )


if __name__ == "__main__":
    main()
