"""``rootparams advise`` on several files, one after the other, and one table of what each answer was.

    python benchmarks/advise_files.py FILE[:TREE] ... [--out DIR] [--budget 20m] [--quick] [--clone-compression]

Each file is advised in ``<out>/<name>`` (a rerun resumes each), with the same options; the machine should be quiet
(one timed run at a time: the answers' busy flags say when it was not). Printed, per file: the wall time, the plan
(tier, repetitions, copies, clone), the compression decision on the file's own bytes at each number of reads (with
P(cheapest)), the layout decision on the clone, the clone's fidelity, the settings that failed, and, with
``--clone-compression``, every compression setting's size and rate on the file's own bytes beside the clone's: how
far the clone was from the file, and whether a decision made on the clone would have been another.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

from rootparams.commands.advise import CLONE, OWN, format_name


def advise(path: str, tree: str | None, out: Path, options: list[str]) -> tuple[int, float, str]:
    command = [sys.executable, "-m", "rootparams.cli", "advise", path, "--out", str(out), *options]
    if tree:
        command += ["--tree", tree]
    start = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True)
    (out / "advise_run.log").write_text(run.stdout + "\n--- stderr\n" + run.stderr)
    return run.returncode, time.monotonic() - start, run.stdout


def decision_text(rows: list[dict]) -> str:
    parts = []
    for d in rows:
        reads = int(d["reads_per_file"])
        if d["tie"]:
            parts.append(f"{reads}: tie {d['tied_settings'].replace(';', ' /')}")
        else:
            parts.append(f"{reads}: {d['setting']} (P {d['p_cheapest']:.2f})")
    return "; ".join(parts) or "none"


def side_by_side(answer: dict) -> list[str]:
    """Each compression setting on the file's own bytes beside the clone's (both at the file's own layout)."""
    own = {r["setting"]: r for r in answer["settings"] if r["where"] == OWN and r["setting"] != "as it is"}
    clones = [r for r in answer["settings"] if r["where"] == CLONE]
    # The clone's own layout: the cluster size most of its points have (its compression scan's), not the
    # cluster-size scan's others; the name without its cluster size.
    sizes = [r.get("autoflush") for r in clones]
    default = max(set(sizes), key=sizes.count) if sizes else None
    clone = {
        r["setting"].split(", AutoFlush")[0].split(", clusters")[0]: r
        for r in clones
        if r.get("autoflush") == default
    }
    lines = ["| setting | own kB/event | clone kB/event | own ratio | clone ratio | own events/s | clone events/s |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, r in sorted(own.items()):
        c = clone.get(name)
        if c is None:
            continue
        lines.append(
            f"| {name} | {r['bytes_per_event'] / 1e3:.3f} | {c['bytes_per_event'] / 1e3:.3f} | "
            f"{r['compression_ratio']:.2f} | {c['compression_ratio']:.2f} | {_rate(r)} | {_rate(c)} |"
        )
    return lines if len(lines) > 2 else []


def clone_compression_choice(where: Path, clone_format: str) -> dict[int, str]:
    """By number of reads: the compression setting with the lowest mean cost among the clone's points at the file's
    own layout (its compression scan), i.e. what a decision made on the clone would have named (by mean)."""
    import pandas as pd

    ranking = pd.read_csv(where / "results" / "tables" / "cost_ranking.csv")
    mine = ranking[
        (ranking["format"] == clone_format) & ~ranking["setting"].str.contains("AF |RNTuple", regex=True)
    ]
    out = {}
    for reads, group in mine.groupby("reads_per_file"):
        best = group.sort_values("total_cost").iloc[0]
        out[int(reads)] = str(best["setting"])
    return out


def _rate(r: dict) -> str:
    if r.get("rate") is None or not math.isfinite(r["rate"] or math.nan):
        return "-"
    return f"{r['rate']:.0f} ({r['rate_low']:.0f}-{r['rate_high']:.0f}, n {r['n']})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", help="FILE or FILE:TREE")
    p.add_argument("--out", default="advise-files", help="directory of the answers")
    p.add_argument("--budget", default="20m")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--clone-compression", action="store_true")
    args = p.parse_args()
    out = Path(args.out).resolve()
    options = ["--budget", args.budget] + (["--quick"] if args.quick else [])
    options += ["--clone-compression"] if args.clone_compression else []
    report = []
    for item in args.files:
        path, _, tree = item.partition(":") if not Path(item).exists() else (item, "", "")
        where = out / format_name(path)
        where.mkdir(parents=True, exist_ok=True)
        code, wall, _ = advise(path, tree or None, where, options)
        head = f"## {Path(path).name}" + (f" ({tree})" if tree else "")
        if code != 0 or not (where / "advise.json").exists():
            report += [
                head,
                "",
                f"advise failed (exit code {code}); its output: {where / 'advise_run.log'}",
                "",
            ]
            print("\n".join(report[-4:]), flush=True)
            continue
        a = json.loads((where / "advise.json").read_text())
        plan = a["plan"]
        fidelity = a.get("clone_fidelity")
        lines = [
            head,
            "",
            f"- wall time {wall / 60:.1f} min; plan: {plan['tier']}, {plan['repetitions']} repetitions, "
            f"{plan['copies']} copies, clone: {'yes, ' + str(plan['clone_events']) + ' events' if plan['clone'] else 'no'}",
            f"- compression on its own bytes: {decision_text(a['decisions'].get(OWN, []))}",
        ]
        if plan["clone"]:
            lines.append(f"- layout on the clone: {decision_text(a['decisions'].get(CLONE, []))}")
        if fidelity:
            lines.append(
                "- clone fidelity: size {size:+.1%}, ratio {ratio:+.1%}, rate {rate:+.1%}".format(
                    **{k: (v if v is not None else math.nan) for k, v in fidelity.items()}
                )
            )
        if a["failures"]:
            lines.append(
                "- failed: " + "; ".join(f"{f['where']} {f['setting']}: {f['why']}" for f in a["failures"])
            )
        valid = sum(r["valid"] for r in a["settings"])
        lines.append(f"- valid points: {valid} of {len(a['settings'])}")
        table = side_by_side(a)
        if table:
            clone_choice = clone_compression_choice(where, f"{format_name(path)}_clone")
            own_choice = {int(d["reads_per_file"]): d["setting"] for d in a["decisions"].get(OWN, [])}
            same = [f"{k}: own {own_choice.get(k)} / clone {v}" for k, v in sorted(clone_choice.items())]
            lines.append(
                "- lowest mean cost, own bytes against the clone's compression points: " + "; ".join(same)
            )
        lines += ["", *table, ""]
        report += lines
        print("\n".join(lines), flush=True)
    (out / "advise_files.md").write_text("\n".join(report) + "\n")
    print(f"the table: {out / 'advise_files.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
