"""A reference figure of this host's CPU that other machines have published: 7-Zip's own LZMA benchmark on one
thread (``7z b -mmt1``), its decompression rating in MIPS.

Why 7-Zip's: the benchmark makes its own data (no corpus to download), runs the same on every x86 machine, its
decompression rating "strongly depends on the integer performance of the CPU" (branch mispredictions, latencies of
shifts and multiplies), which is what ROOT's decompression and the objects' streaming spend their time on, and
tables of it per CPU are public (7-cpu.com). The ratio of two machines' ratings is the factor the model of the
timed loop scales this host's CPU parts by to predict another machine (rootparams.model.model: the note's testbed). It
is one number for every kind of CPU work, which is an assumption the predicted table states.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from rootparams.host.exclusive import DEFAULT_LOCK, HostLock

# The executables of 7-Zip: p7zip's 7z and 7za first (16.02 in Debian and Ubuntu, the version of the published
# figure the note's testbed is scaled from: rootparams.model.model.NOTE_TESTBED_CPU), then 7-Zip's own 7zz, whose newer
# decoder may rate higher on the same CPU.
SEVEN_ZIP_NAMES = ("7z", "7za", "7zz")
COLUMNS = [
    "tool",
    "version",
    "command",
    "runs",
    "compression_mips",
    "decompression_mips",
    "decompression_mips_min",
    "decompression_mips_max",
    "seconds",
    "reason",
]


class CpuReferenceError(RuntimeError):
    """7-Zip's output could not be read."""


def _find_seven_zip() -> str | None:
    for name in SEVEN_ZIP_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _parse_benchmark(output: str, source: str = "7-Zip's benchmark") -> dict[str, Any]:
    """The one-thread ratings of ``7z b -mmt1``: its ``Avr:`` line has the compression and the decompression
    rating (MIPS) after the usage column of each half; the first line names the version."""
    version = output.strip().splitlines()[0].strip() if output.strip() else ""
    for line in output.splitlines():
        if line.startswith("Avr:"):
            compress, _, decompress = line[4:].partition("|")
            c, d = compress.split(), decompress.split()
            if len(c) >= 3 and len(d) >= 3:
                return {
                    "version": version,
                    "compression_mips": float(c[-1]),
                    "decompression_mips": float(d[-1]),
                }
    raise CpuReferenceError(
        f"{source}: no 'Avr:' line with compression and decompression ratings (expected the output of "
        f"'7z b -mmt1'); it starts with {output[:200]!r}"
    )


def measure(
    runs: int = 3,
    seven_zip: str | None = None,
    host_lock: str | Path = DEFAULT_LOCK,
    say: Callable[[str], None] = print,
    run: Callable[..., subprocess.CompletedProcess] = subprocess.run,
    dictionary_log: int | None = None,
) -> dict[str, Any]:
    """``runs`` runs of ``7z b -mmt1`` under the host's timed-read lock (nothing else of a study runs meanwhile),
    their median ratings and the spread of the decompression's. Without 7-Zip, a row that says so (the model then
    has no factor for another CPU), not an error.

    ``dictionary_log`` N adds ``-mdN``: with N = 22 the benchmark runs one pass, at a dictionary of 4 MB, instead
    of one per dictionary from 4 MB up to 32 MB (2^25, on a machine with the memory), in a fraction of the time,
    and rates another workload than the published figures: for a test of the mechanics, not for the model (the
    study's rule runs without it)."""
    tool = seven_zip or _find_seven_zip()
    if tool is None:
        reason = (
            "7-Zip is not installed (apt-get install p7zip-full; dnf install p7zip): without it the "
            "model cannot scale this host's CPU to another machine's"
        )
        say(f"cpu reference: {reason}")
        return {c: None for c in COLUMNS} | {"runs": 0, "reason": reason}
    command = [tool, "b", "-mmt1", *([f"-md{dictionary_log}"] if dictionary_log is not None else [])]
    results = []
    start = time.time()
    with HostLock(host_lock, say):
        for _ in range(runs):
            proc = run(command, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise CpuReferenceError(
                    f"{' '.join(command)} exited with {proc.returncode}: {proc.stderr[-300:]}"
                )
            results.append(_parse_benchmark(proc.stdout, " ".join(command)))
    decompression = pd.Series([r["decompression_mips"] for r in results])
    row = {
        "tool": tool,
        "version": results[0]["version"],
        "command": " ".join(command),
        "runs": runs,
        "compression_mips": float(pd.Series([r["compression_mips"] for r in results]).median()),
        "decompression_mips": float(decompression.median()),
        "decompression_mips_min": float(decompression.min()),
        "decompression_mips_max": float(decompression.max()),
        "seconds": time.time() - start,
        "reason": "",
    }
    say(
        f"cpu reference: 7-Zip one thread, decompression {row['decompression_mips']:.0f} MIPS "
        f"({row['decompression_mips_min']:.0f}-{row['decompression_mips_max']:.0f} over {runs} runs), "
        f"compression {row['compression_mips']:.0f} MIPS"
    )
    return row


def write_table(row: dict[str, Any], path: str | Path) -> pd.DataFrame:
    table = pd.DataFrame([row], columns=COLUMNS)
    table.to_csv(path, index=False)
    return table
