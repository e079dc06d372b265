"""Content recipes of the synthetic formats: which containers an event holds, how many elements, and how
their values are distributed. The C++ writer executes a recipe; this module is the one place that says
what an xAOD-, TOPQ1-, SUSY5- or TRUTH3-like event contains.

The habits that make synthetic data behave like real data under compression (shared/notes/formats.md):
physical distributions (exponential pT, central eta, uniform phi, discrete pdgId), full float mantissas,
element links with a constant hashed key per target container and small increasing indices, trigger words
that are nearly constant from event to event, long ATLAS-style branch names.

Target sizes per event at ZLIB-5 (the paper): xAOD ~1 MB, TOPQ1 ~170 kB, SUSY5 ~60 kB, TRUTH3 ~5 kB.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NS = "xAODlike::"
KNOWN_FORMATS = ("xaod", "topq1", "susy5", "truth3")

# Value distributions, as the writer understands them.
PT = ("exp", 25000.0)  # MeV
ETA = ("gaus", 0.0, 1.6)
PHI = ("uniform", -3.14159265, 3.14159265)
MASS = ("exp", 5000.0)
SMALL = ("gaus", 0.0, 1.0)
FRACTION = ("uniform", 0.0, 1.0)


@dataclass
class Container:
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
    return {"pt": PT, "eta": ETA, "phi": PHI, "m": MASS}


def egamma(name: str, interface: str, mult: tuple, n_dyn: int) -> Container:
    attrs = {**kinematics(), "charge": ("choice", -1, 1), "author": ("choice", 1, 16),
             "OQ": ("const", 1446), "quality": ("int", 0, 3),
             "trackParticleLink": ("link", "InDetTrackParticles"), "caloClusterLink": ("link", "egammaClusters")}  # fmt: skip
    dyn = [(f"iso_var{i}", "float", "exp", 1500.0) for i in range(n_dyn)]
    dyn += [("ambiguityType", "uint8", "int", 0, 3), ("truthParticleLink", "link", "TruthParticles"),
            ("DFCommonElectronsLHLoose", "uint8", "int", 0, 1)]  # fmt: skip
    return Container(name, interface, "ParticleAuxContainer_v1", mult, attrs, dyn=dyn)


def tracks(name: str, mult: tuple) -> Container:
    attrs = {"d0": ("gaus", 0.0, 0.05), "z0": ("gaus", 0.0, 45.0), "phi": PHI, "theta": ("uniform", 0.2, 2.9),
             "qOverP": ("gaus", 0.0, 0.0005), "vx": ("gaus", 0.0, 0.01), "vy": ("gaus", 0.0, 0.01),
             "vz": ("gaus", 0.0, 45.0), "chiSquared": ("exp", 20.0), "numberDoF": ("int", 5, 40),
             "definingParametersCovMatrix": ("exp", 0.001), "numberOfPixelHits": ("int", 2, 6),
             "numberOfSCTHits": ("int", 6, 10), "numberOfTRTHits": ("int", 0, 40), "particleHypothesis": ("const", 2),
             "trackFitter": ("const", 1), "patternRecoInfo": ("choice", 1, 2, 4, 8),
             "vertexLink": ("link", "PrimaryVertices")}  # fmt: skip
    return Container(name, "TrackParticleContainer_v1", "TrackParticleAuxContainer_v1", mult, attrs,
                     inner={"definingParametersCovMatrix": ("fixed", 15)})  # fmt: skip


def clusters(name: str, mult: tuple, samplings: int) -> Container:
    attrs = {k: PT for k in ("rawE", "calE", "altE")}
    attrs |= {k: ETA for k in ("rawEta", "calEta", "altEta", "eta0")} | {
        k: PHI for k in ("rawPhi", "calPhi", "altPhi", "phi0")
    }
    attrs |= {"time": ("gaus", 0.0, 2.0), "samplingPattern": ("choice", 15, 255, 3855), "clusterSize": ("choice", 1, 2, 3),
              "e_sampl": ("exp", 3000.0), "eta_sampl": ETA, "phi_sampl": PHI}  # fmt: skip
    inner = {k: ("poisson", samplings) for k in ("e_sampl", "eta_sampl", "phi_sampl")}
    return Container(name, "CaloClusterContainer_v1", "CaloClusterAuxContainer_v1", mult, attrs, inner)


def jets(name: str, mult: tuple, n_dyn: int, constituents: float) -> Container:
    attrs = kinematics() | {
        "JetConstitScaleMomentum_pt": PT, "JetEMScaleMomentum_pt": PT, "JetConstitScaleMomentum_eta": ETA,
        "JetEMScaleMomentum_eta": ETA, "JetConstitScaleMomentum_phi": PHI, "JetEMScaleMomentum_phi": PHI,
        "Jvt": FRACTION, "EMFrac": FRACTION, "HECFrac": FRACTION, "Width": ("exp", 0.1),
        "ConeTruthLabelID": ("choice", 0, 4, 5, 15), "HadronConeExclTruthLabelID": ("choice", 0, 4, 5),
        "PartonTruthLabelID": ("choice", 1, 2, 3, 4, 5, 21), "SumPtTrkPt500": ("exp", 5000.0),
        "TrackWidthPt1000": ("exp", 0.1), "EnergyPerSampling": ("exp", 3000.0), "NumTrkPt500": ("int", 0, 30),
        "NumTrkPt1000": ("int", 0, 20), "constituentLinks": ("link", "CaloCalTopoClusters"),
        "GhostTrack": ("link", "InDetTrackParticles"),
    }  # fmt: skip
    inner = {"SumPtTrkPt500": ("poisson", 24), "TrackWidthPt1000": ("poisson", 24), "EnergyPerSampling": ("fixed", 28),
             "NumTrkPt500": ("poisson", 24), "NumTrkPt1000": ("poisson", 24),
             "constituentLinks": ("poisson", constituents), "GhostTrack": ("poisson", 8)}  # fmt: skip
    dyn = [(f"JetAttribute{i:03d}", "float", "gaus", 0.0, 1.0) for i in range(n_dyn)]
    return Container(name, "JetContainer_v1", "JetAuxContainer_v1", mult, attrs, inner, dyn)


def truth_particles(name: str, mult: tuple) -> Container:
    attrs = {"px": ("gaus", 0.0, 8000.0), "py": ("gaus", 0.0, 8000.0), "pz": ("gaus", 0.0, 40000.0), "e": ("exp", 40000.0),
             "m": ("choice", 0, 0.511, 105.66, 139.57, 493.68, 938.27), "pdgId": ("choice", 22, 211, -211, 321, 2212, 11, 13),
             "status": ("choice", 1, 1, 1, 2), "barcode": ("seq",),
             "prodVtxLink": ("link", "TruthVertices"), "decayVtxLink": ("link", "TruthVertices")}  # fmt: skip
    return Container(name, "TruthParticleContainer_v1", "TruthParticleAuxContainer_v1", mult, attrs)


def vertices(name: str, mult: tuple, tracks_per_vertex: float) -> Container:
    attrs = {"x": ("gaus", -0.5, 0.01), "y": ("gaus", -0.5, 0.01), "z": ("gaus", 0.0, 45.0), "chiSquared": ("exp", 30.0),
             "numberDoF": ("int", 1, 100), "covariance": ("exp", 0.001), "trackWeights": FRACTION,
             "vertexType": ("choice", 1, 3, 3, 3), "trackParticleLinks": ("link", "InDetTrackParticles")}  # fmt: skip
    inner = {"covariance": ("fixed", 6), "trackWeights": ("poisson", tracks_per_vertex),
             "trackParticleLinks": ("poisson", tracks_per_vertex)}  # fmt: skip
    return Container(name, "VertexContainer_v1", "VertexAuxContainer_v1", mult, attrs, inner)


def truth_vertices(name: str, mult: tuple) -> Container:
    attrs = {"x": ("gaus", 0.0, 0.02), "y": ("gaus", 0.0, 0.02), "z": ("gaus", 0.0, 45.0), "t": ("gaus", 0.0, 0.2),
             "id": ("choice", 0, 1, 2), "barcode": ("seq",), "incomingParticleLinks": ("link", "TruthParticles"),
             "outgoingParticleLinks": ("link", "TruthParticles")}  # fmt: skip
    inner = {"incomingParticleLinks": ("fixed", 1), "outgoingParticleLinks": ("poisson", 2)}
    return Container(name, "TruthVertexContainer_v1", "TruthVertexAuxContainer_v1", mult, attrs, inner)


def event_info(weights: int) -> Container:
    attrs = {"runNumber": ("const", 410470), "mcChannelNumber": ("const", 410470), "eventNumber": ("seq",),
             "lumiBlock": ("int", 1, 800), "bcid": ("int", 1, 3564), "eventTypeBitmask": ("const", 1),
             "averageInteractionsPerCrossing": ("gaus", 34.0, 10.0), "mcEventWeights": ("gaus", 1.0, 0.05)}  # fmt: skip
    return Container("EventInfo", "EventInfo_v1", "EventInfoAuxContainer_v1", ("fixed", 1), attrs,
                     {"mcEventWeights": ("fixed", weights)})  # fmt: skip


def trigger(words: int) -> Container:
    attrs = {"smk": ("const", 2232), "l1psk": ("const", 14), "hltpsk": ("const", 9)}
    attrs |= {k: ("bits", 0.01) for k in ("tav", "tbp", "tap", "lvl2PassedPhysics", "efPassedPhysics")}
    inner = {k: ("fixed", words) for k in ("tav", "tbp", "tap", "lvl2PassedPhysics", "efPassedPhysics")}
    return Container("xTrigDecision", "TrigDecision_v1", "TrigDecisionAuxInfo_v1", ("fixed", 1), attrs, inner)


def met(name: str) -> Container:
    return Container(name, "MissingETContainer_v1", "MissingETAuxContainer_v1", ("fixed", 9),
                     {"mpx": ("gaus", 0.0, 30000.0), "mpy": ("gaus", 0.0, 30000.0), "sumet": ("exp", 400000.0),
                      "source": ("seq",)})  # fmt: skip


def btagging(name: str, mult: tuple) -> Container:
    return Container(name, "BTaggingContainer_v1", "BTaggingAuxContainer_v1", mult,
                     {"BTagTrackToJetAssociator": ("link", "InDetTrackParticles")},
                     {"BTagTrackToJetAssociator": ("poisson", 6)})  # fmt: skip


def recipe(fmt: str) -> list[Container]:
    """The containers of one event of format ``fmt``."""
    if fmt == "xaod":
        return [
            event_info(250), trigger(64),
            tracks("InDetTrackParticles", ("gaus", 700, 200)), tracks("GSFTrackParticles", ("poisson", 13)),
            clusters("CaloCalTopoClusters", ("gaus", 1100, 300), 6), clusters("egammaClusters", ("poisson", 8), 4),
            truth_particles("TruthParticles", ("gaus", 1800, 650)), truth_vertices("TruthVertices", ("gaus", 700, 250)),
            vertices("PrimaryVertices", ("gaus", 24, 7), 25),
            jets("AntiKt4EMTopoJets", ("gaus", 25, 6), 90, 12), jets("AntiKt4LCTopoJets", ("gaus", 25, 6), 90, 12),
            jets("AntiKt4EMPFlowJets", ("gaus", 25, 6), 90, 20), btagging("BTagging_AntiKt4EMTopo", ("gaus", 25, 6)),
            egamma("Electrons", "ElectronContainer_v1", ("gaus", 3, 1.5), 20),
            egamma("Photons", "PhotonContainer_v1", ("gaus", 4, 2), 20),
            egamma("Muons", "MuonContainer_v1", ("gaus", 3, 1.5), 20),
            egamma("TauJets", "TauJetContainer_v1", ("gaus", 4, 2), 30),
            met("MET_Reference_AntiKt4EMTopo"),
        ]  # fmt: skip
    if fmt == "topq1":
        return [
            event_info(250), trigger(32),
            tracks("InDetTrackParticles", ("gaus", 120, 40)), tracks("GSFTrackParticles", ("poisson", 13)),
            clusters("egammaClusters", ("poisson", 6), 4),
            truth_particles("TruthParticles", ("gaus", 120, 40)), truth_vertices("TruthVertices", ("gaus", 50, 15)),
            vertices("PrimaryVertices", ("gaus", 24, 7), 6),
            jets("AntiKt4EMTopoJets", ("gaus", 14, 4), 60, 10), jets("AntiKt10LCTopoTrimmedPtFrac5SmallR20Jets", ("gaus", 4, 2), 60, 30),
            btagging("BTagging_AntiKt4EMTopo", ("gaus", 14, 4)),
            egamma("Electrons", "ElectronContainer_v1", ("gaus", 2, 1), 20),
            egamma("Photons", "PhotonContainer_v1", ("gaus", 2, 1), 15),
            egamma("Muons", "MuonContainer_v1", ("gaus", 2, 1), 20),
            met("MET_Reference_AntiKt4EMTopo"),
        ]  # fmt: skip
    if fmt == "susy5":
        return [
            event_info(250), trigger(16),
            tracks("InDetTrackParticles", ("gaus", 30, 10)),
            truth_particles("TruthParticles", ("gaus", 40, 10)),
            vertices("PrimaryVertices", ("gaus", 24, 7), 2),
            jets("AntiKt4EMTopoJets", ("gaus", 10, 3), 30, 0), jets("AntiKt4EMPFlowJets", ("gaus", 10, 3), 30, 0),
            btagging("BTagging_AntiKt4EMTopo", ("gaus", 10, 3)),
            egamma("Electrons", "ElectronContainer_v1", ("gaus", 1.5, 1), 10),
            egamma("Photons", "PhotonContainer_v1", ("gaus", 1.5, 1), 8),
            egamma("Muons", "MuonContainer_v1", ("gaus", 1.5, 1), 10),
            egamma("TauJets", "TauJetContainer_v1", ("gaus", 1.5, 1), 10),
            met("MET_Reference_AntiKt4EMTopo"),
        ]  # fmt: skip
    if fmt == "truth3":
        return [
            event_info(20),
            truth_particles("TruthParticles", ("gaus", 45, 12)),
            truth_vertices("TruthVertices", ("gaus", 15, 5)),
            Container("AntiKt4TruthDressedWZJets", "JetContainer_v1", "JetAuxContainer_v1", ("gaus", 6, 2),
                      kinematics() | {"HadronConeExclTruthLabelID": ("choice", 0, 4, 5)},
                      {k: ("fixed", 0) for k in ("SumPtTrkPt500", "TrackWidthPt1000", "EnergyPerSampling",
                                                 "NumTrkPt500", "NumTrkPt1000", "constituentLinks", "GhostTrack")}),
            met("MET_Truth"),
        ]  # fmt: skip
    raise ValueError(f"unknown format {fmt!r}; known formats are {', '.join(KNOWN_FORMATS)}")


def recipe_text(fmt: str) -> str:
    lines = [f"# rootparams recipe for the {fmt} format (generated by rootparams.formats; do not edit)"]
    for container in recipe(fmt):
        lines += container.lines()
    return "\n".join(lines) + "\n"
