"""What was measured on which machine with which software: written once per run to results/provenance.json."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import socket
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from rootparams.tools import rootenv


def config_hash(config: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def _cpu_info() -> dict[str, Any]:
    model = ""
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return {
        "cpu_model": model or platform.processor(),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "frequency_governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
        or "not readable",
    }


def memory_bytes() -> int:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    return 0


def _storage_of(path: str | Path) -> dict[str, Any]:
    """Device, filesystem, rotational flag and kernel read-ahead of the filesystem that holds ``path``."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(
        ["df", "--output=source,fstype,size,avail", str(path)], capture_output=True, text=True
    )
    source = fstype = ""
    if out.returncode == 0 and len(out.stdout.splitlines()) > 1:
        source, fstype, *_ = out.stdout.splitlines()[1].split()
    dev = os.stat(path).st_dev
    major, minor = os.major(dev), os.minor(dev)
    block = Path(f"/sys/dev/block/{major}:{minor}")

    def queue(name: str) -> str:  # a partition has no queue of its own: its disk's
        return _read(str(block / "queue" / name)) or _read(str(block / ".." / "queue" / name))

    rotational = queue("rotational")
    # The kernel's read-ahead overlaps a throttled read's I/O with ROOT's decompression (docs/measurement.md,
    # "Storage profiles"): with 8 MB windows a loop takes about max(CPU, B / bandwidth), not their sum.
    read_ahead = queue("read_ahead_kb")
    return {
        "data_dir": str(path.resolve()),
        "device": source,
        "device_number": f"{major}:{minor}",
        "filesystem": fstype,
        "rotational": {"1": True, "0": False}.get(rotational, "unknown"),
        "model": _read(str(block / "device" / "model")) or "unknown",
        "read_ahead_kb": int(read_ahead) if read_ahead.isdigit() else "unknown",
    }


def _package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def collect(config: dict[str, Any], build_info: dict[str, Any]) -> dict[str, Any]:
    return {
        "host": socket.gethostname(),
        **_cpu_info(),
        "memory_bytes": memory_bytes(),
        "kernel": platform.release(),
        "os": _read("/etc/os-release").split("PRETTY_NAME=", 1)[-1].split("\n", 1)[0].strip('"'),
        "storage": _storage_of(config["data_dir"]),
        "root_version": rootenv.root_version(),
        # The wheel builds its codecs in (builtin lz4/lzma/zstd/xxhash); ROOT does not report their versions.
        "root_codecs": "builtin zlib, lz4, lzma, zstd (the root wheel's bundled copies; versions not exposed by ROOT)",
        "build": build_info,
        "python": sys.version.split()[0],
        "snakemake": _package_version("snakemake"),
        "dool": _package_version("dool"),
        "rootparams": _package_version("rootparams"),
        "pandas": _package_version("pandas"),
        "uproot": _package_version("uproot"),
        "running_as_root": os.geteuid() == 0,
        "config_hash": config_hash(config),
        "config": config,
    }
