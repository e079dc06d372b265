"""Does every ROOT file of a directory get a plan from ``rootparams advise -n`` and an answer from ``rootparams
inspect``, or at least a one-line reason, never a Python traceback?

    PYTHONPATH=src python benchmarks/corpus_check.py [DIR] [--jobs 2] [--timeout 120] [--csv corpus.csv]

DIR defaults to scikit-hep-testdata's cache directory (~/.local/skhepdata; ``python -m skhep_testdata --all``
downloads every file of the package into it; any directory of .root files will do). For each .root file (sorted,
not recursing), each command runs in a process of its own, with a timeout, as a user would run it: ``rootparams
advise -n FILE --out <a throwaway directory under /tmp>`` (a dry run: the plan only, nothing written or timed) and
``rootparams inspect FILE``. Each outcome is one of

* ``planned`` (advise) or ``answered`` (inspect): exit code 0;
* ``refused``: a non-zero exit with the tool's one-line error, its message kept and its reason grouped
  (``REASONS``: "several trees" and "too short" apart from the rest);
* ``traceback``: a Python traceback reached the user; the exception's line is kept;
* ``timeout`` or ``crashed`` (killed by a signal).

Where advise refuses a file for holding several trees, it runs again with ``--tree`` naming the one with the most
entries (the ``advise --tree`` rows). Prints one row per file and command, then the counts per command and per
refusal reason; ``--csv`` writes the rows (file, command, outcome, reason, message, seconds) for a comparison
between two runs. Exit code 1 when any file ended in a traceback, a timeout or a crash.
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

COMMANDS = ("advise", "inspect")
# advise again on each file it refused for holding several trees, naming the one with the most entries.
NAMED = "advise --tree"
GOOD = {"advise": "planned", "inspect": "answered", NAMED: "planned"}
# Refusals grouped by what their message says, first match wins; the lead's tiling replaces "too short",
# --tree answers "several trees".
REASONS = (
    # Before --tree, a file without a TTree at its top was "cannot tell which tree ...; it has none".
    ("no TTree or RNTuple", r"holds no TTree or RNTuple|it has none\."),
    ("several trees", r"cannot tell which|name the one to use with --tree"),
    ("too short", r"a timed read needs at least"),
    ("no event data on disk", r"holds no event data on disk"),
    ("uproot cannot model its metadata", r"cannot be read \((KeyInFileError|KeyError)"),
    ("uproot and ROOT cannot read it", r"neither by uproot"),
    ("not a ROOT file / damaged", r"is not a ROOT file|damaged|truncated|header cannot be read"),
)
TRACEBACK = "Traceback (most recent call last)"


@dataclass
class Outcome:
    file: str
    command: str
    outcome: str  # planned / answered, refused, traceback, timeout, crashed
    reason: str  # a refusal's group (REASONS), else ""
    message: str  # the error's line, a traceback's last line, or ""
    seconds: float


def error_line(stderr: str) -> str:
    """The tool's error: from its ``error:`` line to the end of stderr, on one line (ROOT's own warnings before
    it are left out)."""
    lines = stderr.strip().splitlines()
    for i, line in enumerate(lines):
        if ": error: " in line:
            return " ".join(" ".join(lines[i:]).split())
    return " ".join(lines[-1].split()) if lines else "(no message)"


def exception_line(stderr: str) -> str:
    """A traceback's exception (``KeyError: ('V', 16)``): its last line naming an exception, as uproot's errors
    end in lines of their own (``in file ...``)."""
    tail = stderr[stderr.rindex(TRACEBACK) :].splitlines()
    named = [ln for ln in tail if re.match(r"[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b", ln)]
    return (named or tail)[-1].strip()


def reason_of(message: str) -> str:
    for reason, pattern in REASONS:
        if re.search(pattern, message):
            return reason
    return "other"


def run_one(file: Path, command: str, timeout: float, scratch: Path, tree: str | None = None) -> Outcome:
    argv = [sys.executable, "-m", "rootparams.cli", command.split()[0], str(file)]
    if command.startswith("advise"):
        # A dry run in a directory of its own, so that no earlier plan (plan.json) is resumed.
        argv += ["-n", "--out", str(scratch / f"{command.replace(' ', '')}-{file.stem}")]
    if tree:
        argv += ["--tree", tree]
    start = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Outcome(str(file), command, "timeout", "", f"no end within {timeout:.0f} s", timeout)
    seconds = time.monotonic() - start
    if TRACEBACK in done.stderr:
        return Outcome(str(file), command, "traceback", "", exception_line(done.stderr), seconds)
    if done.returncode < 0:
        tail = error_line(done.stderr)
        return Outcome(str(file), command, "crashed", "", f"signal {-done.returncode}: {tail}", seconds)
    if done.returncode == 0:
        return Outcome(str(file), command, GOOD[command], "", "", seconds)
    message = error_line(done.stderr)
    return Outcome(str(file), command, "refused", reason_of(message), message, seconds)


def largest_tree(file: Path) -> str | None:
    """The TTree or RNTuple of ``file`` with the most entries (read with uproot, as advise finds them)."""
    import uproot  # here: only files with several trees need it

    from rootparams.ownfile import sources

    with uproot.open(file) as f:
        candidates = sources.event_data_candidates(f.classnames(recursive=True, cycle=False))
        entries = {name: sources.uproot_entries(f, name) or 0 for name in candidates}
    return max(entries, key=entries.get) if entries else None


def default_directory() -> Path:
    from skhep_testdata.data import cache_path  # here: only the default needs the package

    return Path(cache_path(None))


def summary(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for command in (*COMMANDS, NAMED):
        mine = [o for o in outcomes if o.command == command]
        if not mine:
            continue
        counts = Counter(o.outcome for o in mine)
        order = [GOOD[command], "refused", "traceback", "timeout", "crashed"]
        lines.append(
            f"{command if command != NAMED else NAMED + ' (the largest, where advise asked for it)'}: "
            f"{len(mine)} files: "
            + ", ".join(f"{counts[k]} {k}" for k in order if counts[k] or k in order[:3])
        )
        reasons = Counter(o.reason for o in mine if o.outcome == "refused")
        for reason, n in reasons.most_common():
            lines.append(f"  refused, {reason}: {n}")
        for kind in ("traceback", "timeout", "crashed"):
            last = Counter(o.message for o in mine if o.outcome == kind)
            for message, n in last.most_common():
                lines.append(f"  {kind} ({n}): {message}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "directory", nargs="?", type=Path, help="a directory of .root files (default: %(default)s)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="files checked at once (default %(default)s)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per command and file")
    parser.add_argument("--only", choices=COMMANDS, help="run one of the two commands only")
    parser.add_argument("--csv", type=Path, help="write one row per file and command here")
    args = parser.parse_args(argv)
    directory = args.directory or default_directory()
    files = sorted(p for p in directory.glob("*.root") if p.is_file())
    if not files:
        print(f"corpus_check: {directory} holds no .root files", file=sys.stderr)
        return 2
    commands = [args.only] if args.only else list(COMMANDS)
    print(f"corpus_check: {len(files)} files of {directory}, {' and '.join(commands)}, {args.jobs} at once")
    with tempfile.TemporaryDirectory(prefix="rootparams-corpus-") as scratch:
        tasks = [(f, c) for f in files for c in commands]
        with ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(lambda t: run_one(t[0], t[1], args.timeout, Path(scratch)), tasks))
            several = [
                Path(o.file) for o in outcomes if o.command == "advise" and o.reason == "several trees"
            ]
            named = [(f, largest_tree(f)) for f in several]
            outcomes += list(
                pool.map(lambda t: run_one(t[0], NAMED, args.timeout, Path(scratch), t[1]), named)
            )
    width = max(len(f.name) for f in files)
    for o in outcomes:
        detail = f"[{o.reason}] {o.message}" if o.outcome == "refused" else o.message
        print(f"{Path(o.file).name:<{width}}  {o.command:<13}  {o.outcome:<9}  {o.seconds:5.1f} s  {detail}")
    print()
    print("\n".join(summary(outcomes)))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(asdict(outcomes[0])))
            writer.writeheader()
            writer.writerows(asdict(o) for o in outcomes)
    return 1 if any(o.outcome in ("traceback", "timeout", "crashed") for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
