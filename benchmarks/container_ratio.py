"""RNTuple against TTree, the same events, cold, through the study's instrument, side by side in one run.

    python benchmarks/container_ratio.py [--formats xaod topq1 susy5 truth3] [--profiles native hdd] [--reps 5]
                                         [--scratch DIR]

Each format is written once as a TTree at the paper's settings (ZLIB-5, its AutoFlush and split level) and once
as an RNTuple from it (the same AutoFlush as cluster size, 1 MiB pages), at the default study's event counts,
into --scratch (kept and reused). Both are read cold, particle containers, cache/cluster cache on, 1 thread, on
each storage profile, in interleaved rounds of 1 repetition per point (so that a drift of the shared machine
moves both containers alike). Prints per format and profile: sizes, event rates (mean ± 1σ), their ratio and
its 1σ. The default study's container and container_storage scans measure the same; this is the quick look.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rootparams.decide import instrument_checks
from rootparams.measure.generate import scratch_file
from rootparams.stats.intervals import Interval
from rootparams.study.config import load_study_config
from rootparams.tools import paths
from rootparams.tools.build import ensure_built

EVENTS = {"xaod": 220, "topq1": 1250, "susy5": 4000, "truth3": 26000}  # config/config.yaml's


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--formats", nargs="+", default=list(EVENTS), choices=list(EVENTS))
    parser.add_argument("--profiles", nargs="+", default=["native", "hdd"])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rootparams-container-ratio"
    )
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    args = parser.parse_args()
    tools = ensure_built(args.build)
    args.scratch.mkdir(parents=True, exist_ok=True)
    measurement = load_study_config({"measurement": {"attempts": 1}})["measurement"]
    print(
        "| format | storage | size TTree / RNTuple (MB) | size ratio | rate TTree (Hz) | rate RNTuple (Hz) | rate ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for fmt in args.formats:
        events = EVENTS[fmt]
        files = {"ttree": scratch_file(fmt, events, tools, args.scratch)}
        files["rntuple"] = scratch_file(fmt, events, tools, args.scratch, container="rntuple")
        for profile in args.profiles:
            read = {
                "cache_size": -1,
                "learn_entries": "default",
                "cluster_bunch": 1,
                "threads": 1,
                "branches": "particle",
                "storage_profile": profile,
            }
            measured = instrument_checks.measure(
                files,
                reader=tools.reader,
                events=events,
                read=read,
                measurement=measurement,
                repetitions=args.reps,
                scratch=args.scratch / "runs" / f"{fmt}-{profile}",
                read_of={c: {"container": c} for c in files},
            )
            t, r = (instrument_checks.by_round(measured[c], "event_rate_hz") for c in ("ttree", "rntuple"))
            ratio = instrument_checks.compare_series(
                r, t
            )  # paired by round: the two containers in interleaved rounds
            sizes = [p.stat().st_size / 1e6 for p in files.values()]
            print(
                f"| {fmt} | {profile} | {sizes[0]:.1f} / {sizes[1]:.1f} | {sizes[1] / sizes[0]:.2f} | "
                f"{Interval.of(t).text()} | {Interval.of(r).text()} | {ratio.text()} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
