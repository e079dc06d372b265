// rootparams-write's recipe reader: the recipe's text turned into the collections the events hold, their columns
// (write_column.h), distributions (write_distributions.h) and framed records (write_framing.h).
//
// The recipe (text, one directive per line, written by rootparams.formats) says which containers the
// events hold and how their values are distributed:
//   container <Name> <InterfaceClass> <AuxClass> <multiplicity> <params...>
//   attr      <Name> <member> <dist> <params...>          distribution of a static aux member
//   dyn       <Name> <attr> <type> <dist> <params...>     a dynamic aux attribute (<Name>AuxDyn.<attr>)
//   dyn       <Name> <attr> link|vlink <TargetContainer>   an element-link attribute
//   inner     <Name> <member-or-attr> <multiplicity> <params...>   length of inner vectors
//   size      <Name> <attr> <multiplicity> <params...>    the attribute's own element count (not the container's)
//   scalar    <branch> <leaftype> <dist> <params...>       one value per event in a leaf <branch>/F (both layouts)
//   container <Name> - - ...                               "-": no interface (or no aux) branch
//   layout flat                                            first line of a NanoAOD-like recipe, which then has
//   collection <Name> <counter> <multiplicity> <params...>  a counter leaf <counter>/i per collection and
//   column    <Name> <branch> <leaftype> <dist> <params...>  leaf-list arrays <branch>[<counter>] (an RNTuple is
//                                                          imported from that TTree: ImportedNTupleSink)
//                                                          Collections may also stand beside containers (xaod
//                                                          layout: a TClonesArray's members); an RNTuple then holds
//                                                          the counter and one std::vector field per column.
// Every branch (and RNTuple field, '.' written as ':') a recipe makes must have a name of its own.
//   member    <Name> <attr> <type> <dist> <params...>     an attribute stored inside the container's aux record
//                                                          (TTree; an RNTuple has it as a field, as a dyn)
//   record    <Name> <interface|aux|attr> <segments...>   (TTree) that branch written as a framed record: the
//                                                          real file's framing around the values (see Segment)
//   basket    <branch> <bytes>                             the branch's basket size when --basket is 0
//   keys      <Name> <attr> <null-index> <dist...>         a link attribute's keys (key 0: a null link, whose
//                                                          index is <null-index>); else the target's hash
//   reuse     <Name> <attr> <q> <window> [<runs...>]       copies: of an inner vector (nested) or a link with
//                                                          probability q, one of the last <window>; of runs of
//                                                          elements (flat) of lengths <runs> (a multiplicity)
//   order     <Name> <attr> ascending|descending [unique]  each event's vector (flat) or inner vector sorted
// Leaf types: float double int8 uint8 int16 uint16 int uint32 int64 uint64 bool. dyn types also double, int8,
// int16, int64, vdouble; 'dyn ... link <Target> D' draws the index from D. (rootparams.calibrate writes these.)
// Multiplicities and distributions: write_distributions.h.
#pragma once

#include "write_column.h"
#include "write_framing.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

class TClass;

namespace rootparams::write {

// One xAOD collection of the recipe ("container" is the study's TTree or RNTuple).
struct Collection {
   std::string name;
   TClass *interface_class = nullptr;
   TClass *aux_class = nullptr;
   void *interface_object = nullptr;  // ROOT owns the layout; we own the memory
   void *aux_object = nullptr;
   Distribution multiplicity;
   std::vector<Column> columns;  // static members first, then dynamic attributes
   // Layouts beyond the xAOD-like one (recipes calibrated on real files): the standalone scalar leaves of a
   // recipe (one pseudo-container, one element per event), or a flat collection (counter branch <counter>
   // and leaf-list arrays <branch>[<counter>], as NanoAOD). Neither has interface or aux objects.
   bool scalars = false, flat = false;
   std::string counter;
   UInt_t count = 0;
   std::vector<std::pair<std::string, std::pair<std::string, void *>>> dynamic_branches;  // name, class, address
   std::vector<Record> records;  // branches written as framed records (TTree only; see Record)

   const Record *record_of(const std::string &part) const
   {
      for (auto &r : records)
         if (r.part == part)
            return &r;
      return nullptr;
   }

   Column &column(const std::string &member)
   {
      for (auto &c : columns)
         if (c.name == member)
            return c;
      std::string known;
      for (auto &c : columns)
         known += " " + c.name;
      fail("container " + name + " has no member or attribute '" + member + "'; it has:" + known);
   }
};

// The RNTuple field of a branch: field names cannot hold '.', written as ':'.
std::string rntuple_field_name(std::string name);

// The collections of the recipe at `path`, in its order (the scalars' pseudo-container first); flat_layout: the
// recipe is NanoAOD-like ('layout flat'); baskets: the basket lines' sizes by branch name. Fails with a message
// naming the file and line.
std::vector<Collection> read_recipe(const std::string &path, bool &flat_layout, std::map<std::string, int> &baskets);

}  // namespace rootparams::write
