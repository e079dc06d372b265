"""Rewrite a user's own ROOT file at other file settings, in a process of its own, with crash isolation.

``rewrite_file`` runs ``rootparams-rewrite`` (cxx/rewrite_tree.cxx: a slow clone that re-streams and
re-compresses every basket) with the discipline of ``generate.generate_file``: the new file is written as
``.<name>.partial`` next to the output, read back with ``rootparams-read --inspect``, and renamed only then;
on any failure the partial file is removed. The source is opened read-only and checked unchanged afterwards.

Real ATLAS files hold classes without a dictionary, and ROOT 6.40 crashes (heap corruption, SIGSEGV, SIGABRT)
re-streaming some of them. Such a crash kills only the rewriting process: ``rewrite_file`` then runs the tool's
``--diagnose`` (one forked child per top-level branch: ~14 ms each, 20 s for all 1395 branches of the PHYSLITE
sample, ~9 s until the first 10 culprits) and raises ``RewriteError`` naming the file, the tree, the settings,
the signal, the branches and classes at fault, and what the user can do instead. ROOT's own output goes to a
log file, named in the message.

A rewrite that ROOT made is checked before it stands in for its source (``check_rewrite``, untimed, on the
partial file): the new file must carry every streamer info record of the source (the rewriter copies them and
compares them read back), hold the same entries and top-level branches (names, classes, the particle containers
among them) and give the same branches for every branch selection its points read with; otherwise it is
refused with a RewriteError that names the file and what it lacks, as a crash is.

``file_identity`` records a source file in the catalogue (size, mtime, a hash of its first 64 kB).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any

from rootparams.errors import UserError
from rootparams.tools.processes import die_with_parent, json_result
from rootparams.vocabulary import CONTAINERS, RNTUPLE, TTREE

# A rewrite that takes longer is hung (a 1400-branch, 100-event file takes ~0.5 s; 1 GB files take minutes).
_REWRITE_TIMEOUT_SECONDS = 3600
_DIAGNOSE_TIMEOUT_SECONDS = 1800
_IDENTITY_HEAD_BYTES = 64 * 1024
# What a rewrite copies of the source's streamer info records (rootparams-rewrite --streamer-infos).
_STREAMER_INFO_CHOICES = ("source", "tree")
# How many names a refusal lists of each thing that differs.
_LISTED = 5

# ROOT's own crash handler ("*** Break *** segmentation violation"), should it be active: the signal it names.
_BREAK_SIGNALS = {
    "segmentation violation": "SIGSEGV",
    "bus error": "SIGBUS",
    "illegal instruction": "SIGILL",
    "floating point exception": "SIGFPE",
    "abort": "SIGABRT",
}

_WHAT_TO_DO = (
    "What you can do instead: read-side scans (TTreeCache, learning entries, threads, branch selection) work on "
    "the file as it is; for file-side scans, `rootparams calibrate FILE` clones the file's profile "
    "(branches, sizes, compression ratios) into a synthetic format on which every file-side scan runs."
)


class RewriteError(UserError):
    """A user's file could not be rewritten at the settings asked for. ``signal_name`` is set when ROOT crashed
    (e.g. "SIGSEGV"), ``culprits`` lists the branches found at fault (branch, class, has_dictionary, signal_name),
    ``log_path`` holds ROOT's output."""

    def __init__(
        self,
        message: str,
        *,
        signal_name: str | None = None,
        culprits: list[dict] | None = None,
        log_path: str | None = None,
        diagnosis: dict | None = None,
    ):
        super().__init__(message)
        self.signal_name = signal_name
        self.culprits = culprits or []
        self.log_path = log_path
        self.diagnosis = diagnosis


def file_identity(path: str | Path) -> dict[str, Any]:
    """What identifies a source file in the catalogue: its resolved path, size, mtime (ns) and the sha256 of
    its first 64 kB (the ROOT header, the start of the keys). Cheap on any file size; a changed file (rewritten,
    appended, replaced) changes size or mtime, and a copy elsewhere keeps the hash."""
    p = Path(path)
    st = p.stat()
    with open(p, "rb") as f:
        head = f.read(_IDENTITY_HEAD_BYTES)
    return {
        "path": str(p.resolve()),
        "size_bytes": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "sha256_head": hashlib.sha256(head).hexdigest(),
        "head_bytes": len(head),
    }


def same_file(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether two file_identity records are of the same, unchanged file (the path aside)."""
    return all(before[k] == after[k] for k in ("size_bytes", "mtime_ns", "sha256_head"))


def refusal(what: str, out: Path, partial: Path, problems: Sequence[str], log: Path) -> str:
    """Why a new file that failed its checks is refused: the problems found, said of ``out`` (the reader's messages
    name ``partial``, which is removed)."""
    said = [p.replace(str(partial), str(out)).rstrip(".") for p in problems]
    return (
        f"{what}: the new file {out} cannot stand in for its source and is refused before any timed read: "
        f"{'; '.join(said)}. (The checks: {log})"
    )


def _settings_text(container: str, compression: int, autoflush: int | None, basket_size: int | None) -> str:
    if container == RNTUPLE:
        return f"compression setting {compression}"
    basket = "kept from the source" if basket_size == 0 else f"{basket_size} bytes"
    return f"compression setting {compression}, AutoFlush {autoflush}, basket size {basket}"


def _run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=lambda: die_with_parent(signal.SIGKILL),
    )


def crash_signal(returncode: int, stderr: str) -> str | None:
    """The signal a process died of ("SIGSEGV"...), from its return code (negative: killed by a signal) or from
    ROOT's "*** Break *** <what>" crash report; None if it did not crash."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    if returncode > 128 and returncode - 128 in {s.value for s in signal.Signals}:  # a shell's 128+N
        return signal.Signals(returncode - 128).name
    if m := re.search(r"\*\*\* Break \*\*\* ([a-z ]+)", stderr):
        return _BREAK_SIGNALS.get(m.group(1).strip(), "a fatal signal")
    return None


def _tail(text: str, lines: int = 60) -> str:
    kept = [line for line in text.splitlines() if line.strip() and "no dictionary for class" not in line]
    return "\n".join(kept[-lines:])


@dataclass(frozen=True)
class RewriteRequest:
    """A rewrite to make (``rewrite_file``): tree ``tree`` of ``source`` into ``output`` at ``compression`` (ROOT's
    100*algorithm+level), ``autoflush`` (entries > 0, or -bytes) and ``basket_size`` (bytes; 0 keeps each branch's
    from the source), by the tool ``rewriter`` (rootparams-rewrite), read back by ``reader`` (rootparams-read).
    With ``container="rntuple"`` the RNTuple ``tree`` is rewritten at the new compression only (its clusters and
    pages are kept: autoflush=None, basket_size=None).

    ``selections``: the branch selections ("particle", "all", "regex:...", "analysis", ...) that the reads of the
    new file will use, checked on it (check_rewrite). ``streamer_infos``: "source" (every streamer info record of
    the source is copied) or "tree" (only those ROOT writes for the tree, its CloneTree behaviour, which loses the
    records of emulated collections such as DataVector<xAOD::...>; for comparisons: such a rewrite is then refused
    by the check). ``timeout``: of the rewrite and of each read back; ``diagnose_timeout``: of the diagnosis after a
    crash. ``log_path``: where ROOT's output goes when it fails (default: ``<output>.rewrite.log``)."""

    source: str | Path
    _: KW_ONLY
    tree: str
    output: str | Path
    compression: int
    autoflush: int | None
    basket_size: int | None
    rewriter: str
    reader: str
    container: str = TTREE
    selections: Sequence[str] = ()
    streamer_infos: str = "source"
    timeout: float = _REWRITE_TIMEOUT_SECONDS
    diagnose_timeout: float = _DIAGNOSE_TIMEOUT_SECONDS
    log_path: str | Path | None = None

    @property
    def log(self) -> Path:
        out = Path(self.output)
        return Path(self.log_path) if self.log_path else out.with_name(f"{out.name}.rewrite.log")

    @property
    def partial(self) -> Path:
        """Where the new file is written until it passes its checks."""
        out = Path(self.output)
        return out.with_name(f".{out.name}.partial")

    @property
    def what(self) -> str:
        """The rewrite in words, for its messages."""
        settings = _settings_text(self.container, self.compression, self.autoflush, self.basket_size)
        kind = "RNTuple" if self.container == RNTUPLE else "tree"
        return f"rewriting {kind} {self.tree} of {Path(self.source)} at {settings}"


def rewrite_file(request: RewriteRequest) -> dict[str, Any]:
    """Make the rewrite ``request`` asks for (RewriteRequest). The new file is written next to the output as
    ``.<name>.partial``, read back, checked (check_rewrite) and only then renamed to the output.

    Returns {"written": the tool's JSON, "inspected": ``reader --inspect`` of the output, "source":
    file_identity(source), "check": what check_rewrite compared}. Raises RewriteError when the request is not a
    valid one, or the rewrite fails, crashes (after --diagnose), times out, or does not pass the check; ROOT's
    output then goes to the request's log."""
    _check_request(request)
    src, out, partial = Path(request.source), Path(request.output), request.partial
    before = file_identity(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        written = _run_rewriter(request)
        inspected = _read_back(request)
        check = check_rewrite(
            src,
            partial,
            tree=request.tree,
            reader=request.reader,
            written=written,
            inspected=inspected,
            selections=request.selections,
            timeout=request.timeout,
        )
        if check["problems"]:
            log = request.log
            _write_log(log, ["check_rewrite", str(src), str(partial)], None, json.dumps(check, indent=1), "")
            raise RewriteError(
                refusal(request.what, out, partial, check["problems"], log),
                culprits=check["culprits"],
                log_path=str(log),
            )
        os.replace(partial, out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    after = file_identity(src)
    if not same_file(before, after):
        raise RewriteError(
            f"{request.what}: the source file changed while it was rewritten (before {before}, after {after})"
        )
    written["file"] = str(out)  # the tool wrote the partial name
    inspected["file"] = str(out)
    return {"written": written, "inspected": inspected, "source": before, "check": check}


def _check_request(r: RewriteRequest) -> None:
    """RewriteError unless ``r`` asks for a rewrite that can be made: a known container with the settings it can
    change, an existing source, a known choice of streamer infos."""
    src = Path(r.source)
    if r.container not in CONTAINERS:
        raise RewriteError(f"container {r.container!r}: must be {' or '.join(map(repr, CONTAINERS))}")
    if r.container == TTREE and (r.autoflush is None or r.basket_size is None):
        raise RewriteError(f"rewriting {src}: a TTree rewrite needs autoflush and basket_size")
    if r.container == RNTUPLE and (r.autoflush is not None or r.basket_size is not None):
        raise RewriteError(
            f"rewriting the RNTuple {r.tree} of {src}: only the compression can change (ROOT's RNTupleMerger keeps "
            "the source's clusters and pages); pass autoflush=None and basket_size=None"
        )
    if not src.is_file():
        raise RewriteError(f"rewriting {src}: no such file")
    if r.streamer_infos not in _STREAMER_INFO_CHOICES:
        raise RewriteError(
            f"streamer_infos {r.streamer_infos!r}: must be one of {', '.join(_STREAMER_INFO_CHOICES)}"
        )


def _rewrite_command(r: RewriteRequest) -> list[str]:
    cmd = [
        r.rewriter,
        "--input",
        str(Path(r.source)),
        "--tree",
        r.tree,
        "--output",
        str(r.partial),
        "--compression",
        str(r.compression),
    ]
    if r.container == RNTUPLE:
        return [*cmd, "--container", RNTUPLE]
    return [
        *cmd,
        "--autoflush",
        str(r.autoflush),
        "--basket",
        str(r.basket_size),
        "--streamer-infos",
        r.streamer_infos,
    ]


def _run_rewriter(r: RewriteRequest) -> dict:
    """The rewriter's JSON, the new file written at ``r.partial``; RewriteError (ROOT's output in the log) if it
    hangs, crashes (with the diagnosis of what crashed) or fails."""
    cmd, log = _rewrite_command(r), r.log
    try:
        proc = _run(cmd, r.timeout)
    except subprocess.TimeoutExpired as e:
        _write_log(log, cmd, None, _text(e.stdout), _text(e.stderr))
        raise RewriteError(
            f"{r.what}: no result within {r.timeout:.0f} s (hung or far too large); ROOT's output: {log}",
            log_path=str(log),
        ) from None
    sig = crash_signal(proc.returncode, proc.stderr)
    written = json_result(proc.stdout.splitlines())
    if sig:
        _write_log(log, cmd, proc.returncode, proc.stdout, proc.stderr)
        raise _crash_error(r, sig)
    if proc.returncode != 0 or written is None:
        _write_log(log, cmd, proc.returncode, proc.stdout, proc.stderr)
        reason = _tool_message(proc.stderr) or f"exit code {proc.returncode}, no result"
        raise RewriteError(f"{r.what} failed: {reason} (ROOT's output: {log})", log_path=str(log))
    return written


def _read_back(r: RewriteRequest) -> dict:
    """``reader --inspect`` of the new file at ``r.partial``; RewriteError if it cannot be read."""
    inspect_cmd = [r.reader, "--file", str(r.partial), "--tree", r.tree, "--inspect"]
    check = _run(inspect_cmd, r.timeout)
    inspected = json_result(check.stdout.splitlines())
    if check.returncode != 0 or inspected is None:
        log = r.log
        _write_log(log, inspect_cmd, check.returncode, check.stdout, check.stderr)
        reason = _tool_message(check.stderr) or f"exit code {check.returncode}"
        raise RewriteError(
            f"{r.what}: reading the new file back failed: {reason} (log: {log})", log_path=str(log)
        )
    return inspected


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def _containers(names: Sequence[str]) -> list[str]:
    """The interface branches among the branches of particle containers: a name that is not another's static
    store (``<C>Aux.``) or dynamic variable (``<C>AuxDyn.<a>``; ``:`` for RNTuple fields)."""
    every = set(names)
    return [
        n
        for n in names
        if not any(
            c != n and (n in (f"{c}Aux.", f"{c}Aux:") or n.startswith((f"{c}AuxDyn.", f"{c}AuxDyn:")))
            for c in every
        )
    ]


def _reader_json(cmd: list[str], timeout: float) -> tuple[dict | None, str]:
    """The reader's JSON, or None and its error message."""
    try:
        proc = _run(cmd, timeout)
    except subprocess.TimeoutExpired:
        return None, f"no answer within {timeout:.0f} s"
    result = json_result(proc.stdout.splitlines())
    if proc.returncode == 0 and result is not None:
        return result, ""
    mine = [
        line.split("error: ", 1)[1]
        for line in proc.stderr.splitlines()
        if line.startswith("rootparams-read: error:")
    ]
    sig = crash_signal(proc.returncode, proc.stderr)
    text = " ".join(mine) or (f"the reader crashed ({sig})" if sig else f"exit code {proc.returncode}")
    # The reader's message goes on to list what the file holds: the reason is enough here.
    return None, text.split(" Top-level ", 1)[0].split(" Available: ", 1)[0]


def check_rewrite(
    source: str | Path,
    rewrite: str | Path,
    *,
    tree: str,
    reader: str,
    written: dict,
    inspected: dict,
    selections: Sequence[str] = (),
    timeout: float = _REWRITE_TIMEOUT_SECONDS,
    copies: int = 1,
) -> dict[str, Any]:
    """Whether ``rewrite`` can stand in for ``source`` (``copies``: it holds the source's entries that many times,
    one copy after the other, rootparams.tools.recompress) (not timed; metadata reads only): the streamer info
    records the rewriter found missing when it read the new file back (``written``, its JSON), the entries, the
    top-level branches with their classes and which of them are particle containers, the number of branches in
    all (``inspected``: the reader's --inspect of the rewrite, against the source's), and, for each branch
    selection in ``selections``, the branches the reader finds in each file (--resolve-selection). A selection
    the source itself cannot be read with is not held against the rewrite (the source's own points fail then).

    Returns {"problems": [text, ...] (empty: it can), "culprits": [{"branch", "class"}, ...] (the branches that
    lost something), "selections": {selection: "same" | "source fails" | what differs}}."""
    problems: list[str] = []
    culprits: list[dict] = []
    missing_infos = written.get("streamer_infos_missing") or []
    if missing_infos:
        problems.append(
            f"it lacks {len(missing_infos)} of the source's {written.get('streamer_infos_source', '?')} streamer "
            f"info records ({_listed(missing_infos)})"
        )
    original, why = _reader_json([reader, "--file", str(source), "--tree", tree, "--inspect"], timeout)
    if original is None:
        return {
            "problems": [*problems, f"the source could not be inspected to compare: {why}"],
            "culprits": culprits,
            "selections": {},
        }
    if inspected["entries"] != copies * original["entries"]:
        held = f"{copies} x {original['entries']}" if copies > 1 else str(original["entries"])
        problems.append(f"it holds {inspected['entries']} entries, expected {held}")
    mine = {b["name"]: b for b in inspected["branch_list"]}
    theirs = {b["name"]: b for b in original["branch_list"]}
    if lost := [n for n in theirs if n not in mine]:
        problems.append(f"{len(lost)} of the source's top-level branches are missing ({_listed(lost)})")
        culprits += [{"branch": n, "class": theirs[n]["class"]} for n in lost]
    if extra := [n for n in mine if n not in theirs]:
        problems.append(f"{len(extra)} top-level branches are not the source's ({_listed(extra)})")
    changed = [n for n in theirs if n in mine and mine[n]["class"] != theirs[n]["class"]]
    if changed:
        problems.append(
            f"{len(changed)} branches changed class ("
            + _listed([f"{n}: {theirs[n]['class']} -> {mine[n]['class']}" for n in changed])
            + ")"
        )
    unseen = [n for n in theirs if theirs[n]["particle"] and n in mine and not mine[n]["particle"]]
    if unseen:
        # Named by their interface branches (AnalysisElectrons, DataVector<xAOD::Electron_v1>); --inspect flags
        # every branch of a particle container (its Aux. store and AuxDyn. variables too).
        containers = _containers(unseen)
        named = [f"{n} ({theirs[n]['class']})" for n in containers]
        problems.append(
            f"the reader no longer finds {len(containers)} of the source's particle containers "
            f"({_listed(named)}; {len(unseen)} branches belong to them)"
        )
        culprits += [{"branch": n, "class": theirs[n]["class"]} for n in containers]
    if inspected["branches"] != original["branches"]:
        problems.append(f"it has {inspected['branches']} branches in all, the source {original['branches']}")
    compared: dict[str, str] = {}
    # 'all' reads every top-level branch: compared above.
    for selection in dict.fromkeys(s for s in selections if s != "all"):
        base = [reader, "--tree", tree, "--resolve-selection", selection, "--file"]
        expected, why = _reader_json([*base, str(source)], timeout)
        if expected is None:
            compared[selection] = f"source fails: {why}"
            continue
        found, why = _reader_json([*base, str(rewrite)], timeout)
        if found is None:
            problems.append(f"the reader cannot read it with branch selection {selection!r}: {why}")
            compared[selection] = f"rewrite fails: {why}"
            continue
        gone = [b for b in expected["branches"] if b not in found["branches"]]
        new = [b for b in found["branches"] if b not in expected["branches"]]
        if gone or new:
            text = (
                f"branch selection {selection!r} reads {len(found['branches'])} branches in it, "
                f"{len(expected['branches'])} in the source"
                + (f" (not in it: {_listed(gone)})" if gone else "")
                + (f" (only in it: {_listed(new)})" if new else "")
            )
            problems.append(text)
            compared[selection] = text
        else:
            compared[selection] = "same"
    return {"problems": problems, "culprits": culprits, "selections": compared}


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def _tool_message(stderr: str) -> str:
    """The tool's own error line(s) ("rootparams-rewrite: error: ..."), else the last ROOT error."""
    mine = [
        line.split("error: ", 1)[1]
        for line in stderr.splitlines()
        if line.startswith("rootparams-rewrite: error:")
    ]
    if mine:
        return " ".join(mine)
    errors = [line for line in stderr.splitlines() if line.startswith(("Error in", "Fatal"))]
    return errors[-1] if errors else ""


def _write_log(log: Path, cmd: list[str], code: int | None, stdout: str, stderr: str) -> None:
    with contextlib.suppress(OSError):
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a") as f:
            f.write(f"$ {' '.join(cmd)}\nexit code: {code}\n--- stdout\n{stdout[-5000:]}\n")
            f.write(f"--- stderr (last lines, 'no dictionary' warnings left out)\n{_tail(stderr)}\n\n")


def diagnose(
    source: str | Path,
    *,
    tree: str,
    compression: int,
    rewriter: str,
    timeout: float = _DIAGNOSE_TIMEOUT_SECONDS,
    max_failures: int = 10,
) -> dict:
    """``rootparams-rewrite --diagnose``: which top-level branches crash when rewritten alone (TTree), or which
    class fields have no dictionary (RNTuple). The tool's JSON; raises RewriteError if the diagnosis fails."""
    cmd = [
        rewriter,
        "--input",
        str(source),
        "--tree",
        tree,
        "--diagnose",
        "--compression",
        str(compression),
        "--max-failures",
        str(max_failures),
    ]
    try:
        proc = _run(cmd, timeout)
    except subprocess.TimeoutExpired:
        raise RewriteError(f"diagnosing {source}: no result within {timeout:.0f} s") from None
    result = json_result(proc.stdout.splitlines())
    if proc.returncode != 0 or result is None:
        sig = crash_signal(proc.returncode, proc.stderr)
        raise RewriteError(
            f"diagnosing {source} failed ({sig or f'exit code {proc.returncode}'}): "
            f"{_tool_message(proc.stderr)}"
        )
    return result


def _culprit_text(c: dict) -> str:
    dictionary = "no dictionary" if not c.get("has_dictionary") else "has a dictionary"
    sig = f", {c['signal_name']}" if c.get("signal_name") else ""
    return f"{c['branch']} (class {c['class'] or '(none)'}, {dictionary}{sig})"


def _crash_error(r: RewriteRequest, sig: str) -> RewriteError:
    """The error of a rewrite that crashed (signal ``sig``), with what ``diagnose`` finds at fault."""
    log = r.log
    head = f"ROOT crashed ({sig}) {r.what}."
    try:
        d = diagnose(
            Path(r.source),
            tree=r.tree,
            compression=r.compression,
            rewriter=r.rewriter,
            timeout=r.diagnose_timeout,
        )
    except RewriteError as e:
        return RewriteError(
            f"{head}\nThe diagnosis found nothing: {e}\n{_WHAT_TO_DO}\nROOT's output: {log}",
            signal_name=sig,
            log_path=str(log),
        )
    culprits = d.get("crashed") or d.get("no_dictionary") or []
    if d.get("crashed"):
        n = d["crashed_count"]
        scope = (
            f"at least {n} of {d['top_level_branches']} top-level branches (stopped after {d['branches_tested']})"
            if d.get("stopped_early")
            else f"{n} of {d['top_level_branches']} top-level branches"
        )
        found = f"Rewritten alone, {scope} crash too: " + "; ".join(_culprit_text(c) for c in culprits) + "."
    elif d.get("no_dictionary"):
        found = (
            f"{d['no_dictionary_count']} of its {d['top_level_branches']} top-level fields are classes without "
            "a dictionary: " + "; ".join(_culprit_text(c) for c in culprits) + "."
        )
    else:
        found = (
            f"No top-level branch crashes when rewritten alone ({d['branches_tested']} tested): the crash "
            "comes from branches together, not from one of them."
        )
    seconds = d.get("diagnose_wall_seconds", 0.0)
    return RewriteError(
        f"{head}\n{found} (diagnosis: {seconds:.1f} s)\n{_WHAT_TO_DO}\nROOT's output: {log}",
        signal_name=sig,
        culprits=culprits,
        log_path=str(log),
        diagnosis=d,
    )
