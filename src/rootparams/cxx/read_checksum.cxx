// The content checksum (read_checksum.h): every event serialized object by object, in the RNTuple's naming, and
// hashed with FNV-1a 64, so that compression, cluster and basket sizes, split level and container do not change it.
#include "read_checksum.h"

#include "common.h"
#include "read_common.h"
#include "read_ntuple.h"
#include "read_ttree.h"

#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleReadOptions.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TBufferFile.h>
#include <TClass.h>
#include <TDataMember.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TTree.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <utility>
#include <vector>

namespace rootparams::read {

namespace {

// A checksum of the event content that does not depend on how, or in which container, it was stored. Every
// event is a list of named objects in one naming, the RNTuple's: the interface object <Name>, and every aux
// variable as <Name>AuxDyn:<var> (a TTree's static aux members are taken out of their <Name>Aux. object).
// Each object is serialized with its class streamer into a fresh buffer and hashed (FNV-1a 64) in name
// order, so compression, AutoFlush, basket or page size, split level and TTree against RNTuple all give the
// same value for the same events.
struct NamedObject {
   std::string name;
   TClass *cl;
   void *object;
};

uint64_t hash_event(uint64_t hash, std::vector<NamedObject> &objects)
{
   auto mix = [&hash](const char *data, size_t n) {
      for (size_t i = 0; i < n; ++i) {
         hash ^= static_cast<unsigned char>(data[i]);
         hash *= 1099511628211ull;
      }
   };
   for (auto &o : objects) {
      TBufferFile buffer(TBuffer::kWrite);
      o.cl->Streamer(o.object, buffer);
      mix(o.name.data(), o.name.size());
      mix(buffer.Buffer(), buffer.Length());
   }
   return hash;
}

TClass *class_of(const std::string &type, const std::string &what)
{
   TClass *cl = TClass::GetClass(type.c_str());
   if (!cl)
      fail(what + " has type " + type + ", which has no class (only objects and STL collections are supported)");
   return cl;
}

}  // namespace

int content_checksum(const std::string &path, const std::string &name)
{
   auto file = open_root_file(path);
   uint64_t hash = 1469598103934665603ull;
   long long entries = 0;
   if (has_ntuple(file.get(), name)) {
      auto reader = open_ntuple(path, name, file.get(), ROOT::RNTupleReadOptions());
      std::vector<std::pair<ROOT::RNTupleView<void>, NamedObject>> views;
      for (const auto &f : reader->GetDescriptor().GetTopLevelFields()) {
         views.emplace_back(reader->GetView<void>(f.GetFieldName()),
                            NamedObject{f.GetFieldName(), class_of(f.GetTypeName(), path + ": field " + f.GetFieldName()),
                                        nullptr});
      }
      std::sort(views.begin(), views.end(), [](auto &a, auto &b) { return a.second.name < b.second.name; });
      entries = reader->GetNEntries();
      std::vector<NamedObject> objects;
      for (Long64_t i = 0; i < entries; ++i) {
         objects.clear();
         for (auto &[view, o] : views) {
            view(i);
            objects.push_back({o.name, o.cl, view.GetValue().GetPtr<void>().get()});
         }
         hash = hash_event(hash, objects);
      }
   } else {
      auto *tree = file->Get<TTree>(name.c_str());
      if (!tree)
         damaged(path + ": has no TTree or RNTuple named '" + name + "'; its top-level keys are: " + key_list(file.get()));
      std::vector<TBranchElement *> branches;
      std::vector<TBranch *> flat;  // plain branches of fundamental leaves (a flat ntuple such as NanoAOD)
      for (auto *obj : *tree->GetListOfBranches()) {
         auto *b = dynamic_cast<TBranchElement *>(obj);
         const auto unbuildable = unbuildable_class(static_cast<TBranch *>(obj));
         if (!unbuildable.empty())
            fail(path + ": cannot checksum branch " + obj->GetName() + ": its class " + unbuildable +
                 " has no dictionary (ROOT only emulates it from the file's streamer info), so its objects cannot "
                 "be rebuilt and serialized safely; the content checksum needs every branch");
         if (b)
            branches.push_back(b);
         else
            flat.push_back(static_cast<TBranch *>(obj));
      }
      entries = tree->GetEntries();
      std::vector<NamedObject> objects;
      for (Long64_t i = 0; i < entries; ++i) {
         if (tree->GetEntry(i) < 0)
            fail(path + ": reading entry " + std::to_string(i) + " failed");
         // Flat branches: each leaf's values in memory (the counter gives the length of a leaf array).
         for (auto *b : flat)
            for (auto *obj : *b->GetListOfLeaves()) {
               auto *leaf = static_cast<TLeaf *>(obj);
               const std::string name = std::string(b->GetName()) + "/" + leaf->GetName();
               const auto *data = static_cast<const char *>(leaf->GetValuePointer());
               const size_t n = static_cast<size_t>(leaf->GetLen()) * leaf->GetLenType();
               for (const auto &[p, len] : {std::pair<const char *, size_t>{name.data(), name.size()}, {data, data ? n : 0}})
                  for (size_t k = 0; k < len; ++k) {
                     hash ^= static_cast<unsigned char>(p[k]);
                     hash *= 1099511628211ull;
                  }
            }
         objects.clear();
         for (auto *b : branches) {
            std::string bname = b->GetName();
            TClass *cl = class_of(b->GetClassName(), path + ": branch " + bname);
            void *object = b->GetObject();
            const auto aux = bname.size() > 4 ? bname.rfind("Aux.") : std::string::npos;
            if (aux != std::string::npos && aux + 4 == bname.size()) {
               // The static aux store: one object per member, named as the RNTuple names it.
               const std::string container = bname.substr(0, aux);
               for (auto *m : *cl->GetListOfDataMembers()) {
                  auto *dm = static_cast<TDataMember *>(m);
                  if (!dm->IsPersistent() || dm->Property() & kIsStatic)
                     continue;
                  objects.push_back({container + "AuxDyn:" + dm->GetName(),
                                     class_of(dm->GetTrueTypeName(), path + ": member " + dm->GetName()),
                                     static_cast<char *>(object) + dm->GetOffset()});
               }
               continue;
            }
            const auto dyn = bname.find("AuxDyn.");
            if (dyn != std::string::npos)
               bname.replace(dyn, 7, "AuxDyn:");
            objects.push_back({bname, cl, object});
         }
         std::sort(objects.begin(), objects.end(), [](auto &a, auto &b) { return a.name < b.name; });
         hash = hash_event(hash, objects);
      }
   }
   char hex[17];
   std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
   std::cout << "ROOTPARAMS_JSON "
             << JsonObject().str("file", path).integer("entries", entries).str("content_checksum", hex).dump()
             << std::endl;
   return 0;
}

}  // namespace rootparams::read
