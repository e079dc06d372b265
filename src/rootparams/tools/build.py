"""Build the compiled C++ parts: the event-model dictionary library and the writer/reader/rewriter/recompressor
executables, and rootparams-unzipkinds (ROOT's decompression timed per content kind: rootparams.measure.unzipkinds).

The xAOD-like classes get their ROOT I/O dictionary from ACLiC (the wheel's CMake config is broken; ACLiC works).
The writer and reader are small native executables linked against that library and ROOT, so that every
timed read is a fresh process of its own that holds no Python and no interpreter start-up beyond ROOT's:
about 0.3 s from exec to the first event here, against about 1.4 s for Python + `import ROOT` + loading
an ACLiC library.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rootparams.errors import UserError
from rootparams.tools import rootenv

# rootparams-read's translation units, linked into one executable: read_collection_tree.cxx holds main (the CLI
# and the fork server), each other unit has a header of its own (READER_HEADERS).
_READER_UNITS = (
    "read_collection_tree.cxx",
    "read_common.cxx",
    "read_counters.cxx",
    "read_selection.cxx",
    "read_ttree.cxx",
    "read_ntuple.cxx",
    "read_rdataframe.cxx",
    "read_bulk.cxx",
    "read_checksum.cxx",
)
_READER_HEADERS = (
    "read_common.h",
    "read_counters.h",
    "read_selection.h",
    "read_ttree.h",
    "read_ntuple.h",
    "read_rdataframe.h",
    "read_bulk.h",
    "read_checksum.h",
)
# rootparams-write's translation units, linked into one executable: write_collection_tree.cxx holds main (the CLI,
# the content file, the event loop), each other unit has a header of its own (WRITER_HEADERS; write_common.h has no
# source).
_WRITER_UNITS = (
    "write_collection_tree.cxx",
    "write_random.cxx",
    "write_distributions.cxx",
    "write_column.cxx",
    "write_framing.cxx",
    "write_recipe.cxx",
    "write_sinks.cxx",
)
_WRITER_HEADERS = (
    "write_common.h",
    "write_random.h",
    "write_distributions.h",
    "write_column.h",
    "write_framing.h",
    "write_recipe.h",
    "write_sinks.h",
)
# rootparams-unzipkinds: one source, linked with the reader's read_common (opening the file, failing).
_UNZIP_KINDS_SOURCE = "unzip_kinds.cxx"
CXX_SOURCES = (
    "XaodClasses.h",
    "common.h",
    "rewrite_common.h",
    "rewrite_tree.cxx",
    "recompress_baskets.cxx",
    _UNZIP_KINDS_SOURCE,
    *_WRITER_UNITS,
    *_WRITER_HEADERS,
    *_READER_UNITS,
    *_READER_HEADERS,
)
LIBRARY_NAME = "libRootparamsXaodClasses"


class BuildError(UserError):
    pass


@dataclass(frozen=True)
class Tools:
    writer: str
    reader: str
    library: str
    rewriter: str = ""  # rootparams-rewrite: a user's own file at other settings (rootparams.tools.rewrite)
    recompressor: str = (
        ""  # rootparams-recompress: its baskets recompressed and tiled (rootparams.tools.recompress)
    )
    unzip_kinds: str = (
        ""  # rootparams-unzipkinds: decompression per content kind (rootparams.measure.unzipkinds)
    )


def ensure_built(out_dir: str | Path) -> Tools:
    """The tools built in ``out_dir``, (re)built first if missing or older than a C++ source (for the
    benchmark scripts; the workflow's build rule tracks the sources itself)."""
    out_dir = Path(out_dir).resolve()
    marker = out_dir / "build.json"
    if not marker.exists() or any(
        src.stat().st_mtime > marker.stat().st_mtime for src in source_dir().iterdir()
    ):
        build_all(out_dir)
    return Tools(
        writer=str(out_dir / "bin" / "rootparams-write"),
        reader=str(out_dir / "bin" / "rootparams-read"),
        library=str(out_dir / "lib" / f"{LIBRARY_NAME}.so"),
        rewriter=str(out_dir / "bin" / "rootparams-rewrite"),
        recompressor=str(out_dir / "bin" / "rootparams-recompress"),
        unzip_kinds=str(out_dir / "bin" / "rootparams-unzipkinds"),
    )


def source_dir() -> Path:
    return Path(str(resources.files("rootparams").joinpath("cxx")))


def build_all(out_dir: str | Path, cxx: str = "g++", jobs: int | None = None) -> dict:
    """Build into ``out_dir``: include/ (the event-model header), lib/, bin/, obj/ (every unit's object), and
    build.json last. ``jobs``: compilations run side by side (default: the cores this process may use).

    The build happens in place because ROOT's interpreter re-reads the dictionary's header from the path
    it was built with: the build tree is tied to its location (rebuild after moving it). build.json is
    written last and marks a complete build.
    """
    out_dir = Path(out_dir).resolve()
    rootsys = rootenv.rootsys()
    if out_dir.exists():
        shutil.rmtree(out_dir)
    include_dir, lib_dir, bin_dir = out_dir / "include", out_dir / "lib", out_dir / "bin"
    for d in (include_dir, lib_dir, bin_dir):
        d.mkdir(parents=True)
    for name in CXX_SOURCES:
        shutil.copy(source_dir() / name, include_dir / name)
    common = _compile_flags(rootsys, include_dir)
    links = _link_flags(rootsys, lib_dir, f"{LIBRARY_NAME}.so", "$ORIGIN/../lib")
    # Every unit compiles to an object from the headers alone; only the links need the event-model library,
    # which ACLiC makes (with its dictionary). So ACLiC and the compilations run side by side, one per
    # available core, ACLiC and the slowest units first (RDataFrame's, then the writer's sinks), so that none
    # starts last; then the five executables are linked, side by side too. (ACLiC before any compilation and
    # one link after another left a core idle for ACLiC's ~9 s and the links' ~8 s of a 54 s build, 2 cores.)
    obj_dir = out_dir / "obj"
    obj_dir.mkdir()
    single = {
        "rootparams-rewrite": "rewrite_tree.cxx",
        "rootparams-recompress": "recompress_baskets.cxx",
    }
    units = (*_READER_UNITS, *_WRITER_UNITS, _UNZIP_KINDS_SOURCE, *single.values())
    obj = {src: obj_dir / f"{Path(src).stem}.o" for src in units}
    compilations = {
        src: ([cxx, *common, "-c", str(include_dir / src), "-o", str(obj[src])], f"compiling {src}")
        for src in units
    }
    slowest = ("read_rdataframe.cxx", "write_sinks.cxx")
    order = [*slowest, *(s for s in compilations if s not in slowest)]
    executables = {
        "rootparams-read": [obj[src] for src in _READER_UNITS],
        "rootparams-write": [obj[src] for src in _WRITER_UNITS],
        # one source, linked with the reader's read_common (opening the file, failing)
        "rootparams-unzipkinds": [obj[_UNZIP_KINDS_SOURCE], obj["read_common.cxx"]],
        **{exe: [obj[src]] for exe, src in single.items()},
    }
    linked = {
        exe: [cxx, *common, *map(str, objects), "-o", str(bin_dir / exe), *links]
        for exe, objects in executables.items()
    }
    workers = jobs or len(os.sched_getaffinity(0))
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(order) + 1))) as pool:
        aclic = pool.submit(_aclic_xaod_classes, include_dir / "XaodClasses.h", lib_dir)
        _all_done(pool, [aclic, *(pool.submit(_run, *compilations[s]) for s in order)])
        lib = aclic.result()
        _all_done(pool, [pool.submit(_run, cmd, f"linking {exe}") for exe, cmd in linked.items()])
    info = {
        "root_version": rootenv.root_version(),
        "rootsys": str(rootsys),
        "cxx": _run([cxx, "--version"], "querying the compiler").splitlines()[0],
        "flags": common[:3],
        "xaod_classes_library": str(lib),
    }
    (out_dir / "build.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def _all_done(pool: ThreadPoolExecutor, futures: list[Future]) -> None:
    """Wait for every one of ``futures``. At the first failure (a BuildError, with the compiler's messages)
    the queued ones are cancelled, since they need not run, and the failure is raised."""
    try:
        for done in futures:
            done.result()
    except BuildError:
        pool.shutdown(cancel_futures=True)
        raise


def _compile_flags(rootsys: Path, include_dir: Path) -> list[str]:
    return [
        "-O2",
        "-std=c++17",
        "-pthread",
        f"-I{rootsys}/include",
        f"-I{include_dir}",
        "-Wno-cpp",  # the wheel warns when the standard differs from its own; we match it (C++17)
    ]


def _link_flags(rootsys: Path, lib_dir: Path, library: str, lib_rpath: str) -> list[str]:
    return [
        "-Wl,--no-as-needed",  # keep the dictionary library: nothing references its symbols by name
        f"-L{lib_dir}",
        f"-l:{library}",  # by name, so the executables find it through their rpath
        f"-L{rootsys}/lib",
        "-lCore",
        "-lRIO",
        "-lTree",
        "-lTreePlayer",
        "-lROOTNTuple",
        "-lROOTNTupleUtil",  # RNTupleImporter: a flat recipe written as an RNTuple (write_sinks.cxx)
        "-lMathCore",
        "-lImt",
        "-lThread",
        "-lROOTDataFrame",
        "-lROOTVecOps",  # --reading-style rdataframe (read_rdataframe.cxx)
        f"-Wl,-rpath,{rootsys}/lib",
        f"-Wl,-rpath,{lib_rpath}",
        "-Wl,--allow-shlib-undefined",  # the wheel's bundled libraries leave some symbols to others
    ]


def build_writer(source: str | Path, output: str | Path, build_dir: str | Path, cxx: str = "g++") -> Path:
    """Compile a writer (its main source, a write_collection_tree.cxx, with the headers it includes and the other
    writer units, write_*.cxx, beside it: e.g. an earlier revision's; before the writer was split it was one source)
    into the executable ``output``, linked against the event-model library of the build in ``build_dir``, with the
    flags of build_all. For benchmarks that compare two writers; the XaodClasses.h beside the source must be the
    build's (its dictionary is the library's), or this raises."""
    source, output, build_dir = Path(source).resolve(), Path(output).resolve(), Path(build_dir).resolve()
    built_model = build_dir / "include" / "XaodClasses.h"
    if (source.parent / "XaodClasses.h").read_bytes() != built_model.read_bytes():
        raise BuildError(
            f"{source.parent / 'XaodClasses.h'} differs from {built_model}: the writer needs its own build of the "
            "xAOD-like classes (build_all on its sources)"
        )
    rootsys, lib_dir = rootenv.rootsys(), build_dir / "lib"
    output.parent.mkdir(parents=True, exist_ok=True)
    units = [source, *(u for u in sorted(source.parent.glob("write_*.cxx")) if u != source)]
    _run(
        [
            cxx,
            *_compile_flags(rootsys, source.parent),
            *map(str, units),
            "-o",
            str(output),
            *_link_flags(rootsys, lib_dir, f"{LIBRARY_NAME}.so", str(lib_dir)),
        ],
        f"compiling {source}",
    )
    return output


def _aclic_xaod_classes(header: Path, lib_dir: Path) -> Path:
    """Compile XaodClasses.h with ACLiC (optimized) through the wheel's root.exe.

    Not through PyROOT: a library that ACLiC builds inside a Python process links libcppyy, which a
    plain executable cannot find.
    """
    lib = lib_dir / f"{LIBRARY_NAME}.so"
    macro = (
        f'gSystem->SetBuildDir("{lib_dir}", true); '
        f'gSystem->CompileMacro("{header}", "kO", "{LIBRARY_NAME}", "{lib_dir}");'
    )
    cmd = [str(rootenv.bin_path("root.exe")), "-l", "-b", "-q", "-e", macro]
    # root.exe exits with the value of the last expression (CompileMacro: 1 = success), so judge by the output.
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if not lib.exists():
        raise BuildError(
            f"ACLiC did not produce {lib}.\ncommand: {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
        )
    return lib


def _run(cmd: list[str], what: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(
            f"{what} failed (exit code {proc.returncode}).\ncommand: {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
        )
    return proc.stdout
