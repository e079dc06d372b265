"""The timed comparisons that were assertions of the unit tests: one measured time or rate against another,
whose outcome depends on how quiet and how fast the host is: printed here as figures, beside what the
test asked.

    python benchmarks/timed_checks.py [--checks throttle storage warm-cold unzip-kinds remote-hop
                                       remote-study] [--build results/build] [--scratch DIR] [--study DIR]

throttle      a cold read of 24 MiB under a 16 MB/s limit, then without a limit (tests/test_storage.py: the
              unthrottled read in under half the throttled one's time). Needs root and a block I/O controller.
storage       fio's cold sequential reads, buffered and direct, under native storage and the hdd profile, with
              the page-cache fill (tests/test_storage_primitives.py: hdd at 150 MB/s within 10 %, the check "pass";
              a cold read's system CPU per MB above a warm one's). Needs fio, root and a block I/O controller.
warm-cold     TRUTH3 at LZ4-5 and LZ4-9 (3000 events), 3 cold repetitions on a disk throttled to 20 MB/s,
              then 10 warm reads each (tests/test_cpu_primitives.py: every warm loop shorter than every cold loop of
              its file, a warm loop's CPU at least 90 % of its time). Needs root and a block I/O controller.
unzip-kinds   the decompression per content kind of TRUTH3 (ZLIB-5 and LZ4-4) and of the PHYSLITE sample
              (tests/test_unzipkinds.py: LZ4 unzips the same bytes in less CPU than ZLIB; LZMA unzips every
              kind of the PHYSLITE slower than LZ4).
remote-hop    30 small reads of a ROOT file from our XRootD server, directly and through the xrootd-lan proxy
              (tests/test_remote_endpoint.py: the proxy's hop adds less than 2 ms to the median). Needs xrootd
              and toxiproxy (tools/install-remote).
remote-study  from a finished study with remote profiles (--study, its working directory; e.g. one of
              tests/configs/tiny_remote.yaml): each profile's rate with the TTreeCache at -1 against off
              (tests/test_remote_study.py: the gain through xrootd-wan more than 10 times native's), and the
              remote primitives' round trip against their transfer (tests/test_remote_primitives.py: under 20 %).

Each check prints its figures and "yes" or "no" for what the test asked; nothing fails. The tests keep what
does not depend on the host's speed: counts, bytes, records, and hard floors (a throttled read is never faster
than its bytes over the limit; N round trips take at least N times the round-trip time added).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from rootparams.host import pagecache, remote, storage
from rootparams.measure import cpu_primitives, unzipkinds
from rootparams.measure import storage_primitives as storagebench
from rootparams.measure.generate import generate_file
from rootparams.measure.measure import PlannedPoint, measure_block
from rootparams.study.config import load_study_config
from rootparams.study.grid import FilePoint
from rootparams.tools import paths
from rootparams.tools.build import Tools, ensure_built

REPO = Path(__file__).resolve().parents[1]
PHYSLITE = REPO.parent / "shared" / "data" / "atlas_physlite_run2_ttbar_100ev.root"
CHECKS = ("throttle", "storage", "warm-cold", "unzip-kinds", "remote-hop", "remote-study")


def yes(condition: bool) -> str:
    return "yes" if condition else "no"


def throttle(scratch: Path) -> None:
    """A cold read under a 16 MB/s limit against the same cold read without one."""
    path = scratch / "throttle-blob.bin"
    path.write_bytes(os.urandom(24 << 20))
    size = path.stat().st_size
    profile = storage.StorageProfile("test", read_bps=16_000_000)
    try:
        pagecache.make_cold(path)
        with storage.point_group(profile, path) as group:
            start = time.monotonic()
            subprocess.run(
                ["cat", str(path)],
                stdout=subprocess.DEVNULL,
                check=True,
                preexec_fn=storage.join_group(group.procs),
            )
            throttled = time.monotonic() - start
        pagecache.make_cold(path)
        start = time.monotonic()
        subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)
        native = time.monotonic() - start
    finally:
        path.unlink(missing_ok=True)
    print(
        f"throttle: 24 MiB read cold in {throttled:.2f} s under 16 MB/s (its bytes over the limit: "
        f"{size / profile.read_bps:.2f} s), in {native:.2f} s without the limit: {throttled / native:.1f}x; "
        f"without the limit in under half the time: {yes(native < throttled / 2)}"
    )


def storage_primitives(scratch: Path) -> None:
    """fio's cold sequential reads under native storage and hdd (150 MB/s), and the page-cache fill."""
    profiles = [storage.PROFILES["native"], storage.PROFILES["hdd"]]
    records = storagebench.measure_storage(
        profiles,
        scratch / "storage",
        jobs=storagebench.JOBS[:2],
        scratch_bytes=512 * storagebench.MIB,  # 1 s at 150 MB/s reads ~150 MB of it
        say=lambda _: None,
    )
    table = storagebench.summarize(records)
    print("storage: fio, cold sequential reads of 1 MiB, buffered and direct; the page-cache fill")
    for line in storagebench.describe(table):
        print(f"  {line}")
    hdd = table[table["storage_profile"] == "hdd"]
    for _, row in hdd.iterrows():
        ratio, check = row["bandwidth_vs_nominal"], row["nominal_check"]
        within = abs(ratio - 1) <= storagebench.NOMINAL_TOLERANCE and check == "pass"
        print(
            f"  hdd {row['io_mode']}: {ratio:.3f} of its 150 MB/s, check {check}; within "
            f"{storage_primitives.NOMINAL_TOLERANCE:.0%} and a pass: {yes(within)}"
        )
    fill = table[table["pattern"] == storagebench.FILL_PATTERN].iloc[0]
    print(
        f"  a cold read's system CPU beyond a warm one's: {fill['fill_cpu_s_per_mb'] * 1e3:.3f} ms per MB "
        f"({fill['fill_cpu_s_per_mb_ci95_low'] * 1e3:.3f}-{fill['fill_cpu_s_per_mb_ci95_high'] * 1e3:.3f}); "
        f"positive: {yes(fill['fill_cpu_s_per_mb'] > 0)}"
    )


def warm_cold(tools: Tools, scratch: Path, events: int = 3000, warm_reads: int = 10) -> None:
    """Warm loops from memory against cold loops that wait for a 20 MB/s disk, on the same files."""
    records = scratch / "warm-cold"
    shutil.rmtree(records, ignore_errors=True)  # measured afresh: kept records would be reused
    records.mkdir(parents=True)
    read = {
        "cache_size": -1,
        "learn_entries": "default",
        "threads": 1,
        "branches": "particle",
        "storage_profile": "slow_disk",
        "container": "ttree",
    }
    points = []
    for level in (5, 9):
        path = scratch / f"truth3-lz4-{level}-{events}ev.root"
        if not path.exists():
            generate_file(
                FilePoint("truth3", "lz4", level, 500, 1, 32000),
                events=events,
                seed=5,
                output=str(path),
                writer=tools.writer,
                reader=tools.reader,
                catalogue=None,
            )
        read_id = f"lz4-{level}"
        points.append(
            PlannedPoint(
                str(path),
                events,
                dict(read),
                {"point": read_id, "read_id": read_id},
                {rep: str(records / read_id / f"rep{rep}.json") for rep in range(3)},
            )
        )
    settings = {
        "monitor": "none",
        "warm_reads": warm_reads,
        "makeup_rounds": 0,
        "storage_profiles": {"slow_disk": {"read_bps": 20_000_000}},
    }
    result = measure_block(
        block="warm-cold",
        points=points,
        reader=tools.reader,
        measurement=load_study_config({"measurement": settings})["measurement"],
        monitor_csv=str(records / "monitor.csv"),
    )
    warm = {
        s["file_id"]: [cpu_primitives.reusable_warm_record(p, {}) for p in s["records"]]
        for s in result.warm_sets
    }
    print(f"warm-cold: loop seconds, 3 cold reads on 20 MB/s against {warm_reads} warm reads from memory")
    for point, cold in zip(points, result.records, strict=True):
        reads = warm[Path(point.root_file).stem]
        cold_loops = [r["loop_seconds"] for r in cold]
        warm_loops = [r["loop_seconds"] for r in reads]
        cpu_share = min(r["loop_cpu_seconds"] / r["loop_seconds"] for r in reads)
        shorter = max(warm_loops) < min(cold_loops)
        print(
            f"  {point.labels['read_id']}: cold {min(cold_loops):.3f}-{max(cold_loops):.3f} s (its bytes "
            f"over the limit: {cold[0]['loop_bytes_read'] / 20e6:.3f} s), warm {min(warm_loops):.3f}-"
            f"{max(warm_loops):.3f} s; every warm loop shorter: {yes(shorter)}; a warm loop's CPU at least "
            f"{cpu_share:.0%} of it (at least 90 %: {yes(cpu_share >= 0.9)})"
        )


def unzip_kinds(tools: Tools, scratch: Path) -> None:
    """ROOT's unzip CPU per MB per content kind, by algorithm."""
    truth3 = scratch / "truth3-zlib-5-600ev.root"
    if not truth3.exists():
        generate_file(
            FilePoint("truth3", "zlib", 5, 100, 1, 32000),
            events=600,
            seed=11,
            output=str(truth3),
            writer=tools.writer,
            reader=tools.reader,
            catalogue=None,
        )
    samples = [("truth3", truth3, [105, 404], 1_000_000, 3)]
    if PHYSLITE.exists():
        samples.append(("physlite", PHYSLITE, [101, 207, 404, 505], 300_000, 2))
    else:
        print(f"unzip-kinds: {PHYSLITE} is not here; the PHYSLITE comparison is left out")
    for fmt, path, settings, bytes_per_kind, repetitions in samples:
        result, inspection = unzipkinds.measure(
            tools.unzip_kinds,
            str(path),
            settings,
            bytes_per_kind=bytes_per_kind,
            repetitions=repetitions,
            say=lambda _: None,
        )
        table = unzipkinds.kind_summary(fmt, result, inspection)
        rates = table.pivot_table(
            index="kind", columns="algorithm", values="unzip_cpu_s_per_mb_uncompressed_mean"
        )
        print(f"unzip-kinds: {fmt}, ms of unzip CPU per uncompressed MB")
        print((1e3 * rates).round(3).to_string())
        table["seconds"] = table["unzip_cpu_s_per_mb_uncompressed_mean"] * table["unzip_output_bytes"] / 1e6
        seconds = table.groupby("algorithm")["seconds"].sum()
        spent = ", ".join(f"{algorithm} {s * 1e3:.2f} ms" for algorithm, s in seconds.items())
        print(f"  the whole sample: {spent}")
        if {"lz4", "zlib"} <= set(seconds.index):
            print(f"  LZ4 in less CPU than ZLIB on the same bytes: {yes(seconds['lz4'] < seconds['zlib'])}")
        if {"lz4", "lzma"} <= set(rates.columns):
            slower = bool((rates["lzma"] > rates["lz4"]).all())
            print(f"  LZMA slower than LZ4 for every kind: {yes(slower)}")


# Small reads in a process of its own (after a root:// read, XrdCl's fork handler can hang the next fork()).
READS = (
    REPO / "tests" / "data" / "small_root_reads.py"
).read_text()  # shared with tests/test_remote_endpoint.py


def remote_hop(scratch: Path, n: int = 30) -> None:
    """The median of small reads through the xrootd-lan proxy (no latency toxic: its hop) against direct."""
    import ROOT

    export = Path(tempfile.mkdtemp(prefix="rootparams-export-"))  # the server's account must read it
    export.chmod(0o755)
    try:
        path = export / "hist.root"
        f = ROOT.TFile(str(path), "RECREATE")
        hist = ROOT.TH1D("h", "h", 20_000, 0, 1)
        hist.FillRandom("gaus", 20_000)
        hist.Write()
        f.Close()
        path.chmod(0o644)
        (scratch / "remote-logs").mkdir(parents=True, exist_ok=True)
        with remote.remote_endpoint(storage.PROFILES["xrootd-lan"], export, scratch / "remote-logs") as ep:
            proc = subprocess.run(
                [sys.executable, "-c", READS, str(n), ep.server.url(path), ep.url(path)],
                capture_output=True,
                text=True,
                check=True,
            )
    finally:
        shutil.rmtree(export, ignore_errors=True)
    direct, proxied = (url["times"] for url in json.loads(proc.stdout.splitlines()[-1]))
    direct_s, proxied_s = statistics.median(direct), statistics.median(proxied)
    hop = proxied_s - direct_s
    print(
        f"remote-hop: median of {n} reads of 1 kB, direct {direct_s * 1e3:.3f} ms, through the xrootd-lan "
        f"proxy {proxied_s * 1e3:.3f} ms: the hop adds {hop * 1e3:.3f} ms (under 2 ms: {yes(hop < 0.002)})"
    )


def remote_study(study: Path) -> None:
    """The TTreeCache's gain per storage profile of a finished study, and its remote primitives."""
    summary = pd.read_csv(study / paths.SUMMARY_TABLE)
    # The read settings besides the cache that tell the points apart (those the summary has, never empty).
    keys = [
        c
        for c in ("format", "file_id", "branches", "threads", "reading_style", "storage_profile")
        if c in summary.columns and summary[c].notna().all()
    ]
    both = summary[summary["cache_size"].isin([0, -1])].pivot_table(
        index=keys, columns="cache_size", values="event_rate_hz_mean", aggfunc="first"
    )
    if not {0, -1} <= set(both.columns):
        print(f"remote-study: {study} has no points with the TTreeCache off (0) and at -1")
    else:
        gain = (both[-1] / both[0]).dropna()
        print(f"remote-study: the TTreeCache's gain (rate at -1 / rate off), {study}")
        print(gain.round(2).to_string())
        by_profile = gain.groupby(level="storage_profile").median()
        if {"native", "xrootd-wan"} <= set(by_profile.index):
            ratio = by_profile["xrootd-wan"] / by_profile["native"]
            print(f"  xrootd-wan's gain {ratio:.1f}x native's (more than 10x: {yes(ratio > 10)})")
    table = study / paths.REMOTE_PRIMITIVES_TABLE
    if table.exists():
        for _, r in pd.read_csv(table).iterrows():
            share = r["round_trip_share_of_transfer"]
            print(
                f"  {r['storage_profile']}: round trip {r['round_trip_s_median'] * 1e3:.2f} ms (median), "
                f"{share:.1%} of its transfer (under 20 %: {yes(share < 0.2)})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checks", nargs="+", choices=CHECKS, default=list(CHECKS[:4]))
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rootparams-timed-checks"
    )
    parser.add_argument("--study", type=Path, help="a finished study's working directory (remote-study)")
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    throttled = {"throttle", "storage", "warm-cold"} & set(args.checks)
    reason = storage.throttling_unavailable_reason()
    if throttled and reason:
        print(f"left out ({', '.join(sorted(throttled))}): no throttle here: {reason}")
    tools = ensure_built(args.build) if {"warm-cold", "unzip-kinds"} & set(args.checks) else None
    for check in args.checks:
        if check in throttled and reason:
            continue
        if check == "throttle":
            throttle(args.scratch)
        elif check == "storage":
            storage_primitives(args.scratch)
        elif check == "warm-cold":
            warm_cold(tools, args.scratch)
        elif check == "unzip-kinds":
            unzip_kinds(tools, args.scratch)
        elif check == "remote-hop":
            remote_hop(args.scratch)
        elif check == "remote-study" and args.study is None:
            print("remote-study: --study names the study's working directory")
        elif check == "remote-study":
            remote_study(args.study)


if __name__ == "__main__":
    main()
