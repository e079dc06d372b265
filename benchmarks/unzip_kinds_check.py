"""The decompression per content kind (rootparams.measure.unzipkinds) against the warm reads of a study's compression scan.

    python benchmarks/unzip_kinds_check.py <study>/results [--config config/config.yaml] [--formats xaod truth3]
                                           [--scratch DIR] [--build DIR] [--keep] [--bytes-per-kind B]

For each format: its default file written again into --scratch (the study's events and seed: the content and layout
of the study's default file), the primitive measured on it at every compressing setting of the study's compression
scan (results/primitives/unzip_kinds.csv's rows, written to --scratch/unzip_kinds.csv), the kinds' shares of the
bytes a warm read of the particle containers decompresses (the reader's own resolution of 'particle'), and per
setting the mix of the per-kind rates (``mixed_rate``) beside the warm reads' measured CPU seconds per uncompressed
MB of that setting's file (<study>/results/primitives/cpu_summary.csv: one thread, TTreeCache, particle
containers). Also the share of the read's bytes stored uncompressed, predicted from the kinds, beside the share the
warm read did not unzip (1 - its unzip output / the file's particle bytes, results/tables/files.csv).

Prints one line per format and setting, then per format and algorithm the median and worst |predicted / measured -
1|. The kinds' shares come from the file written here; the uncompressed content is the same at every setting.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

from rootparams.measure import unzipkinds
from rootparams.measure.generate import generate_file
from rootparams.study.config import load_study_config
from rootparams.study.grid import default_file_point
from rootparams.tools.build import ensure_built
from rootparams.tools.processes import run_tool
from rootparams.vocabulary import UNCOMPRESSED, encode

REPO = Path(__file__).resolve().parents[1]


def compression_scan_settings(study: dict) -> list[tuple[str, int]]:
    scan = study["scans"].get("compression", {})
    return [
        (a, level) for a in scan.get("algorithm", []) if a != UNCOMPRESSED for level in scan.get("level", [])
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a study's results directory (cpu_summary.csv, files.csv)")
    parser.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    parser.add_argument("--formats", nargs="*", default=None)
    parser.add_argument(
        "--scratch", type=Path, default=None, help="where the files are written (default: a temp dir)"
    )
    parser.add_argument("--build", type=Path, default=REPO / "results" / "build")
    parser.add_argument("--keep", action="store_true", help="keep the written files")
    parser.add_argument(
        "--bytes-per-kind", type=int, default=unzipkinds.BYTES_PER_KIND, help="the sample of each kind"
    )
    args = parser.parse_args()

    study = load_study_config(yaml.safe_load(args.config.read_text()))
    tools = ensure_built(args.build)
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="unzip-kinds-"))
    scratch.mkdir(parents=True, exist_ok=True)
    warm = pd.read_csv(args.results / "primitives" / "cpu_summary.csv")
    files = pd.read_csv(args.results / "tables" / "files.csv")
    settings = compression_scan_settings(study)
    rows, summaries = [], []
    for fmt in args.formats or list(study["formats"]):
        default = default_file_point(study, fmt)
        sample = scratch / f"{fmt}.root"
        start = time.time()
        if not sample.exists():
            generate_file(
                default,
                events=study["formats"][fmt]["written"],
                seed=study["seed"],
                writer=tools.writer,
                reader=tools.reader,
                output=str(sample),
                catalogue=None,
                threads=2,
            )
        written = time.time() - start
        start = time.time()
        result, inspection = unzipkinds.measure(
            tools.unzip_kinds,
            str(sample),
            [encode(a, level) for a, level in settings],
            bytes_per_kind=args.bytes_per_kind,
            host_lock=scratch / "lock",
            jobs=2,
        )
        summary = unzipkinds.kind_summary(fmt, result, inspection)
        summaries.append(summary)
        print(f"{fmt}: file written in {written:.1f} s, primitive measured in {time.time() - start:.1f} s")
        tops = run_tool([tools.reader, "--file", str(sample), "--resolve-selection", "particle"], "resolving")
        fractions = unzipkinds.kind_fractions(inspection, tops["branches"])
        print(
            "  kinds of the particle containers' bytes: "
            + ", ".join(f"{k} {f:.1%}" for k, f in fractions.items())
        )
        for algorithm, level in settings:
            file_id = dataclasses.replace(default, algorithm=algorithm, level=level).id
            sets = warm[
                (warm["format"] == fmt)
                & (warm["file_id"] == file_id)
                & (warm["threads"] == 1)
                & (warm["branches"] == "particle")
                & (~warm["unzip"].astype(bool))
                & (warm["reading_style"] == "getentry")
            ]
            if sets.empty:
                continue
            s = sets.iloc[0]
            f = files[(files["format"] == fmt) & (files["file_id"] == file_id)]
            raw_measured = (
                1 - s["unzip_output_bytes"] / f["particle_tot_bytes"].iloc[0] if len(f) else float("nan")
            )
            mine = summary[(summary["algorithm"] == algorithm) & (summary["level"] == level)].set_index(
                "kind"
            )
            raw_predicted = sum(
                fr * mine.loc[k, "stored_raw_fraction"] for k, fr in fractions.items() if k in mine.index
            )
            predicted = unzipkinds.mixed_rate(summary, fmt, algorithm, level, fractions)
            measured = s["unzip_cpu_s_per_mb_uncompressed_mean"]
            rows.append(
                {
                    "format": fmt,
                    "algorithm": algorithm,
                    "level": level,
                    "measured_s_per_mb": measured,
                    "measured_ci95": f"{s['unzip_cpu_s_per_mb_uncompressed_ci95_low']:.5f}-"
                    f"{s['unzip_cpu_s_per_mb_uncompressed_ci95_high']:.5f}",
                    "predicted_s_per_mb": predicted,
                    "error": predicted / measured - 1,
                    "raw_share_measured": raw_measured,
                    "raw_share_predicted": raw_predicted,
                }
            )
        if not args.keep:
            sample.unlink()
    pd.concat(summaries, ignore_index=True).to_csv(scratch / "unzip_kinds.csv", index=False)
    table = pd.DataFrame(rows)
    with pd.option_context(
        "display.width", 200, "display.max_columns", 20, "display.float_format", "{:.5f}".format
    ):
        print(table.to_string(index=False))
        errors = table.assign(abs_error=table["error"].abs()).groupby(["format", "algorithm"])["abs_error"]
        print("\n|predicted / measured - 1| per format and algorithm (levels 1, 5, 9):")
        print(pd.DataFrame({"median": errors.median(), "worst": errors.max()}).to_string())
        print(
            f"\nall settings: median {table['error'].abs().median():.1%}, worst {table['error'].abs().max():.1%}"
        )
    print(f"per-kind table: {scratch / 'unzip_kinds.csv'}")
    if args.scratch is None and not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
