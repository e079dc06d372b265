"""One timed read with uproot, the Python user's reader (reading style "uproot"; docs/measurement.md, "The
related studies"), in a fresh process of its own, printing the C++ reader's JSON line:

    python -m rootparams.tools.uproot_read --file F --tree T --events N --branches b1,b2,... [--disk-device MAJ:MIN]

Spans, as read_collection_tree.cxx defines them:
  process      from the first line of this module's main (before uproot, awkward and numpy are imported: their
               import is this reader's start-up, as ROOT's is the C++ reader's) to the end of the loop;
  open         process start until the loop starts: imports, uproot.open, the tree and its branches;
  loop         reading the first N entries of the branches into arrays, in steps of whole clusters, and
               touching every value (a sum per array, ``values_sum``), so that nothing is left lazy;
  note_window  the loop's values (``note_window_is_loop``): a columnar read has no "second entry" moment.
Bytes and calls are uproot's own counters of its file source (``io_counters_source: uproot.source``): what it
asked the file for, gaps of coalesced requests included. Decompression time is not measured (uproot has no
counter for it: ``unzip_seconds_measured: false``).

The file is read through ``MultithreadedFileSource`` with one worker: plain pread calls, like ROOT's, so that
/proc/self/io counts the bytes the kernel fetched for them and the page-cache read-ahead is the kernel's usual
one. uproot's default for local files maps the file into memory (MemmapSource): its page faults are not read
calls, and the kernel's fault-around and mmap read-ahead differ from a reader's pread.

Exit codes as the C++ reader: 2 for a usage error (a missing branch or tree, a URL), 3 for a damaged file.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

_PROCESS_START = (time.monotonic(), time.time())  # before anything else: the process span starts here
_PROCESS_START_CPU = os.times().user + os.times().system

# Inside the process span, as every import of this reader (it reads no schema on import).
from rootparams.vocabulary import TTREE, container_of_class  # noqa: E402

EXIT_ERROR, EXIT_DAMAGED = 2, 3
# ROOT::Experimental::EIOFeatures::kGenerateOffsetMap, a bit of a TTree's fIOFeatures.fIOBits (offsets: generated)
_GENERATE_OFFSET_MAP = 1
_STEP_BYTES = 100_000_000  # about this many uncompressed bytes per step (whole clusters), to bound memory


class Snapshot:
    """The process's clocks and the kernel's counters at one moment, as the C++ reader's Snapshot."""

    def __init__(self, source=None, disk_device: str | None = None, at: tuple[float, float] | None = None):
        self.steady, self.epoch = at or (time.monotonic(), time.time())
        times = os.times()
        self.cpu = times.user + times.system  # every thread of this process
        self.io = _proc_io()
        self.disk = _disk_read_bytes(disk_device)
        self.bytes = int(source.num_requested_bytes) if source is not None else 0
        self.calls = int(source.num_requests) if source is not None else 0


def _proc_io() -> dict[str, int]:
    out = {}
    with open("/proc/self/io") as f:
        for line in f:
            key, value = line.split(":")
            out[key.strip()] = int(value)
    return out


def _disk_read_bytes(device: str | None) -> int:
    """Sectors the disk completed reading (/proc/diskstats, every process's), in bytes; -1 without a device."""
    if not device:
        return -1
    major, minor = device.split(":")
    with open("/proc/diskstats") as f:
        for line in f:
            fields = line.split()
            if fields[0] == major and fields[1] == minor:
                return int(fields[5]) * 512
    return -1


def _status_bytes(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return -1


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def _span(out: dict, name: str, a: Snapshot, b: Snapshot) -> None:
    out[f"{name}_seconds"] = b.steady - a.steady
    out[f"{name}_cpu_seconds"] = b.cpu - a.cpu
    out[f"{name}_storage_read_bytes"] = b.io["read_bytes"] - a.io["read_bytes"]
    out[f"{name}_read_syscalls"] = b.io["syscr"] - a.io["syscr"]
    if a.disk >= 0 and b.disk >= 0:
        out[f"{name}_disk_completed_read_bytes"] = b.disk - a.disk
    out[f"{name}_bytes_read"] = b.bytes - a.bytes
    out[f"{name}_read_calls"] = b.calls - a.calls


class UsageError(Exception):
    pass


class DamagedError(Exception):
    pass


def timed_read(path: str, tree_name: str, events: int, branches: list[str], disk_device: str | None) -> dict:
    process_start = Snapshot(disk_device=disk_device, at=_PROCESS_START)
    process_start.cpu = _PROCESS_START_CPU
    if "://" in path:
        raise UsageError(
            f"{path}: uproot reads local files only here (root:// needs XRootD's Python bindings, "
            "which the project does not install); use a local storage profile"
        )
    # Imported here, inside the process span: their import is this reader's start-up (the module docstring).
    import awkward as ak
    import numpy as np
    import uproot

    try:
        file = uproot.open(path, handler=uproot.source.file.MultithreadedFileSource, num_workers=1)
    except FileNotFoundError as error:
        raise UsageError(f"{path}: no such file") from error
    except (ValueError, OSError) as error:
        raise DamagedError(f"{path}: not a ROOT file uproot can open ({error})") from error
    source = file.file.source
    if tree_name not in file:
        found = [k.split(";")[0] for k, c in file.classnames().items() if container_of_class(c)]
        raise UsageError(f"{path}: no tree or RNTuple {tree_name!r}; it has {', '.join(found) or 'none'}")
    tree = file[tree_name]
    if not isinstance(tree, uproot.TTree):
        raise UsageError(
            f"{path}: {tree_name} is a {type(tree).__name__}; this reader reads TTrees (uproot "
            f"{uproot.__version__}'s RNTuple reading is not measured here)"
        )
    # ROOT's kGenerateOffsetMap (the writer's offsets: generated): uproot 5.7.7 does not look at the feature; it fails
    # on some counted arrays of such a file and rebuilds the others' offsets only where the counter's baskets start
    # where the array's do (tests/test_bulk.py). Refused rather than read wrong or half-way.
    iobits = tree.member("fIOFeatures").member("fIOBits") if "fIOFeatures" in tree.all_members else 0
    if iobits & _GENERATE_OFFSET_MAP:
        raise UsageError(
            f"{path}: {tree_name} was written with ROOT's I/O feature kGenerateOffsetMap (offsets: generated: its "
            f"counted arrays store no entry offsets), which uproot {uproot.__version__} does not read reliably; "
            "read it with reading_style getentry or bulk, or write it with offsets: stored"
        )
    missing = [b for b in branches if b not in tree]
    if missing:
        raise UsageError(
            f"{path}: branch(es) {', '.join(missing)} not in {tree_name} (e.g. "
            f"{', '.join(list(tree.keys())[:5])}, ...)"
        )
    if tree.num_entries < events:
        raise DamagedError(f"{path}: has {tree.num_entries} entries, but {events} were requested")
    zip_bytes = int(sum(tree[b].compressed_bytes for b in branches))
    rss_baseline = _status_bytes("VmRSS")
    values_sum = 0.0
    loop_start = Snapshot(source, disk_device)
    try:
        for arrays in tree.iterate(
            branches, entry_stop=events, step_size=f"{_STEP_BYTES // 1_000_000} MB", library="ak", how=dict
        ):
            for array in arrays.values():
                flat = ak.flatten(array, axis=None)
                values_sum += float(np.sum(ak.to_numpy(flat), dtype=np.float64))
    except (uproot.deserialization.DeserializationError, ValueError, OSError) as error:
        raise DamagedError(f"{path}: reading {tree_name} failed ({error})") from error
    end = Snapshot(source, disk_device)
    out: dict = {
        "file": path,
        "container": TTREE,
        "reading_style": "uproot",
        "io_counters_source": "uproot.source",
        "uproot_file_handler": "MultithreadedFileSource(num_workers=1)",
        "uproot_version": uproot.__version__,
        "awkward_version": ak.__version__,
        "numpy_version": np.__version__,
        "unzip_seconds_measured": False,
        "note_window_is_loop": True,
        "columns": len(branches),
        "selected_zip_bytes": zip_bytes,
        "entries_in_tree": int(tree.num_entries),
        "events_read": events,
        "values_sum": values_sum,
        "process_start_time": process_start.epoch,
        "loop_start_time": loop_start.epoch,
        "note_window_start_time": loop_start.epoch,
        "end_time": end.epoch,
        "first_entry_seconds": math.nan,
    }
    for name, a in (
        ("process", process_start),
        ("open", process_start),
        ("loop", loop_start),
        ("note_window", loop_start),
    ):
        _span(out, name, a, end if name != "open" else loop_start)
    loop_seconds = out["loop_seconds"]
    process_bytes = out["process_bytes_read"]
    process_storage = out["process_storage_read_bytes"]
    out.update(
        {
            "event_rate_hz": events / loop_seconds,
            "note_window_event_rate_hz": events / loop_seconds,
            "loop_mb_per_s_compressed": out["loop_bytes_read"] / 1e6 / loop_seconds,
            "note_window_mb_per_s_compressed": out["loop_bytes_read"] / 1e6 / loop_seconds,
            "loop_io_share": _ratio(out["loop_bytes_read"], process_bytes),
            "note_window_io_share": _ratio(out["loop_bytes_read"], process_bytes),
            "loop_storage_share": _ratio(out["loop_storage_read_bytes"], process_storage),
            "note_window_storage_share": _ratio(out["loop_storage_read_bytes"], process_storage),
            "loop_bytes_per_call": _ratio(out["loop_bytes_read"], out["loop_read_calls"]),
            "rss_baseline_bytes": rss_baseline,
            "peak_rss_bytes": _status_bytes("VmHWM"),
            "rss_increase_bytes": _status_bytes("VmHWM") - rss_baseline,
            "vm_peak_bytes": _status_bytes("VmPeak"),
            "pid": os.getpid(),
        }
    )
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m rootparams.tools.uproot_read", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--file", required=True)
    parser.add_argument("--tree", default="CollectionTree")
    parser.add_argument("--events", type=int, required=True)
    parser.add_argument("--branches", required=True, help="comma-separated branch names")
    parser.add_argument("--disk-device", default=None, help="major:minor of the disk that holds the file")
    args = parser.parse_args(argv)
    branches = [b for b in args.branches.split(",") if b]
    try:
        if not branches:
            raise UsageError(f"{args.file}: --branches names no branch")
        out = timed_read(args.file, args.tree, args.events, branches, args.disk_device)
    except UsageError as error:
        print(f"rootparams.tools.uproot_read: {error}", file=sys.stderr)
        return EXIT_ERROR
    except DamagedError as error:
        print(f"rootparams.tools.uproot_read: {error}", file=sys.stderr)
        return EXIT_DAMAGED
    print("ROOTPARAMS_JSON " + json.dumps(out, allow_nan=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
