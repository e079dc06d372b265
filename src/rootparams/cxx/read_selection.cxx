// The selections of a timed read (read_selection.h): particle containers in a TTree or an RNTuple, the branch
// selections, the variable selections and their catalogues, and what the output says about them.
#include "read_selection.h"

#include "read_common.h"

#include <ROOT/RNTupleDescriptor.hxx>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TClass.h>
#include <TDataMember.h>
#include <TDataType.h>
#include <TLeaf.h>
#include <TTree.h>
#include <TVirtualCollectionProxy.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace rootparams::read {

namespace {

const char *kParticleBase = "xAODlike::IParticleContainer";

// The ATLAS interface class every particle inherits from. In a file read without the ATLAS dictionaries,
// an interface container such as `AnalysisElectrons` is an emulated collection `DataVector<xAOD::Electron_v1>`
// whose item class, built from the file's streamer info, keeps its bases (Electron_v1 -> Egamma_v1 -> IParticle).
const char *kAtlasParticleBase = "xAOD::IParticle";

bool is_particle_class(const std::string &name)
{
   TClass *cl = name.empty() ? nullptr : TClass::GetClass(name.c_str());
   return cl && (cl->InheritsFrom(kParticleBase) || cl->InheritsFrom(kAtlasParticleBase));
}

}  // namespace

bool is_particle_container(TBranch *b)
{
   TClass *cl = TClass::GetClass(b->GetClassName());
   if (cl && cl->InheritsFrom(kParticleBase))
      return true;
   const std::string name = b->GetClassName();
   if (name.rfind("DataVector<", 0) != 0)
      return false;
   auto *be = dynamic_cast<TBranchElement *>(b);
   if (be && is_particle_class(be->GetClonesName()))
      return true;
   auto *proxy = cl ? cl->GetCollectionProxy() : nullptr;
   return proxy && proxy->GetValueClass() && is_particle_class(proxy->GetValueClass()->GetName());
}

bool belongs_to(const std::string &name, const std::string &c, char sep)
{
   return name == c || name == c + "Aux" + sep || name.rfind(c + "AuxDyn" + sep, 0) == 0;
}

namespace {

// What the messages call the names and their holder: branches of a tree, or fields of an RNTuple.
struct NameKind {
   std::string one, many, holder;
   std::string particle_hint = "";  // what to say when there is no particle container (e.g. a regex to try)
};

// What a branch selection keeps of the top-level names `all` (a TTree's branches or an RNTuple's fields):
// "all", "particle" (every name that belongs to one of `particle_containers`), "regex:<re>" or "list:<a>,<b>".
std::vector<std::string> select_names(const std::vector<std::string> &all, const std::set<std::string> &particle_containers,
                                      char sep, const std::string &selection, const std::string &path,
                                      const NameKind &what)
{
   auto available = [&]() {
      std::string s;
      for (size_t i = 0; i < all.size() && i < 25; ++i)
         s += (i ? ", " : "") + all[i];
      return s + (all.size() > 25 ? ", ... (" + std::to_string(all.size()) + " in all)" : "");
   };
   std::vector<std::string> chosen;
   if (selection == "all") {
      chosen = all;
   } else if (selection == "particle") {
      if (particle_containers.empty())
         fail(path + ": branch selection 'particle' needs particle containers, and the " + what.holder +
              " has none (no interface " + what.one + " of a class deriving from " + std::string(kParticleBase) +
              ", nor an ATLAS DataVector of a class deriving from " + kAtlasParticleBase +
              "); choose another branch selection: 'all', 'regex:<re>' or 'list:<a>,<b>'" + what.particle_hint +
              ". Top-level " + what.many + ": " + available());
      for (auto &name : all)
         for (auto &c : particle_containers)
            if (belongs_to(name, c, sep)) {
               chosen.push_back(name);
               break;
            }
   } else if (selection.rfind("regex:", 0) == 0) {
      std::regex re;
      try {
         re = std::regex(selection.substr(6));
      } catch (const std::regex_error &e) {
         fail("branch selection '" + selection + "' is not a valid regular expression: " + e.what());
      }
      for (auto &name : all)
         if (std::regex_search(name, re))
            chosen.push_back(name);
      if (chosen.empty())
         fail(path + ": branch selection '" + selection + "' matches no top-level " + what.one + ". Available: " +
              available());
   } else if (selection.rfind("list:", 0) == 0) {
      std::stringstream s(selection.substr(5));
      std::string name;
      std::set<std::string> have(all.begin(), all.end());
      while (std::getline(s, name, ',')) {
         if (!have.count(name))
            fail(path + ": " + what.one + " '" + name + "' of selection '" + selection + "' is not in the " +
                 what.holder + ". Available: " + available());
         chosen.push_back(name);
      }
   } else {
      fail("unknown branch selection '" + selection + "' (use particle, all, regex:<re> or list:<a>,<b>)");
   }
   return chosen;
}

// For a flat ntuple (NanoAOD: a counter nMuon and its collection's branches Muon_pt[nMuon], ...), a regex that
// selects some of its physics-object collections, as a hint in the error of 'particle'.
std::string flat_collections_hint(const std::vector<std::string> &all)
{
   std::set<std::string> names(all.begin(), all.end()), collections;
   for (auto &name : all) {
      const auto underscore = name.find('_');
      if (underscore != std::string::npos && underscore > 0 && names.count("n" + name.substr(0, underscore)))
         collections.insert(name.substr(0, underscore));
   }
   if (collections.empty())
      return "";
   std::vector<std::string> pick;
   for (const char *c : {"Muon", "Electron", "Photon", "Tau", "Jet"})
      if (collections.count(c))
         pick.push_back(c);
   for (auto it = collections.begin(); pick.size() < 3 && it != collections.end(); ++it)
      if (std::find(pick.begin(), pick.end(), *it) == pick.end())
         pick.push_back(*it);
   std::string alternatives;
   for (auto &c : pick)
      alternatives += (alternatives.empty() ? "" : "|") + c;
   std::string all_collections;
   for (auto &c : collections)
      all_collections += (all_collections.empty() ? "" : ", ") + c;
   return "; this looks like a flat ntuple with collections (" + all_collections +
          "): e.g. 'regex:^(" + alternatives + ")_' reads some of them";
}

}  // namespace

std::vector<std::string> select_top_branches(TTree *tree, const std::string &selection, const std::string &path)
{
   std::vector<std::string> all;
   std::set<std::string> containers;
   for (auto *obj : *tree->GetListOfBranches()) {
      all.push_back(obj->GetName());
      if (is_particle_container(static_cast<TBranch *>(obj)))
         containers.insert(obj->GetName());
   }
   return select_names(all, containers, '.', selection, path, {"branch", "branches", "tree", flat_collections_hint(all)});
}

namespace {

// Stems in order of preference: a collection's stem is its name in lower case without a leading "analysis"
// and a trailing "s" (Electrons, AnalysisElectrons and NanoAOD's Electron are all "electron"). Electrons,
// muons, photons, taus, then jets: particle-flow, EM-topo, plain (NanoAOD's Jet, PHYSLITE's AnalysisJets),
// LC-topo, large-R (PHYSLITE's AnalysisLargeRJets, NanoAOD's FatJet).
const std::vector<std::string> kCollectionPreference = {
   "electron", "muon", "photon", "tau", "taujet", "antikt4empflowjet", "antikt4emtopojet", "jet",
   "antikt4lctopojet", "largerjet", "fatjet"};
const std::vector<std::string> kKinematics = {"pt", "eta", "phi", "m"};

}  // namespace

bool is_variable_selection(const std::string &selection)
{
   return selection == "analysis" || selection == "sparse" || selection.rfind("vars:", 0) == 0;
}

namespace {

std::string lower(std::string s)
{
   std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
   return s;
}

std::string collection_stem(const std::string &name)
{
   std::string s = lower(name);
   if (s.rfind("analysis", 0) == 0 && s.size() > 8)
      s = s.substr(8);
   if (s.size() > 1 && s.back() == 's')
      s.pop_back();
   return s;
}

std::string joined(const std::vector<std::string> &items, const std::string &sep = ", ", size_t most = 30)
{
   std::string s;
   for (size_t i = 0; i < items.size() && i < most; ++i)
      s += (i ? sep : "") + items[i];
   if (items.size() > most)
      s += sep + "... (" + std::to_string(items.size()) + " in all)";
   return s;
}

// `names` with those nearest to `wanted` first (edit distance, then name): a misspelt attribute's intended name
// leads the list in the message.
std::vector<std::string> nearest_first(std::vector<std::string> names, const std::string &wanted)
{
   auto distance = [&](const std::string &a) {
      const std::string x = lower(a), y = lower(wanted);
      std::vector<size_t> row(y.size() + 1);
      for (size_t j = 0; j <= y.size(); ++j)
         row[j] = j;
      for (size_t i = 1; i <= x.size(); ++i) {
         size_t diagonal = row[0];
         row[0] = i;
         for (size_t j = 1; j <= y.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (x[i - 1] == y[j - 1] ? 0 : 1)});
            diagonal = up;
         }
      }
      return row[y.size()];
   };
   std::vector<std::pair<size_t, std::string>> ranked;
   for (auto &n : names)
      ranked.emplace_back(distance(n), n);
   std::sort(ranked.begin(), ranked.end());
   for (size_t i = 0; i < ranked.size(); ++i)
      names[i] = ranked[i].second;
   return names;
}

}  // namespace

std::vector<Variable> resolve_variables(const VariableCatalogue &cat, const std::string &selection,
                                        const std::string &path)
{
   const std::string alternatives = "all, regex:<re>, list:<a>,<b>, particle (where the file has particle "
                                    "containers) or vars:<Collection>.<attribute>,... naming variables it has";
   std::vector<std::pair<std::string, std::string>> wanted;  // (collection, attribute)
   if (selection.rfind("vars:", 0) == 0) {
      std::stringstream s(selection.substr(5));
      std::string item;
      std::set<std::string> named;
      while (std::getline(s, item, ',')) {
         const auto dot = item.rfind('.');
         if (dot == std::string::npos || dot == 0 || dot + 1 == item.size())
            fail("selection '" + selection + "': '" + item + "' is not <Collection>.<attribute> (e.g. Electrons.pt)");
         if (!named.insert(item).second)
            fail("selection '" + selection + "' names " + item + " twice");
         wanted.emplace_back(item.substr(0, dot), item.substr(dot + 1));
      }
      if (wanted.empty())
         fail("selection '" + selection + "' names no variable (e.g. vars:Electrons.pt,Electrons.eta)");
   } else {
      std::vector<std::string> qualifying, lacking;
      for (auto &c : cat.collections()) {
         std::vector<std::string> missing;
         for (auto &a : kKinematics)
            if (cat.find(c, a).read.empty())
               missing.push_back(a);
         if (missing.empty())
            qualifying.push_back(c);
         else
            lacking.push_back(c + " (no " + joined(missing, "/") + ")");
      }
      if (qualifying.empty())
         fail(path + ": selection '" + selection + "' takes collections that have pt, eta, phi and m, and this file " +
              "has none" + (lacking.empty() ? " (no collections found: no " + cat.unit() + " named <C>Aux" +
                                                 (cat.unit() == "branch" ? "." : ":") + "<attr>, <C>AuxDyn" +
                                                 (cat.unit() == "branch" ? "." : ":") + "<attr> or <C>_<attr>)"
                                           : "; its collections: " + joined(lacking)) +
              ". Use another selection: " + alternatives);
      auto rank = [](const std::string &c) {
         const auto stem = collection_stem(c);
         const auto it = std::find(kCollectionPreference.begin(), kCollectionPreference.end(), stem);
         return static_cast<size_t>(it - kCollectionPreference.begin());
      };
      std::stable_sort(qualifying.begin(), qualifying.end(),
                       [&](const std::string &a, const std::string &b) { return rank(a) < rank(b); });
      const bool analysis = selection == "analysis";
      const size_t collections = analysis ? 8 : 3;
      const std::vector<std::string> attrs = analysis ? kKinematics : std::vector<std::string>{"pt", "eta"};
      for (size_t i = 0; i < qualifying.size() && i < collections; ++i)
         for (auto &a : attrs)
            wanted.emplace_back(qualifying[i], a);
   }
   std::vector<Variable> out;
   const auto all = cat.collections();
   for (auto &[c, a] : wanted) {
      Variable v = cat.find(c, a);
      if (v.read.empty()) {
         const bool known = std::find(all.begin(), all.end(), c) != all.end();
         fail(path + ": variable " + c + "." + a + " of selection '" + selection + "' is in no " + cat.unit() +
              " (looked for " + cat.looked_for(c, a) + "); " +
              (known ? c + " has (nearest first): " + joined(nearest_first(cat.attributes(c), a), ", ", 12)
                     : "the file has no collection " + c + "; its collections (nearest first): " +
                          joined(nearest_first(all, c), ", ", 12)));
      }
      v.name = c + "." + a;
      out.push_back(v);
   }
   return out;
}

TreeCatalogue::TreeCatalogue(TTree *tree)
{
   std::vector<TObjArray *> todo{tree->GetListOfBranches()};
   while (!todo.empty()) {
      auto *level = todo.back();
      todo.pop_back();
      for (auto *obj : *level) {
         auto *b = static_cast<TBranch *>(obj);
         branches_.emplace(b->GetName(), b);
         todo.push_back(b->GetListOfBranches());
      }
   }
   std::set<std::string> top, seen;
   for (auto *obj : *tree->GetListOfBranches())
      top.insert(obj->GetName());
   auto add = [&](const std::string &c) {
      if (!c.empty() && seen.insert(c).second)
         collections_.push_back(c);
   };
   for (auto *obj : *tree->GetListOfBranches()) {
      const std::string name = obj->GetName();
      if (name.size() > 4 && name.compare(name.size() - 4, 4, "Aux.") == 0)
         add(name.substr(0, name.size() - 4));
      else if (auto dyn = name.find("AuxDyn."); dyn != std::string::npos && dyn > 0)
         add(name.substr(0, dyn));
      else if (auto u = name.find('_'); u != std::string::npos && u > 0 && top.count("n" + name.substr(0, u)))
         add(name.substr(0, u));
   }
}

Variable TreeCatalogue::find(const std::string &c, const std::string &attr) const
{
   for (const auto &name : {c + "Aux." + attr, c + "AuxDyn." + attr})
      if (branch(name))
         return {"", name};
   for (const auto &name : {c + "_" + attr, attr == "m" ? c + "_mass" : std::string()}) {
      auto *b = name.empty() ? nullptr : branch(name);
      if (!b)
         continue;
      // ROOT reads a flat array's counter with it (TLeaf::GetLeafCount): it is part of what is read.
      std::string counter;
      if (b->GetListOfLeaves()->GetEntries() > 0)
         if (auto *count = static_cast<TLeaf *>(b->GetListOfLeaves()->At(0))->GetLeafCount())
            counter = count->GetBranch()->GetName();
      return {"", name, false, counter};
   }
   if (auto *store = unsplit_store(c)) {
      TClass *cl = TClass::GetClass(store->GetClassName());
      if (cl && cl->GetDataMember(attr.c_str()))
         return {"", store->GetName(), true};
   }
   return {};
}

std::vector<std::string> TreeCatalogue::attributes(const std::string &c) const
{
   std::vector<std::string> out;
   for (auto &[name, b] : branches_) {
      for (const auto &prefix : {c + "Aux.", c + "AuxDyn.", c + "_"})
         if (name.size() > prefix.size() && name.rfind(prefix, 0) == 0 &&
             name.find('.', prefix.size()) == std::string::npos)
            out.push_back(name.substr(prefix.size()));
   }
   if (auto *store = unsplit_store(c))
      if (TClass *cl = TClass::GetClass(store->GetClassName()))
         for (auto *m : *cl->GetListOfDataMembers())
            if (static_cast<TDataMember *>(m)->IsPersistent())
               out.push_back(m->GetName());
   std::sort(out.begin(), out.end());
   out.erase(std::unique(out.begin(), out.end()), out.end());
   return out;
}

std::string TreeCatalogue::looked_for(const std::string &c, const std::string &a) const
{
   return c + "Aux." + a + ", " + c + "AuxDyn." + a + ", " + c + "_" + a + (a == "m" ? ", " + c + "_mass" : "") +
          " and a member " + a + " of an unsplit " + c + "Aux.";
}

TBranch *TreeCatalogue::unsplit_store(const std::string &c) const
{
   auto *store = branch(c + "Aux.");
   return store && store->GetListOfBranches()->GetEntries() == 0 ? store : nullptr;
}

std::vector<std::string> variables_read(const std::vector<Variable> &variables)
{
   std::vector<std::string> out;
   auto add = [&](const std::string &name) {
      if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end())
         out.push_back(name);
   };
   for (auto &v : variables) {
      add(v.counter);
      add(v.read);
   }
   return out;
}

VariableValues VariableValues::of_object(const void *address, const std::string &type)
{
   VariableValues v;
   TClass *cl = address ? TClass::GetClass(type.c_str()) : nullptr;
   auto *proxy = cl ? cl->GetCollectionProxy() : nullptr;
   if (!proxy || proxy->GetCollectionType() != ROOT::kSTLvector || proxy->GetValueClass())
      return v;
   v.vector = address;
   switch (proxy->GetType()) {
   case kFloat_t: v.sum_vector = &sum_of<float>; break;
   case kDouble_t: v.sum_vector = &sum_of<double>; break;
   case kInt_t: v.sum_vector = &sum_of<int>; break;
   case kUInt_t: v.sum_vector = &sum_of<unsigned int>; break;
   case kShort_t: v.sum_vector = &sum_of<short>; break;
   case kUShort_t: v.sum_vector = &sum_of<unsigned short>; break;
   case kChar_t: v.sum_vector = &sum_of<signed char>; break;
   case kUChar_t: v.sum_vector = &sum_of<unsigned char>; break;
   case kLong64_t: v.sum_vector = &sum_of<long long>; break;
   case kULong64_t: v.sum_vector = &sum_of<unsigned long long>; break;
   case kLong_t: v.sum_vector = &sum_of<long>; break;
   case kULong_t: v.sum_vector = &sum_of<unsigned long>; break;
   default: v.vector = nullptr;
   }
   return v;
}

void add_selection(JsonObject &out, const std::string &selection, const std::vector<Variable> &variables,
                   const std::vector<std::string> &read)
{
   std::vector<std::string> names, collections;
   long long classwise = 0;
   for (auto &v : variables) {
      names.push_back(v.name);
      classwise += v.classwise;
      const auto c = v.name.substr(0, v.name.rfind('.'));
      if (std::find(collections.begin(), collections.end(), c) == collections.end())
         collections.push_back(c);
   }
   out.str("selection", selection)
      .integer("selected_variables", static_cast<long long>(variables.size()))
      .integer("selected_collections", static_cast<long long>(collections.size()))
      .str("variables", joined(names, ",", names.size()))
      .integer("variables_classwise", classwise)
      .str("selected_branches_read", joined(read, ",", read.size()));
}

namespace {

// An ATLAS interface container written without dictionaries at hand: a collection field DataVector<T> whose
// item subfield `_0` has xAOD::IParticle among its base-class subfields (`:_0`, `:_0.:_0`, ...), by type name.
bool is_atlas_particle_collection(const ROOT::RNTupleDescriptor &desc, const ROOT::RFieldDescriptor &f)
{
   if (f.GetStructure() != ROOT::ENTupleStructure::kCollection || f.GetTypeName().rfind("DataVector<", 0) != 0)
      return false;
   std::vector<ROOT::DescriptorId_t> todo(f.GetLinkIds().begin(), f.GetLinkIds().end());
   while (!todo.empty()) {
      const auto &sub = desc.GetFieldDescriptor(todo.back());
      todo.pop_back();
      if (sub.GetTypeName() == kAtlasParticleBase || is_particle_class(sub.GetTypeName()))
         return true;
      for (auto id : sub.GetLinkIds())
         if (desc.GetFieldDescriptor(id).GetFieldName().rfind(":", 0) == 0)  // a base class
            todo.push_back(id);
   }
   return false;
}

}  // namespace

std::pair<std::vector<std::string>, std::set<std::string>> top_fields(const ROOT::RNTupleDescriptor &desc)
{
   std::vector<std::string> all;
   std::set<std::string> particle;
   for (const auto &f : desc.GetTopLevelFields()) {
      all.push_back(f.GetFieldName());
      TClass *cl = TClass::GetClass(f.GetTypeName().c_str());
      if ((cl && cl->InheritsFrom(kParticleBase)) || is_atlas_particle_collection(desc, f))
         particle.insert(f.GetFieldName());
   }
   return {all, particle};
}

std::vector<std::pair<std::string, std::string>>
select_top_fields(const ROOT::RNTupleDescriptor &desc, const std::string &selection, const std::string &path)
{
   const auto [all, particle] = top_fields(desc);
   std::vector<std::pair<std::string, std::string>> chosen;
   for (auto &name : select_names(all, particle, ':', selection, path, {"field", "fields", "RNTuple"}))
      chosen.emplace_back(name, desc.GetFieldDescriptor(desc.FindFieldId(name)).GetTypeName());
   return chosen;
}

NTupleCatalogue::NTupleCatalogue(const ROOT::RNTupleDescriptor &desc) : desc_(desc)
{
   std::set<std::string> seen;
   for (const auto &f : desc.GetTopLevelFields())
      top_.insert(f.GetFieldName());
   auto add = [&](const std::string &c) {
      if (!c.empty() && seen.insert(c).second)
         collections_.push_back(c);
   };
   for (const auto &f : desc.GetTopLevelFields()) {
      const std::string name = f.GetFieldName();
      if (name.size() > 4 && name.compare(name.size() - 4, 4, "Aux:") == 0)
         add(name.substr(0, name.size() - 4));
      else if (auto dyn = name.find("AuxDyn:"); dyn != std::string::npos && dyn > 0)
         add(name.substr(0, dyn));
      else if (auto u = name.find('_'); u != std::string::npos && u > 0 && top_.count("n" + name.substr(0, u)))
         add(name.substr(0, u));
   }
}

Variable NTupleCatalogue::find(const std::string &c, const std::string &attr) const
{
   for (const auto &name : {c + "AuxDyn:" + attr, c + "_" + attr, attr == "m" ? c + "_mass" : std::string()})
      if (!name.empty() && top_.count(name))
         return {"", name};
   if (top_.count(c + "Aux:")) {
      const auto store = desc_.FindFieldId(c + "Aux:");
      if (desc_.FindFieldId(attr, store) != ROOT::kInvalidDescriptorId)
         return {"", c + "Aux:." + attr};
   }
   return {};
}

std::vector<std::string> NTupleCatalogue::attributes(const std::string &c) const
{
   std::vector<std::string> out;
   for (auto &name : top_)
      for (const auto &prefix : {c + "AuxDyn:", c + "_"})
         if (name.size() > prefix.size() && name.rfind(prefix, 0) == 0)
            out.push_back(name.substr(prefix.size()));
   if (top_.count(c + "Aux:"))
      for (const auto &sub : desc_.GetFieldIterable(desc_.FindFieldId(c + "Aux:")))
         out.push_back(sub.GetFieldName());
   std::sort(out.begin(), out.end());
   out.erase(std::unique(out.begin(), out.end()), out.end());
   return out;
}

std::string NTupleCatalogue::looked_for(const std::string &c, const std::string &a) const
{
   return c + "AuxDyn:" + a + ", " + c + "_" + a + (a == "m" ? ", " + c + "_mass" : "") + " and a subfield " + a +
          " of " + c + "Aux:";
}

}  // namespace rootparams::read
