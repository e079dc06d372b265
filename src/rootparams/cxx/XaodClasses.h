// xAOD-like persistent classes with real ROOT I/O dictionaries (built by ACLiC).
//
// It mirrors the branch kinds of an ATLAS CollectionTree, not ATLAS's C++ API:
//   <Name>           interface object, small (DataVector<xAOD::X_v1> in a real file)
//   <Name>Aux.       static aux store: one class with many per-element std::vector members, so that the
//                    split level really changes the on-disk layout (one branch at split 0, one per member
//                    at split >= 1)
//   <Name>AuxDyn.<a> dynamic aux attributes, one std::vector<T> branch each (created by the writer)
// Containers whose interface class derives from IParticleContainer are what the paper's reader selects.
#pragma once

#include <Rtypes.h>
#include <TBuffer.h>
#include <TClass.h>

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

// Records (recipes calibrated on a real file, rootparams.calibrate): a branch whose entries are framed as the real
// file's objects are. An xAOD object written without a compiled dictionary (a DataVector interface, an aux store,
// its base-class headers, element links streamed object by object) carries byte counts, versions and class
// checksums that no class here has; a record stores, per entry, a byte count, its own version and m_payload, the
// bytes the writer composed from the recipe: the real file's constant framing, the element count and the
// members' values serialized as ROOT streams them (docs/formats.md, "Cloning a real file's profile"). Its entries
// have the real objects' lengths and framing; reading one gives its payload back. The built-in formats use none.
inline void StreamRecordPayload(TBuffer &b, std::vector<unsigned char> &payload, const TClass *cl)
{
   if (b.IsReading()) {
      UInt_t start = 0, count = 0;
      b.ReadVersion(&start, &count, cl);
      const Int_t n = static_cast<Int_t>(start + count + sizeof(UInt_t)) - b.Length();
      payload.resize(n > 0 ? static_cast<size_t>(n) : 0);
      if (n > 0)
         b.ReadFastArray(payload.data(), n);
      b.CheckByteCount(start, count, cl);
   } else {
      const UInt_t start = b.WriteVersion(cl, kTRUE);
      if (!payload.empty())
         b.WriteFastArray(payload.data(), static_cast<Int_t>(payload.size()));
      b.SetByteCount(start, kTRUE);
   }
}

// An interface object (not a particle container), an interface of a particle container, a static aux store, a
// dynamic attribute holding element links, and any other dynamic attribute or object.
class RecordContainer_v1 : public AuxVectorBase {
public:
   std::vector<unsigned char> m_payload;
   ClassDef(RecordContainer_v1, 1)
};
class RecordParticleContainer_v1 : public IParticleContainer {
public:
   std::vector<unsigned char> m_payload;
   ClassDef(RecordParticleContainer_v1, 1)
};
class RecordAuxStore_v1 : public AuxContainerBase {
public:
   std::vector<unsigned char> m_payload;
   ClassDef(RecordAuxStore_v1, 1)
};
class ElementLinkRecord_v1 {
public:
   virtual ~ElementLinkRecord_v1() = default;
   std::vector<unsigned char> m_payload;
   ClassDef(ElementLinkRecord_v1, 1)
};
class Record_v1 {
public:
   virtual ~Record_v1() = default;
   std::vector<unsigned char> m_payload;
   ClassDef(Record_v1, 1)
};

inline void RecordContainer_v1::Streamer(TBuffer &b) { StreamRecordPayload(b, m_payload, RecordContainer_v1::Class()); }
inline void RecordParticleContainer_v1::Streamer(TBuffer &b)
{
   StreamRecordPayload(b, m_payload, RecordParticleContainer_v1::Class());
}
inline void RecordAuxStore_v1::Streamer(TBuffer &b) { StreamRecordPayload(b, m_payload, RecordAuxStore_v1::Class()); }
inline void ElementLinkRecord_v1::Streamer(TBuffer &b)
{
   StreamRecordPayload(b, m_payload, ElementLinkRecord_v1::Class());
}
inline void Record_v1::Streamer(TBuffer &b) { StreamRecordPayload(b, m_payload, Record_v1::Class()); }

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
#pragma link C++ class xAODlike::RecordContainer_v1-;
#pragma link C++ class xAODlike::RecordParticleContainer_v1-;
#pragma link C++ class xAODlike::RecordAuxStore_v1-;
#pragma link C++ class xAODlike::ElementLinkRecord_v1-;
#pragma link C++ class xAODlike::Record_v1-;
#endif
