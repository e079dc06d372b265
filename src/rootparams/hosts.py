"""Several hosts side by side: the "hardware isolation" follow-up of the paper's conclusion.

Run the same study on several machines (each writes its own results/ directory; every record carries its
host fingerprint), then

    rootparams hosts results-hostA results-hostB ... --out results-hosts   (or python -m rootparams.hosts)

draws the event rate against the compression settings with one column per host and one row per format
(hosts_rate_vs_compression.{png,pdf}), and writes hosts_summary.csv: every point measured on every host,
with each host's rate and its ratio to the first host's.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from rootparams import paths
from rootparams.aggregate import scan_rows
from rootparams.figures import ALGORITHM_COLORS
from rootparams.labels import ALGORITHM_LABELS, format_order, format_title
from rootparams.vocabulary import COMPRESSING_ALGORITHMS

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
    sns.set_theme(style="whitegrid", context="paper")
    hosts = list(dict.fromkeys(data["host"]))
    formats = format_order(data["format"])
    fig, axes = plt.subplots(
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
                    yerr=line["event_rate_hz_std"].fillna(0),
                    marker="o",
                    capsize=3,
                    color=ALGORITHM_COLORS[alg],
                    label=ALGORITHM_LABELS[alg],
                )
            ax.set_title(f"{format_title(fmt)} on {host}")
            ax.set_xlabel("Compression level")
            ax.set_ylabel("Event rate [Hz]")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Event rate vs compression, per host (mean ± 1σ)")
    fig.tight_layout()
    return fig


def ratios(data: pd.DataFrame) -> pd.DataFrame:
    """One row per point and host: the rate, and its ratio to the first host's rate for the same point."""
    first = data["host"].iloc[0]
    ref = data[data["host"] == first].set_index(POINT)["event_rate_hz_mean"].rename("first_host_rate_hz")
    out = data[
        [
            *POINT,
            "algorithm",
            "level",
            "host",
            "storage_profile",
            "n",
            "event_rate_hz_mean",
            "event_rate_hz_std",
        ]
    ]
    out = out.join(ref, on=POINT)
    return out.assign(rate_ratio_to_first_host=out["event_rate_hz_mean"] / out["first_host_rate_hz"])


def main(argv: list[str] | None = None, prog: str = "python -m rootparams.hosts") -> None:
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
