"""System monitoring with dool (or dstat): run it around a repetition, parse its CSV, summarize a window.

dool and dstat write the same kind of CSV: a few preamble lines, a row of group names ("total cpu usage",
"dsk/total", ...), a row of column names ("usr", "sys", ...), then one row per sample. With ``--epoch`` the
first column is the sample's epoch time; each row holds averages over the interval that ends at that time.
The very first row averages since boot and is dropped. The two tools differ in a few columns (dstat has
"buff" where dool has "avai"); both are mapped onto one set of canonical names.

Units: dool 1.3.8 writes byte-valued columns (disk, network) *in bits* unless given ``--bytes`` (its
option parser defaults to bits; seen here: a 209 MB read showed as 1.68e9 in dsk/total). dstat writes
bytes. We start dool with ``--bytes``, and when parsing a dool CSV whose recorded command line lacks
``--bytes``, byte columns are divided by 8.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from rootparams.errors import UserError
from rootparams.tools.processes import die_with_parent

# Options both tools understand: epoch time stamps, and the paper's metric groups.
# The network: every interface but loopback ("total", the tools' default) and loopback on its own, where a read
# through our own XRootD server travels (docs/measurement.md, "Remote reads").
_MONITOR_ARGS = [
    "--epoch",
    "--cpu",
    "--disk",
    "--net",
    "-N",
    "total,lo",
    "--io",
    "--mem",
    "--vm",
    "--page",
    "--noupdate",
]
_TOOL_ARGS = {"dool": ["--bytes"], "dstat": []}
# Columns that dool writes in bits unless --bytes was given.
_BYTE_RATE_COLUMNS = (
    "disk_read_bytes_per_s",
    "disk_write_bytes_per_s",
    "net_recv_bytes_per_s",
    "net_send_bytes_per_s",
    "net_lo_recv_bytes_per_s",
    "net_lo_send_bytes_per_s",
)

# (group prefix, column) -> canonical name. Groups are matched by prefix since dool and dstat word some
# group names differently, and disk/net groups carry the device ("dsk/total", "dsk/vda").
_CANONICAL = {
    ("epoch", "epoch"): "epoch",
    ("total cpu", "usr"): "cpu_usr_pct",
    ("total cpu", "sys"): "cpu_sys_pct",
    ("total cpu", "idl"): "cpu_idle_pct",
    ("total cpu", "wai"): "cpu_wait_pct",
    ("total cpu", "stl"): "cpu_steal_pct",
    ("dsk/", "read"): "disk_read_bytes_per_s",
    ("dsk/", "writ"): "disk_write_bytes_per_s",
    ("net/lo", "recv"): "net_lo_recv_bytes_per_s",  # before "net/": the first matching prefix wins
    ("net/lo", "send"): "net_lo_send_bytes_per_s",
    ("net/", "recv"): "net_recv_bytes_per_s",
    ("net/", "send"): "net_send_bytes_per_s",
    ("io/", "read"): "io_read_ops_per_s",
    ("io/", "writ"): "io_write_ops_per_s",
    ("memory", "used"): "mem_used_bytes",
    ("memory", "free"): "mem_free_bytes",
    ("memory", "cach"): "mem_cache_bytes",
    ("memory", "buff"): "mem_buffers_bytes",
    ("memory", "avai"): "mem_available_bytes",
    ("virtual memory", "majpf"): "vm_major_faults_per_s",
    ("virtual memory", "minpf"): "vm_minor_faults_per_s",
    ("virtual memory", "alloc"): "vm_alloc_per_s",
    ("virtual memory", "free"): "vm_free_per_s",
    ("paging", "in"): "page_in_per_s",
    ("paging", "out"): "page_out_per_s",
}
_METRICS = [name for name in dict.fromkeys(_CANONICAL.values()) if name != "epoch"]


class MonitorError(UserError):
    pass


class MonitorCSVError(UserError, ValueError):
    """A monitor CSV that cannot be understood; the message names the file and the line."""


@dataclass
class MonitorSamples:
    tool: str
    columns: list[str]
    rows: list[dict[str, float]] = field(default_factory=list)


def monitor_candidates(choice: str) -> list[str]:
    """The programs measurement.monitor = ``choice`` may run, in the order they are tried ("none": none)."""
    if choice == "none":
        return []
    return ["dool", "dstat"] if choice == "auto" else [choice]


def find_monitor(choice: str) -> tuple[str, str] | None:
    """Resolve the configured monitor to (tool name, executable path); None when the config chose "none"."""
    if choice == "none":
        return None
    candidates = monitor_candidates(choice)
    for name in candidates:
        # dool comes with this project's environment: look beside the running Python too, so that a
        # Snakemake started without activating the environment still finds it (and not a broken dstat).
        path = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
        if path:
            return name, path
    raise MonitorError(
        f"measurement.monitor = {choice!r}, but {' and '.join(candidates)} "
        f"{'is' if len(candidates) == 1 else 'are'} not on PATH ({os.environ.get('PATH', '')}). "
        "Install dool (`pip install dool==1.3.8`, part of this project's setup) or dstat (`apt-get install dstat`), "
        "or set measurement.monitor: none to measure without system samples (recorded as such)."
    )


def parse_monitor_csv(text: str, source: str = "<monitor csv>") -> MonitorSamples:
    """Parse dool/dstat CSV text into canonical rows. Unknown columns are ignored; a short or non-numeric
    row (a sample cut off when the monitor was stopped) is dropped; a file without the two header rows
    raises MonitorCSVError."""
    try:
        # newline="": the csv module's own line handling (a stray carriage return is then data, not an error).
        lines = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as error:  # found by fuzzing: e.g. a NUL byte or a broken quote from a cut-off write
        raise MonitorCSVError(f"{source}: not readable as CSV ({error})") from error
    tool = "dool" if lines and lines[0] and lines[0][0].lower().startswith("dool") else "dstat"
    cmdline = next((" ".join(row) for row in lines[:6] if row and row[0].strip().lower() == "cmdline:"), "")
    bits_to_bytes = 1 / 8 if tool == "dool" and "--bytes" not in cmdline else 1.0
    header_index = next(
        (
            i
            for i, row in enumerate(lines)
            if row
            and row[0].strip().lower() == "epoch"
            and i + 1 < len(lines)
            and lines[i + 1]
            and lines[i + 1][0].strip().lower() == "epoch"
        ),
        None,
    )
    if header_index is None:
        raise MonitorCSVError(
            f"{source}: no header rows found (expected a row of groups and a row of columns, both starting "
            "with 'epoch'; was the monitor started with --epoch?)"
        )
    groups, names = lines[header_index], lines[header_index + 1]
    mapping: dict[int, str] = {}
    group = ""
    for i, name in enumerate(names):
        if i < len(groups) and groups[i].strip():
            group = groups[i].strip().lower()
        # With -N, dool names a network column after its group too ("net/lo:recv").
        canonical = _canonical(group, name.strip().lower().rpartition(":")[2])
        if canonical and canonical not in mapping.values():
            mapping[i] = canonical
    if "epoch" not in mapping.values():
        raise MonitorCSVError(f"{source}: the column row has no 'epoch' column")
    samples = MonitorSamples(tool=tool, columns=[mapping[i] for i in sorted(mapping)])
    for row in lines[header_index + 2 :]:
        if len(row) < len(names):
            continue  # cut off when the monitor stopped
        values = {}
        for i, name in mapping.items():
            try:
                values[name] = float(row[i]) if row[i].strip() != "" else math.nan
            except ValueError:
                break
        else:
            if not math.isnan(values.get("epoch", math.nan)):
                for name in _BYTE_RATE_COLUMNS:
                    if name in values:
                        values[name] *= bits_to_bytes
                samples.rows.append(values)
    return samples


def _canonical(group: str, column: str) -> str | None:
    for (prefix, col), canonical in _CANONICAL.items():
        if column == col and group.startswith(prefix):
            return canonical
    return None


def summarize_window(samples: MonitorSamples, start: float, end: float) -> dict[str, float]:
    """Summarize the samples over the span [start, end].

    A sample stamped t averages over (t - dt, t]. Each sample counts with the part of its interval that lies
    inside the span (the rate is assumed even within one sample): rates are averaged and disk, network and
    I/O totals integrated with those weights; memory is the maximum over the samples that touch the span.
    With 1 s samples this is the paper's resolution: a span of a few seconds shares its first and last
    sample with what ran just before and after it (the previous repetition's end, the next one's open).
    ``monitor_coverage`` is the part of the span that samples cover (1.0 when complete).
    """
    rows = sorted(samples.rows, key=lambda r: r["epoch"])
    if len(rows) < 2 or end <= start:
        return {"monitor_samples": 0, "monitor_coverage": 0.0}
    overlapping = []
    for prev, row in itertools.pairwise(rows):
        lo, hi = prev["epoch"], row["epoch"]
        overlap = min(hi, end) - max(lo, start)
        if overlap > 0:
            overlapping.append((overlap, row))
    covered = sum(w for w, _ in overlapping)
    out: dict[str, float] = {"monitor_samples": len(overlapping), "monitor_coverage": covered / (end - start)}
    if not overlapping:
        return out
    for name in _METRICS:
        values = [(w, r[name]) for w, r in overlapping if name in r and not math.isnan(r[name])]
        if not values:
            continue
        if name.startswith("mem_"):
            out[f"{name}_max"] = max(v for _, v in values)
        else:
            out[f"{name}_mean"] = sum(v * w for w, v in values) / sum(w for w, _ in values)
    for rate, total in (
        ("disk_read_bytes_per_s", "disk_read_bytes"),
        ("disk_write_bytes_per_s", "disk_write_bytes"),
        ("io_read_ops_per_s", "io_read_ops"),
        ("net_recv_bytes_per_s", "net_recv_bytes"),
        ("net_send_bytes_per_s", "net_send_bytes"),
        ("net_lo_recv_bytes_per_s", "net_lo_recv_bytes"),
    ):
        values = [(w, r[rate]) for w, r in overlapping if rate in r and not math.isnan(r[rate])]
        if values:
            out[total] = sum(v * w for w, v in values)
    return out


class Monitor:
    """dool/dstat running in the background, writing CSV to ``csv_path``, sampling once a second."""

    def __init__(self, tool: tuple[str, str], csv_path: str | Path, interval: int = 1, wait: bool = True):
        """``wait``: on entering, wait for the first real sample (else call ``wait_until_sampling`` before
        the first measurement, and do other preparation meanwhile)."""
        self.name, self.executable = tool
        self.csv_path = Path(csv_path)
        self.interval = interval
        self.wait = wait
        self.started = 0.0
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Monitor:
        self.csv_path.parent.mkdir(parents=True, exist_ok=True)
        self.csv_path.unlink(missing_ok=True)
        self.proc = subprocess.Popen(
            [
                self.executable,
                *_MONITOR_ARGS,
                *_TOOL_ARGS.get(self.name, []),
                "--output",
                str(self.csv_path),
                str(self.interval),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C of the workflow reaches it through us, not twice
            preexec_fn=die_with_parent,  # and a kill -9 of the job does not leave it sampling forever
        )
        self.started = time.time()
        if self.wait:
            self.wait_until_sampling()
        return self

    def wait_until_sampling(self) -> None:
        """The first row averages since boot: wait for one real sample after the start, so that what is
        measured from now on is covered from its beginning."""
        self.wait_for_sample_after(self.started, timeout=10 * self.interval + 5)

    def samples(self) -> MonitorSamples:
        text = self.csv_path.read_text() if self.csv_path.exists() else ""
        return parse_monitor_csv(text, str(self.csv_path))

    def wait_for_sample_after(self, t: float, timeout: float) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc and self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                hint = (
                    " (Debian's dstat 0.8.0 cannot write CSV; use dool: `pip install dool==1.3.8`)"
                    if self.name == "dstat" and "NameError" in err
                    else ""
                )
                raise MonitorError(
                    f"{self.name} exited early (code {self.proc.returncode}){hint}: {err.strip()[-1500:]}"
                )
            try:
                rows = self.samples().rows
            except MonitorCSVError:
                rows = []
            if len(rows) >= 2 and rows[-1]["epoch"] >= t:
                return
            time.sleep(0.05)
        raise MonitorError(
            f"{self.name} wrote no sample after t={t:.3f} within {timeout:.0f} s ({self.csv_path})"
        )

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # both tools flush their CSV on SIGINT
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
