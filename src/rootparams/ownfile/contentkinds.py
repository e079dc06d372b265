"""The kinds of data a ROOT file holds, as the study groups them (docs/formats.md, "Against the real PHYSLITE
sample", "Inspecting a file" and "Cloning a real file's profile").

Every branch that holds data is a *unit*: an unsplit top-level branch, or each sub-branch of a split object, whose
own baskets (the object's framing) are a unit of type "object". In an RNTuple, a top-level field is a unit, and
each direct subfield of a top-level record (an xAOD static store's members) is one.

Two groupings; ``grouping_of`` decides which one a file gets:

* ATLAS xAOD files (a ``CollectionTree`` or ``EventData`` with xAOD's ``<C>Aux.``/``<C>AuxDyn.<a>`` naming or
  ``xAOD::`` classes): ``classify``, checked in this order: trigger-like data (every branch of the trigger
  containers and the legacy ``McEventInfo``'s trigger words), MC event weights, interface and static-aux objects,
  then by stored type: element links, ``vector<vector<T>>``, ``vector<float/double>`` split into dense and
  low-multiplicity ones at ``LOW_MULTIPLICITY`` elements per event, integers and flags, and the rest.
* every other file (flat ntuples, NanoAOD, Delphes, analysis trees of split objects, RNTuples of any of them):
  ``leaf_kind``, by what a leaf holds: floats, doubles, integers, booleans, each as scalars (one value per entry)
  or arrays (several per entry: counted and fixed leaf arrays, ``std::vector``/``ROOT::RVec`` of them at any
  depth, the members of a ``TClonesArray`` or of a split collection of objects), strings, and streamed objects
  (a class stored as one blob per entry, and the own bytes of a split object). A counter (``nMuon``, a
  ``TClonesArray``'s size) is an integer scalar. ``Double32_t`` and ``Float16_t`` are stored in 32 bits or fewer:
  floats.

The benchmarks that compare synthetic formats and calibrated clones with real files (benchmarks/compare_physlite.py,
benchmarks/calibrate_own_file.py) and ``rootparams inspect`` (rootparams.ownfile.inspection) use these functions, so a
kind means the same everywhere. Type names may be spelled the ROOT way (``vector<unsigned int>``, ``UInt_t``) or
the C++ way (``std::vector<std::uint32_t>``); both give the same kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# The groupings of kinds: ATLAS's, and by what a leaf holds (every other file).
XAOD, BY_LEAF = "xAOD", "by leaf type"
XAOD_KINDS = (
    "dense vector<float/double>",
    "low-multiplicity vector<float/double>",
    "element links",
    "vector<vector<T>> (T not a link)",
    "integer/char/uint8 flags and counts",
    "trigger-like data",
    "MC event weights",
    "interface / static-aux objects",
    "other (scalar floats, strings, sets)",
)
_LEAF_KINDS = (
    "float scalars",
    "float arrays",
    "double scalars",
    "double arrays",
    "integer scalars",
    "integer arrays",
    "bool scalars",
    "bool arrays",
    "strings",
    "streamed objects",
)
KINDS_BY_GROUPING = {XAOD: XAOD_KINDS, BY_LEAF: _LEAF_KINDS}

# The trees and RNTuples ATLAS writes its event data to, and xAOD's names of its aux stores.
_XAOD_EVENT_DATA = ("CollectionTree", "EventData")
_XAOD_NAMING = re.compile(r"Aux(Dyn)?[.:]")

# Mean elements per event below which a vector<float> is "low multiplicity": its 4-byte payload is then
# smaller than the ~14 bytes of framing each entry costs.
_LOW_MULTIPLICITY = 3.0

_TRIGGER_CONTAINER = re.compile(r"^(AnalysisHLT_|HLTNav_|TrigNavigation|xTrigDecision|TrigConfKeys)")
INTEGER_TYPE = re.compile(
    r"^(vector<)?(unsigned |signed )?(int|char|short|long|bool|u?int\d+_t|U?Int_t|U?Char_t|U?Short_t|"
    r"U?Long64_t|U?Long_t|Bool_t|ULong64_t|Long64_t)>?$"
)
FLOAT_VECTOR = {"vector<float>": 4, "vector<double>": 8}
# Element types of the grouping by leaf type, in both spellings (after plain_type).
_BOOL_TYPES = {"bool", "Bool_t"}
_FLOAT_TYPES = {"float", "Float_t", "Float16_t", "Double32_t"}
_DOUBLE_TYPES = {"double", "Double_t"}
_STRING_TYPES = {"string", "TString", "char*", "const char*"}
_INTEGER_TYPE = re.compile(
    r"(unsigned |signed )?(char|short|int|long|long long)|u?int\d+_t|byte|U?Char_t|U?Short_t|U?Int_t|U?Long_t|"
    r"U?Long64_t|Long64_t|ULong64_t|Byte_t"
)
# Collections whose elements a leaf holds (several per entry): std::vector, ROOT::RVec, std::array, ...
_COLLECTION = re.compile(
    r"(?:vector|ROOT::VecOps::RVec|ROOT::RVec|RVec|array|deque|list|set|unordered_set)<(.+)>"
)


@dataclass
class Unit:
    """One branch (or RNTuple field) holding data: a leaf of the branch tree, or the own baskets of a split
    object's branch."""

    name: str  # full branch name
    top: str  # top-level branch it belongs to
    type: str  # type name of what it stores ("object" for a split object's own bytes)
    zip_bytes: int
    tot_bytes: int
    entries: int
    elements: int | None = None  # elements of vector<float/double> units, where counted
    kind: str = ""
    # several values per entry where the type does not say so: a leaf array (counted or fixed), a member of a
    # TClonesArray or of a split collection of objects
    array: bool = False


def _plain_type(type_name: str) -> str:
    """``type_name`` without ``std::`` and with ``>>`` for ``> >``: ``std::vector<std::uint32_t>`` ->
    ``vector<uint32_t>``, ROOT's ``vector<vector<float> >`` -> ``vector<vector<float>>``."""
    return re.sub(r">\s+>", ">>", type_name.replace("std::", "")).strip()


def container_of(top: str) -> str:
    """``ElectronsAuxDyn.pt``, ``ElectronsAux.`` and ``Electrons`` all belong to the container ``Electrons`` (an
    RNTuple's ``ElectronsAuxDyn:pt`` too)."""
    return re.sub(r"Aux(Dyn)?[.:].*$", "", top)


def needs_elements(type_name: str) -> bool:
    """Whether a unit of this type needs its element count to be classified (dense or low multiplicity)."""
    return _plain_type(type_name) in FLOAT_VECTOR


def classify(unit: Unit, top_class: str) -> str:
    """Kind of a unit of an xAOD file: by container first (trigger, MC weights), then by object role, then by
    stored type. ``top_class``: the class of the unit's top-level branch (TBranchElement::GetClassName; "" for a
    leaf-list branch), or the type of its top-level field."""
    container = container_of(unit.top)
    leaf_name = re.split(r"[.:]", unit.name)[-1]
    type_name = _plain_type(unit.type)
    top_class = _plain_type(top_class)
    if _TRIGGER_CONTAINER.match(container) or "m_trigger_info" in unit.name:
        return "trigger-like data"
    if (
        "mcEventWeights" in unit.name
        or "mc_event_weights" in unit.name
        or (container == "EventInfo" and leaf_name.startswith("weight_"))
    ):
        return "MC event weights"
    is_interface = "Aux" not in unit.top and not top_class.startswith("vector<") and top_class != ""
    if (
        is_interface
        or type_name in ("object", "BASE")
        or ("::" in type_name and "ElementLink" not in type_name)
    ):
        return "interface / static-aux objects"
    if "ElementLink" in type_name or leaf_name in ("m_persKey", "m_persIndex"):
        return "element links"
    if type_name.startswith("vector<vector<"):
        return "vector<vector<T>> (T not a link)"
    if type_name in FLOAT_VECTOR:
        mean = (unit.elements or 0) / max(unit.entries, 1)
        low = unit.elements is not None and mean < _LOW_MULTIPLICITY
        return "low-multiplicity vector<float/double>" if low else "dense vector<float/double>"
    if INTEGER_TYPE.match(type_name):
        return "integer/char/uint8 flags and counts"
    return "other (scalar floats, strings, sets)"


def grouping_of(name: str, tops: Iterable[tuple[str, str]]) -> str:
    """The grouping of kinds (XAOD or BY_LEAF) of a TTree or RNTuple ``name`` whose top-level branches (fields) are
    ``tops``, (name, class or type) pairs: ATLAS's for an xAOD file's event data (a ``CollectionTree`` or
    ``EventData`` whose branches carry xAOD's aux-store naming or ``xAOD::`` classes), by leaf type for every other
    one. The one place that decides it."""
    if name not in _XAOD_EVENT_DATA:
        return BY_LEAF
    xaod = any(_XAOD_NAMING.search(branch) or "xAOD::" in cls for branch, cls in tops)
    return XAOD if xaod else BY_LEAF


def holds_array(branch_type: int | None, streamer_type: int | None, counted: bool, length: int = 1) -> bool:
    """Whether a TTree leaf branch holds several values per entry whatever its type name says: a member of a
    TClonesArray or of a split STL collection (TBranchElement fType 31 or 41), a fixed or variable array member
    (fStreamerType 21-39 or 41-59), a leaf array with a counter (``counted``) or of a fixed ``length`` > 1."""
    if branch_type in (31, 41):
        return True
    if streamer_type is not None and (21 <= streamer_type <= 39 or 41 <= streamer_type <= 59):
        return True
    return counted or length > 1


def own_bytes_type(branch_type: int | None) -> str:
    """What the own baskets of a TTree branch with sub-branches hold, in the grouping by leaf type: a split
    TClonesArray's or STL collection's (TBranchElement fType 3 or 4) hold its element count per entry, an integer;
    any other split object's, its framing ("object")."""
    return "Int_t" if branch_type in (3, 4) else "object"


def leaf_kind(unit: Unit) -> str:
    """Kind of a unit in the grouping by leaf type: the type it holds (through any nesting of vectors and RVecs,
    which make it an array), whether it holds several values per entry, and strings and streamed objects apart."""
    t = _plain_type(unit.type)
    array = unit.array
    t, fixed = re.subn(r"\[\w*\]", "", t)  # Float_t[3], int32_t[]: leaf arrays
    array = array or bool(fixed)
    while m := _COLLECTION.fullmatch(t):
        t, array = _plain_type(m.group(1).split(",")[0]), True
    if t in _STRING_TYPES:
        return "strings"
    for word, holds in (
        ("bool", t in _BOOL_TYPES),
        ("float", t in _FLOAT_TYPES),
        ("double", t in _DOUBLE_TYPES),
        ("integer", _INTEGER_TYPE.fullmatch(t) is not None),
    ):
        if holds:
            return f"{word} {'arrays' if array else 'scalars'}"
    return "streamed objects"  # a class, "object" (a split object's own bytes), "BASE"


def kind_of(unit: Unit, grouping: str, top_class: str = "") -> str:
    """Kind of a unit in ``grouping`` (``top_class``: the class of its top-level branch, for the xAOD one)."""
    return classify(unit, top_class) if grouping == XAOD else leaf_kind(unit)
