"""Do two builds of the C++ tools write, and read, the same bytes? Written to check a refactoring of the writer (its
split into units, docs/measurement.md, "The writer's source") and of the reader, the recompressor and
rootparams-unzipkinds that must not change a byte of what they write or a figure of what they report.

    PYTHONPATH=src python benchmarks/writer_split_check.py BUILD_A BUILD_B [--work DIR] [--events N]
                                                           [--skip-tools] [--skip-clones]

BUILD_A, BUILD_B: two finished builds (rootparams.tools.build.build_all's directory: bin/, lib/), e.g. one of the tree
before the change and one after. Nothing is rebuilt.

Writer. The same recipes (written once into WORK/recipes: every built-in format of rootparams.study.formats and an
event-size format, the two recipes that use every distribution of tests/test_cxx.py, and the calibrated clone of
every real sample in /work/shared/data) are written by both writers, each in a directory of its own under the same
relative file name (a ROOT file holds its own name): as a TTree at two settings, as an RNTuple, with per-branch
compression (--hot-branches: the three largest top-level branches), with lossy floats (--float-mantissa, TTree and
RNTuple), with --reference-draws, from a content file (--content, as the workflow writes its RNTuples), with
implicit-MT compression (--threads 2), as ROOT's CloneTree copy (--clone-from), and a few recipes and options that
must fail. For each case it compares: the writer's exit code, its error message and its JSON report (its clocks and
memory aside); the file's size; the content checksum (rootparams-read --checksum, BUILD_A's reader for both);
rootparams-read --inspect (every top-level branch's or field's compressed and uncompressed bytes, baskets or pages,
compression setting, clusters); for a TTree every branch and sub-branch's entries, total and compressed bytes and
basket layout (uproot: fBasketBytes, fBasketEntry, fBasketSeek) with a SHA-256 of its baskets' stored bytes (each
key's header, which holds a timestamp, left out); for an RNTuple a SHA-256 of its header and footer envelopes and
their places. With --threads 2 the baskets' order in the file may change from run to run, so only the content,
the sizes and the bytes per branch are compared there.

Tools (unless --skip-tools): on some of the files written, each build's rootparams-read (--inspect, --checksum,
--resolve-selection, and timed reads: TTree::GetEntry with a particle, an analysis and an all-branches selection,
parallel unzip with two threads, no cache; RNTuple reads; RDataFrame reads with one and two threads),
rootparams-recompress (a TTree and an RNTuple, three copies recompressed and one kept) and rootparams-unzipkinds:
their JSON reports compared key by key, timings aside (keys whose value differs between two runs of BUILD_A's
tool, and keys named as clocks, rates, CPU or memory, are listed and not compared).

Prints one line per case (same / DIFFERENT, with the first differences) and a summary; exit code 0 if everything
agrees, 1 otherwise. Not a test: it takes a few minutes and reads real samples from /work/shared/data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHARED_DATA = Path("/work/shared/data")
JSON_MARKER = "ROOTPARAMS_JSON "
# Report keys that are clocks, rates, CPU time or memory: never compared.
# Also the process's peak virtual memory (a page either way from run to run), and the bytes it read from files
# other than the ROOT file: /proc and the shared libraries' paths, one byte longer per mention where BUILD_A's
# directory name is one character longer than BUILD_B's (28842 against 28839 bytes for /tmp/build-head and
# /tmp/build-new; the same tree built in /tmp/build-hed reads 28839).
VOLATILE = re.compile(
    r"(seconds|_time$|_rate|mb_per_s|rss|^pid$|cpu|steal|_hz$|probe|efficiency$|vm_peak|other_files_bytes|timeCpu)"
)

# The two recipes that use every distribution, wrapper and directive (tests/data, shared with tests/test_cxx.py).
EVERY_DISTRIBUTION_XAOD, EVERY_DISTRIBUTION_FLAT = (
    (Path(__file__).parents[1] / "tests" / "data" / f"every_distribution_{layout}.recipe").read_text()
    for layout in ("xaod", "flat")
)
# Recipes the writer must refuse, each with its own message.
BAD_RECIPES = {
    "bad-nonsense": EVERY_DISTRIBUTION_XAOD.replace(
        "container Info xAODlike::EventInfo_v1 - fixed 1", "container Info xAODlike::EventInfo_v1 - fixed 2"
    ),
    "bad-directive": "container Jets xAODlike::JetContainer_v1 - fixed 2\nfrobnicate Jets pt\n",
    "bad-number": "container Jets xAODlike::JetContainer_v1 - fixed 2\ndyn Jets pt float gaus 0 1\n"
    "reuse Jets pt x 3\n",
    "bad-twice": "container Jets xAODlike::JetContainer_v1 - fixed 2\ndyn Jets pt float gaus 0 1\n"
    "dyn Jets pt float gaus 0 1\n",
    "bad-segment": "container Jets xAODlike::JetContainer_v1 - fixed 2\ndyn Jets pt float gaus 0 1\n"
    "record Jets pt h:0g\n",
    "bad-order": "container Jets xAODlike::JetContainer_v1 - fixed 2\ncontainer Jets2 - - fixed 1\n"
    "attr Nope pt gaus 0 1\n",
    "bad-leaf": "scalar x quad gaus 0 1\n",
    "bad-keys": "container Jets xAODlike::JetContainer_v1 - fixed 2\ndyn Jets pt float gaus 0 1\n"
    "keys Jets pt 0 const 1\n",
    "bad-multiplicity": "container Jets xAODlike::JetContainer_v1 - lots 2\ndyn Jets pt float gaus 0 1\n",
}


@dataclass
class Case:
    name: str
    recipe: str | None  # a recipe file under WORK/recipes (None: --clone-from)
    args: list[str]
    container: str = "ttree"
    exact: bool = True  # False: the layout may differ from run to run (implicit MT); content and sizes only
    hot_from: str | None = None  # --hot-branches: the three largest top-level branches of this case's file


@dataclass
class Tools:
    directory: Path
    writer: str = ""
    reader: str = ""
    recompressor: str = ""
    unzip_kinds: str = ""

    def __post_init__(self):
        self.directory = self.directory.resolve()
        bin_dir = self.directory / "bin"
        self.writer, self.reader = str(bin_dir / "rootparams-write"), str(bin_dir / "rootparams-read")
        self.recompressor = str(bin_dir / "rootparams-recompress")
        self.unzip_kinds = str(bin_dir / "rootparams-unzipkinds")
        if not Path(self.writer).exists() or not Path(self.reader).exists():
            raise SystemExit(
                f"{self.directory}: not a finished build (bin/rootparams-write, bin/rootparams-read)"
            )


@dataclass
class Outcome:
    code: int
    report: dict[str, Any] | None
    stderr: str
    fingerprint: dict[str, Any] = field(default_factory=dict)


def run(cmd: list[str], cwd: Path | None = None) -> tuple[int, dict[str, Any] | None, str]:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    report = None
    for line in proc.stdout.splitlines():
        if line.startswith(JSON_MARKER):
            report = json.loads(line[len(JSON_MARKER) :])
    return proc.returncode, report, proc.stderr


def normalized(text: str, *directories: Path) -> str:
    for d in directories:
        text = text.replace(str(d), "<dir>")
    return "\n".join(line for line in text.splitlines() if line.strip())


def without_volatile(value: Any, volatile: set[str] = frozenset()) -> Any:
    if isinstance(value, dict):
        return {
            k: without_volatile(v, volatile)
            for k, v in value.items()
            if not VOLATILE.search(k) and k not in volatile
        }
    if isinstance(value, list):
        return [without_volatile(v, volatile) for v in value]
    return value


def differences(a: Any, b: Any, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{where}/{k}: only in {'B' if k not in a else 'A'}")
            else:
                out += differences(a[k], b[k], f"{where}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{where}[{i}]")
        ]
    if a != b and not (
        isinstance(a, float) and isinstance(b, float) and a != a and b != b
    ):  # NaN == NaN here
        return [f"{where}: {str(a)[:120]} != {str(b)[:120]}"]
    return []


def changing_keys(a: Any, b: Any, where: str = "") -> set[str]:
    """The keys of two reports of the same tool on the same input whose values differ: not the tool's to fix."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = set()
        for k in set(a) & set(b):
            if a[k] != b[k]:
                out.add(k) if not isinstance(a[k], (dict, list)) else out.update(changing_keys(a[k], b[k]))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return set().union(*(changing_keys(x, y) for x, y in zip(a, b, strict=True)))
    return set()


# --- Fingerprints of a file ----------------------------------------------------------------------------------


def key_payload(raw, seek: int, nbytes: int) -> bytes:
    """A key's stored bytes without its header (which holds the key's timestamp)."""
    raw.seek(seek)
    key = raw.read(nbytes)
    keylen = struct.unpack(">h", key[14:16])[0]
    return key[keylen:]


def tree_branches(path: Path) -> dict[str, Any]:
    import uproot

    out = {}
    with uproot.open(path) as f, open(path, "rb") as raw:
        tree = f["CollectionTree"]

        def walk(branches, prefix=""):
            for b in branches:
                n = int(b.member("fWriteBasket"))
                seeks = [int(x) for x in b.member("fBasketSeek")[:n]]
                sizes = [int(x) for x in b.member("fBasketBytes")[:n]]
                digest = hashlib.sha256()
                for seek, size in zip(seeks, sizes, strict=True):
                    if seek and size:
                        digest.update(key_payload(raw, seek, size))
                out[prefix + b.name] = {
                    "entries": int(b.member("fEntries")),
                    "tot_bytes": int(b.member("fTotBytes")),
                    "zip_bytes": int(b.member("fZipBytes")),
                    "baskets": n,
                    "basket_bytes": sizes,
                    "basket_entry": [int(x) for x in b.member("fBasketEntry")[: n + 1]],
                    "basket_seek": seeks,
                    "stored_sha256": digest.hexdigest(),
                }
                walk(b.branches, prefix + b.name + "/")

        walk(tree.branches)
    return out


def ntuple_envelopes(path: Path) -> dict[str, Any]:
    import uproot

    with uproot.open(path) as f:
        anchor = f["CollectionTree"]
        places = {m: int(anchor.member(m)) for m in ("fSeekHeader", "fNBytesHeader", "fLenHeader", "fSeekFooter",
                                                      "fNBytesFooter", "fLenFooter")}  # fmt: skip
    with open(path, "rb") as raw:
        for part in ("Header", "Footer"):
            raw.seek(places[f"fSeek{part}"])
            places[f"{part.lower()}_sha256"] = hashlib.sha256(raw.read(places[f"fNBytes{part}"])).hexdigest()
    return places


def fingerprint(path: Path, reader: str, container: str, exact: bool) -> dict[str, Any]:
    fp: dict[str, Any] = {"size_bytes": path.stat().st_size}
    code, report, err = run([reader, "--file", str(path), "--checksum"])
    fp["checksum"] = (
        report["content_checksum"] if report else f"refused ({code}): {normalized(err, path.parent)}"
    )
    code, report, err = run([reader, "--file", str(path), "--inspect"])
    fp["inspect"] = without_volatile({k: v for k, v in (report or {}).items() if k != "file"})
    if container == "ttree":
        fp["branches"] = tree_branches(path)
        if not exact:  # where each basket lies may change from run to run
            for b in fp["branches"].values():
                b.pop("basket_seek")
    else:
        fp["envelopes"] = ntuple_envelopes(path)
    if not exact:
        # With implicit MT the file's size changes from run to run of one build too (the same writer, twice on
        # topq1 with --threads 2: 11132469 and 11132472 bytes), as its free-segment records and key order do.
        fp.pop("size_bytes")
        fp.get("inspect", {}).pop("file_size_bytes", None)
        fp.get("envelopes", {}).clear()
    return fp


# --- The writer's cases --------------------------------------------------------------------------------------


def write_recipes(work: Path, clones: bool) -> dict[str, str]:
    """Every recipe the cases use, written once (both builds read the same files); name -> its container."""
    from rootparams.study.formats import FLAT_FORMATS, KNOWN_FORMATS, recipe_text

    recipes = work / "recipes"
    recipes.mkdir(parents=True, exist_ok=True)
    layouts = {}
    for fmt in (*KNOWN_FORMATS, "eventsize_20000"):
        (recipes / f"{fmt}.recipe").write_text(recipe_text(fmt))
        layouts[fmt] = "flat" if fmt in FLAT_FORMATS else "xaod"
    (recipes / "every-xaod.recipe").write_text(EVERY_DISTRIBUTION_XAOD.replace(" nonsense 3", " const 3"))
    (recipes / "every-flat.recipe").write_text(EVERY_DISTRIBUTION_FLAT)
    layouts["every-xaod"], layouts["every-flat"] = "xaod", "flat"
    for name, text in BAD_RECIPES.items():
        (recipes / f"{name}.recipe").write_text(text)
    if clones:
        from rootparams.ownfile.calibrate import recipe_from_file

        for sample in sorted(SHARED_DATA.glob("*.root")):
            name = "clone-" + sample.stem
            try:
                text = recipe_from_file(sample)
            except Exception as error:  # a sample calibrate does not model: said, not compared
                print(f"  (no clone of {sample.name}: {str(error).splitlines()[0][:150]})")
                continue
            (recipes / f"{name}.recipe").write_text(text)
            layouts[name] = (
                "flat" if text.lstrip().startswith("layout flat") or "\nlayout flat" in text else "clone"
            )
    return layouts


def writer_cases(layouts: dict[str, str], events: int) -> list[Case]:
    n = ["--events", str(events), "--seed", "20200326"]
    tree = ["--compression", "505", "--autoflush", "20", "--split", "99", "--basket", "32000", *n]
    tree2 = ["--compression", "101", "--autoflush", "-300000", "--split", "0", "--basket", "8000", *n]
    ntuple = [
        "--container",
        "rntuple",
        "--compression",
        "505",
        "--autoflush",
        "20",
        "--page-size",
        "65536",
        *n,
    ]
    cases = []
    for name, layout in layouts.items():
        cases += [
            Case(f"{name}-ttree", name, tree),
            Case(f"{name}-ttree2", name, tree2),
            Case(f"{name}-rntuple", name, ntuple, "rntuple"),
        ]
        if layout == "clone":  # each branch at the real file's basket size
            cases.append(Case(f"{name}-ttree-recipe-baskets", name, [*tree[:6], "--basket", "0", *n]))
        if name.startswith("clone-"):
            continue
        cases += [
            Case(f"{name}-hot", name, [*tree, "--hot-compression", "207"], hot_from=f"{name}-ttree"),
            Case(f"{name}-lossy-ttree", name, [*tree, "--float-mantissa", "10"]),
            Case(f"{name}-reference-draws", name, [*tree, "--reference-draws"]),
            Case(f"{name}-threads", name, [*tree, "--threads", "2"], exact=False),
        ]
        if layout != "flat":  # (a flat recipe's RNTuple is imported from a TTree: no lossy floats)
            cases.append(Case(f"{name}-lossy-rntuple", name, [*ntuple, "--float-mantissa", "10"], "rntuple"))
        cases += [  # content read back from the TTree just written (refused for scalars, flat layouts, records)
            Case(f"{name}-content-rntuple", name, [*ntuple, "--content", f"{name}-ttree.root"], "rntuple"),
            Case(f"{name}-content-ttree", name, [*tree2, "--content", f"{name}-ttree.root"]),
        ]
    cases.append(Case("xaod-clonetree", None, ["--clone-from", "xaod-ttree.root", "--compression", "404"]))
    cases += [Case(name, name, tree) for name in BAD_RECIPES]
    cases += [
        Case("bad-hot-rntuple", "xaod", [*ntuple, "--hot-branches", "Electrons", "--hot-compression", "101"]),
        Case("bad-hot-branch", "xaod", [*tree, "--hot-branches", "Nope", "--hot-compression", "101"]),
        Case("bad-mantissa", "xaod", [*tree, "--float-mantissa", "30"]),
        Case("bad-container", "xaod", [*tree, "--container", "tuple"]),
        Case("bad-flat-lossy-rntuple", "nanoaod", [*ntuple, "--float-mantissa", "10"]),
        Case("bad-content", "xaod", [*tree, "--content", "nope.root"]),
        Case("bad-no-recipe", None, tree),
    ]
    return cases


def hot_branches(fp: dict[str, Any]) -> str:
    branches = sorted(
        fp.get("inspect", {}).get("branch_list", []), key=lambda b: (-b["zip_bytes"], b["name"])
    )
    return ",".join(b["name"] for b in branches[:3])


def write_case(case: Case, tools: Tools, out: Path, recipes: Path, instrument: str, first: dict) -> Outcome:
    output = f"{case.name}.root"
    (out / output).unlink(missing_ok=True)
    cmd = [tools.writer, *case.args, "--output", output]
    if case.recipe is not None:
        cmd += ["--recipe", str(recipes / f"{case.recipe}.recipe")]
    if case.hot_from:
        cmd += ["--hot-branches", hot_branches(first[case.hot_from].fingerprint)]
    code, report, err = run(cmd, cwd=out)
    outcome = Outcome(code, without_volatile(report) if report else None, normalized(err, out, recipes))
    if code == 0 and (out / output).exists():
        outcome.fingerprint = fingerprint(out / output, instrument, case.container, case.exact)
    return outcome


def check_writers(a: Tools, b: Tools, work: Path, events: int, clones: bool) -> tuple[int, int, dict]:
    print("Writer: the same recipes written by both builds' writers")
    layouts = write_recipes(work, clones)
    cases = writer_cases(layouts, events)
    recipes = work / "recipes"
    results: dict[str, dict[str, Outcome]] = {"A": {}, "B": {}}
    for label, tools in (("A", a), ("B", b)):
        out = work / label / "writer"
        out.mkdir(parents=True, exist_ok=True)
        for case in cases:
            results[label][case.name] = write_case(case, tools, out, recipes, a.reader, results["A"])
    same = 0
    for case in cases:
        x, y = results["A"][case.name], results["B"][case.name]
        diff = differences(
            {"code": x.code, "stderr": x.stderr, "report": x.report, "file": x.fingerprint},
            {"code": y.code, "stderr": y.stderr, "report": y.report, "file": y.fingerprint},
        )
        what = f"exit {x.code}" if x.code else (
            f"{x.fingerprint.get('size_bytes', '-')} B, checksum {str(x.fingerprint.get('checksum'))[:16]}"
        )  # fmt: skip
        if x.code:
            what += ": " + (x.stderr.splitlines() or [""])[-1][:100]
        print(f"  {'same     ' if not diff else 'DIFFERENT'} {case.name:48s} {what}")
        for d in diff[:8]:
            print(f"      {d}")
        same += not diff
    return same, len(cases), results


# --- The other tools ---------------------------------------------------------------------------------------


def compare_runs(
    label: str, cmd_a: list[str], cmd_b: list[str], cwd: Path, cwd_b: Path | None = None
) -> bool:
    """BUILD_A's tool twice and BUILD_B's once on the same input (in `cwd`, B's in `cwd_b` if given): their reports
    (and exit codes, messages) compared, without the keys that differ between A's two runs or are clocks."""
    cwd_b = cwd_b or cwd
    first, second, other = run(cmd_a, cwd), run(cmd_a, cwd), run(cmd_b, cwd_b)
    changing = changing_keys(first[1], second[1]) if first[1] and second[1] else set()

    def pick(result, where):
        return {
            "code": result[0],
            "report": without_volatile(result[1], changing),
            "stderr": normalized(result[2], where),
        }

    diff = differences(pick(first, cwd), pick(other, cwd_b))
    kept = sorted(k for k in changing if not VOLATILE.search(k))
    print(f"  {'same     ' if not diff else 'DIFFERENT'} {label:60s} exit {first[0]}"
          + (f"; changing between A's runs: {', '.join(kept)}" if kept else ""))  # fmt: skip
    for d in diff[:8]:
        print(f"      {d}")
    return not diff


def reader_reads(reader: str, path: Path, container: str, events: int) -> list[tuple[str, list[str]]]:
    base = ["--file", str(path), "--events", str(events), "--learn-entries", "-1", "--container", container]
    reads = [
        ("particle", [*base, "--branches", "particle", "--cache-size", "-1", "--threads", "1"]),
        ("analysis", [*base, "--branches", "analysis", "--cache-size", "-1", "--threads", "1"]),
        ("all, no cache", [*base, "--branches", "all", "--cache-size", "0", "--threads", "1"]),
        ("all, 2 threads", [*base, "--branches", "all", "--cache-size", "-1", "--threads", "2"]),
    ]
    if container == "ttree":
        reads.append(("all, parallel unzip", [*base, "--branches", "all", "--cache-size", "-1", "--threads", "2",
                                              "--unzip", "1"]))  # fmt: skip
        _, resolved, _ = run([reader, "--file", str(path), "--resolve-selection", "analysis"])
        columns = ",".join((resolved or {}).get("branches", [])) or "nope"
        for threads in ("1", "2"):
            reads.append((f"rdataframe, {threads} thread(s)", [
                "--file", str(path), "--events", str(events), "--reading-style", "rdataframe", "--columns", columns,
                "--branches", "analysis", "--cache-size", "-1", "--learn-entries", "-1", "--threads", threads,
            ]))  # fmt: skip
    return reads


def check_tools(a: Tools, b: Tools, work: Path, events: int, written: dict) -> tuple[int, int]:
    print("Reader, recompressor, unzipkinds: both builds' reports on the same files")
    files = work / "A" / "writer"
    scratch = work / "tools"
    scratch.mkdir(parents=True, exist_ok=True)
    chosen = [
        ("xaod-ttree", "ttree"), ("nanoaod-ttree", "ttree"), ("every-xaod-ttree2", "ttree"),
        ("truth3-rntuple", "rntuple"), ("nanoaod-rntuple", "rntuple"), ("every-xaod-rntuple", "rntuple"),
    ]  # fmt: skip
    chosen += [(n, "ttree") for n in written if n.startswith("clone-") and n.endswith("-ttree")]
    same = total = 0
    for name, container in chosen:
        path = files / f"{name}.root"
        if not path.exists():
            continue
        for what in ("--inspect", "--checksum"):
            total += 1
            same += compare_runs(f"{name}: {what}", [a.reader, "--file", str(path), what],
                                 [b.reader, "--file", str(path), what], scratch)  # fmt: skip
        for label, args in reader_reads(a.reader, path, container, events):
            total += 1
            same += compare_runs(f"{name}: {label}", [a.reader, *args], [b.reader, *args], scratch)
    places = [
        scratch / "A",
        scratch / "B",
    ]  # the same relative output name for both (a ROOT file holds its name)
    for place in places:
        place.mkdir(exist_ok=True)
    for name in ("xaod-ttree", "truth3-rntuple"):
        for label, args in (("3 copies at 404", ["--compression", "404", "--copies", "3"]),
                            ("kept", ["--compression", "keep"])):  # fmt: skip
            output = f"recompress-{name}.root"
            cmd = [
                "--input", str(files / f"{name}.root"), "--tree", "CollectionTree", "--output", output, *args
            ]  # fmt: skip
            total += 1
            ok = compare_runs(
                f"recompress {name}: {label}", [a.recompressor, *cmd], [b.recompressor, *cmd], *places
            )
            container = "rntuple" if "rntuple" in name else "ttree"
            fps = [fingerprint(place / output, a.reader, container, True) for place in places]
            if diff := differences(*fps):
                print("      the recompressed files differ: " + "; ".join(diff[:5]))
            same += ok and not diff
    plan = scratch / "unzipkinds.plan"
    import uproot

    with uproot.open(files / "xaod-ttree.root") as f:
        order = []

        def walk(branches):
            for branch in branches:
                order.append(branch.name)
                walk(branch.branches)

        walk(f["CollectionTree"].branches)
    plan.write_text(
        "".join(f"{i}\t{n}\tg{i % 3}\t{0.5 if i % 2 else 1.0}\n" for i, n in enumerate(order[:12]))
    )
    args = ["--file", str(files / "xaod-ttree.root"), "--plan", str(plan), "--settings", "101,404,505,207",
            "--repetitions", "2", "--jobs", "2"]  # fmt: skip
    total += 1
    same += compare_runs("unzipkinds xaod-ttree", [a.unzip_kinds, *args], [b.unzip_kinds, *args], scratch)
    return same, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", type=Path, help="the first build directory (e.g. the tree before the change)")
    parser.add_argument("b", type=Path, help="the second build directory")
    parser.add_argument("--work", type=Path, default=Path("/tmp/writer-split-check"))
    parser.add_argument("--events", type=int, default=60)
    parser.add_argument("--skip-tools", action="store_true", help="compare the writers only")
    parser.add_argument("--skip-clones", action="store_true", help="no clones of the real samples")
    args = parser.parse_args()
    a, b = Tools(args.a), Tools(args.b)
    if args.work.exists():
        shutil.rmtree(args.work)
    args.work.mkdir(parents=True)
    same, total, results = check_writers(a, b, args.work, args.events, not args.skip_clones)
    written = {n for n, o in results["A"].items() if o.code == 0}
    print(
        f"Writer: {same} of {total} cases the same ({len(written)} written, {total - len(written)} refused)"
    )
    if not args.skip_tools:
        tools_same, tools_total = check_tools(a, b, args.work, args.events, written)
        print(f"Tools: {tools_same} of {tools_total} comparisons the same")
        same, total = same + tools_same, total + tools_total
    print(f"{'ALL THE SAME' if same == total else 'DIFFERENCES'}: {same} of {total}")
    sys.exit(0 if same == total else 1)


if __name__ == "__main__":
    main()
