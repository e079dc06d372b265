"""Do a study's intervals hold on a repeat? Two finished runs of the same study on the same host and files, compared
point by point and verdict by verdict.

    # the first run, with its files kept so that the repeat reads the same bytes
    ./run study --configfile CONFIG --config keep_files=true
    cp -a results results-first
    # the repeat: the timed reads (and everything made from them) taken again
    rm -rf results/repetitions results/blocks results/sentinel results/tables results/primitives/cpu*
    ./run study --configfile CONFIG --config keep_files=true
    python benchmarks/repeat_study.py results-first results

Per run pair it prints, over the points valid in both:
- the share of points whose second mean lies inside the first run's 95 % interval, and the other way round, for
  the interval the study reports (``_ci95``: with the host's drift between passes where the study measured passes)
  and for the repetitions' own (``_run_ci95``: one job's minutes); an interval of the mean that describes the host
  covers a repeat's mean in about 83 % of repeats when both runs are equally precise (the difference of two means
  has twice the variance of one), more with few degrees of freedom;
- the share of points whose difference of the two means lies inside its own 95 % interval (intervals.ratio_unpaired
  of the two summaries, each with its host component): 95 % expected where the intervals are honest;
- the median shift per format (second / first - 1);
- the share of the physics checks (tables/physics_checks.csv) and of the recommendations' topics
  (tables/findings.csv) with the same verdict in both runs, and how many are *holds* in one and *violated* in the
  other (or yes and no).
Not a test: a measurement of the host, printed for docs/statistics.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from rootparams.stats.compare import summary_interval
from rootparams.stats.intervals import ratio_unpaired

POINT = ["format", "file_id", "read_id"]


def load(results: Path, table: str) -> pd.DataFrame:
    path = results / "tables" / table
    if not path.exists():
        raise SystemExit(f"{path}: missing; give the results/ directories of two finished runs of one study")
    return pd.read_csv(path, low_memory=False)


def valid(summary: pd.DataFrame) -> pd.DataFrame:
    keep = summary["valid"].astype(str).str.lower().isin(["true", "1", "1.0"]) if "valid" in summary else True
    return summary[keep & summary["event_rate_hz_mean"].notna()]


def inside(mean: pd.Series, low: pd.Series, high: pd.Series) -> pd.Series:
    return (mean >= low) & (mean <= high)


def coverage(first: pd.DataFrame, second: pd.DataFrame) -> dict[str, float]:
    both = valid(first).merge(valid(second), on=POINT, suffixes=("_a", "_b"))
    out: dict[str, float] = {"points": len(both)}
    if both.empty:
        return out
    for kind, prefix in (("reported", "event_rate_hz_ci95"), ("run only", "event_rate_hz_run_ci95")):
        if f"{prefix}_low_a" not in both:
            continue
        b_in_a = inside(both["event_rate_hz_mean_b"], both[f"{prefix}_low_a"], both[f"{prefix}_high_a"])
        a_in_b = inside(both["event_rate_hz_mean_a"], both[f"{prefix}_low_b"], both[f"{prefix}_high_b"])
        out[f"second inside first ({kind})"] = float(b_in_a.mean())
        out[f"first inside second ({kind})"] = float(a_in_b.mean())
    holds = []
    for row in both.to_dict("records"):
        a = summary_interval({k.removesuffix("_a"): v for k, v in row.items() if not k.endswith("_b")})
        b = summary_interval({k.removesuffix("_b"): v for k, v in row.items() if not k.endswith("_a")})
        ratio = ratio_unpaired(b, a)
        holds.append(ratio.low <= 1 <= ratio.high if ratio.low == ratio.low else False)
    out["difference inside its own 95 % interval"] = sum(holds) / len(holds)
    shift = both["event_rate_hz_mean_b"] / both["event_rate_hz_mean_a"] - 1
    for fmt, s in shift.groupby(both["format"]):
        out[f"median shift {fmt}"] = float(s.median())
    out["points slower in the second run"] = float((shift < 0).mean())
    return out


def agreement(first: pd.DataFrame, second: pd.DataFrame, keys: list[str], verdict: str, opposite) -> dict:
    both = first.merge(second, on=keys, suffixes=("_a", "_b"))
    # A verdict neither run gave (a topic not measured: empty) is not compared; one run's empty is "not measured".
    both = both[both[f"{verdict}_a"].notna() | both[f"{verdict}_b"].notna()]
    both = both.fillna({f"{verdict}_a": "not measured", f"{verdict}_b": "not measured"})
    if both.empty:
        return {"compared": 0}
    same = both[f"{verdict}_a"] == both[f"{verdict}_b"]
    flipped = both.apply(lambda r: {r[f"{verdict}_a"], r[f"{verdict}_b"]} == opposite, axis=1)
    return {
        "compared": len(both),
        "same verdict": float(same.mean()),
        "opposite verdicts": int(flipped.sum()),
        "cannot tell in either": int(
            ((both[f"{verdict}_a"] == "cannot tell") | (both[f"{verdict}_b"] == "cannot tell")).sum()
        ),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("first", type=Path, help="results/ of the first run")
    parser.add_argument("second", type=Path, help="results/ of the repeat")
    args = parser.parse_args(argv)
    summaries = [load(d, "summary.csv") for d in (args.first, args.second)]
    print(f"# {args.first} against {args.second}\n")
    print("## Rates\n")
    for key, value in coverage(*summaries).items():
        print(f"- {key}: {value:.1%}" if isinstance(value, float) else f"- {key}: {value}")
    checks = [load(d, "physics_checks.csv") for d in (args.first, args.second)]
    print("\n## Physics checks\n")
    for key, value in agreement(*checks, ["check", "subject"], "verdict", {"holds", "violated"}).items():
        print(f"- {key}: {value:.1%}" if isinstance(value, float) else f"- {key}: {value}")
    if all((d / "tables" / "findings.csv").exists() for d in (args.first, args.second)):
        found = [load(d, "findings.csv") for d in (args.first, args.second)]
        print("\n## Recommendations' topics\n")
        for key, value in agreement(*found, ["format", "topic"], "agrees", {"yes", "no"}).items():
            print(f"- {key}: {value:.1%}" if isinstance(value, float) else f"- {key}: {value}")


if __name__ == "__main__":
    main()
