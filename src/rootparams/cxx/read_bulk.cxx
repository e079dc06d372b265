// The bulk read of a TTree (--reading-style bulk): ROOT's bulk API, which hands the reader a whole basket of entries per
// call (TBranch::GetBulkRead(), ROOT::Experimental::Internal::TBulkBranchRead in TBranch.h of ROOT 6.40), beside the
// entry-by-entry TTree::GetEntry read of read_ttree.cxx and RDataFrame's of read_rdataframe.cxx. The seeds' claim under
// test: bulk reads give up to 10 times the events per second of GetEntry on a flat ntuple, most with LZ4 or no
// compression, washed out by ZLIB's decompression.
//
// Which branches, and why (ROOT 6.40's TBranch.cxx and TLeaf*.h; TBranch::SupportsBulkRead is
// "one leaf, and the leaf's DeserializeType is not kExternal"):
// - a plain TBranch with one leaf of a fundamental type, Float_t, Double_t, (U)Int_t, (U)Long64_t, (U)Short_t,
//   (U)Long_t (deserialised in place), Char_t, UChar_t, Bool_t (zero copy), read with GetBulkEntries: ROOT
//   byte-swaps the basket in place and the values are host-order T[N]. A fixed-size array (x[3]/F) too;
// - the same leaf with a counter (NanoAOD's Muon_pt[nMuon]/F), read with GetEntriesSerialized: GetBulkEntries
//   refuses such a leaf (TLeafF::ReadBasketFast returns false when there is a leaf count), GetEntriesSerialized
//   hands over the basket's bytes as they are on disk (big-endian; decoded here with frombuf as they are summed).
//   The counts come from the counter branch, read with its own bulk cursor: the counter's baskets need not start
//   where the array's do, which the three-argument GetEntriesSerialized (counter and array baskets read together)
//   would require;
// - nothing else. TBranchElement branches (std::vector<T>, classes, split members: the xAOD formats), Float16_t and
//   Double32_t leaves, strings (TLeafC) and leaf lists of several leaves have no bulk deserialisation in ROOT
//   (kExternal), or, for split collection members, ROOT's TLeafElement::ReadBasketFast ignores the leaf count.
//   A selection that holds one is refused, every such branch named with the reason: a read that fell back to
//   GetEntry for some branches would measure a mixture of the two styles under the bulk name.
//
// How it is made comparable with the GetEntry read:
// - Entries [0, N) of the selected columns (--columns, the harness's resolution of --branches, as for RDataFrame and
//   uproot; without --columns the reader resolves --branches itself, as the GetEntry read does). A basket that
//   reaches past N is read whole (the bulk API's unit is the basket), its values past N neither summed nor counted.
// - Every value is touched: summed as a double per column (values_sum, column_sums, column_values: RDataFrame's and
//   uproot's keys), and, for a variable selection (analysis, sparse, vars:), the variables' values
//   (variables_value_sum: the GetEntry read's key, the counters left out as there). The sums are made basket by
//   basket, not entry by entry, so they agree with the other readers' to rounding (about 1e-12 relative), not bit for bit.
// - The TTreeCache: the bulk calls use the tree's cache when there is one but never create it, and the cache decides
//   what to prefetch from TTree::GetReadEntry(), which the bulk calls do not move. So the cache is made here as the
//   GetEntry read makes it (--cache-size: 0 off, -1 sized from the AutoFlush cluster, > 0 bytes), every column's
//   branch is added to it and its learning phase stopped at once (there is nothing to learn: the branches are
//   known), and the loop is cluster by cluster, TTree::LoadTree at each cluster's first entry, then every column's
//   baskets of that cluster. Hence --learn-entries must be -1 (there is no learning phase), and --threads 1 and
//   --unzip 0 (the bulk calls run in the loop's thread: implicit MT's per-branch tasks and TTreeCacheUnzip's are
//   GetEntry's).
// - Spans and counters are the GetEntry read's (read_counters.h). The bulk read has no "second entry" moment (the
//   first call reads a basket of hundreds of entries), so the note's window is the loop, as for RDataFrame
//   (note_window_is_loop: true).
//
// RNTuple (--container rntuple --reading-style bulk; ROOT 6.40 has a bulk read there too, in namespace ROOT):
// ROOT::RFieldBase::RBulkValues from a field's view (CreateBulk), ReadBulk(RNTupleLocalIndex(cluster, 0), nullptr, n)
// per cluster. It is a bulk copy for fields of a fundamental type, ROOT::RVec (and std::vector, read as RVec) of one,
// and collection sizes (RNTupleCardinality); NanoAOD's projected fields (Muon_pt, nMuon) are of these types. Other
// types go through ROOT's generic ReadBulkImpl, a Read() per value, which is no bulk read: such a field is refused.
#include "read_bulk.h"

#include "read_common.h"
#include "read_counters.h"
#include "read_ntuple.h"
#include "read_selection.h"
#include "read_ttree.h"

#include <Bytes.h>  // frombuf: a big-endian value to host order
#include <ROOT/RFieldBase.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleReadOptions.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleTypes.hxx>
#include <ROOT/RNTupleView.hxx>
#include <ROOT/RVec.hxx>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TBufferFile.h>
#include <TEnv.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TROOT.h>
#include <TTree.h>
#include <TTreeCache.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace rootparams::read {

namespace {

// One column's sum for the report: its name, its type as ROOT names it, the sum of its values and their number.
struct SummedColumn {
   std::string name, type;
   double sum;
   long long values;
};

// The fundamental leaf types the bulk API reads (TLeaf::GetTypeName of TLeafF, D, I, L, S, B, O, G).
enum class Kind { kFloat, kDouble, kInt, kUInt, kLong64, kULong64, kShort, kUShort, kChar, kUChar, kBool, kLong, kULong };

struct KindInfo {
   Kind kind;
   int size;  // bytes per value in the basket
};

bool kind_of(const std::string &type, KindInfo &out)
{
   static const std::map<std::string, KindInfo> kinds = {
      {"Float_t", {Kind::kFloat, 4}},     {"Double_t", {Kind::kDouble, 8}},   {"Int_t", {Kind::kInt, 4}},
      {"UInt_t", {Kind::kUInt, 4}},       {"Long64_t", {Kind::kLong64, 8}},   {"ULong64_t", {Kind::kULong64, 8}},
      {"Short_t", {Kind::kShort, 2}},     {"UShort_t", {Kind::kUShort, 2}},   {"Char_t", {Kind::kChar, 1}},
      {"UChar_t", {Kind::kUChar, 1}},     {"Bool_t", {Kind::kBool, 1}},       {"Long_t", {Kind::kLong, 8}},
      {"ULong_t", {Kind::kULong, 8}}};
   auto it = kinds.find(type);
   if (it == kinds.end())
      return false;
   out = it->second;
   return true;
}

bool is_integer(Kind k)
{
   return k != Kind::kFloat && k != Kind::kDouble;
}

// Value i of an array of T at p: host order (GetBulkEntries has swapped it) or big-endian (GetEntriesSerialized: the
// bytes as on disk). The basket's data need not be aligned for T, hence the copies.
template <typename T, bool kBigEndian>
inline T value_at(const char *p, long long i)
{
   T v;
   if constexpr (kBigEndian && sizeof(T) > 1) {
      char *q = const_cast<char *>(p + i * static_cast<long long>(sizeof(T)));
      frombuf(q, &v);
   } else {
      std::memcpy(&v, p + i * static_cast<long long>(sizeof(T)), sizeof(T));
   }
   return v;
}

template <typename T, bool kBigEndian>
double sum_of(const char *p, long long n)
{
   double s = 0;
   for (long long i = 0; i < n; ++i)
      s += static_cast<double>(value_at<T, kBigEndian>(p, i));
   return s;
}

template <bool kBigEndian>
double sum_values(Kind k, const char *p, long long n)
{
   switch (k) {
   case Kind::kFloat: return sum_of<Float_t, kBigEndian>(p, n);
   case Kind::kDouble: return sum_of<Double_t, kBigEndian>(p, n);
   case Kind::kInt: return sum_of<Int_t, kBigEndian>(p, n);
   case Kind::kUInt: return sum_of<UInt_t, kBigEndian>(p, n);
   case Kind::kLong64: return sum_of<Long64_t, kBigEndian>(p, n);
   case Kind::kULong64: return sum_of<ULong64_t, kBigEndian>(p, n);
   case Kind::kShort: return sum_of<Short_t, kBigEndian>(p, n);
   case Kind::kUShort: return sum_of<UShort_t, kBigEndian>(p, n);
   case Kind::kChar: return sum_of<Char_t, kBigEndian>(p, n);
   case Kind::kUChar: return sum_of<UChar_t, kBigEndian>(p, n);
   case Kind::kBool: return sum_of<Bool_t, kBigEndian>(p, n);
   case Kind::kLong: return sum_of<Long64_t, kBigEndian>(p, n);    // Long_t is written as 8 bytes
   case Kind::kULong: return sum_of<ULong64_t, kBigEndian>(p, n);  // ULong_t likewise
   }
   return 0;
}

// Entry i's count, from a counter basket read with GetBulkEntries (host order).
long long count_at(Kind k, const char *p, long long i)
{
   switch (k) {
   case Kind::kInt: return value_at<Int_t, false>(p, i);
   case Kind::kUInt: return value_at<UInt_t, false>(p, i);
   case Kind::kLong64: case Kind::kLong: return value_at<Long64_t, false>(p, i);
   case Kind::kULong64: case Kind::kULong: return static_cast<long long>(value_at<ULong64_t, false>(p, i));
   case Kind::kShort: return value_at<Short_t, false>(p, i);
   case Kind::kUShort: return value_at<UShort_t, false>(p, i);
   case Kind::kChar: return value_at<Char_t, false>(p, i);
   case Kind::kUChar: return value_at<UChar_t, false>(p, i);
   case Kind::kBool: return value_at<Bool_t, false>(p, i);
   default: return -1;
   }
}

// One branch read in bulk: its cursor (the first entry not yet read, always the first entry of a basket), its buffer
// (the basket adopts it: ROOT decompresses straight into it), and what was read of it.
struct Column {
   std::string name;
   TBranch *branch = nullptr;
   TLeaf *leaf = nullptr;
   KindInfo kind{};
   int len = 1;                 // values per entry (per count, for a counted array): the leaf's static length
   bool requested = true;       // named by the selection; false: a counter read only for its arrays
   Column *counter = nullptr;   // a counted array: its counter's column
   bool is_counter = false;     // the counter of a selected counted array: keeps its counts for them
   std::unique_ptr<TBufferFile> buffer = std::make_unique<TBufferFile>(TBuffer::kWrite, 32 * 1024);
   Long64_t next = 0;
   std::vector<long long> counts;  // a counter's counts of entries [count_base, counts_end()), for its arrays
   Long64_t count_base = 0;
   // Entries past the last one read (--events) are not kept: counts end at min(next, events).
   Long64_t counts_end() const { return count_base + static_cast<Long64_t>(counts.size()); }
   double sum = 0;
   long long values = 0, baskets = 0, value_bytes = 0;
};

// What a bulk read is asked, parsed and checked once.
struct BulkRequest {
   std::string path, tree_name, selection;
   Long64_t events = 0, cache_size = -1;
   int threads = 1, learn_entries = -1;
   std::vector<std::string> columns;  // empty: resolved from the selection here

   static BulkRequest parse(const std::map<std::string, std::string> &args)
   {
      BulkRequest r;
      r.path = required_arg(args, "file");
      r.tree_name = tree_name_arg(args);
      r.events = std::stoll(required_arg(args, "events"));
      r.selection = args.count("branches") ? args.at("branches") : "";
      r.cache_size = args.count("cache-size") ? std::stoll(args.at("cache-size")) : -1;
      r.threads = args.count("threads") ? std::stoi(args.at("threads")) : 1;
      r.learn_entries = args.count("learn-entries") ? std::stoi(args.at("learn-entries")) : -1;
      if (args.count("columns")) {
         std::stringstream s(args.at("columns"));
         std::string name;
         std::set<std::string> seen;
         while (std::getline(s, name, ','))
            if (!name.empty()) {
               if (!seen.insert(name).second)
                  fail(r.path + ": --columns names '" + name + "' twice");
               r.columns.push_back(name);
            }
      }
      if (r.events < 1)
         fail("--events must be at least 1");
      if (r.columns.empty() && r.selection.empty())
         fail(r.path + ": --reading-style bulk needs --columns <branch>,<branch>,... or --branches <selection>");
      if (r.threads != 1)
         fail(r.path + ": --threads " + std::to_string(r.threads) + " cannot be applied with --reading-style bulk: "
              "ROOT's bulk calls read in the loop's thread (implicit MT's per-branch tasks are TTree::GetEntry's); "
              "use --threads 1");
      if (r.learn_entries != -1)
         fail(r.path + ": --learn-entries " + std::to_string(r.learn_entries) + " cannot be applied with "
              "--reading-style bulk: its columns' branches are added to the TTreeCache and the learning phase is "
              "stopped at once; use --learn-entries -1");
      if (args.count("unzip") && args.at("unzip") != "0")
         fail(r.path + ": --unzip " + args.at("unzip") + " is a setting of the GetEntry read (--reading-style "
              "getentry); the bulk calls decompress each basket in the loop's thread: use --unzip 0 with "
              "--reading-style bulk");
      return r;
   }
};

// The branch a column names: a branch of that name, or the branch of a leaf of that name.
TBranch *branch_of(TTree *tree, const std::string &name)
{
   if (auto *b = tree->GetBranch(name.c_str()))
      return b;
   if (auto *leaf = tree->GetLeaf(name.c_str()))
      return leaf->GetBranch();
   return nullptr;
}

// Why the bulk API cannot read branch `b` ("" if it can), for the error that names it.
std::string why_not_bulk(TBranch *b)
{
   if (auto *be = dynamic_cast<TBranchElement *>(b)) {
      const std::string cls = be->GetClassName();
      return "a TBranchElement" + (cls.empty() ? std::string() : " of class " + cls) +
             " (a std::vector, a class or a member of a split object: its entries are streamed objects, which ROOT's "
             "bulk API does not deserialise)";
   }
   const int leaves = b->GetListOfLeaves()->GetEntries();
   if (leaves != 1)
      return "a leaf list of " + std::to_string(leaves) + " leaves (ROOT's bulk API reads branches of one leaf)";
   auto *leaf = static_cast<TLeaf *>(b->GetListOfLeaves()->At(0));
   KindInfo kind;
   if (!b->GetBulkRead().SupportsBulkRead() || !kind_of(leaf->GetTypeName(), kind))
      return std::string("a leaf of type ") + leaf->GetTypeName() + " (" + leaf->ClassName() +
             ": no bulk deserialisation in ROOT; Float16_t, Double32_t, strings and objects have none)";
   return "";
}

std::string joined_names(const std::vector<std::string> &names)
{
   std::string s;
   for (size_t i = 0; i < names.size(); ++i)
      s += (i ? ", " : "") + names[i];
   return s;
}

// The columns of the request, each checked; every branch the bulk API cannot read named in one message, with the
// reason, and what the style does read.
std::vector<std::unique_ptr<Column>> make_columns(TTree *tree, const BulkRequest &r,
                                                  const std::vector<std::string> &names)
{
   std::vector<std::unique_ptr<Column>> columns;
   std::map<TBranch *, Column *> by_branch;
   std::vector<std::string> unknown, refused;
   auto add = [&](TBranch *b, const std::string &name, bool requested) -> Column * {
      if (auto it = by_branch.find(b); it != by_branch.end()) {
         it->second->requested |= requested;
         return it->second;
      }
      auto c = std::make_unique<Column>();
      c->name = name;
      c->branch = b;
      c->requested = requested;
      c->leaf = static_cast<TLeaf *>(b->GetListOfLeaves()->At(0));
      kind_of(c->leaf->GetTypeName(), c->kind);
      c->len = c->leaf->GetLenStatic();
      by_branch[b] = c.get();
      columns.push_back(std::move(c));
      return columns.back().get();
   };
   for (auto &name : names) {
      TBranch *b = branch_of(tree, name);
      if (!b) {
         unknown.push_back("'" + name + "'");
         continue;
      }
      if (auto why = why_not_bulk(b); !why.empty()) {
         refused.push_back("branch '" + name + "' is " + why);
         continue;
      }
      if (TLeaf *count = static_cast<TLeaf *>(b->GetListOfLeaves()->At(0))->GetLeafCount()) {
         TBranch *cb = count->GetBranch();
         KindInfo ck;
         if (!why_not_bulk(cb).empty() || !kind_of(count->GetTypeName(), ck) || !is_integer(ck.kind) ||
             count->GetLeafCount() || count->GetLenStatic() != 1)
            refused.push_back("branch '" + name + "' is counted by '" + cb->GetName() +
                              "', which is not a scalar integer branch the bulk API can read");
      }
      add(b, name, true);
   }
   if (!unknown.empty())
      fail(r.path + ": --columns " + joined_names(unknown) + (unknown.size() > 1 ? " are" : " is") +
           " not a branch or leaf of tree '" + r.tree_name + "'");
   if (!refused.empty())
      fail(r.path + ": --reading-style bulk cannot read this selection (--branches '" + r.selection + "'): " +
           joined_names(refused) + ". The bulk style reads plain branches of one leaf of a fundamental type "
           "(Float_t, Double_t, (U)Int_t, (U)Long64_t, (U)Short_t, (U)Char_t, Bool_t), scalar, fixed-size or counted "
           "by another such branch (a flat, NanoAOD-like tree); read this selection with --reading-style getentry, "
           "rdataframe or uproot, or choose branches of that kind");
   // The counters of the counted arrays, read (and added to the cache) even where the selection does not name them.
   for (size_t k = 0, n = columns.size(); k < n; ++k) {
      Column *c = columns[k].get();
      if (TLeaf *count = c->leaf->GetLeafCount()) {
         Column *counter = add(count->GetBranch(), count->GetBranch()->GetName(), false);
         counter->is_counter = true;
         c->counter = counter;  // (the Columns live on the heap: `columns` growing moves no Column)
      }
   }
   return columns;
}

void read_basket(Column &c, Long64_t events, const std::string &path);

// Read the counter `c` until its counts reach entry `end`.
void ensure_counts(Column &c, Long64_t end, Long64_t events, const std::string &path)
{
   while (c.counts_end() < end)
      read_basket(c, events, path);
}

// Read the basket of column `c` that starts at its cursor: GetBulkEntries for a scalar or fixed-size array (values in
// host order), GetEntriesSerialized for a counted array (values as on disk, big-endian); sum the values of entries
// below `events`.
void read_basket(Column &c, Long64_t events, const std::string &path)
{
   const Long64_t first = c.next;
   auto &bulk = c.branch->GetBulkRead();
   const Int_t n = c.counter ? bulk.GetEntriesSerialized(first, *c.buffer) : bulk.GetBulkEntries(first, *c.buffer);
   if (n <= 0)
      damaged(path + ": " + (c.counter ? "GetEntriesSerialized" : "GetBulkEntries") + " of branch '" + c.name +
              "' at entry " + std::to_string(first) + " returned " + std::to_string(n) +
              " (corrupt basket or I/O error; ROOT's message above, if any, says more)");
   const Long64_t usable = std::min<Long64_t>(n, events - first);
   const char *data = c.buffer->GetCurrent();
   long long values = 0;
   if (c.counter) {
      Column &counter = *c.counter;
      ensure_counts(counter, first + usable, events, path);
      for (Long64_t e = first; e < first + usable; ++e)
         values += counter.counts[e - counter.count_base];
      values *= c.len;
   } else {
      values = usable * c.len;
   }
   // The values must lie inside the basket's buffer: a counted array whose counts do not match its basket (a
   // damaged file, or counts from the wrong entries) would otherwise be read past its end.
   const long long end = (data - c.buffer->Buffer()) + values * c.kind.size;
   if (values < 0 || end > c.buffer->BufferSize())
      damaged(path + ": the basket of branch '" + c.name + "' at entry " + std::to_string(first) + " holds " +
              std::to_string(c.buffer->BufferSize()) + " bytes, but its counts ask for " + std::to_string(end) +
              " (counts and data do not match: a damaged file)");
   if (c.is_counter)
      for (Long64_t i = 0; i < usable; ++i)
         c.counts.push_back(count_at(c.kind.kind, data, i));
   const double s = c.counter ? sum_values<true>(c.kind.kind, data, values) : sum_values<false>(c.kind.kind, data, values);
   c.sum += s;
   c.values += values;
   c.value_bytes += values * c.kind.size;
   ++c.baskets;
   c.next = first + n;
}

// Drop the counts every array of counter `c` has used.
void trim_counts(Column &c, const std::vector<std::unique_ptr<Column>> &columns)
{
   Long64_t keep = c.counts_end();
   for (auto &a : columns)
      if (a->counter == &c)
         keep = std::min(keep, a->next);
   if (keep > c.count_base) {
      c.counts.erase(c.counts.begin(), c.counts.begin() + (keep - c.count_base));
      c.count_base = keep;
   }
}

// The TTreeCache as the GetEntry read sizes it (--cache-size), holding exactly the columns' branches, with no
// learning phase: the branches are known.
void set_up_bulk_cache(TTree *tree, const BulkRequest &r, const std::vector<std::unique_ptr<Column>> &columns)
{
   if (tree->SetCacheSize(r.cache_size) < 0)
      fail("TTree::SetCacheSize(" + std::to_string(r.cache_size) + ") failed for " + r.path);
   if (tree->GetCacheSize() <= 0)
      return;
   for (auto &c : columns)
      if (tree->AddBranchToCache(c->branch, false) < 0)
         fail(r.path + ": TTree::AddBranchToCache(" + c->name + ") failed");
   tree->StopCacheLearningPhase();
}

// The loop: cluster by cluster; TTree::LoadTree at the cluster's first entry is what moves the TTreeCache on (its
// prefetch follows TTree::GetReadEntry), then every column's baskets of the cluster, the counters first (their counts
// must be there when the arrays' baskets are summed). Returns the clusters read.
long long read_clusters(TTree *tree, const BulkRequest &r, const std::vector<std::unique_ptr<Column>> &columns)
{
   std::vector<Column *> order;
   for (auto &c : columns)
      if (c->is_counter)
         order.push_back(c.get());
   for (auto &c : columns)
      if (!c->is_counter)
         order.push_back(c.get());
   long long clusters = 0;
   auto it = tree->GetClusterIterator(0);
   for (Long64_t c0 = it(); c0 < r.events; c0 = it()) {
      const Long64_t c1 = std::min(it.GetNextEntry(), r.events);
      ++clusters;
      if (tree->LoadTree(c0) < 0)
         damaged(r.path + ": TTree::LoadTree(" + std::to_string(c0) + ") failed");
      for (Column *c : order)
         while (c->next < c1)
            read_basket(*c, r.events, r.path);
      for (Column *c : order)
         if (c->is_counter)
            trim_counts(*c, columns);
   }
   return clusters;
}

// The sums every bulk read reports, TTree or RNTuple: per column (RDataFrame's and uproot's keys values_sum,
// column_sums, column_values) and, for a variable selection, of the variables' columns (GetEntry's
// variables_value_sum: a flat array's counter is read, not a variable).
void add_bulk_sums(JsonObject &out, const std::vector<SummedColumn> &columns, const std::vector<Variable> &variables)
{
   std::set<std::string> variable_columns;
   for (auto &v : variables)
      variable_columns.insert(v.read);
   double values_sum = 0, variables_sum = 0;
   long long values_count = 0, variables_values = 0, variables_summed = 0;
   JsonObject types, sums, counts;
   for (auto &c : columns) {
      values_sum += c.sum;
      values_count += c.values;
      types.str(c.name, c.type);
      sums.num(c.name, c.sum);
      counts.integer(c.name, c.values);
      if (variable_columns.count(c.name)) {
         variables_sum += c.sum;
         variables_values += c.values;
      }
   }
   for (auto &v : variables)  // a variable whose column was read
      variables_summed += std::any_of(columns.begin(), columns.end(), [&](auto &c) { return c.name == v.read; });
   out.num("variables_value_sum", variables.empty() ? std::nan("") : variables_sum)
      .integer("variables_values_summed", variables_values)
      .integer("variables_summed", variables_summed)
      .integer("variables_not_summed", static_cast<long long>(variables.size()) - variables_summed)
      .raw("column_types", types.dump())
      .num("values_sum", values_sum)
      .integer("values_count", values_count)
      .raw("column_sums", sums.dump())
      .raw("column_values", counts.dump());
}

// What the TTree bulk read reports beside the sums: how each branch was read, the cache, the file's counters.
void report_bulk(const BulkRequest &r, TFile *file, TTree *tree, const std::vector<std::unique_ptr<Column>> &columns,
                 const std::vector<Variable> &variables, long long clusters, long long names, const Snapshot &loop_start,
                 const Snapshot &end, PerfStats *perf, const Snapshot &process_start, const char *mode,
                 long long rss_baseline)
{
   long long baskets = 0, value_bytes = 0, fixed = 0, counted = 0, selected_zip = 0, selected_tot = 0;
   std::vector<std::string> read_names;
   std::vector<SummedColumn> summed;
   for (auto &c : columns) {
      baskets += c->baskets;
      value_bytes += c->value_bytes;
      selected_zip += c->branch->GetZipBytes();
      selected_tot += c->branch->GetTotBytes();
      read_names.push_back(c->name);
      (c->counter ? counted : fixed) += 1;
      if (c->requested)
         summed.push_back({c->name, c->leaf->GetTypeName(), c->sum, c->values});
   }
   auto *cache = dynamic_cast<TTreeCache *>(file->GetCacheRead(tree));
   JsonObject out;
   add_ttree_read_header(out, r.path, file->ClassName(), "bulk", perf != nullptr, mode, perf ? 1 : 0);
   add_selection(out, r.selection, variables, read_names);
   add_bulk_sums(out, summed, variables);
   out.integer("columns", names)
      .integer("column_branches", static_cast<long long>(columns.size()))  // the columns and their counters
      // How each branch was read: GetBulkEntries (scalars and fixed-size arrays, host order after ROOT's in-place
      // swap) or GetEntriesSerialized (counted arrays, big-endian as on disk); none by GetEntry.
      .integer("bulk_getbulkentries_branches", fixed)
      .integer("bulk_serialized_branches", counted)
      .integer("bulk_getentry_branches", 0)
      .integer("bulk_baskets_read", baskets)
      .integer("bulk_clusters", clusters)
      .integer("selected_zip_bytes", selected_zip)
      .integer("selected_tot_bytes", selected_tot)
      .str("read_mode", "baskets")
      .integer("entries_in_tree", tree->GetEntries())
      .integer("events_requested", r.events)
      .integer("events_read", r.events)
      .integer("cache_size_requested", r.cache_size)
      .integer("cache_size_used", tree->GetCacheSize())
      .integer("cache_buffer_bytes", cache ? cache->GetBufferSize() : 0)
      .integer("cache_cached_branches",
               cache && cache->GetCachedBranches() ? cache->GetCachedBranches()->GetEntries() : 0)
      .num("cache_efficiency", cache ? cache->GetEfficiency() : 0.0)
      .integer("learn_entries_requested", r.learn_entries)
      .integer("threads_requested", r.threads)
      .integer("imt_pool_size", 0)
      .str("env_TTreeCache.Size", gEnv->GetValue("TTreeCache.Size", "(unset)"))
      .str("env_TTreeCache.Prefill", gEnv->GetValue("TTreeCache.Prefill", "(unset)"))
      .str("env_TFile.AsyncPrefetching", gEnv->GetValue("TFile.AsyncPrefetching", "(unset)"));
   add_timed_read(out, process_start, loop_start, loop_start, end, perf != nullptr, r.events, rss_baseline, true);
   out.integer("file_bytes_read_useful", file->GetBytesRead())
      .integer("file_read_calls", file->GetReadCalls())
      .integer("other_files_bytes_read", perf ? perf->other_files_bytes() : 0)
      // The bytes of the values handed to the loop (GetEntry's bytes_unpacked counts what GetEntry unpacked).
      .integer("bytes_unpacked", value_bytes);
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
}

}  // namespace

int timed_read_bulk(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode)
{
   const BulkRequest r = BulkRequest::parse(args);
   const auto &path = r.path;
   // Installed before the open, so that the open's reads are counted, and detached from the tree (read_ttree.cxx,
   // timed_read, says why).
   PerfStats *perf = args.count("no-perfstats") ? nullptr : new PerfStats(path);
   if (perf)
      gPerfStats = perf;

   auto [file, tree] = open_tree(path, r.tree_name);
   if (tree->GetEntries() < r.events)
      damaged(path + ": has " + std::to_string(tree->GetEntries()) + " entries, but " + std::to_string(r.events) +
              " were requested");
   if (perf)
      perf->Attach(tree);

   // The selection: the harness's columns, or the reader's own resolution of --branches; a variable selection's
   // variables, for the GetEntry read's variables_value_sum.
   std::vector<Variable> variables;
   std::unique_ptr<TreeCatalogue> catalogue;
   if (is_variable_selection(r.selection)) {
      catalogue = std::make_unique<TreeCatalogue>(tree);
      variables = resolve_variables(*catalogue, r.selection, path);
   }
   std::vector<std::string> names = r.columns;
   if (names.empty())
      names = catalogue ? variables_read(variables) : select_top_branches(tree, r.selection, path);
   auto columns = make_columns(tree, r, names);
   set_up_bulk_cache(tree, r, columns);
   const long long rss_baseline = current_rss_bytes();

   const Snapshot loop_start = Snapshot::take(perf);
   const long long clusters = read_clusters(tree, r, columns);
   const Snapshot end = Snapshot::take(perf);
   report_bulk(r, file.get(), tree, columns, variables, clusters, static_cast<long long>(names.size()), loop_start, end,
               perf, process_start, mode, rss_baseline);
   return 0;
}

// ---- RNTuple ----------------------------------------------------------------------------------------------------

namespace {

// One field read in bulk: a typed view (which connects only that field's columns) and its RBulkValues, which must not
// outlive the view; each call fills the values of the first n entries of one cluster.
class FieldBulk {
public:
   virtual ~FieldBulk() = default;
   virtual void read(ROOT::DescriptorId_t cluster, std::size_t n) = 0;
   std::string name, type;
   double sum = 0;
   long long values = 0;
};

// A field of a simple type (float, int, ...): ReadBulk is one copy of the column's pages.
template <typename T>
class ScalarBulk : public FieldBulk {
public:
   ScalarBulk(ROOT::RNTupleReader &reader, const std::string &field)
      : view_(reader.GetView<T>(field)), bulk_(view_.CreateBulk())
   {
   }
   void read(ROOT::DescriptorId_t cluster, std::size_t n) override
   {
      const auto *v = static_cast<const T *>(bulk_.ReadBulk(ROOT::RNTupleLocalIndex(cluster, 0), nullptr, n));
      double s = 0;
      for (std::size_t i = 0; i < n; ++i)
         s += static_cast<double>(v[i]);
      sum += s;
      values += static_cast<long long>(n);
   }

private:
   ROOT::RNTupleView<T> view_;
   ROOT::RFieldBase::RBulkValues bulk_;
};

// A collection of a simple type read as ROOT::RVec<E> (NanoAOD's projected Muon_pt, a std::vector<float> field):
// RRVecField's ReadBulk reads the items of the whole range with one copy, and each RVec points into them.
template <typename E>
class VecBulk : public FieldBulk {
public:
   VecBulk(ROOT::RNTupleReader &reader, const std::string &field)
      : view_(reader.GetView<ROOT::RVec<E>>(field)), bulk_(view_.CreateBulk())
   {
   }
   void read(ROOT::DescriptorId_t cluster, std::size_t n) override
   {
      const auto *v =
         static_cast<const ROOT::RVec<E> *>(bulk_.ReadBulk(ROOT::RNTupleLocalIndex(cluster, 0), nullptr, n));
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) {
         for (const auto x : v[i])
            s += static_cast<double>(x);
         values += static_cast<long long>(v[i].size());
      }
      sum += s;
   }

private:
   ROOT::RNTupleView<ROOT::RVec<E>> view_;
   ROOT::RFieldBase::RBulkValues bulk_;
};

using FieldBulkMaker = std::function<std::unique_ptr<FieldBulk>(ROOT::RNTupleReader &, const std::string &)>;

template <typename E>
void add_ntuple_type(std::map<std::string, FieldBulkMaker> &t, const std::string &spelling)
{
   t[spelling] = [](ROOT::RNTupleReader &r, const std::string &f) { return std::make_unique<ScalarBulk<E>>(r, f); };
   for (const std::string wrap : {"ROOT::VecOps::RVec<", "ROOT::RVec<", "std::vector<"})
      t[wrap + spelling + ">"] = [](ROOT::RNTupleReader &r, const std::string &f) {
         return std::make_unique<VecBulk<E>>(r, f);
      };
}

// The field types whose ReadBulk is a bulk copy in ROOT 6.40 (RFieldBase.hxx, RFieldSequenceContainer.hxx): simple
// fields, RVec of them (a std::vector field is read as an RVec), and collection sizes (RNTupleCardinality). Every
// other type goes through the generic RFieldBase::ReadBulkImpl, a Read() per value: no bulk read, refused.
const std::map<std::string, FieldBulkMaker> &ntuple_bulk_types()
{
   static const std::map<std::string, FieldBulkMaker> table = [] {
      std::map<std::string, FieldBulkMaker> t;
      add_ntuple_type<float>(t, "float");
      add_ntuple_type<double>(t, "double");
      add_ntuple_type<std::int8_t>(t, "std::int8_t");
      add_ntuple_type<std::uint8_t>(t, "std::uint8_t");
      add_ntuple_type<std::int16_t>(t, "std::int16_t");
      add_ntuple_type<std::uint16_t>(t, "std::uint16_t");
      add_ntuple_type<std::int32_t>(t, "std::int32_t");
      add_ntuple_type<std::uint32_t>(t, "std::uint32_t");
      add_ntuple_type<std::int64_t>(t, "std::int64_t");
      add_ntuple_type<std::uint64_t>(t, "std::uint64_t");
      add_ntuple_type<char>(t, "char");
      add_ntuple_type<bool>(t, "bool");
      t["ROOT::RNTupleCardinality<std::uint32_t>"] = [](ROOT::RNTupleReader &r, const std::string &f) {
         return std::make_unique<ScalarBulk<ROOT::RNTupleCardinality<std::uint32_t>>>(r, f);
      };
      t["ROOT::RNTupleCardinality<std::uint64_t>"] = [](ROOT::RNTupleReader &r, const std::string &f) {
         return std::make_unique<ScalarBulk<ROOT::RNTupleCardinality<std::uint64_t>>>(r, f);
      };
      return t;
   }();
   return table;
}

// The fields of the request, each with a bulk reader of its type; every field without one named in one message.
std::vector<std::unique_ptr<FieldBulk>> make_fields(ROOT::RNTupleReader &reader, const BulkRequest &r,
                                                    const std::vector<std::string> &names)
{
   const auto &desc = reader.GetDescriptor();
   std::vector<std::unique_ptr<FieldBulk>> fields;
   std::vector<std::string> unknown, refused;
   for (auto &name : names) {
      const auto id = desc.FindFieldId(name);
      if (id == ROOT::kInvalidDescriptorId) {
         unknown.push_back("'" + name + "'");
         continue;
      }
      const std::string type = desc.GetFieldDescriptor(id).GetTypeName();
      auto maker = ntuple_bulk_types().find(type);
      if (maker == ntuple_bulk_types().end()) {
         refused.push_back("field '" + name + "' is of type " + type);
         continue;
      }
      try {
         fields.push_back(maker->second(reader, name));
      } catch (const std::exception &e) {
         fail(r.path + ": cannot read field '" + name + "' (" + type + ") in bulk: " + e.what());
      }
      fields.back()->name = name;
      fields.back()->type = type;
   }
   if (!unknown.empty())
      fail(r.path + ": --columns " + joined_names(unknown) + (unknown.size() > 1 ? " are" : " is") +
           " not a field of RNTuple '" + r.tree_name + "'");
   if (!refused.empty())
      fail(r.path + ": --reading-style bulk cannot read this selection (--branches '" + r.selection + "'): " +
           joined_names(refused) + ". ROOT " + gROOT->GetVersion() + " reads in bulk (RFieldBase::ReadBulk as one "
           "copy) fields of a fundamental type, ROOT::RVec or std::vector of one, and collection sizes "
           "(RNTupleCardinality); other types are read value by value; read this selection with "
           "--reading-style getentry, or choose fields of those types");
   return fields;
}

// The loop: the first entries (below --events) of every cluster, in entry order (the descriptor's iteration order is
// unspecified; in order, the cluster cache reads ahead), each field's ReadBulk per cluster. Returns the clusters read.
long long read_ntuple_clusters(const ROOT::RNTupleDescriptor &desc, const BulkRequest &r,
                               std::vector<std::unique_ptr<FieldBulk>> &fields)
{
   std::vector<std::tuple<ROOT::NTupleSize_t, ROOT::DescriptorId_t, ROOT::NTupleSize_t>> clusters;
   for (const auto &c : desc.GetClusterIterable())
      clusters.emplace_back(c.GetFirstEntryIndex(), c.GetId(), c.GetNEntries());
   std::sort(clusters.begin(), clusters.end());
   long long read = 0;
   for (const auto &[first, id, entries] : clusters) {
      if (static_cast<Long64_t>(first) >= r.events)
         break;
      const auto n = std::min<ROOT::NTupleSize_t>(entries, static_cast<ROOT::NTupleSize_t>(r.events) - first);
      ++read;
      for (auto &f : fields) {
         try {
            f->read(id, n);
         } catch (const std::exception &e) {
            damaged(r.path + ": reading field '" + f->name + "' in bulk at entry " + std::to_string(first) +
                    " failed: " + e.what());
         }
      }
   }
   return read;
}

}  // namespace

// The bulk read of an RNTuple (--container rntuple --reading-style bulk): ROOT::RFieldBase::RBulkValues (from the
// field's view, CreateBulk) with ReadBulk over the first entries of every cluster in entry order (a bulk range lies
// in one cluster), the cluster cache as the view read has it (--cache-size 0: off, else on). The fields and their
// checks as the TTree bulk read's: --columns, or --branches resolved here; a field of a type without a bulk read is
// refused, named with its type.
int timed_read_ntuple_bulk(const std::map<std::string, std::string> &args, const Snapshot &process_start,
                           const char *mode)
{
   const BulkRequest r = BulkRequest::parse(args);
   const auto &path = r.path;
   const int bunch = args.count("cluster-bunch") ? std::stoi(args.at("cluster-bunch")) : 1;
   if (bunch < 1)
      fail("--cluster-bunch must be at least 1");
   ROOT::RNTupleReadOptions options;
   options.SetClusterCache(r.cache_size == 0 ? ROOT::RNTupleReadOptions::EClusterCache::kOff
                                             : ROOT::RNTupleReadOptions::EClusterCache::kOn);
   ROOT::Internal::RNTupleReadOptionsManip::SetClusterBunchSize(options, bunch);
   options.SetUseImplicitMT(ROOT::RNTupleReadOptions::EImplicitMT::kOff);
   const bool metrics = !args.count("no-perfstats");
   options.SetEnableMetrics(metrics);
   auto file = open_root_file(path);
   auto reader = open_ntuple(path, r.tree_name, file.get(), options);
   auto counters = ntuple_io_counters(*reader);
   const IOCounters *io = metrics ? counters.get() : nullptr;
   if (static_cast<Long64_t>(reader->GetNEntries()) < r.events)
      damaged(path + ": has " + std::to_string(reader->GetNEntries()) + " entries, but " + std::to_string(r.events) +
              " were requested");
   const auto &desc = reader->GetDescriptor();
   std::vector<Variable> variables;
   if (is_variable_selection(r.selection))
      variables = resolve_variables(NTupleCatalogue(desc), r.selection, path);
   std::vector<std::string> names = r.columns;
   if (names.empty()) {
      if (!variables.empty())
         names = variables_read(variables);
      else
         for (auto &field : select_top_fields(desc, r.selection, path))
            names.push_back(field.first);
   }
   // Before any view reads: RNTupleReader::GetDescriptor's copy is documented valid until the views are used.
   const auto [selected_zip, selected_tot] = ntuple_fields_bytes(desc, names);
   auto fields = make_fields(*reader, r, names);
   const long long rss_baseline = current_rss_bytes();

   const Snapshot loop_start = Snapshot::take(io);
   const long long clusters = read_ntuple_clusters(desc, r, fields);
   const Snapshot end = Snapshot::take(io);

   std::vector<SummedColumn> summed;
   for (auto &f : fields)
      summed.push_back({f->name, f->type, f->sum, f->values});
   JsonObject out;
   out.str("file", path)
      .str("container", "rntuple")
      .str("reading_style", "bulk")
      .str("io_counters_source", metrics ? "RNTupleMetrics" : "none")
      .str("root_version", gROOT->GetVersion())
      .str("reader_process", mode)
      .boolean("perfstats", false)
      .integer("perfstats_threads_covered", 0);
   add_selection(out, r.selection, variables, names);
   add_bulk_sums(out, summed, variables);
   out.integer("columns", static_cast<long long>(names.size()))
      .integer("bulk_clusters", clusters)
      .integer("selected_zip_bytes", selected_zip)
      .integer("selected_tot_bytes", selected_tot)
      .str("read_mode", "bulk")
      .integer("entries_in_tree", reader->GetNEntries())
      .integer("events_requested", r.events)
      .integer("events_read", r.events)
      .integer("cache_size_requested", r.cache_size)
      .str("cluster_cache", r.cache_size == 0 ? "off" : "on")
      .integer("cluster_bunch_size", bunch)
      .integer("threads_requested", r.threads)
      .integer("imt_pool_size", 0);
   add_timed_read(out, process_start, loop_start, loop_start, end, metrics, r.events, rss_baseline, true);
   out.integer("bytes_unpacked", metrics ? end.unzip_out - loop_start.unzip_out : -1);
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
   return 0;
}

}  // namespace rootparams::read
