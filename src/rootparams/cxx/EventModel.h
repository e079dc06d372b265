// xAOD-like persistent event model with real ROOT I/O dictionaries (built by ACLiC).
//
// It mirrors the branch kinds of an ATLAS CollectionTree, not ATLAS's C++ API:
//   <Name>           interface object, small (DataVector<xAOD::X_v1> in a real file)
//   <Name>Aux.       static aux store: one class with many per-element std::vector members, so that the
//                    split level really changes the on-disk layout (one branch at split 0, one per member
//                    at split >= 1)
//   <Name>AuxDyn.<a> dynamic aux attributes, one std::vector<T> branch each (created by the writer)
// Containers whose interface class derives from IParticleContainer are what the paper's reader selects.
#pragma once

#include <cstdint>
#include <vector>

namespace xAODlike {

// Element link as ATLAS persistifies it: a hashed key of the target container and an index into it.
struct ElementLink_v1 {
   uint32_t m_persKey = 0;
   uint32_t m_persIndex = 0;
};

// Interface objects: they carry only the element count of the event, as a DataVector of objects whose
// data live in the aux store does.
class AuxVectorBase {
public:
   virtual ~AuxVectorBase() = default;
   uint32_t m_size = 0;
};
class IParticleContainer : public AuxVectorBase {};

class ElectronContainer_v1 : public IParticleContainer {};
class PhotonContainer_v1 : public IParticleContainer {};
class MuonContainer_v1 : public IParticleContainer {};
class TauJetContainer_v1 : public IParticleContainer {};
class JetContainer_v1 : public IParticleContainer {};
class TrackParticleContainer_v1 : public IParticleContainer {};
class CaloClusterContainer_v1 : public IParticleContainer {};
class TruthParticleContainer_v1 : public IParticleContainer {};
class VertexContainer_v1 : public AuxVectorBase {};
class TruthVertexContainer_v1 : public AuxVectorBase {};
class MissingETContainer_v1 : public AuxVectorBase {};
class BTaggingContainer_v1 : public AuxVectorBase {};
class EventInfo_v1 : public AuxVectorBase {};
class TrigDecision_v1 : public AuxVectorBase {};

// Static aux stores. Members are per-element columns; the writer fills them through ROOT's reflection
// (TClass data members), so adding a member here needs no writer change.
class AuxContainerBase {
public:
   virtual ~AuxContainerBase() = default;
};

class ParticleAuxContainer_v1 : public AuxContainerBase {  // electrons, photons, muons, taus
public:
   std::vector<float> pt, eta, phi, m, charge;
   std::vector<uint16_t> author;
   std::vector<uint32_t> OQ;
   std::vector<uint8_t> quality;
   std::vector<float> f1, f3, weta2, Reta, Rphi, Eratio, Rhad, DeltaE, topoetcone20, ptcone20, ptvarcone30;
   std::vector<ElementLink_v1> trackParticleLink, caloClusterLink;
};

class JetAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<float> pt, eta, phi, m;
   std::vector<float> JetConstitScaleMomentum_pt, JetConstitScaleMomentum_eta, JetConstitScaleMomentum_phi,
      JetConstitScaleMomentum_m, JetEMScaleMomentum_pt, JetEMScaleMomentum_eta, JetEMScaleMomentum_phi,
      JetEMScaleMomentum_m;
   std::vector<float> Jvt, JvtRpt, EMFrac, HECFrac, Width, Timing, LArQuality, NegativeE, ActiveArea, Charge;
   std::vector<int> ConeTruthLabelID, HadronConeExclTruthLabelID, PartonTruthLabelID;
   std::vector<std::vector<float>> SumPtTrkPt500, TrackWidthPt1000, EnergyPerSampling;
   std::vector<std::vector<int>> NumTrkPt500, NumTrkPt1000;
   std::vector<std::vector<ElementLink_v1>> constituentLinks, GhostTrack;
};

class TrackParticleAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<float> d0, z0, phi, theta, qOverP, vx, vy, vz, chiSquared, numberDoF;
   std::vector<std::vector<float>> definingParametersCovMatrix;
   std::vector<uint8_t> numberOfPixelHits, numberOfSCTHits, numberOfTRTHits, numberOfPixelHoles,
      numberOfSCTHoles, numberOfInnermostPixelLayerHits, numberOfPixelSharedHits, expectInnermostPixelLayerHit;
   std::vector<uint8_t> particleHypothesis, trackFitter;
   std::vector<uint64_t> patternRecoInfo;
   std::vector<ElementLink_v1> vertexLink;
};

class CaloClusterAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<float> rawE, rawEta, rawPhi, rawM, calE, calEta, calPhi, calM, altE, altEta, altPhi, altM, time,
      eta0, phi0, secondR, centerLambda, centerMag, isolation, engFracEM;
   std::vector<uint32_t> samplingPattern, clusterSize;
   std::vector<std::vector<float>> e_sampl, eta_sampl, phi_sampl;
};

class TruthParticleAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<float> px, py, pz, e, m;
   std::vector<int> pdgId, status, barcode;
   std::vector<ElementLink_v1> prodVtxLink, decayVtxLink;
};

class VertexAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<float> x, y, z, chiSquared, numberDoF;
   std::vector<std::vector<float>> covariance, trackWeights;
   std::vector<uint8_t> vertexType;
   std::vector<std::vector<ElementLink_v1>> trackParticleLinks;
};

class TruthVertexAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<float> x, y, z, t;
   std::vector<int> id, barcode;
   std::vector<std::vector<ElementLink_v1>> incomingParticleLinks, outgoingParticleLinks;
};

class MissingETAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<float> mpx, mpy, sumet;
   std::vector<uint64_t> source;
};

class BTaggingAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<float> MV2c10_discriminant, DL1_pu, DL1_pc, DL1_pb, SV1_masssvx, SV1_efracsvx, JetFitter_mass,
      JetFitter_efracSV, IP2D_pu, IP2D_pb, IP3D_pu, IP3D_pb;
   std::vector<int> SV1_NGTinSvx, JetFitter_nVTX;
   std::vector<std::vector<ElementLink_v1>> BTagTrackToJetAssociator;
};

class EventInfoAuxContainer_v1 : public AuxContainerBase {
public:
   std::vector<uint32_t> runNumber, lumiBlock, bcid, mcChannelNumber, eventTypeBitmask;
   std::vector<uint64_t> eventNumber, mcEventNumber;
   std::vector<float> averageInteractionsPerCrossing, actualInteractionsPerCrossing;
   std::vector<std::vector<float>> mcEventWeights;
};

class TrigDecisionAuxInfo_v1 : public AuxContainerBase {
public:
   std::vector<uint32_t> smk, l1psk, hltpsk;
   std::vector<std::vector<uint32_t>> tav, tbp, tap, lvl2PassedPhysics, efPassedPhysics;
};

}  // namespace xAODlike

#if defined(__CLING__) || defined(__ROOTCLING__) || defined(__MAKECINT__)
#pragma link C++ namespace xAODlike;
#pragma link C++ class xAODlike::ElementLink_v1+;
#pragma link C++ class std::vector<xAODlike::ElementLink_v1>+;
#pragma link C++ class std::vector<std::vector<xAODlike::ElementLink_v1> >+;
#pragma link C++ class std::vector<std::vector<float> >+;
#pragma link C++ class std::vector<std::vector<int> >+;
#pragma link C++ class std::vector<std::vector<uint32_t> >+;
#pragma link C++ class std::vector<uint16_t>+;
#pragma link C++ class std::vector<uint64_t>+;
#pragma link C++ class xAODlike::AuxVectorBase+;
#pragma link C++ class xAODlike::IParticleContainer+;
#pragma link C++ class xAODlike::ElectronContainer_v1+;
#pragma link C++ class xAODlike::PhotonContainer_v1+;
#pragma link C++ class xAODlike::MuonContainer_v1+;
#pragma link C++ class xAODlike::TauJetContainer_v1+;
#pragma link C++ class xAODlike::JetContainer_v1+;
#pragma link C++ class xAODlike::TrackParticleContainer_v1+;
#pragma link C++ class xAODlike::CaloClusterContainer_v1+;
#pragma link C++ class xAODlike::TruthParticleContainer_v1+;
#pragma link C++ class xAODlike::VertexContainer_v1+;
#pragma link C++ class xAODlike::TruthVertexContainer_v1+;
#pragma link C++ class xAODlike::MissingETContainer_v1+;
#pragma link C++ class xAODlike::BTaggingContainer_v1+;
#pragma link C++ class xAODlike::EventInfo_v1+;
#pragma link C++ class xAODlike::TrigDecision_v1+;
#pragma link C++ class xAODlike::AuxContainerBase+;
#pragma link C++ class xAODlike::ParticleAuxContainer_v1+;
#pragma link C++ class xAODlike::JetAuxContainer_v1+;
#pragma link C++ class xAODlike::TrackParticleAuxContainer_v1+;
#pragma link C++ class xAODlike::CaloClusterAuxContainer_v1+;
#pragma link C++ class xAODlike::TruthParticleAuxContainer_v1+;
#pragma link C++ class xAODlike::VertexAuxContainer_v1+;
#pragma link C++ class xAODlike::TruthVertexAuxContainer_v1+;
#pragma link C++ class xAODlike::MissingETAuxContainer_v1+;
#pragma link C++ class xAODlike::BTaggingAuxContainer_v1+;
#pragma link C++ class xAODlike::EventInfoAuxContainer_v1+;
#pragma link C++ class xAODlike::TrigDecisionAuxInfo_v1+;
#endif
