// A tree laid out as a Run-3 ATLAS PHYSLITE's CollectionTree is, for tests/test_rewrite.py: interface branches of
// class DataVector<xAOD::X> written unsplit (split 0), their items deriving from xAOD::IParticle (or not: vertices),
// and the file's StreamerInfo list holding the collections' own records, a single "This" element each (as
// Athena writes them; DataVector<xAOD::Electron_v1>'s has the checksum of the real one, 0x8148a8af). The classes
// have a dictionary here (ACLiC) and none in the processes that read or rewrite the file, which see them as
// emulated classes built from those records, as outside Athena.
//
//   root.exe -l -b -q 'Run3LikePhysLite.C+("out.root", 50)'
#include <TArrayC.h>
#include <TClass.h>
#include <TCollectionProxyInfo.h>
#include <TFile.h>
#include <TTree.h>
#include <TVirtualCollectionProxy.h>
#include <TVirtualStreamerInfo.h>
#include <memory>
#include <vector>

namespace xAOD {
class IParticle {
public:
   virtual ~IParticle() {}
};
class Electron_v1 : public IParticle {
public:
   float m_pt = 0;
};
class Jet_v1 : public IParticle {
public:
   float m_pt = 0;
};
class Vertex_v1 {
public:
   float m_z = 0;
};
} // namespace xAOD
template <class T>
class DataVector : public std::vector<T *> {};

#ifdef __ROOTCLING__
#pragma link C++ class xAOD::IParticle+;
#pragma link C++ class xAOD::Electron_v1+;
#pragma link C++ class xAOD::Jet_v1+;
#pragma link C++ class xAOD::Vertex_v1+;
#pragma link C++ class std::vector<xAOD::Electron_v1*>+;
#pragma link C++ class std::vector<xAOD::Jet_v1*>+;
#pragma link C++ class std::vector<xAOD::Vertex_v1*>+;
#pragma link C++ class DataVector<xAOD::Electron_v1>+;
#pragma link C++ class DataVector<xAOD::Jet_v1>+;
#pragma link C++ class DataVector<xAOD::Vertex_v1>+;
#endif

template <class T>
void collection_branch(TTree &t, const char *name, DataVector<T> **object)
{
   // ATLAS's dictionaries give DataVector a collection proxy of its own (as a vector of pointers).
   using Info = ROOT::Detail::TCollectionProxyInfo;
   std::unique_ptr<Info> info(Info::Generate(Info::Pushback<DataVector<T>>()));
   TClass::GetClass(typeid(DataVector<T>))->SetCollectionProxy(*info);
   *object = new DataVector<T>();
   t.Branch(name, object, 32000, 0);
}

void Run3LikePhysLite(const char *path, int entries)
{
   TFile f(path, "RECREATE", "", 505);
   TTree t("CollectionTree", "");
   DataVector<xAOD::Electron_v1> *electrons = nullptr;
   DataVector<xAOD::Jet_v1> *jets = nullptr;
   DataVector<xAOD::Vertex_v1> *vertices = nullptr;
   collection_branch(t, "AnalysisElectrons", &electrons);
   collection_branch(t, "AnalysisJets", &jets);
   collection_branch(t, "PrimaryVertices", &vertices);
   std::vector<float> pt;
   t.Branch("AnalysisElectronsAuxDyn.pt", &pt);
   for (int i = 0; i < entries; ++i) {
      for (auto *e : *electrons)
         delete e;
      electrons->clear();
      for (int k = 0; k < i % 3; ++k)
         electrons->push_back(new xAOD::Electron_v1());
      pt.assign(i % 3, 10.f + i);
      t.Fill();
   }
   t.Write();
   // Athena's files carry the records of the collection classes too, which ROOT leaves out.
   TArrayC *index = f.GetClassIndex();
   for (const char *cls : {"DataVector<xAOD::Electron_v1>", "DataVector<xAOD::Jet_v1>", "DataVector<xAOD::Vertex_v1>"}) {
      TVirtualStreamerInfo *info = TClass::GetClass(cls)->GetStreamerInfo();
      if (info->GetNumber() >= index->GetSize())
         index->Set(info->GetNumber() + 1);
      index->fArray[info->GetNumber()] = 1;
      index->fArray[0] = 1;
   }
   f.Close();
}
