// What a timed read reads of a file: the branch selections (particle, all, regex:, list:) over a TTree's top-level
// branches or an RNTuple's top-level fields, the variable selections (analysis, sparse, vars:) resolved through a
// catalogue of the file's variables (TreeCatalogue, NTupleCatalogue), and the sums of the variables' values that
// show they were read. Shared by the TTree and RNTuple reads and by --resolve-selection.
#pragma once

#include "common.h"

#include <TLeaf.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

class TBranch;
class TTree;
namespace ROOT {
class RNTupleDescriptor;
}

namespace rootparams::read {

// Our synthetic containers (a class deriving from xAODlike::IParticleContainer), or an ATLAS DataVector of
// a class deriving from xAOD::IParticle (the item class of the emulated collection).
bool is_particle_container(TBranch *b);

// Top-level branch names a selection keeps.
// The names of one container: the interface object <c>, its static store and its aux variables, with the
// container's separator ('.' for TTree branches, ':' for RNTuple fields).
bool belongs_to(const std::string &name, const std::string &c, char sep);

// The top-level branches of `tree` that `selection` keeps ("all", "particle", "regex:<re>" or "list:<a>,<b>");
// an error names the file and what would work instead.
std::vector<std::string> select_top_branches(TTree *tree, const std::string &selection, const std::string &path);

// Top-level fields of an RNTuple, and those whose type is a particle container.
std::pair<std::vector<std::string>, std::set<std::string>> top_fields(const ROOT::RNTupleDescriptor &desc);

// The top-level fields a selection keeps, as (name, type): select_names with the RNTuple names of the ATLAS
// layout (<Name>AuxDyn:<var>, <Name>Aux:).
std::vector<std::pair<std::string, std::string>>
select_top_fields(const ROOT::RNTupleDescriptor &desc, const std::string &selection, const std::string &path);

// ---- Variable selections (the 2019 ATLAS CHEP study's access patterns): analysis, sparse, vars:<Coll>.<attr>,...
// A variable is one attribute of one collection ("Electrons.pt"), read from the smallest branch or field that
// holds it. TTree: a split aux store's member (<C>Aux.<a>), a dynamic attribute (<C>AuxDyn.<a>), a flat array
// (<C>_<a>, NanoAOD's <C>_mass for m, read with its counter n<C>), or, where the store is not split (split
// level 0), the whole store <C>Aux. ("class-wise": every member of the collection is read to get one).
// RNTuple: a top-level field <C>AuxDyn:<a> (our writer's layout and ATLAS's for dynamic attributes), a subfield
// <a> of the aux record field <C>Aux:, or a flat field <C>_<a>; each has columns of its own, so an RNTuple
// variable is never read class-wise.
//   analysis  pt, eta, phi and m of up to 8 collections that have all four (up to 32 variables)
//   sparse    pt and eta of the first 3 of those collections (up to 6 variables)
//   vars:<Collection>.<attribute>,...  the variables named, in that order
// The collections of analysis and sparse: first those in kCollectionPreference (in its order), then the
// other qualifying collections in file order; a file with fewer takes what it has (selected_collections).
struct Variable {
   std::string name;     // "Electrons.pt"
   std::string read;     // the branch or field read for it
   bool classwise = false;
   std::string counter;  // the counter branch a flat array is read with ("nElectron"), or empty
};

// Where a container keeps its variables; one implementation per container (TreeCatalogue and NTupleCatalogue
// below).
class VariableCatalogue {
public:
   virtual ~VariableCatalogue() = default;
   virtual std::vector<std::string> collections() const = 0;  // in file order
   // Attribute `attr` of collection `c`; read empty if the file has none.
   virtual Variable find(const std::string &c, const std::string &attr) const = 0;
   virtual std::vector<std::string> attributes(const std::string &c) const = 0;  // for messages
   virtual std::string looked_for(const std::string &c, const std::string &attr) const = 0;
   virtual std::string unit() const = 0;  // "branch" or "field"
};

bool is_variable_selection(const std::string &selection);

// The variables of `selection` in the file `path` (an error names the file and what would work instead).
std::vector<Variable> resolve_variables(const VariableCatalogue &cat, const std::string &selection,
                                        const std::string &path);

// Every branch of a tree by its full name, sub-branches included (TTree::GetBranch searches the whole tree on
// every call: an xAOD file has ~1500 branches, and a selection asks about hundreds of names).
class TreeCatalogue : public VariableCatalogue {
public:
   explicit TreeCatalogue(TTree *tree);
   std::vector<std::string> collections() const override { return collections_; }
   TBranch *branch(const std::string &name) const
   {
      auto it = branches_.find(name);
      return it == branches_.end() ? nullptr : it->second;
   }
   Variable find(const std::string &c, const std::string &attr) const override;
   std::vector<std::string> attributes(const std::string &c) const override;
   std::string looked_for(const std::string &c, const std::string &a) const override;
   std::string unit() const override { return "branch"; }

private:
   TBranch *unsplit_store(const std::string &c) const;
   std::map<std::string, TBranch *> branches_;
   std::vector<std::string> collections_;
};

// The variables of an RNTuple (see "Variable selections"): <C>AuxDyn:<a> top-level fields, subfields <a> of an aux
// record field <C>Aux:, flat fields <C>_<a> (with a field n<C>). Every one has columns of its own: a view on it
// reads those alone, never the whole collection.
class NTupleCatalogue : public VariableCatalogue {
public:
   explicit NTupleCatalogue(const ROOT::RNTupleDescriptor &desc);
   std::vector<std::string> collections() const override { return collections_; }
   Variable find(const std::string &c, const std::string &attr) const override;
   std::vector<std::string> attributes(const std::string &c) const override;
   std::string looked_for(const std::string &c, const std::string &a) const override;
   std::string unit() const override { return "field"; }

private:
   const ROOT::RNTupleDescriptor &desc_;
   std::set<std::string> top_;
   std::vector<std::string> collections_;
};

// The branches or fields that a list of variables reads, each once: a flat array's counter before the array.
std::vector<std::string> variables_read(const std::vector<Variable> &variables);

// The sum of the values of one variable in the entry just read, as a double, and how many values it has:
// the check that a variable was really read (the same sum at split 0, where it comes out of the whole store,
// and at split 99, where its sub-branch alone is read). Summed in entry and element order, so that the
// same content gives the same sum bit for bit. A std::vector of a fundamental type (every aux member and
// dynamic attribute of a kinematic variable), a flat array (TLeaf), or, for other types, nothing (not summed).
struct VariableValues {
   const void *vector = nullptr;                        // a std::vector<T> ...
   double (*sum_vector)(const void *, long long &) = nullptr;  // ... and the sum for its T
   TLeaf *leaf = nullptr;                               // or a flat array (its buffer moves when it grows)

   bool summable() const { return (vector && sum_vector) || leaf; }
   double add(long long &values) const
   {
      if (leaf) {
         const int n = leaf->GetLen();
         double s = 0;
         for (int i = 0; i < n; ++i)
            s += leaf->GetValue(i);
         values += n;
         return s;
      }
      return sum_vector(vector, values);
   }

   template <typename T>
   static double sum_of(const void *v, long long &values)
   {
      const auto &items = *static_cast<const std::vector<T> *>(v);
      double s = 0;
      for (const auto &x : items)
         s += static_cast<double>(x);
      values += static_cast<long long>(items.size());
      return s;
   }

   // For the object at `address` of the class named `type` ("vector<float>", "std::vector<float>").
   static VariableValues of_object(const void *address, const std::string &type);
};

// The sums of a read's variables over the loop: variables_value_sum, the number of values summed, and how many
// variables could be summed (a variable read basket by basket, or of a type without a sum, cannot).
struct VariableSums {
   std::vector<VariableValues> sums;
   double total = 0;
   long long values = 0;

   void add_entry()
   {
      for (auto &s : sums)
         total += s.add(values);
   }
   void report(JsonObject &out, size_t variables) const
   {
      out.num("variables_value_sum", sums.empty() ? std::nan("") : total)
         .integer("variables_values_summed", values)
         .integer("variables_summed", static_cast<long long>(sums.size()))
         .integer("variables_not_summed", static_cast<long long>(variables - sums.size()));
   }
};

// The selection's part of a timed read's output (both containers): what was asked, the variables, how many of
// them were read through a whole object, and the branches or fields actually read.
void add_selection(JsonObject &out, const std::string &selection, const std::vector<Variable> &variables,
                   const std::vector<std::string> &read);

}  // namespace rootparams::read
