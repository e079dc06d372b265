// rootparams-write's recipe reader (write_recipe.h): the recipe's lines, one directive each, applied in order to the
// collections they declare; then the checks that need the whole recipe (unique branch names) and the records'
// columns, classes and objects.
#include "write_recipe.h"

#include <TClass.h>
#include <TDataMember.h>
#include <TList.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace rootparams::write {

std::string rntuple_field_name(std::string name)
{
   for (auto &ch : name)
      ch = ch == '.' ? ':' : ch;
   return name;
}

namespace {

std::vector<std::string> split_words(const std::string &line)
{
   std::istringstream s(line);
   std::vector<std::string> words;
   std::string w;
   while (s >> w)
      words.push_back(w);
   return words;
}

// A leaf column of a recipe line "<word> ... <branch> <leaf-type> <dist...>" whose branch is word w[at]: a
// scalar (one value per event) or a flat collection's array, both plain leaves.
Column leaf_column(const std::vector<std::string> &w, size_t at)
{
   Column col;
   col.name = col.branch = w[at];
   col.kind = leaf_type(w[at + 1]).kind;
   col.leaf = true;
   col.address = new_dynamic_vector(col.kind);
   col.values = {w[at + 2], {w.begin() + static_cast<long>(at) + 3, w.end()}};
   return col;
}

// The recipe as it is read: its collections so far, its layout and its basket sizes.
struct Recipe {
   const std::string &path;
   std::map<std::string, int> &baskets;
   std::vector<Collection> containers;
   bool flat_layout = false;

   Collection &find(const std::string &name)
   {
      for (auto &c : containers)
         if (c.name == name)
            return c;
      fail("recipe " + path + " refers to container '" + name + "' before declaring it");
   }
};

// scalar <branch> <leaf-type> <dist...>: one value per event in a leaf of its own.
void add_scalar(Recipe &recipe, const std::vector<std::string> &w)
{
   auto &containers = recipe.containers;
   if (containers.empty() || !containers.front().scalars) {
      Collection s;
      s.name = "(scalars)";
      s.scalars = true;
      s.multiplicity = {"fixed", {"1"}};
      containers.insert(containers.begin(), std::move(s));
   }
   containers.front().columns.push_back(leaf_column(w, 1));
   containers.front().columns.back().across_events = true;
}

// container <Name> <InterfaceClass|-> <AuxClass|-> <multiplicity...>: the classes' objects, and a column for every
// persistent member of the aux class.
void add_container(Recipe &recipe, const std::vector<std::string> &w)
{
   if (recipe.flat_layout)
      fail("'container' belongs to the xaod layout; a flat recipe uses 'collection' and 'column'");
   // "-" for the interface or the aux class: no such branch (a real file's branch without one)
   Collection c;
   c.name = w[1];
   c.interface_class = w[2] == "-" ? nullptr : TClass::GetClass(w[2].c_str());
   c.aux_class = w[3] == "-" ? nullptr : TClass::GetClass(w[3].c_str());
   if (w[2] != "-" && (!c.interface_class || !c.interface_class->IsLoaded()))
      fail("no compiled dictionary for interface class " + w[2]);
   if (w[3] != "-" && (!c.aux_class || !c.aux_class->IsLoaded()))
      fail("no compiled dictionary for aux class " + w[3]);
   if (c.interface_class && !c.interface_class->InheritsFrom("xAODlike::AuxVectorBase"))
      fail("interface class " + w[2] + " does not derive from xAODlike::AuxVectorBase");
   c.multiplicity = {w[4], {w.begin() + 5, w.end()}};
   c.interface_object = c.interface_class ? c.interface_class->New() : nullptr;
   c.aux_object = c.aux_class ? c.aux_class->New() : nullptr;
   TList no_members;
   for (auto *obj : c.aux_class ? *c.aux_class->GetListOfDataMembers() : no_members) {
      auto *dm = static_cast<TDataMember *>(obj);
      if (!dm->IsPersistent() || dm->Property() & kIsStatic)
         continue;
      Column col;
      if (!kind_of(dm->GetTrueTypeName(), col.kind))
         fail(std::string("member ") + dm->GetName() + " of " + w[3] + " has unsupported type " +
              dm->GetTrueTypeName());
      col.name = dm->GetName();
      col.address = static_cast<char *>(c.aux_object) + dm->GetOffset();
      if (col.kind == Column::EL || col.kind == Column::VEL)
         col.values = {"link", {c.name}};  // until the recipe says where it points
      c.columns.push_back(col);
   }
   recipe.containers.push_back(std::move(c));
}

// dyn|member <Name> <attr> <type> <dist...>: an attribute with storage of its own; a dyn one has its own branch.
void add_attribute(Recipe &recipe, const std::vector<std::string> &w)
{
   auto type = kDynamicTypes.find(w[3]);
   if (type == kDynamicTypes.end())
      fail("unknown attribute type '" + w[3] +
           "' (use float, double, int8, int16, int, int64, uint8, uint16, uint32, uint64, vfloat, vdouble, "
           "vint, vuint32, link, vlink)");
   auto &c = recipe.find(w[1]);
   Column col;
   col.name = w[2];
   col.kind = type->second.first;
   col.address = new_dynamic_vector(col.kind);
   const bool is_link = col.kind == Column::EL || col.kind == Column::VEL;
   // Links need only their target: "dyn Electrons truthParticleLink link TruthParticles".
   // "link <Target> D" draws the index from D, as for static members.
   col.values = is_link ? Distribution{"link", {w.begin() + 4, w.end()}}
                        : Distribution{w[4], {w.begin() + 5, w.end()}};
   c.columns.push_back(col);
   // member: an attribute stored inside the container's aux record only (no branch of its own)
   if (w[0] == "dyn")
      c.dynamic_branches.push_back({c.name + "AuxDyn." + w[2], {type->second.second, col.address}});
}

// keys <Name> <attr> <null-index> <dist...>: the keys of a link attribute, and a null link's index
void set_keys(Recipe &recipe, const std::vector<std::string> &w)
{
   auto &col = recipe.find(w[1]).column(w[2]);
   if (col.kind != Column::EL && col.kind != Column::VEL)
      fail("'keys' is for element-link attributes; " + w[1] + " " + w[2] + " holds none");
   col.null_index = static_cast<uint32_t>(std::stoul(w[3]));
   col.keys = std::make_shared<Column>();
   col.keys->name = col.name + "/keys";
   col.keys->kind = Column::U32;
   col.keys->values = {w[4], {w.begin() + 5, w.end()}};
}

// reuse <Name> <attr> <q> <window> [<run multiplicity...>]: copies from the last <window> (see Column)
void set_reuse(Recipe &recipe, const std::vector<std::string> &w)
{
   auto &col = recipe.find(w[1]).column(w[2]);
   col.reuse = std::stod(w[3]);
   col.window = static_cast<size_t>(std::stoul(w[4]));
   if (col.reuse < 0 || col.reuse > 1 || col.window < 1)
      fail("reuse " + w[1] + " " + w[2] + ": the share must be in [0, 1] and the window at least 1");
   if (w.size() > 5)
      col.runs = {w[5], {w.begin() + 6, w.end()}};
}

// order <Name> <attr> ascending|descending [unique]
void set_order(Recipe &recipe, const std::vector<std::string> &w)
{
   auto &col = recipe.find(w[1]).column(w[2]);
   if (w[3] != "ascending" && w[3] != "descending")
      fail("order " + w[1] + " " + w[2] + ": use ascending or descending");
   if (w.size() == 5 && w[4] != "unique")
      fail("order " + w[1] + " " + w[2] + ": the optional last word is unique");
   col.order = w[3] == "ascending" ? 1 : -1;
   col.unique = w.size() == 5;
}

// record <Name> <interface|aux|attribute> <segments...>: that branch written as a framed record
void add_record(Recipe &recipe, const std::vector<std::string> &w)
{
   auto &c = recipe.find(w[1]);
   if (c.record_of(w[2]))
      fail("container " + w[1] + " has two records for " + w[2]);
   Record r;
   r.part = w[2];
   for (size_t k = 3; k < w.size(); ++k)
      r.segments.push_back(parse_segment(w[k]));
   c.records.push_back(std::move(r));
}

// One line's directive (its words w), applied to the recipe read so far.
void apply_directive(Recipe &recipe, const std::vector<std::string> &w, const std::string &line)
{
   if (w[0] == "layout" && w.size() == 2) {
      if (!recipe.containers.empty())
         fail("'layout' must come before any container, collection or scalar");
      if (w[1] != "flat" && w[1] != "xaod")
         fail("unknown layout '" + w[1] + "' (use xaod or flat)");
      recipe.flat_layout = w[1] == "flat";
   } else if (w[0] == "scalar" && w.size() >= 4) {
      add_scalar(recipe, w);
   } else if (w[0] == "collection" && w.size() >= 4) {
      // collection <Name> <counter-branch> <multiplicity...> (both layouts)
      Collection c;
      c.name = w[1];
      c.flat = true;
      c.counter = w[2];
      c.multiplicity = {w[3], {w.begin() + 4, w.end()}};
      recipe.containers.push_back(std::move(c));
   } else if (w[0] == "column" && w.size() >= 5) {
      // column <Name> <branch> <leaf-type> <dist...>: the array <branch>[<counter>] of collection <Name>
      auto &c = recipe.find(w[1]);
      if (!c.flat)
         fail("'column' belongs to a flat collection; " + w[1] + " is not one");
      c.columns.push_back(leaf_column(w, 2));
   } else if (w[0] == "size" && w.size() >= 4) {
      // size <Name> <attr> <multiplicity...>: the attribute's own element count per event
      auto &col = recipe.find(w[1]).column(w[2]);
      col.has_size = true;
      col.size = {w[3], {w.begin() + 4, w.end()}};
   } else if (w[0] == "container" && w.size() >= 6) {
      add_container(recipe, w);
   } else if (w[0] == "attr" && w.size() >= 4) {
      recipe.find(w[1]).column(w[2]).values = {w[3], {w.begin() + 4, w.end()}};
   } else if (w[0] == "keys" && w.size() >= 5) {
      set_keys(recipe, w);
   } else if (w[0] == "reuse" && w.size() >= 5) {
      set_reuse(recipe, w);
   } else if (w[0] == "order" && (w.size() == 4 || w.size() == 5)) {
      set_order(recipe, w);
   } else if (w[0] == "inner" && w.size() >= 5) {
      recipe.find(w[1]).column(w[2]).inner = {w[3], {w.begin() + 4, w.end()}};
   } else if ((w[0] == "dyn" || w[0] == "member") && w.size() >= 5) {
      add_attribute(recipe, w);
   } else if (w[0] == "record" && w.size() >= 4) {
      add_record(recipe, w);
   } else if (w[0] == "basket" && w.size() == 3) {
      // basket <branch> <bytes>: the branch's own basket size, used when --basket is 0 (the real file's)
      const int bytes = std::stoi(w[2]);
      if (bytes < 16)
         fail("basket " + w[1] + " " + w[2] + ": a basket size is at least 16 bytes");
      recipe.baskets[w[1]] = bytes;
   } else {
      fail("cannot parse '" + line +
           "' (expected layout, container, attr, dyn, member, inner, size, keys, reuse, order, record, basket, "
           "scalar, collection or column with their parameters)");
   }
}

// The branches a recipe's containers make (and their RNTuple fields, rntuple_field_name): each must be unique. A
// TTree would take two branches of one name and hide the second from every reader; an RNTuple model refuses the
// second field. A real file may hold two top-level branches of one name (Delphes' "Particle"): the recipe must
// name them apart.
void check_unique_names(const std::vector<Collection> &containers, const std::string &path)
{
   std::map<std::string, std::string> seen;  // field name -> what made it
   auto add = [&](const std::string &branch, const std::string &what) {
      const std::string name = rntuple_field_name(branch);
      auto [it, fresh] = seen.emplace(name, what);
      if (!fresh)
         fail("recipe " + path + ": " + what + " and " + it->second + " make the same branch (RNTuple field) " +
              name + "; give each a name of its own");
   };
   for (const auto &c : containers) {
      if (c.scalars) {
         for (const auto &col : c.columns)
            add(col.branch, "scalar " + col.branch);
         continue;
      }
      if (c.flat) {
         add(c.counter, "the counter of collection " + c.name);
         for (const auto &col : c.columns)
            add(col.branch, "column " + c.name + " " + col.branch);
         continue;
      }
      if (c.interface_class)
         add(c.name, "the interface of container " + c.name);
      if (c.aux_class)
         add(c.name + "Aux.", "the aux store of container " + c.name);
      for (const auto &branch : c.dynamic_branches)
         add(branch.first, "attribute " + c.name + " " + branch.first.substr(c.name.size() + 7));
   }
}

// A record's class: the interface's, the aux store's or an attribute's record class (XaodClasses.h).
std::string record_class(Collection &c, const Record &r, const std::string &where)
{
   if (r.part == "interface") {
      if (!c.interface_class)
         fail(where + "the container has no interface branch ('-')");
      return c.interface_class->InheritsFrom("xAODlike::IParticleContainer") ? "xAODlike::RecordParticleContainer_v1"
                                                                             : "xAODlike::RecordContainer_v1";
   }
   if (r.part == "aux") {
      if (!c.aux_class)
         fail(where + "the container has no aux branch ('-')");
      return "xAODlike::RecordAuxStore_v1";
   }
   const auto &col = c.column(r.part);
   const std::string cls =
      col.kind == Column::EL || col.kind == Column::VEL ? "xAODlike::ElementLinkRecord_v1" : "xAODlike::Record_v1";
   bool has_branch = false;
   for (auto &d : c.dynamic_branches)
      has_branch |= d.first == c.name + "AuxDyn." + r.part;
   if (!has_branch)
      fail(where + "a record of an attribute is of a dyn attribute (a member lives in the aux record)");
   return cls;
}

// Records: their attributes' columns, their classes and objects.
void resolve_records(std::vector<Collection> &containers, const std::string &path)
{
   for (auto &c : containers)
      for (auto &r : c.records) {
         const std::string where = path + ": record " + c.name + " " + r.part + ": ";
         for (auto &seg : r.segments)
            if (!seg.attr.empty()) {
               size_t k = 0;
               while (k < c.columns.size() && c.columns[k].name != seg.attr)
                  ++k;
               if (k == c.columns.size())
                  fail(where + "no attribute or member '" + seg.attr + "'");
               seg.column = k;
            }
         const std::string cls = record_class(c, r, where);
         r.cl = TClass::GetClass(cls.c_str());
         if (!r.cl || !r.cl->IsLoaded())
            fail("no compiled dictionary for " + cls);
         r.object = r.cl->New();
         r.payload = reinterpret_cast<std::vector<unsigned char> *>(static_cast<char *>(r.object) +
                                                                    r.cl->GetDataMemberOffset("m_payload"));
      }
}

}  // namespace

std::vector<Collection> read_recipe(const std::string &path, bool &flat_layout, std::map<std::string, int> &baskets)
{
   flat_layout = false;
   std::ifstream in(path);
   if (!in)
      fail("cannot read recipe " + path);
   Recipe recipe{path, baskets, {}, false};
   std::string line;
   int lineno = 0;
   while (std::getline(in, line)) {
      ++lineno;
      auto hash = line.find('#');
      if (hash != std::string::npos)
         line.erase(hash);
      auto w = split_words(line);
      if (w.empty())
         continue;
      const std::string where = path + ":" + std::to_string(lineno) + ": ";
      try {
         apply_directive(recipe, w, line);
      } catch (const std::invalid_argument &) {
         fail(where + "a parameter is not a number in '" + line + "'");
      } catch (const std::runtime_error &e) {
         const std::string msg = e.what();
         fail(msg.rfind(path, 0) == 0 ? msg : where + msg);
      }
   }
   flat_layout = recipe.flat_layout;
   if (recipe.containers.empty())
      fail("recipe " + path + " declares no container");
   check_unique_names(recipe.containers, path);
   resolve_records(recipe.containers, path);
   return std::move(recipe.containers);
}

}  // namespace rootparams::write
