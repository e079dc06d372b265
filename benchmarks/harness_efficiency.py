"""Where a measuring job's time goes, and whether the fork server changes the rates it measures.

    python benchmarks/harness_efficiency.py [--build results/build] [--format xaod] [--events 150]
                                            [--reps 10] [--rounds 2] [--profile native]

The same cold file is measured in alternating points (--rounds each): "exec", one reader process per
repetition (ROOT's start-up paid every time, as the instrument did before the fork server), and "fork", the
default (one server per point, a forked child per repetition). Every point runs the whole instrument: host
lock, dool, blkio group, eviction and mincore check, busy/steal checks. Printed:
- the event rate of each mode (mean ± σ over all its repetitions), and the difference in σ: the fork server
  must leave the rates unbiased (within 2σ);
- per mode, the seconds per point and per repetition around the timed loops (point set-up, eviction,
  request overhead = fork or exec + ROOT start-up + open, the final monitor sample), and the share of a
  point's wall time inside timed loops.
Not a test: a shared, noisy machine gives noisy absolute numbers; the two modes are measured side by side.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import time
from pathlib import Path

from rootparams.measure.generate import scratch_file
from rootparams.measure.measure import measure_point
from rootparams.study.config import load_study_config
from rootparams.tools import paths
from rootparams.tools.build import ensure_built
from rootparams.vocabulary import PAPER_FILE_DEFAULTS

READ = {"cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "particle"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    parser.add_argument("--format", default="xaod", choices=sorted(PAPER_FILE_DEFAULTS))
    parser.add_argument("--events", type=int, default=150)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", default="native")
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rootparams-harness")
    parser.add_argument("--measurement", default="{}", help="JSON: measurement settings to override")
    args = parser.parse_args()
    tools = ensure_built(args.build)
    args.scratch.mkdir(parents=True, exist_ok=True)
    path = scratch_file(args.format, args.events, tools, args.scratch)
    base = load_study_config(
        {"measurement": {"attempts": 3, "max_cpu_steal": 0.15, **json.loads(args.measurement)}}
    )["measurement"]
    runs = args.scratch / f"run-{int(time.time())}"
    results: dict[str, list] = {"exec": [], "fork": []}
    for r in range(args.rounds):
        for mode in ("exec", "fork") if r % 2 == 0 else ("fork", "exec"):
            out = runs / f"{mode}{r}"
            start = time.time()
            records = measure_point(
                root_file=str(path),
                warmup_file=str(path),
                reader=tools.reader,
                events=args.events,
                read={**READ, "storage_profile": args.profile},
                measurement={**base, "reader_process": mode},
                monitor_csv=str(out / "monitor.csv"),
                records={i: str(out / f"rep{i}.json") for i in range(args.reps)},
                labels={"mode": mode, "round": r},
            )
            results[mode].append((time.time() - start, records))

    print(
        f"{path.name}: {args.events} events, {args.profile} storage, {args.rounds} points x {args.reps} cold "
        "repetitions per mode, alternating"
    )
    print(
        "| mode | event rate (Hz) | note's-window rate (Hz) | flagged | loop s/rep | eviction s/rep | "
        "request overhead s/rep | point set-up s | point finish s | wall s/point | in timed loops |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rates = {}
    for mode, points in results.items():
        recs = [rec for _, records in points for rec in records]
        good = [rec for rec in recs if not rec["flagged"]] or recs  # all flagged: shown, and counted as such
        rate = [rec["event_rate_hz"] for rec in good]
        note = [rec["note_window_event_rate_hz"] for rec in good]
        rates[mode] = (statistics.fmean(rate), statistics.stdev(rate), len(rate))
        loops = statistics.fmean(rec["loop_seconds"] for rec in recs)
        eviction = statistics.fmean(rec["harness_prepare_seconds"] for rec in recs)
        request = statistics.fmean(rec["harness_request_seconds"] - rec["loop_seconds"] for rec in recs)
        setup = statistics.fmean(records[0]["harness_point_prepare_seconds"] for _, records in points)
        finish = statistics.fmean(
            records[0].get("harness_point_finish_seconds", 0.0) for _, records in points
        )
        wall = statistics.fmean(w for w, _ in points)
        share = sum(rec["loop_seconds"] for rec in recs) / sum(w for w, _ in points)
        print(
            f"| {mode} | {rates[mode][0]:.1f} ± {rates[mode][1]:.1f} | {statistics.fmean(note):.1f} ± "
            f"{statistics.stdev(note):.1f} | {len(recs) - len(good)} | {loops:.3f} | {eviction:.3f} | "
            f"{request:.3f} | {setup:.2f} | {finish:.2f} | {wall:.1f} | {share:.0%} |"
        )
    (m1, s1, n1), (m2, s2, n2) = rates["exec"], rates["fork"]
    sigma = math.hypot(s1 / math.sqrt(n1), s2 / math.sqrt(n2))  # of the difference of the two means
    spread = math.hypot(s1, s2)  # of the difference of two single repetitions
    print(
        f"\nfork - exec: {m2 - m1:+.2f} Hz ({(m2 - m1) / m1:+.1%}); {abs(m2 - m1) / spread:.2f} σ of a repetition, "
        f"{abs(m2 - m1) / sigma:.2f} σ of the means"
    )


if __name__ == "__main__":
    main()
