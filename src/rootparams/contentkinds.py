"""The kinds of data a ROOT file holds, as the study groups them (docs/formats.md, "Against the real PHYSLITE
sample" and "Cloning a real file's profile").

Every branch that holds data is a *unit*: an unsplit top-level branch, or each sub-branch of a split object, whose
own baskets (the object's framing) are a unit of type "object". In an RNTuple, a top-level field is a unit, and
each direct subfield of a top-level record (an xAOD static store's members) is one.

Two groupings, one per layout:

* xAOD files (an ATLAS ``CollectionTree`` or ``EventData``): ``classify``, checked in this order: trigger-like data
  (every branch of the trigger containers and the legacy ``McEventInfo``'s trigger words), MC event weights,
  interface and static-aux objects, then by stored type: element links, ``vector<vector<T>>``,
  ``vector<float/double>`` split into dense and low-multiplicity ones at ``LOW_MULTIPLICITY`` elements per event,
  integers and flags, and the rest.
* flat files (CMS NanoAOD's ``Events``): ``flat_kind``: float arrays, integer arrays, bool/flags, scalars.

The benchmarks that compare synthetic formats and calibrated clones with real files (benchmarks/compare_physlite.py,
benchmarks/calibrate_own_file.py) and ``rootparams inspect`` (rootparams.inspection) use these functions, so a
kind means the same everywhere. Type names may be spelled the ROOT way (``vector<unsigned int>``, ``UInt_t``) or
the C++ way (``std::vector<std::uint32_t>``); both give the same kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = (
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
FLAT_KINDS = ("float arrays", "integer arrays", "bool/flags", "scalars")

# Mean elements per event below which a vector<float> is "low multiplicity": its 4-byte payload is then
# smaller than the ~14 bytes of framing each entry costs.
LOW_MULTIPLICITY = 3.0

TRIGGER_CONTAINER = re.compile(r"^(AnalysisHLT_|HLTNav_|TrigNavigation|xTrigDecision|TrigConfKeys)")
INTEGER_TYPE = re.compile(
    r"^(vector<)?(unsigned |signed )?(int|char|short|long|bool|u?int\d+_t|U?Int_t|U?Char_t|U?Short_t|"
    r"U?Long64_t|U?Long_t|Bool_t|ULong64_t|Long64_t)>?$"
)
FLOAT_VECTOR = {"vector<float>": 4, "vector<double>": 8}
# Leaf types of the flat grouping, in both spellings.
_BOOL_TYPES = {"bool", "Bool_t"}
_FLOAT_TYPES = {"float", "double", "Float_t", "Double_t", "Float16_t", "Double32_t"}


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
    array: bool = False  # flat layout: a per-event array (a leaf with a counter), not a scalar


def plain_type(type_name: str) -> str:
    """``type_name`` without ``std::`` and with ``>>`` for ``> >``: ``std::vector<std::uint32_t>`` ->
    ``vector<uint32_t>``, ROOT's ``vector<vector<float> >`` -> ``vector<vector<float>>``."""
    return re.sub(r">\s+>", ">>", type_name.replace("std::", "")).strip()


def container_of(top: str) -> str:
    """``ElectronsAuxDyn.pt``, ``ElectronsAux.`` and ``Electrons`` all belong to the container ``Electrons`` (an
    RNTuple's ``ElectronsAuxDyn:pt`` too)."""
    return re.sub(r"Aux(Dyn)?[.:].*$", "", top)


def needs_elements(type_name: str) -> bool:
    """Whether a unit of this type needs its element count to be classified (dense or low multiplicity)."""
    return plain_type(type_name) in FLOAT_VECTOR


def classify(unit: Unit, top_class: str) -> str:
    """Kind of a unit of an xAOD file: by container first (trigger, MC weights), then by object role, then by
    stored type. ``top_class``: the class of the unit's top-level branch (TBranchElement::GetClassName; "" for a
    leaf-list branch), or the type of its top-level field."""
    container = container_of(unit.top)
    leaf_name = re.split(r"[.:]", unit.name)[-1]
    type_name = plain_type(unit.type)
    top_class = plain_type(top_class)
    if TRIGGER_CONTAINER.match(container) or "m_trigger_info" in unit.name:
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
        low = unit.elements is not None and mean < LOW_MULTIPLICITY
        return "low-multiplicity vector<float/double>" if low else "dense vector<float/double>"
    if INTEGER_TYPE.match(type_name):
        return "integer/char/uint8 flags and counts"
    return "other (scalar floats, strings, sets)"


def flat_kind(unit: Unit) -> str:
    """Kind of a unit of a flat file (NanoAOD): bool scalars and arrays are flags; other scalars (counters
    included) are scalars; arrays are float or integer arrays."""
    t = plain_type(unit.type).removesuffix("[]")
    if t in _BOOL_TYPES:
        return "bool/flags"
    if not unit.array:
        return "scalars"
    return "float arrays" if t in _FLOAT_TYPES else "integer arrays"
