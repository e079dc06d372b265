"""Apply it: what a physicist types to get the setting ``rootparams advise`` decided on.

The decision (a TTree or an RNTuple; a compression algorithm and level; optionally a cluster size) becomes, for
the file it was made for:

* the ``hadd`` command that rewrites files one already has at the chosen compression, and what hadd cannot do
  (change the container or the clusters; recompress classes without their dictionaries);
* the ROOT calls for one's own writer, C++ and PyROOT, with the values (ROOT 6.40);
* for files written by ATLAS's Athena or CMS's CMSSW, the configuration keys of their output, named as their own
  code names them, and what no key was found for.

Every framework key printed here was read in the framework's own public code; ``SOURCES`` says where
(repository and path), and docs/applying.md lists them. hadd's flags are those of the ROOT wheel's own
``hadd --help``; the ROOT calls are checked by tests/test_applying.py, which runs them.

``apply_it(decision, context)`` returns an ``ApplyIt``: ``markdown()`` (the "## Apply it" block of advise.md),
``terminal()``, ``html()`` (a fragment for advise.html) and ``as_dict()`` (for advise.json).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rootparams.ownfile.inspection import Inspection
from rootparams.ownfile.sources import SourceFile
from rootparams.study.labels import autoflush_label
from rootparams.vocabulary import (
    CONTAINERS,
    RNTUPLE,
    TTREE,
    UNCOMPRESSED,
    CompressionSettingError,
    decode,
    encode,
)

# --- rootparams' own recompressor: the one place to fill in -----------------------------------------------
# The command a user types to run rootparams-recompress (rootparams.commands.recompress_command), as a format string with
# {setting}, {source}, {tree} and {output}. What it keeps and drops (OWN_RECOMPRESSOR_TEXT) is from the header of
# src/rootparams/cxx/recompress_baskets.cxx; amend it here if that changes.
OWN_RECOMPRESSOR_COMMAND: str | None = (
    "rootparams recompress {source} {output} --setting {setting} --tree {tree}"
)
_OWN_RECOMPRESSOR_TEXT = (
    "the same recompression rootparams used to measure your file, which recompresses each basket's (page's) "
    "bytes without reading any object, so it needs no dictionary (rootparams-recompress; it keeps the clusters and "
    "writes the event data only, not metadata trees or histograms)"
)

# --- The decision and the file it is for ------------------------------------------------------------------

# Which framework wrote a file (framework_of).
ATLAS = "atlas"
_CMS_NANOAOD = "cms-nanoaod"
_CMS_EDM = "cms-edm"
UNKNOWN = "unknown"
_FRAMEWORKS = (ATLAS, _CMS_NANOAOD, _CMS_EDM, UNKNOWN)

# ROOT::RCompressionSetting::EAlgorithm's names for the study's algorithms (Compression.h of the wheel).
_ROOT_ALGORITHMS = {"zlib": "kZLIB", "lzma": "kLZMA", "lz4": "kLZ4", "zstd": "kZSTD"}
# RNTupleWriteOptions refuses an ApproxZippedClusterSize above its MaxUnzippedClusterSize, 1280 MiB by default
# (RNTupleWriteOptions.hxx: 10 x the default 128 MiB); a larger cluster needs the limit raised first, by the same
# factor of 10.
_RNTUPLE_MAX_UNZIPPED_DEFAULT = 10 * 128 * 1024 * 1024
# Clusters of N entries in an RNTuple are committed by hand; these limits keep ROOT's own commit from coming first
# (the values rootparams' own writer uses, cxx/write_collection_tree.cxx).
_RNTUPLE_BY_HAND_MAX_UNZIPPED = "std::size_t(64) << 30"
_RNTUPLE_BY_HAND_APPROX_ZIPPED = "std::size_t(16) << 30"


@dataclass(frozen=True)
class Decision:
    """A setting to write a file at: ``cluster`` in AutoFlush's convention for both containers (> 0 entries per
    cluster, < 0 about -cluster compressed bytes, 0 a TTree without AutoFlush), None where the decision leaves
    the clusters as they are."""

    container: str  # vocabulary.TTREE or RNTUPLE
    algorithm: str  # zlib, lzma, lz4, zstd or none
    level: int  # 1-9; 0 for none
    cluster: int | None = None

    def __post_init__(self) -> None:
        if self.container not in CONTAINERS:
            raise ValueError(f"container {self.container!r}: give one of {', '.join(CONTAINERS)}")
        encode(self.algorithm, self.level)  # an unknown algorithm is refused with the known ones
        if self.algorithm == UNCOMPRESSED and self.level != 0:
            raise ValueError(f"an uncompressed decision has level 0, not {self.level}")
        if self.algorithm != UNCOMPRESSED and not 1 <= self.level <= 9:
            raise ValueError(f"compression level {self.level}: give 1 to 9")
        if self.container == RNTUPLE and self.cluster == 0:
            raise ValueError("an RNTuple always has clusters: give None for ROOT's default cluster size")

    @classmethod
    def from_point(cls, point: tuple[str, str, int, int | None]) -> Decision:
        """From one of advise's points, (container, algorithm, level, cluster or None)."""
        container, algorithm, level, cluster = point
        return cls(container, algorithm, int(level), None if cluster is None else int(cluster))

    @property
    def setting(self) -> int:
        """ROOT's compression setting, 100 x algorithm + level (0 uncompressed)."""
        return 0 if self.algorithm == UNCOMPRESSED else encode(self.algorithm, self.level)

    @property
    def compression_name(self) -> str:
        return (
            "uncompressed"
            if self.algorithm == UNCOMPRESSED
            else f"{self.algorithm.upper()} level {self.level}"
        )


@dataclass(frozen=True)
class FileContext:
    """The file a decision is for: its tree's (RNTuple's) name and container, its own compression setting and
    AutoFlush (None for an RNTuple), the framework that wrote it, and whether its event data holds classes (whose
    dictionaries a re-streaming rewrite needs) rather than numbers and arrays of them only."""

    name: str
    container: str
    compression_setting: int
    autoflush: int | None = None
    framework: str = UNKNOWN
    holds_classes: bool = True

    def __post_init__(self) -> None:
        if self.framework not in _FRAMEWORKS:
            raise ValueError(f"framework {self.framework!r}: give one of {', '.join(_FRAMEWORKS)}")


# A NanoAOD collection: its count nMuon beside its members Muon_pt, Muon_eta, ...
_NANOAOD_COUNT = re.compile(r"n([A-Z]\w*)")


def framework_of(name: str, types: Mapping[str, str]) -> str:
    """The framework that wrote event data ``name`` whose top-level branches (fields) are ``types`` (name to
    type): ATLAS for an xAOD tree or RNTuple (CollectionTree, EventData) of DataVector<xAOD::...> containers; CMS
    for NanoAOD (Events with nMuon beside Muon_pt) or an EDM file (Events with EventAuxiliary or edm:: products);
    else UNKNOWN."""
    if name in ("CollectionTree", "EventData") and any("DataVector<xAOD::" in t for t in types.values()):
        return ATLAS
    if name != "Events":
        return UNKNOWN
    if "EventAuxiliary" in types or any(t.startswith("edm::") for t in types.values()):
        return _CMS_EDM
    for branch in types:
        m = _NANOAOD_COUNT.fullmatch(branch)
        if m and any(other.startswith(m[1] + "_") for other in types):
            return _CMS_NANOAOD
    return UNKNOWN


# Types ROOT writes and reads without any dictionary of the file's own: numbers, booleans, characters and strings,
# as rootparams.ownfile.inspection names them (a TTree's leaf types, an RNTuple's field types).
_BASIC_TYPE = re.compile(
    r"(?:std::)?(?:bool|char|(?:unsigned )?(?:short|int|long|long long)|u?int(?:8|16|32|64)_t|size_t|float|double"
    r"|string|U?(?:Char|Short|Int|Long|Long64)_t|Bool_t|Float_t|Double_t|Float16_t|Double32_t)"
)
_COLLECTION = re.compile(r"(?:std::)?vector<(.+)>|ROOT::(?:VecOps::)?RVec<(.+)>")


def is_plain_type(type_name: str) -> bool:
    """Whether a branch (field) of ``type_name`` holds numbers, booleans or strings only, alone, in arrays or in
    vectors (of vectors) of them: what ROOT re-streams with no dictionary of the file's own. A C string leaf
    (char*) and an RNTuple's untyped collection (RNTupleImporter's leaf-count arrays) are plain too."""
    name = type_name.strip()
    if name == "char*" or name.startswith("untyped collection"):
        return True
    name = re.sub(r"\[\w*\]$", "", name)  # a leaf's array: float[], float[3]
    if m := _COLLECTION.fullmatch(name):
        return is_plain_type(m[1] or m[2])
    return bool(_BASIC_TYPE.fullmatch(name))


def context_of(source: SourceFile, ins: Inspection) -> FileContext:
    """The context of a file as advise describes it (rootparams.ownfile.sources) and inspects it (rootparams.ownfile.inspection)."""
    tops = {row.name: row.type for row in ins.rows if row.top == row.name}
    # The setting of the event data's baskets (pages) where they share one: an RNTuple's pages need not be at
    # their file's setting (an importer's 505 pages in a 101 file).
    setting = source.compression_setting if ins.data_compression is None else ins.data_compression
    return FileContext(
        name=source.tree,
        container=source.container,
        compression_setting=setting,
        autoflush=None if source.container == RNTUPLE else source.autoflush,
        framework=framework_of(source.tree, tops),
        holds_classes=not all(is_plain_type(t) for t in tops.values()),
    )


# --- Where each framework key was found ---------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A file of a framework's public repository, as read in November 2026, and what it shows."""

    repository: str
    path: str
    shows: str

    def cite(self) -> str:
        return f"{self.repository} {self.path}"


_ATHENA = "ATLAS-experiment/athena"  # the GitHub mirror of gitlab.cern.ch/atlas/athena
CMSSW = "cms-sw/cmssw"
_CMSSW_CFI = (
    "cms-sw/cmssw-cfipython"  # each module's parameters and defaults, generated from its fillDescriptions
)
SOURCES: dict[str, Source] = {
    "athena-flags": Source(
        _ATHENA,
        "Control/AthenaConfiguration/python/AllConfigFlags.py",
        "Output.TreeAutoFlush (\"dict with auto-flush settings for stream e.g. {'STREAM': 123}\") and "
        "PoolSvc.DefaultContainerType ('ROOTTREEINDEX' by default)",
    ),
    "athena-flags-older": Source(
        _ATHENA,
        "Control/AthenaConfiguration/python/AllConfigFlags.py",
        "in older releases, Output.StorageTechnology.EventData chooses the event data's technology",
    ),
    "athena-pool-write": Source(
        _ATHENA,
        "Database/AthenaPOOL/AthenaPoolCnvSvc/python/PoolWriteConfig.py",
        "PoolWriteCfg sets each stream's compression and AutoFlush from its own table (DAOD_PHYS: ZSTD-5, 500 "
        "entries) and takes Output.TreeAutoFlush[stream] over the table's AutoFlush",
    ),
    "athena-pool-attribute-helper": Source(
        _ATHENA,
        "Database/AthenaPOOL/AthenaPoolCnvSvc/python/PoolAttributeHelper.py",
        "setFileCompAlg and setFileCompLvl write the COMPRESSION_ALGORITHM and COMPRESSION_LEVEL pool attributes "
        "of a file",
    ),
    "athena-cnvsvc": Source(
        _ATHENA,
        "Database/AthenaPOOL/AthenaPoolCnvSvc/src/AthenaPoolCnvSvc.h",
        "the PoolAttributes property of AthenaPoolCnvSvc",
    ),
    "athena-root-database": Source(
        _ATHENA,
        "Database/APR/RootStorageSvc/src/RootDatabase.cpp",
        "COMPRESSION_ALGORITHM and COMPRESSION_LEVEL become TFile::SetCompressionAlgorithm and "
        "SetCompressionLevel; TREE_AUTO_FLUSH becomes TTree::SetAutoFlush",
    ),
    "athena-rntuple-writer": Source(
        _ATHENA,
        "Database/APR/RootStorageSvc/src/RNTupleWriterHelper.cpp",
        "an RNTuple takes its file's compression (SetCompression(GetCompressionSettings())); no cluster size is "
        "set on its write options",
    ),
    "athena-shared-writer": Source(
        _ATHENA,
        "Database/AthenaPOOL/AthenaPoolCnvSvc/src/AthenaPoolCnvSvc.cxx",
        "with the shared writer's parallel compression, a negative TREE_AUTO_FLUSH is replaced by "
        "NumberEventsPerWrite",
    ),
    "athena-transform-exec": Source(
        _ATHENA,
        "Tools/PyJobTransforms/python/TransformUtils.py",
        "a transform's --preExec runs with flags, its --postExec with flags and cfg (the flags then locked)",
    ),
    "cms-pool-output": Source(
        _CMSSW_CFI,
        "IOPool/Output/PoolOutputModule.py",
        "PoolOutputModule: compressionAlgorithm ('ZSTD'), compressionLevel (4), eventAutoFlushCompressedSize "
        "(20971520)",
    ),
    "cms-pool-output-source": Source(
        CMSSW,
        "IOPool/Output/src/PoolOutputModule.cc",
        "fillDescription: compressionAlgorithm allows ZLIB, LZMA, LZ4 and ZSTD; eventAutoFlushCompressedSize is "
        "the AutoFlush of the event TTree in compressed bytes (-1 ROOT's default, 0 off)",
    ),
    "cms-rntuple-output": Source(
        _CMSSW_CFI,
        "FWIO/RNTuple/RNTupleOutputModule.py",
        "RNTupleOutputModule: compressionAlgorithm, compressionLevel, approxZippedClusterSize; "
        "eventAutoFlushCompressedSize obsolete",
    ),
    "cms-rntuple-output-source": Source(
        CMSSW,
        "FWIO/RNTuple/plugins/RNTupleOutputModule.cc",
        "approxZippedClusterSize is RNTupleWriteOptions' ApproxZippedClusterSize",
    ),
    "cms-nanoaod-output": Source(
        _CMSSW_CFI,
        "PhysicsTools/NanoAOD/NanoAODOutputModule.py",
        "NanoAODOutputModule: compressionAlgorithm ('ZLIB'), compressionLevel (9), autoFlush (-10000000)",
    ),
    "cms-nanoaod-output-source": Source(
        CMSSW,
        "PhysicsTools/NanoAOD/src/NanoAODOutputModuleBase.cc",
        "compressionAlgorithm ZLIB, LZMA, ZSTD or LZ4; autoFlush > 0 entries, < 0 bytes (turned into entries at "
        "the first 1000 events)",
    ),
    "cms-nanoaod-output-older": Source(
        CMSSW,
        "PhysicsTools/NanoAOD/plugins/NanoAODOutputModule.cc",
        "older releases: compressionAlgorithm ZLIB or LZMA only",
    ),
    "cms-nanoaod-rntuple-output": Source(
        _CMSSW_CFI,
        "PhysicsTools/NanoAOD/NanoAODRNTupleOutputModule.py",
        "NanoAODRNTupleOutputModule: compressionAlgorithm, compressionLevel, "
        "rntupleWriteOptions.approxZippedClusterSize",
    ),
    "cms-nanoaod-rntuple-output-older": Source(
        CMSSW,
        "PhysicsTools/NanoAOD/plugins/NanoAODRNTupleOutputModule.cc",
        "older releases: compressionAlgorithm ZLIB or LZMA only, and no cluster size",
    ),
    "cms-plugin-help": Source(
        CMSSW,
        "FWCore/ParameterSet/bin/edmPluginHelp.cpp",
        "edmPluginHelp -p MODULE prints a module's parameters as the release at hand has them",
    ),
}


@dataclass(frozen=True)
class FrameworkKey:
    """One name the framework gives a setting (a flag, a property, a pool attribute, a module parameter, a helper)
    as its code spells it, the value the block gives it ("" where it takes none), and where it was found."""

    key: str
    value: str
    source: str  # a key of SOURCES


@dataclass
class FrameworkAdvice:
    """The framework's block: its configuration lines, every framework name they and the notes use (each with its
    source), what no key was found for, and the sources of the notes' other facts."""

    title: str  # the framework and the module that writes the file
    code: list[str]  # the configuration lines, Python
    keys: list[FrameworkKey]
    notes: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)  # settings of the decision no key was found for
    also_from: list[str] = field(default_factory=list)  # keys of SOURCES behind the notes and not_found

    def sources(self) -> list[str]:
        return list(dict.fromkeys([*(k.source for k in self.keys), *self.also_from]))


# --- ROOT: hadd and one's own writer -------------------------------------------------------------------------


def _setting_name(setting: int) -> str:
    """A file's own compression setting in words, e.g. "ZLIB level 1 (101)"."""
    if 0 < setting < 100:  # no algorithm given: ROOT's default one, at this level
        return f"level {setting} of ROOT's default algorithm ({setting})"
    try:
        algorithm, level = decode(setting)
    except CompressionSettingError:  # an algorithm the study does not write (ROOT's old one, 3): its number
        return f"compression setting {setting}"
    return (
        f"uncompressed ({setting})"
        if algorithm == UNCOMPRESSED
        else f"{algorithm.upper()} level {level} ({setting})"
    )


def _cpp_string(text: str) -> str:
    return json.dumps(text)  # a JSON string of printable ASCII is a valid C++ string literal


def _cluster_words(cluster: int) -> str:
    if cluster == 0:
        return "no AutoFlush: one cluster, flushed when the tree is written"
    if cluster < 0:
        return f"clusters of ~{autoflush_label(cluster)} compressed"
    return f"clusters of {cluster} entries"


def _cpp_compression(decision: Decision) -> str:
    """The compression setting in ROOT::RCompressionSetting's names, as an int expression."""
    if decision.algorithm == UNCOMPRESSED:
        return "0"
    enum = _ROOT_ALGORITHMS[decision.algorithm]
    return f"ROOT::CompressionSettings(ROOT::RCompressionSetting::EAlgorithm::{enum}, {decision.level})"


def _cpp_open_with_setting(decision: Decision) -> str:
    """The other way to give a TTree's file its setting: TFile's compress argument."""
    return f'TFile::Open("out.root", "RECREATE", "", {decision.setting})'


def _cpp_writer(decision: Decision, name: str) -> list[str]:
    """C++ statements, in order, that write ``name`` at the decision (ROOT 6.40); a function body can run them."""
    setting = decision.setting
    if decision.container == TTREE:
        lines = [
            'auto file = std::unique_ptr<TFile>(TFile::Open("out.root", "RECREATE"));',
            f"file->SetCompressionSettings({_cpp_compression(decision)});  // {setting}, before the tree is made",
            f"auto tree = new TTree({_cpp_string(name)}, {_cpp_string(name)});  // its branches take the file's setting",
        ]
        if decision.cluster is not None:
            lines.append(f"tree->SetAutoFlush({decision.cluster});  // {_cluster_words(decision.cluster)}")
        return lines
    if decision.algorithm == UNCOMPRESSED:
        compression = "options.SetCompression(0);  // uncompressed"
    else:
        enum = _ROOT_ALGORITHMS[decision.algorithm]
        compression = f"options.SetCompression(ROOT::RCompressionSetting::EAlgorithm::{enum}, {decision.level});  // {setting}"
    lines = [
        "auto model = ROOT::RNTupleModel::Create();  // and your fields: model->MakeField<float>(...)",
        "ROOT::RNTupleWriteOptions options;",
        compression,
    ]
    cluster = decision.cluster
    if cluster is not None and cluster > 0:
        lines += [
            f"options.SetMaxUnzippedClusterSize({_RNTUPLE_BY_HAND_MAX_UNZIPPED});  // clusters of {cluster} "
            "entries are committed by hand:",
            f"options.SetApproxZippedClusterSize({_RNTUPLE_BY_HAND_APPROX_ZIPPED});  // ROOT's own commit must "
            "not come first",
        ]
    elif cluster is not None:
        if -cluster > _RNTUPLE_MAX_UNZIPPED_DEFAULT:
            lines.append(
                f"options.SetMaxUnzippedClusterSize({-10 * cluster});  // above ROOT's default limit"
            )
        lines.append(f"options.SetApproxZippedClusterSize({-cluster});  // {_cluster_words(cluster)}")
    lines.append(
        f'auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), {_cpp_string(name)}, "out.root", options);'
    )
    if cluster is not None and cluster > 0:
        lines.append(f"// after every {cluster}th writer->Fill(): writer->CommitCluster();")
    return lines


def _cpp_append(name: str) -> str:
    """An RNTuple into a TFile one already has (RNTupleWriter::Append), with the same options."""
    return f"ROOT::RNTupleWriter::Append(std::move(model), {_cpp_string(name)}, *file, options)"


def _python_writer(decision: Decision, name: str) -> list[str]:
    """The same as cpp_writer in PyROOT."""
    setting = decision.setting
    if decision.algorithm == UNCOMPRESSED:
        compression = "0"
    else:
        enum = _ROOT_ALGORITHMS[decision.algorithm]
        compression = (
            f"ROOT.CompressionSettings(ROOT.RCompressionSetting.EAlgorithm.{enum}, {decision.level})"
        )
    if decision.container == TTREE:
        lines = [
            'file = ROOT.TFile.Open("out.root", "RECREATE")',
            f"file.SetCompressionSettings({compression})  # {setting}",
            f"tree = ROOT.TTree({_cpp_string(name)}, {_cpp_string(name)})",
        ]
        if decision.cluster is not None:
            lines.append(f"tree.SetAutoFlush({decision.cluster})")
        return lines
    lines = ["model = ROOT.RNTupleModel.Create()", "options = ROOT.RNTupleWriteOptions()"]
    if decision.algorithm == UNCOMPRESSED:
        lines.append("options.SetCompression(0)")
    else:
        enum = _ROOT_ALGORITHMS[decision.algorithm]
        lines.append(
            f"options.SetCompression(ROOT.RCompressionSetting.EAlgorithm.{enum}, {decision.level})  # {setting}"
        )
    cluster = decision.cluster
    if cluster is not None and cluster > 0:
        lines += [
            "options.SetMaxUnzippedClusterSize(64 << 30)",
            "options.SetApproxZippedClusterSize(16 << 30)",
        ]
    elif cluster is not None:
        if -cluster > _RNTUPLE_MAX_UNZIPPED_DEFAULT:
            lines.append(f"options.SetMaxUnzippedClusterSize({-10 * cluster})")
        lines.append(f"options.SetApproxZippedClusterSize({-cluster})")
    lines.append(f'writer = ROOT.RNTupleWriter.Recreate(model, {_cpp_string(name)}, "out.root", options)')
    return lines


def _cpp_import(name: str) -> list[str]:
    """ROOT's conversion of a TTree into an RNTuple at the writer's options (RNTupleImporter.hxx)."""
    return [
        f'auto importer = ROOT::Experimental::RNTupleImporter::Create("in.root", {_cpp_string(name)}, "out.root");',
        "importer->SetWriteOptions(options);  // the options of the writer below",
        "importer->Import();",
    ]


@dataclass
class ExistingFiles:
    """How files one already has get the decision: a hadd command (None where hadd cannot do it), or ROOT's
    conversion of a TTree into an RNTuple, and what to know."""

    command: str | None
    convert: list[str]  # C++ statements, where the container changes from TTree to RNTuple
    notes: list[str]


def _hadd_command(decision: Decision) -> str:
    """hadd -f<N>: the output's compression setting (its usage: "-f[0-9] ... by passing the number i*100 + j, e.g.
    -f505"; 0 uncompressed); it also overwrites an output that exists."""
    return f"hadd -f{decision.setting} out.root in1.root in2.root ..."


def _own_recompressor(decision: Decision, context: FileContext) -> str:
    if OWN_RECOMPRESSOR_COMMAND is None:
        return _OWN_RECOMPRESSOR_TEXT
    command = OWN_RECOMPRESSOR_COMMAND.format(
        setting=decision.setting, source="in.root", tree=context.name, output="out.root"
    )
    return f"{_OWN_RECOMPRESSOR_TEXT}: `{command}`"


def existing_files(decision: Decision, context: FileContext) -> ExistingFiles:
    what = "tree" if context.container == TTREE else "RNTuple"
    if decision.container != context.container:
        if decision.container == RNTUPLE:
            notes = [
                "hadd keeps the container: it cannot turn this TTree into an RNTuple. ROOT's RNTupleImporter "
                "converts it, at the writer's options below (ROOT 6.40: an experimental class)."
            ]
            if context.holds_classes:
                notes.append(
                    "The importer reads every entry, so branches of classes need their dictionaries, and it does "
                    "not take TClonesArray branches."
                )
            return ExistingFiles(None, _cpp_import(context.name), notes)
        return ExistingFiles(
            None,
            [],
            [
                "hadd keeps the container: it cannot turn this RNTuple into a TTree; write the files again with your "
                "writer (below)."
            ],
        )
    pieces = "baskets" if decision.container == TTREE else "pages"
    notes = []
    if decision.setting == context.compression_setting:
        notes.append(
            f"Your files already are at {decision.setting}: hadd copies their {pieces} as they are, so there is "
            "nothing to rewrite for the compression."
        )
    else:
        notes.append(
            f"`-f{decision.setting}` is the output's compression setting, 100 × algorithm + level (1 ZLIB, 2 LZMA, "
            f"4 LZ4, 5 ZSTD; `-f0` uncompressed). Your files being at {context.compression_setting}, hadd "
            f'decompresses and recompresses every {pieces[:-1]} ("a slower method", its usage says); at an '
            f"unchanged setting it copies {pieces} as they are."
        )
    if decision.container == TTREE:
        notes.append(
            "`-O` also re-optimizes the basket sizes, reading and writing every entry even at an unchanged "
            "setting; without it, baskets whose compression does not change are copied."
        )
    else:
        notes.append(
            "hadd merges RNTuples as an experimental feature in ROOT 6.40 (it warns so); `-O` is for TTrees."
        )
    if decision.cluster is not None and (
        decision.container == RNTUPLE or decision.cluster != context.autoflush
    ):
        kept = "each tree's AutoFlush" if decision.container == TTREE else "the clusters and pages"
        notes.append(
            f"hadd keeps {kept}: for {_cluster_words(decision.cluster)}, the files must be written again by their "
            "writer (below)."
        )
    recompresses = decision.setting != context.compression_setting  # else nothing is re-streamed
    if recompresses and context.holds_classes:
        reads = (
            "reads every entry into its classes"
            if decision.container == TTREE
            else "builds every field from its class"
        )
        notes.append(
            f"To recompress, hadd {reads}, so it needs their dictionaries (your experiment's software set up). "
            f"This {what} holds classes: without them, rewrite the files with the framework that wrote them, or "
            f"with {_own_recompressor(decision, context)}."
        )
    elif recompresses:
        notes.append(f"This {what} holds numbers and arrays of them only: hadd needs no dictionary for it.")
    return ExistingFiles(_hadd_command(decision), [], notes)


# --- The frameworks' output keys -----------------------------------------------------------------------------

_CMS_ALGORITHMS = {"zlib": "ZLIB", "lzma": "LZMA", "lz4": "LZ4", "zstd": "ZSTD"}


def _athena(decision: Decision, context: FileContext) -> FrameworkAdvice:
    """Athena's component-accumulator configuration, as a transform (Derivation_tf.py, ...) runs it."""
    keys = [
        FrameworkKey("AthenaPoolCnvSvc.PoolAttributes", "", "athena-cnvsvc"),
        FrameworkKey("Output.DAOD_PHYSFileName", "", "athena-pool-write"),
    ]
    also = ["athena-transform-exec", "athena-root-database"]
    pre: list[str] = []
    not_found: list[str] = []
    notes = [
        "DAOD_PHYS stands for your output stream (AOD, DAOD_PHYS, DAOD_PHYSLITE, ...). A transform's "
        "`--preExec` sets flags; its `--postExec` sees `cfg` after PoolWriteCfg has added the stream's own "
        "compression attributes, and those added there come after them."
    ]
    if decision.container != context.container:
        technology = "ROOTRNTUPLE" if decision.container == RNTUPLE else "ROOTTREEINDEX"
        pre.append(f'flags.PoolSvc.DefaultContainerType = "{technology}"')
        keys.append(FrameworkKey("PoolSvc.DefaultContainerType", technology, "athena-flags"))
        notes.append(
            f'Older releases choose it with `flags.Output.StorageTechnology.EventData = "{technology}"`.'
        )
        keys.append(FrameworkKey("Output.StorageTechnology.EventData", technology, "athena-flags-older"))
    if decision.cluster is not None and decision.container == TTREE:
        pre.append(f'flags.Output.TreeAutoFlush = {{"DAOD_PHYS": {decision.cluster}}}')
        keys.append(FrameworkKey("Output.TreeAutoFlush", str(decision.cluster), "athena-flags"))
        also.append("athena-pool-write")
        if decision.cluster < 0:
            notes.append(
                "In AthenaMP jobs whose shared writer compresses in parallel, a negative (bytes) AutoFlush is "
                "replaced by NumberEventsPerWrite events."
            )
            keys.append(FrameworkKey("NumberEventsPerWrite", "", "athena-shared-writer"))
    elif decision.cluster is not None:
        not_found.append(
            "an RNTuple's cluster size: Athena's RNTuple writer (RNTupleWriterHelper.cpp) sets only the "
            "compression on its write options, so ROOT's default applies (about 128 MiB compressed)"
        )
        also.append("athena-rntuple-writer")
    if decision.container == RNTUPLE:
        notes.append("An RNTuple takes its file's compression, so the same attributes set it.")
        also.append("athena-rntuple-writer")
    attributes = []
    if decision.algorithm != UNCOMPRESSED:
        algorithm_code = decision.setting // 100
        attributes.append(f"pah.setFileCompAlg(out, {algorithm_code})")
        keys += [
            FrameworkKey("setFileCompAlg", str(algorithm_code), "athena-pool-attribute-helper"),
            FrameworkKey("COMPRESSION_ALGORITHM", str(algorithm_code), "athena-pool-attribute-helper"),
        ]
    attributes.append(f"pah.setFileCompLvl(out, {decision.level})")
    keys += [
        FrameworkKey("setFileCompLvl", str(decision.level), "athena-pool-attribute-helper"),
        FrameworkKey("COMPRESSION_LEVEL", str(decision.level), "athena-pool-attribute-helper"),
    ]
    code = ["# --preExec", *pre] if pre else []
    code += [
        "# --postExec",
        "from AthenaPoolCnvSvc import PoolAttributeHelper as pah",
        "out = flags.Output.DAOD_PHYSFileName",
        f'cfg.getService("AthenaPoolCnvSvc").PoolAttributes += [{", ".join(attributes)}]',
    ]
    return FrameworkAdvice("ATLAS (Athena)", code, keys, notes, not_found, also)


# CMSSW's output modules: (NanoAOD?, container) -> (module, the generated description of its parameters).
_CMS_MODULES = {
    (True, TTREE): ("NanoAODOutputModule", "cms-nanoaod-output"),
    (True, RNTUPLE): ("NanoAODRNTupleOutputModule", "cms-nanoaod-rntuple-output"),
    (False, TTREE): ("PoolOutputModule", "cms-pool-output"),
    (False, RNTUPLE): ("RNTupleOutputModule", "cms-rntuple-output"),
}
# Older NanoAOD modules accept ZLIB and LZMA only.
_CMS_NANOAOD_OLDER = {TTREE: "cms-nanoaod-output-older", RNTUPLE: "cms-nanoaod-rntuple-output-older"}


def _cms(decision: Decision, context: FileContext) -> FrameworkAdvice:
    """A CMSSW configuration's output module, by the parameter names of its fillDescriptions."""
    nano = context.framework == _CMS_NANOAOD
    module, source = _CMS_MODULES[nano, decision.container]
    keys: list[FrameworkKey] = []
    code: list[str] = []
    also = ["cms-plugin-help"]
    notes = [f"OUT stands for your {module}'s label in the process."]
    not_found: list[str] = []
    if decision.container != context.container:
        before, _ = _CMS_MODULES[nano, context.container]
        notes.append(f"Write with {module} in place of {before}.")
        keys.append(FrameworkKey(before, "", _CMS_MODULES[nano, context.container][1]))
    keys.append(FrameworkKey(module, "", source))
    if decision.algorithm != UNCOMPRESSED:
        name = _CMS_ALGORITHMS[decision.algorithm]
        code.append(f'process.OUT.compressionAlgorithm = cms.untracked.string("{name}")')
        keys.append(FrameworkKey("compressionAlgorithm", name, source))
    code.append(f"process.OUT.compressionLevel = cms.untracked.int32({decision.level})")
    keys.append(FrameworkKey("compressionLevel", str(decision.level), source))
    cluster = decision.cluster
    if cluster is None:
        pass
    elif decision.container == TTREE and nano:
        code.append(f"process.OUT.autoFlush = cms.untracked.int32({cluster})")
        keys.append(FrameworkKey("autoFlush", str(cluster), source))
        also.append("cms-nanoaod-output-source")
    elif decision.container == TTREE and cluster > 0:
        not_found.append(
            "an AutoFlush in entries: PoolOutputModule sets the event tree's AutoFlush by compressed size only "
            "(eventAutoFlushCompressedSize)"
        )
        keys.append(FrameworkKey("eventAutoFlushCompressedSize", "", "cms-pool-output-source"))
    elif decision.container == TTREE:
        code.append(f"process.OUT.eventAutoFlushCompressedSize = cms.untracked.int32({-cluster})")
        keys.append(FrameworkKey("eventAutoFlushCompressedSize", str(-cluster), source))
        also.append("cms-pool-output-source")
    elif cluster > 0:
        not_found.append(
            f"RNTuple clusters in entries: {module} sets a cluster size in compressed bytes only"
        )
        keys.append(FrameworkKey("approxZippedClusterSize", "", source))
    elif nano:
        code.append(
            "process.OUT.rntupleWriteOptions = cms.untracked.PSet(approxZippedClusterSize = "
            f"cms.untracked.uint64({-cluster}))"
        )
        keys += [
            FrameworkKey("rntupleWriteOptions", "", source),
            FrameworkKey("approxZippedClusterSize", str(-cluster), source),
        ]
    else:
        code.append(f"process.OUT.approxZippedClusterSize = cms.untracked.uint64({-cluster})")
        keys.append(FrameworkKey("approxZippedClusterSize", str(-cluster), source))
        also.append("cms-rntuple-output-source")
    if nano and decision.algorithm in ("zstd", "lz4"):
        notes.append(f"Older releases' {module} accepts ZLIB and LZMA only.")
        also += [_CMS_NANOAOD_OLDER[decision.container], "cms-nanoaod-output-source"]
    notes.append(f"`edmPluginHelp -p {module}` lists the parameters your release's module takes.")
    return FrameworkAdvice(f"CMS (CMSSW), {module}", code, keys, notes, not_found, also)


def _framework_advice(decision: Decision, context: FileContext) -> FrameworkAdvice | None:
    """The keys of the framework that wrote the file; None where it is not known."""
    if context.framework == ATLAS:
        return _athena(decision, context)
    if context.framework in (_CMS_NANOAOD, _CMS_EDM):
        return _cms(decision, context)
    return None


# --- The block --------------------------------------------------------------------------------------------


@dataclass
class ApplyIt:
    decision: Decision
    context: FileContext
    existing: ExistingFiles
    cpp: list[str]
    python: list[str]
    framework: FrameworkAdvice | None

    def _decision_text(self) -> str:
        d, c = self.decision, self.context
        text = f"**{'TTree' if d.container == TTREE else 'RNTuple'}, {d.compression_name}** ({d.setting})"
        if d.cluster is not None and d.container == TTREE:
            text += f", **AutoFlush {d.cluster}** ({_cluster_words(d.cluster)})"
        elif d.cluster is not None:
            text += f", **{_cluster_words(d.cluster)}**"
        own = f"`{c.name}` is now {'a TTree' if c.container == TTREE else 'an RNTuple'}, {_setting_name(c.compression_setting)}"
        if c.container == TTREE and c.autoflush is not None:
            own += f", AutoFlush {c.autoflush}"
        return f"The decision: {text}. {own}."

    def markdown(self) -> str:
        d = self.decision
        lines = ["## Apply it", "", self._decision_text(), "", "**Files you already have.**", ""]
        if self.existing.command:
            lines += ["```bash", self.existing.command, "```", ""]
        if self.existing.convert:
            lines += ["```cpp", *self.existing.convert, "```", ""]
        lines += [f"- {note}" for note in self.existing.notes]
        lines += ["", "**Your own writer** (ROOT 6.40; C++, then PyROOT).", "", "```cpp", *self.cpp, "```"]
        if d.container == TTREE:
            lines += ["", f"Or give the setting as the file is made: `{_cpp_open_with_setting(d)}`."]
        else:
            lines += ["", f"Into a TFile you already have: `{_cpp_append(self.context.name)}`."]
        lines += ["", "```python", *self.python, "```", ""]
        f = self.framework
        if f is None:
            lines.append(
                f"The framework that wrote this file is not one rootparams recognises (ATLAS xAOD, CMS NanoAOD or "
                f"EDM): give its output the compression setting {d.setting}"
                + (f" and cluster size {d.cluster}" if d.cluster is not None else "")
                + " where it is configured."
            )
        else:
            lines += [f"**{f.title}.**", "", "```python", *f.code, "```", ""]
            lines += [f"- {note}" for note in f.notes]
            lines += [f"- No key found for {what}." for what in f.not_found]
            lines.append("- Where each key comes from: docs/applying.md.")
        return "\n".join(lines) + "\n"

    def terminal(self) -> str:
        """The markdown with its code blocks indented instead of fenced, for a terminal."""
        out, in_code = [], False
        for line in self.markdown().splitlines():
            if line.startswith("```"):
                in_code = not in_code
                continue
            out.append(f"    {line}" if in_code else line.replace("**", ""))
        return "\n".join(out) + "\n"

    def html(self) -> str:
        """An HTML fragment of the block, code blocks as <pre>, for advise.html."""
        out, code, bullets = [], None, []

        def inline(text: str) -> str:
            text = html.escape(text)
            text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
            return re.sub(r"`(.+?)`", r"<code>\1</code>", text)

        def flush_bullets() -> None:
            if bullets:
                out.append("<ul>" + "".join(f"<li>{inline(b)}</li>" for b in bullets) + "</ul>")
                bullets.clear()

        for line in self.markdown().splitlines():
            if line.startswith("```"):
                if code is None:
                    flush_bullets()
                    code = []
                else:
                    out.append("<pre><code>" + html.escape("\n".join(code)) + "</code></pre>")
                    code = None
            elif code is not None:
                code.append(line)
            elif line.startswith("- "):
                bullets.append(line[2:])
            else:
                flush_bullets()
                if line.startswith("## "):
                    out.append(f"<h2>{html.escape(line[3:])}</h2>")
                elif line:
                    out.append(f"<p>{inline(line)}</p>")
        flush_bullets()
        return "\n".join(out) + "\n"

    def as_dict(self) -> dict[str, Any]:
        d, c, f = self.decision, self.context, self.framework
        return {
            "decision": {
                "container": d.container,
                "algorithm": d.algorithm,
                "level": d.level,
                "compression_setting": d.setting,
                "cluster": d.cluster,
            },
            "file": {
                "name": c.name,
                "container": c.container,
                "compression_setting": c.compression_setting,
                "autoflush": c.autoflush,
                "framework": c.framework,
                "holds_classes": c.holds_classes,
            },
            "existing_files": {
                "hadd": self.existing.command,
                "convert_cpp": self.existing.convert,
                "notes": self.existing.notes,
                "own_recompressor": OWN_RECOMPRESSOR_COMMAND,
            },
            "writer": {
                "cpp": self.cpp,
                "python": self.python,
                "cpp_alternative": _cpp_open_with_setting(d) if d.container == TTREE else _cpp_append(c.name),
            },
            "framework": None
            if f is None
            else {
                "title": f.title,
                "code": f.code,
                "keys": [
                    {"key": k.key, "value": k.value, "source": SOURCES[k.source].cite()} for k in f.keys
                ],
                "not_found": f.not_found,
                "notes": f.notes,
                "sources": [SOURCES[name].cite() for name in f.sources()],
            },
        }


def apply_it(decision: Decision, context: FileContext) -> ApplyIt:
    """What to type to get ``decision`` for the file ``context`` describes."""
    return ApplyIt(
        decision=decision,
        context=context,
        existing=existing_files(decision, context),
        cpp=_cpp_writer(decision, context.name),
        python=_python_writer(decision, context.name),
        framework=_framework_advice(decision, context),
    )
