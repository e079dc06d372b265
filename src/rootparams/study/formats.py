"""Content recipes of the synthetic formats: which containers an event holds, how many elements, and how
their values are distributed. The C++ writer executes a recipe; this module and its data, recipes/formats.yaml
(which collections of which kind an xAOD-, TOPQ1-, SUSY5- or TRUTH3-like event holds, and how many elements),
are the one place that says what such an event contains.

The habits that make synthetic data behave like real data under compression (read from small real ATLAS files
and public ATLAS code; docs/formats.md): physical distributions (exponential pT, central eta, uniform phi,
discrete pdgId), full float mantissas, element links with a constant hashed key per target container and small
increasing indices, trigger words that are nearly constant from event to event, long ATLAS-style branch names.
Structure only where real records have it (docs/formats.md, "Compression speed against real data"): per-vertex
vectors for jets only, ordered by vertex; counts in uint8; copies and runs in generator records; fixed-layout
navigation records. Structure that real data lack (mostly-zero vectors on every container, small integers in
32-bit words) makes level-9 compression many times slower than on real files. Target sizes per event at ZLIB-5
(the paper): xAOD ~1 MB, TOPQ1 ~170 kB, SUSY5 ~60 kB, TRUTH3 ~5 kB.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from importlib import resources

import yaml

NS = "xAODlike::"
KNOWN_FORMATS = ("xaod", "topq1", "susy5", "truth3", "nanoaod", "susy5_skim", "xaod_long")
# Formats that are another built-in format's recipe under a name of their own, so that a study can write and read
# more of its events for some scans only (formats.<f>.written/read are per format): xaod_long, the primary xAOD
# read over enough AutoFlush clusters that the TTreeCache's learning phase is a small part of the read (the cache
# scans of config/config.yaml; grid.cache_learning_entries).
SAME_RECIPE = {"xaod_long": "xaod"}
# Formats whose recipe has the flat (NanoAOD-like) layout: leaf-list arrays with counters, written as TTrees only,
# where the split level means nothing.
FLAT_FORMATS = ("nanoaod",)
# The event-size family ("Optimizing ROOT IO For Analysis"): eventsize_<N>, N uncompressed bytes per event, in this range.
EVENTSIZE_PREFIX = "eventsize_"
_EVENTSIZE_RANGE = (32, 16_000_000)
# A skimmed derivation: every physics container empty in this share of the events (event record kept).
_SKIM_EMPTY_SHARE = 0.9

# Value distributions, as the writer understands them.
PT = ("exp", 25000.0)  # MeV
_ETA = ("gaus", 0.0, 1.6)
_PHI = ("uniform", -3.14159265, 3.14159265)
_MASS = ("exp", 5000.0)
_SMALL = ("gaus", 0.0, 1.0)
_FRACTION = ("uniform", 0.0, 1.0)
_SW = ("choice", 2, 4)  # sliding-window cluster sizes of electrons and photons (3x5, 3x7 cells)


# Structure that real data has and compressors exploit (write_collection_tree.cxx, Column::draw):
def trunc(bits: int, dist: tuple) -> tuple:
    """ATLAS float compression: only ``bits`` mantissa bits kept (7 or 15 in DAOD_PHYS, 10 here in between)."""
    return ("trunc", bits, *dist)


def grid(step: float, dist: tuple) -> tuple:
    """Values on a detector grid or integer counts stored as float."""
    return ("round", step, *dist)


# Primary vertices are ordered by the summed pT^2 of their tracks: a jet has tracks from the hard-scatter
# vertex (index 0) in most events, from a pile-up vertex the less often the further down the list it is
# (the real PHYSLITE's jets: 70% at index 0, 42% at 1, 26% at 5, 13% at 10, 18% over all).
_VERTEX_FILLED = (0.7, *(0.02 + 0.45 * math.exp(-j / 8.5) for j in range(1, 64)))


def vertex_moment(dist: tuple, default: float = 0.0, scale: float = 1.0) -> tuple:
    """A jet's track moment for each primary vertex: ``default`` where the vertex has no track in the jet."""
    return cycle(*(sparse(round(1 - scale * f, 3), default, dist) for f in _VERTEX_FILLED))


def sparse(p: float, default: float, dist: tuple) -> tuple:
    """Mostly a default value (0, -999, 1): attributes that are only set for a few objects."""
    return ("sparse", p, default, *dist)


def per_event(dist: tuple) -> tuple:
    """One value per event shared by all elements (beam spot, primary vertex position)."""
    return ("perevent", *dist)


def walk(start: float, step: tuple) -> tuple:
    """A running sum: increasing barcodes and indices with gaps (``step`` is drawn for each element)."""
    return ("walk", start, *step)


def runs(q: float, dist: tuple) -> tuple:
    """The previous element's value with probability ``q``: runs, as neighbours in an ordered record share it."""
    return ("repeat", q, *dist)


def copies(q: float, key: int, dist: tuple) -> tuple:
    """The previous element's value with probability ``q``, decided per element by ``key``: every attribute with
    the same key copies the same elements (a generator-record particle and its copies)."""
    return ("copy", q, key, *dist)


def pick(*values) -> tuple:
    """A choice among ``values`` that may stand inside other distributions (``choice`` must come last)."""
    return ("pick", len(values), *values)


def cycle(*dists: tuple) -> tuple:
    """Element i drawn from dists[i % len(dists)]: fixed-layout records in a flat vector."""
    return ("cycle", len(dists), *(x for d in dists for x in d))


@dataclass
class Collection:
    """One xAOD collection of a recipe (Electrons, with its interface and aux classes): what the writer fills.
    Called a collection, not a container, because "container" is the study's TTree or RNTuple."""

    name: str
    interface: str
    aux: str
    multiplicity: tuple
    attrs: dict[str, tuple] = field(default_factory=dict)  # static aux member -> distribution
    inner: dict[str, tuple] = field(default_factory=dict)  # nested member/attribute -> inner length
    dyn: list[tuple] = field(default_factory=list)  # (attribute, type, distribution...)

    def lines(self) -> list[str]:
        out = [_join("container", self.name, NS + self.interface, NS + self.aux, *self.multiplicity)]
        out += [_join("attr", self.name, member, *dist) for member, dist in self.attrs.items()]
        out += [_join("dyn", self.name, *spec) for spec in self.dyn]
        out += [_join("inner", self.name, member, *length) for member, length in self.inner.items()]
        return out


def _join(*parts) -> str:
    return " ".join(str(p) for p in parts)


def kinematics() -> dict[str, tuple]:
    return {"pt": PT, "eta": _ETA, "phi": _PHI, "m": _MASS}


# Dynamic attributes come in the kinds a real container has (read from small real ATLAS files): mostly dense
# full-precision floats (the real PHYSLITE's floats keep their full mantissa), some with reduced precision (7
# mantissa bits, as ATLAS float compression keeps), mostly-default floats, small counts and flags in uint8 (as
# xAOD stores track-summary counts), and one slot in 16 for a nested vector where the container has one:
# per-vertex vectors of jets (track moments for each primary vertex), per-track vectors of vertices and
# b-tagging. Other containers hold a scalar there: a track or a cluster has no per-vertex quantities.
_KINDS = (
    "full",
    "full",
    "trunc",
    "sparse",
    "full",
    "u8",
    "count",
    "int",
    "full",
    "sparse",
    "full",
    "flag",
    "nested",
    "full",
    "trunc",
    "full",
)


def dyn_attributes(
    stem: str,
    n: int,
    scale: float,
    vertices: float = 24,
    link: str | None = None,
    nested: str | None = None,
    per_vertex: int = 2,
) -> tuple[list[tuple], dict[str, tuple]]:
    """``n`` generic attributes ``<stem>000``... . ``nested``: ``"vertex"`` (jets: the first ``per_vertex``
    nested slots are per-vertex vectors of length ~``vertices``, a real jet has six such moments in all),
    ``"track"`` (per-track vectors of length ~``vertices``) or None (no nested attributes)."""
    out, inner = [], {}
    nested_slots = 0
    for i in range(n):
        kind = _KINDS[i % len(_KINDS)]
        name = f"{stem}{i:03d}"
        s = scale * (1 + (i % 7))
        if kind == "nested":
            nested_slots += 1
            if nested == "vertex" and nested_slots <= per_vertex:
                out.append((name, "vfloat", *vertex_moment(("exp", s))))
                inner[name] = ("poisson", vertices)
                continue
            if nested == "track":
                out.append((name, "vfloat", *trunc(15, ("exp", s))))
                inner[name] = ("poisson", vertices)
                continue
            kind = "full"
        if kind == "full":
            out.append((name, "float", *(("exp", s) if i % 2 else ("gaus", 0.0, s))))
        elif kind == "trunc":
            out.append((name, "float", *trunc(7, ("exp", s))))
        elif kind == "sparse":
            out.append((name, "float", *sparse(0.8, -999.0 if i % 2 else 0.0, ("exp", s))))
        elif kind == "count":
            out.append((name, "uint8", *grid(1.0, ("exp", 1 + i % 9))))
        elif kind == "int":
            out.append((name, "uint8", "int", 0, 3 + i % 12))
        elif kind == "u8":
            out.append((name, "uint8", "int", 0, 1 + i % 5))
        elif kind == "flag":
            out.append((name, "uint8", *sparse(0.95, 1, ("int", 0, 1))))
    if link:
        out.append((f"{stem}Link", "link", link))
    return out, inner


def egamma(name: str, interface: str, mult: tuple, n_dyn: int, stem: str = "DFCommon") -> Collection:
    attrs = {
        **kinematics(),
        "charge": ("choice", -1, 1),
        "author": ("choice", 1, 16),
        "OQ": ("const", 1446),
        "quality": ("int", 0, 3),
        "f1": _FRACTION,
        "f3": trunc(7, ("exp", 0.02)),
        "weta2": trunc(15, ("gaus", 0.01, 0.002)),
        "Reta": trunc(15, ("gaus", 0.95, 0.03)),
        "Rphi": trunc(15, ("gaus", 0.9, 0.05)),
        "Eratio": _FRACTION,
        "Rhad": sparse(0.3, 0.0, ("gaus", 0.0, 0.02)),
        "DeltaE": sparse(0.5, 0.0, ("exp", 200.0)),
        "topoetcone20": ("gaus", 500.0, 2000.0),
        "ptcone20": sparse(0.6, 0.0, ("exp", 2000.0)),
        "ptvarcone30": sparse(0.6, 0.0, ("exp", 2000.0)),
        "trackParticleLink": ("link", "InDetTrackParticles"),
        "caloClusterLink": ("link", "egammaClusters"),
    }
    dyn, inner = dyn_attributes(f"{stem}{name}Var", n_dyn, 1000.0)
    dyn += [
        ("ambiguityType", "uint8", "int", 0, 3),
        ("truthParticleLink", "link", "TruthParticles"),
        ("DFCommonElectronsLHLoose", "uint8", "int", 0, 1),
        ("truthType", "int", "choice", 2, 2, 2, 4, 17),
        ("truthOrigin", "int", "choice", 10, 10, 12, 13, 0),
    ]
    return Collection(name, interface, "ParticleAuxContainer_v1", mult, attrs, inner, dyn)


def tracks(name: str, mult: tuple, n_dyn: int = 30) -> Collection:
    attrs = {
        "d0": ("gaus", 0.0, 0.05),
        "z0": ("gaus", 0.0, 45.0),
        "phi": _PHI,
        "theta": ("uniform", 0.2, 2.9),
        "qOverP": ("gaus", 0.0, 0.0005),
        "vx": ("const", -0.5),
        "vy": ("const", -0.5),
        "vz": ("const", 0.0),
        "chiSquared": ("exp", 20.0),
        "numberDoF": grid(1.0, ("uniform", 5, 40)),
        "definingParametersCovMatrix": ("exp", 0.001),
        "numberOfPixelHits": ("int", 2, 6),
        "numberOfSCTHits": ("int", 6, 10),
        "numberOfTRTHits": ("int", 0, 40),
        "numberOfPixelHoles": sparse(0.9, 0, ("int", 1, 2)),
        "numberOfSCTHoles": sparse(0.9, 0, ("int", 1, 2)),
        "numberOfInnermostPixelLayerHits": ("choice", 0, 1, 1, 1, 2),
        "numberOfPixelSharedHits": sparse(0.9, 0, ("int", 1, 3)),
        "expectInnermostPixelLayerHit": sparse(0.95, 1, ("const", 0)),
        "particleHypothesis": ("const", 2),
        "trackFitter": ("const", 1),
        "patternRecoInfo": ("choice", 1, 2, 4, 8),
        "vertexLink": ("link", "PrimaryVertices"),
    }
    dyn, inner = dyn_attributes(f"{name}Summary", n_dyn, 1.0)
    inner["definingParametersCovMatrix"] = ("fixed", 15)
    dyn += [
        ("truthParticleLink", "link", "TruthParticles"),
        ("truthMatchProbability", "float", *trunc(7, _FRACTION)),
    ]
    return Collection(
        name, "TrackParticleContainer_v1", "TrackParticleAuxContainer_v1", mult, attrs, inner, dyn
    )


def clusters(
    name: str, mult: tuple, samplings: int, n_dyn: int = 16, size: tuple = ("const", 13)
) -> Collection:
    attrs = {k: PT for k in ("rawE", "calE", "altE")}
    attrs |= {k: _ETA for k in ("rawEta", "calEta", "altEta")} | {
        k: _PHI for k in ("rawPhi", "calPhi", "altPhi")
    }
    attrs |= {k: ("const", 0.0) for k in ("rawM", "calM", "altM")}  # topo-clusters are massless
    attrs |= {
        "eta0": grid(0.025, _ETA),
        "phi0": grid(0.0245437, _PHI),  # seed cell centres on the cell grid
        "time": trunc(15, ("gaus", 0.0, 2.0)),
        "secondR": ("exp", 500.0),
        "centerLambda": ("exp", 300.0),
        "centerMag": ("gaus", 2500.0, 800.0),
        "isolation": trunc(7, _FRACTION),
        "engFracEM": _FRACTION,
        # which calorimeter samplings hold cells of the cluster: a pattern that varies from cluster to cluster;
        # the clustering algorithm (topo-420, sliding window) is one per container
        "samplingPattern": ("bits", 0.15),
        "clusterSize": size,
        # energy and position per sampling, stored for the samplings of the pattern only
        "e_sampl": ("exp", 3000.0),
        "eta_sampl": trunc(15, _ETA),
        "phi_sampl": trunc(15, _PHI),
    }
    inner = {k: ("poisson", samplings) for k in ("e_sampl", "eta_sampl", "phi_sampl")}
    dyn, more = dyn_attributes("CaloMoment", n_dyn, 10.0)
    return Collection(
        name, "CaloClusterContainer_v1", "CaloClusterAuxContainer_v1", mult, attrs, inner | more, dyn
    )


# Energy of a jet in each of the 28 calorimeter samplings (PreSamplerB, EMB1-3, PreSamplerE, EME1-3, HEC0-3,
# TileBar0-2, TileGap1-3, TileExt0-2, FCAL0-2, MINIFCAL0-3): a jet reaches the barrel or the end-cap samplings
# depending on its eta, the gap and forward samplings rarely, the mini-FCAL (never built) never.
_SAMPLING_FILLED = (0.6,) * 4 + (0.4,) * 8 + (0.6,) * 3 + (0.2,) * 3 + (0.4,) * 3 + (0.1,) * 3 + (0.0,) * 4
_ENERGY_PER_SAMPLING = cycle(*(sparse(1 - f, 0.0, ("exp", 3000.0)) for f in _SAMPLING_FILLED))


def jets(name: str, mult: tuple, n_dyn: int, constituents: float, vertices: float = 24) -> Collection:
    attrs = kinematics() | {
        "JetConstitScaleMomentum_pt": PT,
        "JetEMScaleMomentum_pt": PT,
        "JetConstitScaleMomentum_eta": _ETA,
        "JetEMScaleMomentum_eta": _ETA,
        "JetConstitScaleMomentum_phi": _PHI,
        "JetEMScaleMomentum_phi": _PHI,
        "JetConstitScaleMomentum_m": _MASS,
        "JetEMScaleMomentum_m": _MASS,
        "Jvt": _FRACTION,
        "JvtRpt": trunc(15, _FRACTION),
        "EMFrac": _FRACTION,
        "HECFrac": sparse(0.5, 0.0, _FRACTION),
        "Width": ("exp", 0.1),
        "Timing": trunc(15, ("gaus", 0.0, 3.0)),
        "LArQuality": sparse(0.7, 0.0, _FRACTION),
        "NegativeE": sparse(0.8, 0.0, ("exp", 300.0)),
        "ActiveArea": grid(0.001, ("gaus", 0.5, 0.05)),
        "Charge": trunc(7, ("gaus", 0.0, 0.3)),
        "ConeTruthLabelID": ("choice", 0, 0, 0, 4, 5, 15),
        "HadronConeExclTruthLabelID": ("choice", 0, 0, 0, 4, 5),
        "PartonTruthLabelID": ("choice", 1, 2, 3, 4, 5, 21, 21),
        "SumPtTrkPt500": vertex_moment(("exp", 5000.0)),
        "TrackWidthPt1000": vertex_moment(("exp", 0.1), -1.0, 0.6),
        "EnergyPerSampling": _ENERGY_PER_SAMPLING,
        "NumTrkPt500": vertex_moment(("int", 1, 30)),
        "NumTrkPt1000": vertex_moment(("int", 1, 20), 0, 0.6),
        "constituentLinks": ("link", "CaloCalTopoClusters"),
        "GhostTrack": ("link", "InDetTrackParticles"),
    }
    inner = {
        "SumPtTrkPt500": ("poisson", vertices),
        "TrackWidthPt1000": ("poisson", vertices),
        "EnergyPerSampling": ("fixed", 28),
        "NumTrkPt500": ("poisson", vertices),
        "NumTrkPt1000": ("poisson", vertices),
        "constituentLinks": ("poisson", constituents),
        "GhostTrack": ("poisson", 8),
    }
    dyn, more = dyn_attributes("JetAttribute", n_dyn, 1.0, vertices, link="TruthParticles", nested="vertex")
    return Collection(name, "JetContainer_v1", "JetAuxContainer_v1", mult, attrs, inner | more, dyn)


def truth_particles(name: str, mult: tuple, copy: float = 0.3) -> Collection:
    # A generator record lists a particle again after each step that changes its status (the same momentum,
    # pdgId and classification), and neighbours in the record come from the same decay (runs of status and origin).
    k = _key(name) % 1_000_003

    def c(dist: tuple) -> tuple:
        return copies(copy, k, dist)

    attrs = {
        "px": c(("gaus", 0.0, 8000.0)),
        "py": c(("gaus", 0.0, 8000.0)),
        "pz": c(("gaus", 0.0, 40000.0)),
        "e": c(("exp", 40000.0)),
        "m": c(("choice", 0, 0, 0, 0.511, 105.66, 139.57, 139.57, 139.57, 493.68, 938.27)),
        "pdgId": c(
            ("choice", 22, 22, 22, 211, -211, 211, -211, 321, -321, 2212, -2212, 11, -11, 13, 130, 310, 2112)
        ),
        "status": runs(0.5, ("choice", 1, 1, 1, 2, 2, 1, 1, 1, 62, 71)),
        "barcode": walk(0, ("int", 1, 3)),
        "prodVtxLink": ("link", "TruthVertices"),
        "decayVtxLink": ("link", "TruthVertices"),
    }
    dyn = [
        ("polarizationTheta", "float", *sparse(0.97, 0.0, _FRACTION)),
        ("polarizationPhi", "float", *sparse(0.97, 0.0, _PHI)),
        ("classifierParticleType", "uint32", *c(runs(0.6, ("choice", 0, 0, 0, 17, 2, 6)))),
        ("classifierParticleOrigin", "uint32", *c(runs(0.6, ("choice", 0, 0, 0, 10, 12, 25)))),
        ("classifierParticleOutCome", "uint32", *sparse(0.9, 0, ("int", 1, 12))),
    ]
    return Collection(name, "TruthParticleContainer_v1", "TruthParticleAuxContainer_v1", mult, attrs, dyn=dyn)


def vertices(name: str, mult: tuple, tracks_per_vertex: float, n_dyn: int = 8) -> Collection:
    attrs = {
        "x": ("gaus", -0.5, 0.01),
        "y": ("gaus", -0.5, 0.01),
        "z": ("gaus", 0.0, 45.0),
        "chiSquared": ("exp", 30.0),
        "numberDoF": grid(1.0, ("uniform", 1, 100)),
        "covariance": ("exp", 0.001),
        "trackWeights": trunc(7, _FRACTION),
        "vertexType": ("choice", 1, 3, 3, 3),
        "trackParticleLinks": ("link", "InDetTrackParticles"),
    }
    inner = {
        "covariance": ("fixed", 6),
        "trackWeights": ("poisson", tracks_per_vertex),
        "trackParticleLinks": ("poisson", tracks_per_vertex),
    }
    dyn, more = dyn_attributes(f"{name}Decor", n_dyn, 1.0, tracks_per_vertex, nested="track")
    return Collection(name, "VertexContainer_v1", "VertexAuxContainer_v1", mult, attrs, inner | more, dyn)


def truth_vertices(name: str, mult: tuple, particles: str = "TruthParticles") -> Collection:
    # Generator vertices sit at the event's primary vertex; only the decays of long-lived particles are displaced.
    attrs = {
        k: ("either", 0.6, *per_event(("gaus", 0.0, s)), "gaus", 0.0, d)
        for k, s, d in (("x", 0.01, 20.0), ("y", 0.01, 20.0), ("z", 45.0, 200.0), ("t", 0.2, 1.0))
    }
    attrs |= {
        "id": sparse(0.9, 0, pick(1, 2)),
        "barcode": walk(0, ("int", -3, -1)),
        "incomingParticleLinks": ("link", particles),
        "outgoingParticleLinks": ("link", particles),
    }
    inner = {"incomingParticleLinks": ("fixed", 1), "outgoingParticleLinks": ("poisson", 2)}
    return Collection(name, "TruthVertexContainer_v1", "TruthVertexAuxContainer_v1", mult, attrs, inner)


# The kinds of TRUTH3's collections (its recipe, in recipes/formats.yaml, says what they hold): the small truth
# collections of the truth derivation framework, each of one kind of particle, and truth jets.
_JET_RECO_MEMBERS = (
    "JetConstitScaleMomentum_pt",
    "JetConstitScaleMomentum_eta",
    "JetConstitScaleMomentum_phi",
    "JetConstitScaleMomentum_m",
    "JetEMScaleMomentum_pt",
    "JetEMScaleMomentum_eta",
    "JetEMScaleMomentum_phi",
    "JetEMScaleMomentum_m",
    "Jvt",
    "JvtRpt",
    "EMFrac",
    "HECFrac",
    "Width",
    "Timing",
    "LArQuality",
    "NegativeE",
    "ActiveArea",
    "Charge",
)
_JET_NESTED_MEMBERS = (
    "SumPtTrkPt500",
    "TrackWidthPt1000",
    "EnergyPerSampling",
    "NumTrkPt500",
    "NumTrkPt1000",
    "GhostTrack",
)


def truth_collection(
    name: str,
    mult: tuple,
    pdg: tuple,
    status: tuple,
    mass: tuple,
    ctype: tuple,
    corigin: tuple,
    extra: tuple = (),
) -> Collection:
    chain = "TruthBosonsWithDecayParticles"
    attrs = {
        "px": ("gaus", 0.0, 30000.0),
        "py": ("gaus", 0.0, 30000.0),
        "pz": ("gaus", 0.0, 90000.0),
        "e": ("exp", 100000.0),
        "m": mass,
        "pdgId": pdg,
        "status": status,
        "barcode": ("int", 1, 20000),
        "prodVtxLink": ("link", "TruthBosonsWithDecayVertices"),
        "decayVtxLink": ("link", "TruthBosonsWithDecayVertices"),
    }
    dyn = [
        ("classifierParticleType", "uint32", *ctype),
        ("classifierParticleOrigin", "uint32", *corigin),
        ("classifierParticleOutCome", "uint32", *sparse(0.8, 1, pick(2, 3, 12))),
        ("parentLinks", "vlink", chain),
        ("childLinks", "vlink", chain),
        *extra,
    ]
    inner = {"parentLinks": ("fixed", 1), "childLinks": ("poisson", 1.0)}
    return Collection(
        name, "TruthParticleContainer_v1", "TruthParticleAuxContainer_v1", mult, attrs, inner, dyn
    )


def truth_jets(name: str, mult: tuple, constituents: float, extra: tuple = ()) -> Collection:
    """Truth jets: kinematics, flavour labels and constituent links; the reco-only members of the jet aux store
    are left at zero, the per-vertex and per-sampling vectors empty."""
    attrs = kinematics() | {k: ("const", 0.0) for k in _JET_RECO_MEMBERS}
    attrs |= {
        "ConeTruthLabelID": ("choice", 0, 0, 0, 0, 5, 5, 4, 15),
        "HadronConeExclTruthLabelID": ("choice", 0, 0, 0, 0, 5, 5, 4),
        "PartonTruthLabelID": ("choice", 21, 21, 1, 2, 3, 4, 5, -1),
        # into the full truth record, which TRUTH3 does not keep: the key of TruthParticles, indices all over it
        "constituentLinks": ("link", "TruthParticles", "int", 0, 1500),
    }
    inner = {k: ("fixed", 0) for k in _JET_NESTED_MEMBERS} | {"constituentLinks": ("poisson", constituents)}
    dyn = [
        ("TrueFlavor", "int", "choice", 21, 21, 1, 2, 3, 4, 5),
        ("GhostBHadronsFinalCount", "int", *sparse(0.8, 0, pick(1, 2))),
        ("GhostCHadronsFinalCount", "int", *sparse(0.8, 0, pick(1, 2))),
        *extra,
    ]
    return Collection(name, "JetContainer_v1", "JetAuxContainer_v1", mult, attrs, inner, dyn)


def event_info(weights: int) -> Collection:
    attrs = {
        "runNumber": ("const", 284500),
        "mcChannelNumber": ("const", 410470),
        "eventNumber": ("seq",),
        "mcEventNumber": ("seq",),
        "lumiBlock": ("int", 1, 800),
        "bcid": ("int", 1, 3564),
        "eventTypeBitmask": ("const", 1),
        "averageInteractionsPerCrossing": grid(0.5, ("gaus", 34.0, 10.0)),
        "actualInteractionsPerCrossing": grid(1.0, ("gaus", 34.0, 10.0)),
        "mcEventWeights": ("gaus", 1.0, 0.05),
    }
    return Collection(
        "EventInfo",
        "EventInfo_v1",
        "EventInfoAuxContainer_v1",
        ("fixed", 1),
        attrs,
        {"mcEventWeights": ("fixed", weights)},
    )


def trigger(words: int, navigation: int = 0) -> Collection:
    attrs = {"smk": ("const", 2232), "l1psk": ("const", 14), "hltpsk": ("const", 9)}
    attrs |= {k: ("bits", 0.01) for k in ("tav", "tbp", "tap", "lvl2PassedPhysics", "efPassedPhysics")}
    inner = {k: ("fixed", words) for k in ("tav", "tbp", "tap", "lvl2PassedPhysics", "efPassedPhysics")}
    dyn = []
    if navigation:
        # Serialized trigger navigation: one record per trigger element (its hashed id from the menu, a count,
        # the hashed type of a feature, a packed sub-type index) and the feature's begin/end indices into the
        # holders, which increase through the event.
        menu = [_key(f"HLT_TE_{k}") for k in range(48)]
        record = (
            pick(*menu[:8], *menu),
            ("int", 0, 3),
            pick(*(_key(f"HLTNav_{k}") for k in range(11))),
            ("int", 0, 15),
            walk(0, ("int", 1, 3)),
            walk(2, ("int", 1, 3)),
        )
        dyn = [("serializedNavigation", "vuint32", *cycle(*record))]
        inner["serializedNavigation"] = ("gaus", navigation, navigation / 4)
    return Collection(
        "xTrigDecision", "TrigDecision_v1", "TrigDecisionAuxInfo_v1", ("fixed", 1), attrs, inner, dyn
    )


def met(name: str, terms: int = 9) -> Collection:
    return Collection(
        name,
        "MissingETContainer_v1",
        "MissingETAuxContainer_v1",
        ("fixed", terms),
        {
            "mpx": ("gaus", 0.0, 30000.0),
            "mpy": ("gaus", 0.0, 30000.0),
            "sumet": ("exp", 400000.0),
            "source": ("seq",),
        },
    )


def btagging(name: str, mult: tuple, n_dyn: int = 60, tracks_per_jet: float = 6) -> Collection:
    attrs = {
        k: _FRACTION
        for k in (
            "MV2c10_discriminant",
            "DL1_pu",
            "DL1_pc",
            "DL1_pb",
            "IP2D_pu",
            "IP2D_pb",
            "IP3D_pu",
            "IP3D_pb",
        )
    }
    attrs |= {
        "SV1_masssvx": sparse(0.7, -1.0, ("exp", 2000.0)),
        "SV1_efracsvx": sparse(0.7, -1.0, _FRACTION),
        "JetFitter_mass": sparse(0.6, -1.0, ("exp", 2000.0)),
        "JetFitter_efracSV": sparse(0.6, -1.0, _FRACTION),
        "SV1_NGTinSvx": sparse(0.7, -1, ("int", 2, 8)),
        "JetFitter_nVTX": sparse(0.6, -1, ("int", 1, 3)),
        "BTagTrackToJetAssociator": ("link", "InDetTrackParticles"),
    }
    dyn, inner = dyn_attributes(f"{name}Tagger", n_dyn, 1.0, tracks_per_jet, nested="track")
    per_track = [
        (f"{tagger}_{var}OfTracks", "vfloat", *dist)
        for tagger in ("IP2D", "IP3D")
        for var, dist in (
            ("valD0wrtPV", ("gaus", 0.0, 0.05)),
            ("sigD0wrtPV", ("gaus", 0.0, 3.0)),
            ("valZ0wrtPV", ("gaus", 0.0, 0.2)),
            ("sigZ0wrtPV", ("gaus", 0.0, 3.0)),
            ("weightBofTracks", trunc(7, ("exp", 1.0))),
            ("weightUofTracks", trunc(7, ("exp", 1.0))),
        )
    ]
    per_track += [
        (f"{tagger}_gradeOfTracks", "vint", "choice", 0, 0, 0, 1, 2, 9, 10) for tagger in ("IP2D", "IP3D")
    ]
    per_track += [
        (f"{tagger}_flagFromV0ofTracks", "vint", *sparse(0.97, 0, ("const", 1)))
        for tagger in ("IP2D", "IP3D")
    ]
    per_track += [
        (f"{tagger}_TrackParticleLinks", "vlink", "InDetTrackParticles") for tagger in ("IP2D", "IP3D")
    ]
    dyn += per_track
    inner |= {spec[0]: ("poisson", tracks_per_jet) for spec in per_track}
    inner["BTagTrackToJetAssociator"] = ("poisson", tracks_per_jet)
    return Collection(name, "BTaggingContainer_v1", "BTaggingAuxContainer_v1", mult, attrs, inner, dyn)


def _key(text: str) -> int:
    """A stable 32-bit hashed key (FNV-1a, as the writer hashes container names)."""
    h = 2166136261
    for c in text.encode():
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


# The collection kinds a recipe of formats.yaml names, by name.
_KINDS_OF_COLLECTION = {
    f.__name__: f
    for f in (
        event_info,
        trigger,
        tracks,
        clusters,
        truth_particles,
        truth_vertices,
        vertices,
        jets,
        btagging,
        egamma,
        met,
        truth_collection,
        truth_jets,
    )
}


@functools.cache
def _builtin_recipes() -> dict[str, list[dict[str, dict]]]:
    text = resources.files("rootparams").joinpath("recipes/formats.yaml").read_text()
    return yaml.safe_load(text)["formats"]


def _as_tuples(value):
    """A value of formats.yaml as the kinds take it: its lists as tuples (distributions, dynamic attributes)."""
    return tuple(_as_tuples(v) for v in value) if isinstance(value, list) else value


def recipe(fmt: str) -> list[Collection]:
    """The containers of one event of format ``fmt``: its entries in recipes/formats.yaml, each a kind of collection
    of this module with its arguments."""
    recipes = _builtin_recipes()
    if fmt not in recipes:
        raise ValueError(f"unknown format {fmt!r}; known formats are {', '.join(KNOWN_FORMATS)}")
    collections = []
    for entry in recipes[fmt]:
        ((kind, args),) = entry.items()
        collections.append(_KINDS_OF_COLLECTION[kind](**{k: _as_tuples(v) for k, v in args.items()}))
    return collections


def skimmed(containers: list[Collection], share: float = _SKIM_EMPTY_SHARE) -> list[Collection]:
    """The same containers with every physics container empty in ``share`` of the events (writer multiplicity
    ``empty``): a skim that keeps the event record (EventInfo, trigger, MET) and drops most objects."""
    kept = ("EventInfo", "TrigDecision", "MET_")
    return [
        c
        if c.name.startswith(kept)
        else Collection(
            c.name, c.interface, c.aux, ("empty", share, *c.multiplicity), c.attrs, c.inner, c.dyn
        )
        for c in containers
    ]


def eventsize_name(event_bytes: int) -> str:
    return f"{EVENTSIZE_PREFIX}{int(event_bytes)}"


def event_size_bytes(fmt: str) -> int:
    """N of eventsize_<N>: the format's uncompressed bytes per event. ValueError for any other name, or an N out
    of range."""
    if not fmt.startswith(EVENTSIZE_PREFIX) or not fmt[len(EVENTSIZE_PREFIX) :].isdigit():
        raise ValueError(f"{fmt!r} is not an event-size format (eventsize_<bytes per event>)")
    n = int(fmt[len(EVENTSIZE_PREFIX) :])
    lo, hi = _EVENTSIZE_RANGE
    if not lo <= n <= hi:
        raise ValueError(f"{fmt!r}: event-size formats have {lo} to {hi} bytes per event")
    return n


def eventsize_elements(event_bytes: int) -> int:
    """Elements of the four float columns of an eventsize_<N> event: a 4-byte counter + 16 bytes per element."""
    return max(1, round((event_bytes - 4) / 16))


def eventsize_written_bytes(fmt: str) -> int:
    """The uncompressed bytes an eventsize_<N> event really holds: the counter and four floats per element
    (36 for N = 40)."""
    return 4 + 16 * eventsize_elements(event_size_bytes(fmt))


def eventsize_events(event_bytes: int, volume_bytes: int) -> int:
    """Events of an event-size file that hold ``volume_bytes`` uncompressed (at least 2, a read's minimum)."""
    return max(2, volume_bytes // (4 + 16 * eventsize_elements(event_bytes)))


def is_builtin(fmt: str) -> bool:
    if fmt in KNOWN_FORMATS:
        return True
    try:
        event_size_bytes(fmt)
    except ValueError:
        return False
    return True


def is_flat_format(fmt: str) -> bool:
    return fmt in FLAT_FORMATS or fmt.startswith(EVENTSIZE_PREFIX)


def base_format(fmt: str) -> str:
    """The built-in format whose recipe ``fmt`` writes: itself, or the one it is a longer read of."""
    return SAME_RECIPE.get(fmt, fmt)


def is_longer_read(fmt: str) -> bool:
    """Whether ``fmt`` is another built-in format's recipe under a name of its own (SAME_RECIPE: xaod_long), measured
    only in the scans that need more of its events. Such a format has its scans' figures and recommendation topics,
    but no Table 1, Pareto front or cost decision of its own: its points are one file at a few read settings, and
    its base format's Table 1 and decision are the recipe's."""
    return fmt in SAME_RECIPE


def eventsize_recipe(event_bytes: int) -> str:
    """A flat tree of one collection ``Hit`` (counter ``nHit``) with four full-precision float columns and a fixed
    element count: ~``event_bytes`` uncompressed bytes per event, the same data at every size."""
    n = eventsize_elements(event_bytes)
    lines = ["layout flat", f"collection Hit nHit fixed {n}"]
    lines += [_join("column", "Hit", f"Hit_{name}", "float", *dist) for name, dist in kinematics().items()]
    return "\n".join(lines)


def recipe_text(fmt: str) -> str:
    """The writer's recipe of a built-in format."""
    head = f"# rootparams recipe for the {fmt} format (generated by rootparams.study.formats; do not edit)"
    if fmt == "nanoaod":  # calibrated on the real CMS NanoAOD sample and committed (src/rootparams/recipes)
        return resources.files("rootparams").joinpath("recipes/nanoaod.recipe").read_text()
    if fmt.startswith(EVENTSIZE_PREFIX):
        return f"{head}\n{eventsize_recipe(event_size_bytes(fmt))}\n"
    containers = skimmed(recipe("susy5")) if fmt == "susy5_skim" else recipe(base_format(fmt))
    lines = [head]
    for container in containers:
        lines += container.lines()
    return "\n".join(lines) + "\n"
