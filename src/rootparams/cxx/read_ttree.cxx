// The TTree read (read_ttree.h): --inspect of a TTree and the timed TTree::GetEntry read, with what they need of
// branches: enabling a selection's branches and nothing else, creating their objects before the clock starts,
// reading unbuildable branches basket by basket, and the variables' values.
#include "read_ttree.h"

#include "read_common.h"
#include "read_selection.h"

#include <ROOT/RConfig.hxx>
#include <ROOT/TIOFeatures.hxx>
#include <TBasket.h>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TClass.h>
#include <TDataMember.h>
#include <TEnv.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TROOT.h>
#include <TTree.h>
#include <TTreeCache.h>
#include <TTreeCacheUnzip.h>
#include <TVirtualPerfStats.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace rootparams::read {

std::string unbuildable_class(TBranch *b)
{
   if (auto *be = dynamic_cast<TBranchElement *>(b)) {
      for (const std::string name : {std::string(be->GetClassName()), std::string(be->GetClonesName())}) {
         if (name.empty())
            continue;
         TClass *cl = TClass::GetClass(name.c_str());
         if (!cl || cl->GetState() < TClass::kInterpreted)
            return name;
      }
   }
   for (auto *obj : *b->GetListOfBranches()) {
      const auto inner = unbuildable_class(static_cast<TBranch *>(obj));
      if (!inner.empty())
         return inner;
   }
   return "";
}

namespace {

// The value of variable `v` in a tree whose branch objects exist (create_branch_objects): the member of the
// store object (the store's own object also at split 99, where the sub-branch fills its member in place), the
// vector of a dynamic attribute, or the flat array's leaf.
VariableValues tree_value(const TreeCatalogue &cat, const Variable &v)
{
   const auto dot = v.name.rfind('.');
   const std::string attr = v.name.substr(dot + 1);
   TBranch *b = cat.branch(v.read);
   if (!b || b->TestBit(kDoNotProcess))
      return {};
   if (auto *element = dynamic_cast<TBranchElement *>(b)) {
      const std::string store_name = v.read.substr(0, v.read.size() - (v.classwise ? 0 : attr.size()));
      if (v.classwise || (store_name.size() > 4 && store_name.compare(store_name.size() - 4, 4, "Aux.") == 0)) {
         auto *store = dynamic_cast<TBranchElement *>(cat.branch(store_name));
         TClass *cl = store ? TClass::GetClass(store->GetClassName()) : nullptr;
         auto *member = cl ? cl->GetDataMember(attr.c_str()) : nullptr;
         if (!member || !store->GetObject() || cl->GetDataMemberOffset(attr.c_str()) < 0)
            return {};
         return VariableValues::of_object(store->GetObject() + cl->GetDataMemberOffset(attr.c_str()),
                                    member->GetTrueTypeName());
      }
      return VariableValues::of_object(element->GetObject(), element->GetClassName());
   }
   VariableValues s;
   if (b->GetListOfLeaves()->GetEntries() == 1)
      s.leaf = static_cast<TLeaf *>(b->GetListOfLeaves()->At(0));
   return s;
}

// Enable `target` (with its sub-branches and leaf counters) and the branches above it, without their other
// sub-branches; the branches above it are added to `above`.
bool enable_path(TObjArray *level, TBranch *target, std::set<TBranch *> &above);

void enable_descendants(TBranch *branch)
{
   for (auto *obj : *branch->GetListOfBranches()) {
      auto *sub = static_cast<TBranch *>(obj);
      sub->ResetBit(kDoNotProcess);
      enable_descendants(sub);
   }
}

// What TTree::SetBranchStatus(name, true) does for one branch, without its wildcard search over every
// branch of the tree: called once per selected branch, that search made opening a 1500-branch xAOD take
// ~1.5 s (quadratic). The branch, its sub-branches, and the branches holding the counters of its leaves.
void enable_branch(TBranch *branch)
{
   branch->ResetBit(kDoNotProcess);
   enable_descendants(branch);
   std::vector<TBranch *> todo{branch};
   while (!todo.empty()) {
      TBranch *b = todo.back();
      todo.pop_back();
      for (auto *obj : *b->GetListOfLeaves())
         if (auto *count = static_cast<TLeaf *>(obj)->GetLeafCount())
            count->GetBranch()->ResetBit(kDoNotProcess);
      for (auto *obj : *b->GetListOfBranches())
         todo.push_back(static_cast<TBranch *>(obj));
   }
}

bool enable_path(TObjArray *level, TBranch *target, std::set<TBranch *> &above)
{
   for (auto *obj : *level) {
      auto *b = static_cast<TBranch *>(obj);
      if (b == target) {
         enable_branch(b);
         return true;
      }
      if (enable_path(b->GetListOfBranches(), target, above)) {
         b->ResetBit(kDoNotProcess);
         above.insert(b);
         return true;
      }
   }
   return false;
}

void disable_all(TObjArray *branches)
{
   for (auto *obj : *branches) {
      auto *b = static_cast<TBranch *>(obj);
      b->SetBit(kDoNotProcess);
      disable_all(b->GetListOfBranches());
   }
}

void count_branches(TObjArray *branches, long long &count)
{
   for (auto *obj : *branches) {
      ++count;
      count_branches(static_cast<TBranch *>(obj)->GetListOfBranches(), count);
   }
}

long long active_branch_count(TObjArray *branches)
{
   long long n = 0;
   for (auto *obj : *branches) {
      auto *b = static_cast<TBranch *>(obj);
      if (!b->TestBit(kDoNotProcess))
         ++n;
      n += active_branch_count(b->GetListOfBranches());
   }
   return n;
}

// The counter branch of a leaf-list array (`nMuon` of `Muon_pt[nMuon]/F`, a plain TBranch of one leaf), "" for any
// other branch: the catalogue sums the counters' and the counted arrays' bytes (generate.counted_array_bytes), so
// that the offsets a counted array stores can be set beside the counts its counter stores.
std::string counter_of(TBranch *b)
{
   if (b->IsA() != TBranch::Class() || b->GetListOfLeaves()->GetEntries() != 1)
      return "";
   auto *count = static_cast<TLeaf *>(b->GetListOfLeaves()->At(0))->GetLeafCount();
   return count && count->GetBranch() ? count->GetBranch()->GetName() : "";
}

}  // namespace

int inspect(const std::string &path, const std::string &tree_name)
{
   auto [file, tree] = open_tree(path, tree_name);
   std::vector<std::string> branches;
   long long particle_zip = 0, particle_tot = 0, total_branches = 0;
   std::set<std::string> particle_containers;
   for (auto *obj : *tree->GetListOfBranches())
      if (is_particle_container(static_cast<TBranch *>(obj)))
         particle_containers.insert(obj->GetName());
   for (auto *obj : *tree->GetListOfBranches()) {
      auto *b = static_cast<TBranch *>(obj);
      const std::string name = b->GetName();
      bool particle = false;
      for (auto &c : particle_containers)
         particle |= belongs_to(name, c, '.');
      long long sub = 0;
      count_branches(b->GetListOfBranches(), sub);
      const long long zip = b->GetZipBytes("*"), tot = b->GetTotBytes("*");
      if (particle) {
         particle_zip += zip;
         particle_tot += tot;
      }
      JsonObject j;
      j.str("name", name)
         .str("class", b->GetClassName())
         .boolean("particle", particle)
         .integer("zip_bytes", zip)
         .integer("tot_bytes", tot)
         .integer("sub_branches", sub)
         .integer("split_level", b->GetSplitLevel())
         .integer("compression_setting", b->GetCompressionSettings())
         .integer("baskets", b->GetWriteBasket())
         .str("counter", counter_of(b));
      branches.push_back(j.dump());
   }
   count_branches(tree->GetListOfBranches(), total_branches);
   std::vector<std::string> cluster_starts;
   auto it = tree->GetClusterIterator(0);
   for (Long64_t start = it(); start < tree->GetEntries(); start = it())
      cluster_starts.push_back(std::to_string(start));

   JsonObject out;
   out.str("file", path)
      .integer("file_size_bytes", file->GetSize())
      .integer("file_compression_setting", file->GetCompressionSettings())
      .str("tree", tree_name)
      .integer("entries", tree->GetEntries())
      .integer("autoflush", tree->GetAutoFlush())
      // ROOT's I/O feature kGenerateOffsetMap, stored with the tree (the writer's --offsets generated): counted
      // arrays' baskets hold no entry offsets, other variable-size baskets per-entry sizes.
      .str("offsets", tree->GetIOFeatures().Test(ROOT::Experimental::EIOFeatures::kGenerateOffsetMap) ? "generated"
                                                                                                    : "stored")
      .integer("zip_bytes", tree->GetZipBytes())
      .integer("tot_bytes", tree->GetTotBytes())
      .integer("particle_zip_bytes", particle_zip)
      .integer("particle_tot_bytes", particle_tot)
      .integer("top_level_branches", tree->GetListOfBranches()->GetEntries())
      .integer("branches", total_branches)
      .integer("leaves", tree->GetListOfLeaves()->GetEntries())
      .integer("clusters", static_cast<long long>(cluster_starts.size()))
      .raw("cluster_starts", json_array(cluster_starts))
      .raw("branch_list", json_array(branches))
      .str("root_version", gROOT->GetVersion());
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
   return 0;
}

namespace {

// Create the objects of every active branch (TBranchElement::SetupAddresses: TClass::New, streamer
// set-up) before the clock starts. GetEntry(0) would do it otherwise, inside the timed loop, and on a
// 1500-branch file that costs a few hundred ms of CPU that are neither I/O nor decompression. No data is read.
void create_branch_objects(TTree *tree)
{
   for (auto *obj : *tree->GetListOfBranches()) {
      auto *b = static_cast<TBranch *>(obj);
      if (!b->TestBit(kDoNotProcess))
         b->SetupAddresses();
   }
}

// A branch read basket by basket instead of object by object: for a top-level branch whose objects ROOT
// cannot build (unbuildable_class), every branch of its subtree that holds baskets. For each entry of the loop
// the basket holding that entry is fetched with TBranch::GetBasket, as TBranch::GetEntry would fetch it:
// through the TTreeCache (GetBasket registers the branch with the cache while it learns, as GetEntry does),
// counted by TTreePerfStats, and decompressed (TBasket::ReadBasketBuffers). Only the streaming of the entry
// into an object is left out: the I/O and the decompression are those of an object read.
struct BasketReader {
   TBranch *branch;
   Long64_t end = -1;  // the first entry after the basket in memory (-1: none)
   long long baskets = 0, unzipped_bytes = 0;

   // Make the basket holding `entry` the one in memory; false if ROOT could not read it.
   bool read(Long64_t entry)
   {
      if (entry < end || entry >= branch->GetEntries())
         return true;
      const Int_t written = branch->GetWriteBasket();
      const Long64_t *first = branch->GetBasketEntry();
      // Baskets 0 .. written-1 are on file; basket `written` is the one kept in the tree's header, if any.
      Int_t k = static_cast<Int_t>(std::upper_bound(first, first + written + 1, entry) - first) - 1;
      if (k < 0)
         return false;
      end = k < written ? first[k + 1] : branch->GetEntries();
      if (branch->GetBasketSeek(k) == 0 || branch->GetBasketBytes()[k] == 0)
         return true;  // not on file (empty, or kept in the tree's header): no I/O here, as for GetEntry
      branch->DropBaskets("all");
      TBasket *basket = branch->GetBasket(k);
      if (!basket)
         return false;
      ++baskets;
      unzipped_bytes += basket->GetObjlen();
      return true;
   }
};

void collect_basket_readers(TBranch *b, std::vector<BasketReader> &out)
{
   if (b->GetEntries() > 0)
      out.push_back({b});
   for (auto *obj : *b->GetListOfBranches())
      collect_basket_readers(static_cast<TBranch *>(obj), out);
}

}  // namespace

void add_ttree_read_header(JsonObject &out, const std::string &path, const std::string &file_class, const char *style,
                           bool perf, const char *mode, int perf_threads)
{
   out.str("file", path)
      .str("file_class", file_class)  // TFile for a local path, TNetXNGFile through root://
      .str("container", "ttree")
      .str("reading_style", style)
      .str("io_counters_source", perf ? "TTreePerfStats" : "none")
      .str("root_version", gROOT->GetVersion())
      .str("reader_process", mode)
      .boolean("perfstats", perf)
      .integer("perfstats_threads_covered", perf_threads);
}

namespace {

// TTreeCacheUnzip counts the blocks found while a task was still unzipping them (fNStalls) but has no getter
// for it; a derived class may read the protected member of the cache ROOT made.
struct UnzipCacheStalls : TTreeCacheUnzip {
   static long long of(TTreeCacheUnzip *cache) { return cache->*(&UnzipCacheStalls::fNStalls); }
};

}  // namespace

namespace {

// What a selection reads of a tree: its branches (top-level, or the variables' with the catalogue they were found in)
// and their bytes, and those of them read basket by basket (BasketReader) with the classes that sent them there.
struct TreeSelection {
   std::unique_ptr<TreeCatalogue> catalogue;
   std::vector<Variable> variables;
   std::vector<std::string> chosen;
   long long selected_zip = 0, selected_tot = 0, basket_zip = 0;
   std::vector<BasketReader> basket_readers;  // the branches read basket by basket (see BasketReader)
   std::vector<TBranch *> basket_top_branches;
   std::map<std::string, long long> basket_classes;
};

// The branches of `selection` enabled for TTree::GetEntry and every other branch disabled; a branch whose objects
// ROOT cannot build is read basket by basket instead (enabled for the TTreeCache, out of the tree's list).
TreeSelection enable_selection(TTree *tree, const std::string &selection, const std::string &path)
{
   // A variable selection (analysis, sparse, vars:) reads the branches that hold its variables, which may be
   // sub-branches of a split store (and the counters of flat arrays); the others read top-level branches.
   const bool by_variable = is_variable_selection(selection);
   TreeSelection s;
   if (by_variable) {
      s.catalogue = std::make_unique<TreeCatalogue>(tree);
      s.variables = resolve_variables(*s.catalogue, selection, path);
      s.chosen = variables_read(s.variables);
   } else {
      s.chosen = select_top_branches(tree, selection, path);
   }
   tree->SetBranchStatus("*", false);
   // SetBranchStatus("*") leaves some sub-branches active: the base-class sub-branches of split emulated
   // classes ("EventInfoAux.xAOD::AuxInfoBase", "SG::IAuxElement" in ATLAS PHYSLITE), whose baskets the
   // TTreeCache then fetched although no selected branch holds them. Every branch is disabled one by one.
   disable_all(tree->GetListOfBranches());
   std::set<TBranch *> above;  // the branches above a variable's sub-branch, enabled to reach it
   for (auto &name : s.chosen) {
      auto *b = s.catalogue ? s.catalogue->branch(name) : tree->GetBranch(name.c_str());
      s.selected_zip += b->GetZipBytes("*");
      s.selected_tot += b->GetTotBytes("*");
      // A class ROOT can only emulate (no dictionary): emulated xAOD objects corrupted the heap here
      // (PileUpEventInfo_p5, vector<set<unsigned int> > of ATLAS PHYSLITE), so such a branch stays disabled
      // for TTree::GetEntry and its baskets are read and decompressed as they are.
      const auto unbuildable = unbuildable_class(b);
      if (!unbuildable.empty()) {
         collect_basket_readers(b, s.basket_readers);
         s.basket_top_branches.push_back(b);
         ++s.basket_classes[unbuildable];
         s.basket_zip += b->GetZipBytes("*");
         continue;
      }
      // A split object: enable every sub-branch too. Not by name pattern: the sub-branches of a branch
      // named without a trailing dot ("Electrons") are not prefixed with it ("m_size"), so names repeat.
      // A variable's sub-branch: it and the branches above it (not their other sub-branches), so that
      // TTree::GetEntry reaches it through its mother and reads it alone.
      if (by_variable)
         enable_path(tree->GetListOfBranches(), b, above);
      else
         enable_branch(b);
   }
   // What is read of the branches above a variable: their own baskets (none for a split store's top branch,
   // but counted if there are any), not their other sub-branches'.
   for (auto *b : above) {
      s.selected_zip += b->GetZipBytes("");
      s.selected_tot += b->GetTotBytes("");
   }
   // The basket-read branches are enabled, so that the TTreeCache (which skips disabled branches when it
   // fills) fetches their baskets with the others, but they leave the tree's list of top-level branches, so
   // that TTree::GetEntry never streams them. (They are not deleted with the tree: their emulated objects were
   // never created.)
   for (auto *b : s.basket_top_branches) {
      enable_branch(b);
      tree->GetListOfBranches()->Remove(b);
   }
   tree->GetListOfBranches()->Compress();
   return s;
}

// The TTreeCache: learn entries, parallel unzip or not, and its size; whether parallel unzip (--unzip 1) was asked.
bool set_up_cache(const std::map<std::string, std::string> &args, TTree *tree, Long64_t cache_size, int learn_entries,
                  const std::string &path)
{
   if (learn_entries >= 0)
      TTreeCache::SetLearnEntries(learn_entries);
   // Parallel unzip ("Optimizing ROOT IO For Analysis"), as ROOT 6.40 does it (tree/tree/src/TTreeCacheUnzip.cxx,
   // TTree::SetCacheSizeAux):
   // - TTree::SetCacheSize makes the cache a TTreeCacheUnzip when the static TTreeCacheUnzip::fgParallel is
   //   kEnable or kForce (and the file is compressed), a TTreeCache otherwise. fgParallel starts as kDisable and
   //   nothing in 6.40 reads it from the environment (libTree knows only the gEnv keys TTreeCache.Size and
   //   TTreeCache.Prefill; there is no TTreeCache.UnzipMode), so setting it here, both ways, pins it.
   // - After each fill of the cache, TTreeCacheUnzip starts a task group that unzips the cluster's baskets
   //   (groups of >= 100 kB) in ROOT's thread pool, only if implicit MT is on (--threads > 1). Without it no
   //   task runs: the loop's thread unzips every basket itself, through TTreeCacheUnzip ("missed"), which
   //   measures the class's overhead, not parallel unzipping (unzip_parallel_tasks says which).
   // - The basket a task unzipped is handed to TBasket::ReadBasketBuffers ready-made, and a missed one is unzipped
   //   by TTreeCacheUnzip::UnzipBuffer: neither goes through TBasket's own decompression, the only place that
   //   reports to TTreePerfStats::UnzipEvent. PerfStats' unzip time and bytes are then not moved to other
   //   threads but not counted at all (0 on this machine with 1 and 2 threads), so with --unzip 1 the
   //   *_unzip_seconds, *_unzip_*_bytes and the uncompressed rate are null; bytes_unpacked (GetEntry's own
   //   count) and the cache's counters below remain.
   const std::string unzip_arg = args.count("unzip") ? args.at("unzip") : "0";
   if (unzip_arg != "0" && unzip_arg != "1")
      fail("--unzip '" + unzip_arg + "': must be 0 (TTreeCache, ROOT's default) or 1 (parallel unzip, TTreeCacheUnzip)");
   const bool unzip = unzip_arg == "1";
   if (unzip && cache_size == 0)
      fail(path + ": --unzip 1 needs the TTreeCache (TTreeCacheUnzip is one), and --cache-size 0 switches it off; "
           "use a cache size other than 0 (-1: sized from the AutoFlush cluster), or --unzip 0");
   TTreeCacheUnzip::SetParallelUnzip(unzip ? TTreeCacheUnzip::kEnable : TTreeCacheUnzip::kDisable);
   if (tree->SetCacheSize(cache_size) < 0)
      fail("TTree::SetCacheSize(" + std::to_string(cache_size) + ") failed for " + path);
   return unzip;
}

// How the selection was read: "objects" (TTree::GetEntry streams every entry into its objects), "baskets" (every
// selected branch read basket by basket, see BasketReader) or both, and the basket reads' figures.
void add_basket_mode(JsonObject &out, const TreeSelection &s)
{
   long long baskets_read = 0, basket_unzipped = 0;
   for (auto &r : s.basket_readers) {
      baskets_read += r.baskets;
      basket_unzipped += r.unzipped_bytes;
   }
   const auto basket_top = static_cast<long long>(s.basket_top_branches.size());
   std::string classes = "{";
   for (auto &[cls, n] : s.basket_classes)
      classes += (classes.size() > 1 ? ", " : "") + JsonObject::quote(cls) + ": " + std::to_string(n);
   classes += "}";
   out.str("read_mode", basket_top == 0 ? "objects"
                        : basket_top == static_cast<long long>(s.chosen.size()) ? "baskets" : "objects+baskets")
      .integer("basket_mode_top_branches", basket_top)
      .integer("basket_mode_branches", static_cast<long long>(s.basket_readers.size()))
      .integer("basket_mode_zip_bytes", s.basket_zip)
      .integer("basket_mode_baskets_read", baskets_read)
      .integer("basket_mode_unzipped_bytes", basket_unzipped)
      .raw("basket_mode_classes", classes);  // the class that sent each such top-level branch there: count
}

// The entries of a read of the first `events` entries that the TTreeCache serves from its learning phase: every
// entry up to the first cluster start at or after the learn entries (at least the first cluster), or the whole read
// where no cluster starts before its end. The rule and why: rootparams.grid.cache_learning_entries (keep the two
// alike). While the cache learns, its first basket read prefills the clusters of entries 0 to learn
// (TTreeCache.Prefill 1, pinned by read_collection_tree.cxx), and the first basket read at an entry >= learn ends
// the learning; baskets do not straddle clusters.
long long learning_phase_entries(TTree *tree, Long64_t events, int learn)
{
   learn = std::max(learn, 1);  // ROOT's minimum (TTreeCache::SetLearnEntries)
   auto it = tree->GetClusterIterator(0);
   for (Long64_t start = it(); start < events; start = it())
      if (start > 0 && start >= learn)
         return start;
   return events;
}

}  // namespace

int timed_read(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode)
{
   const auto [path, tree_name, selection, events, cache_size, threads] = ReadRequest::parse(args);
   const int learn_entries = std::stoi(required_arg(args, "learn-entries"));

   if (threads > 1)
      ROOT::EnableImplicitMT(threads);  // otherwise it stays off: ROOT never enables it by itself

   // --no-perfstats gives the bare loop the benchmarks compare against (same binary, same settings).
   // Installed before the open (after implicit MT, which makes gPerfStats thread-local), so that the open's
   // reads are counted. It stays detached from the tree: with a tree-level PerfStats, ROOT's TTreeCache
   // searches every branch and basket on each cache miss to book-keep it (TTreeCache::ReadBufferNormal),
   // which slowed the loop by ~20% on a 1000-branch file here, an artefact of the instrument.
   PerfStats *perf = args.count("no-perfstats") ? nullptr : new PerfStats(path);
   int perf_threads = 0;
   if (perf) {
      gPerfStats = perf;
      perf_threads = threads > 1 ? install_in_workers(perf, threads) : 1;
   }

   auto [file, tree] = open_tree(path, tree_name);
   if (tree->GetEntries() < events)
      damaged(path + ": has " + std::to_string(tree->GetEntries()) + " entries, but " + std::to_string(events) +
              " were requested");
   if (perf)
      perf->Attach(tree);

   TreeSelection sel = enable_selection(tree, selection, path);
   const bool unzip = set_up_cache(args, tree, cache_size, learn_entries, path);
   create_branch_objects(tree);
   VariableSums sums;
   for (auto &v : sel.variables)
      if (auto value = tree_value(*sel.catalogue, v); value.summable())
         sums.sums.push_back(value);
   const long long rss_baseline = current_rss_bytes();

   // The loop span starts with the request of the first entry: for files of few clusters, the first entry
   // holds a large share of the I/O (the TTreeCache fetches its whole cluster), so the note's window, which
   // starts at the 2nd entry, can miss most of it.
   auto read_baskets = [&](Long64_t i) {
      for (auto &r : sel.basket_readers)
         if (!r.read(i))
            damaged(path + ": reading the basket of entry " + std::to_string(i) + " of branch " + r.branch->GetName() +
                    " failed (corrupt basket or I/O error)");
   };
   // A variable selection also sums its variables' values in the loop (as an analysis touches what it reads).
   const Snapshot loop_start = Snapshot::take(perf);
   if (tree->GetEntry(0) < 0)
      damaged(path + ": reading entry 0 failed (corrupt basket or I/O error)");
   read_baskets(0);
   sums.add_entry();
   const Snapshot window_start = Snapshot::take(perf);
   long long bytes_unpacked = 0;
   for (Long64_t i = 1; i < events; ++i) {
      const int n = tree->GetEntry(i);
      if (n < 0)
         damaged(path + ": reading entry " + std::to_string(i) + " failed (corrupt basket or I/O error)");
      bytes_unpacked += n;
      read_baskets(i);
      sums.add_entry();
   }
   const Snapshot end = Snapshot::take(perf);

   auto *cache = dynamic_cast<TTreeCache *>(file->GetCacheRead(tree));
   auto *unzip_cache = dynamic_cast<TTreeCacheUnzip *>(cache);
   JsonObject out;
   add_ttree_read_header(out, path, file->ClassName(), "getentry", perf != nullptr, mode, perf_threads);
   out.integer("selected_top_branches", static_cast<long long>(sel.chosen.size()));
   add_selection(out, selection, sel.variables, sel.chosen);
   sums.report(out, sel.variables.size());
   // TTreeCacheUnzip's own counters (-1: not a TTreeCacheUnzip), in baskets after the learning entries:
   // unzipped by a task ahead of the loop, found ready by the loop, found while a task was still on it
   // (stalled: the loop waited or unzipped another), missed (unzipped by the loop's thread itself).
   out.integer("unzip_requested", unzip)
      .str("cache_class", cache ? cache->ClassName() : "none")
      .boolean("unzip_parallel_tasks", unzip_cache && ROOT::IsImplicitMTEnabled())
      .integer("unzip_blocks_unzipped", unzip_cache ? unzip_cache->GetNUnzip() : -1)
      .integer("unzip_blocks_found", unzip_cache ? unzip_cache->GetNFound() : -1)
      .integer("unzip_blocks_stalled", unzip_cache ? UnzipCacheStalls::of(unzip_cache) : -1)
      .integer("unzip_blocks_missed", unzip_cache ? unzip_cache->GetNMissed() : -1)
      .integer("active_branches", active_branch_count(tree->GetListOfBranches()) +
                                     static_cast<long long>(sel.basket_readers.size()))
      .integer("selected_zip_bytes", sel.selected_zip)
      .integer("selected_tot_bytes", sel.selected_tot);
   add_basket_mode(out, sel);
   out.integer("entries_in_tree", tree->GetEntries())
      .integer("events_read", events)
      .integer("cache_size_requested", cache_size)
      .integer("cache_size_used", tree->GetCacheSize())
      .integer("cache_buffer_bytes", cache ? cache->GetBufferSize() : 0)
      .integer("cache_cached_branches", cache && cache->GetCachedBranches() ? cache->GetCachedBranches()->GetEntries() : 0)
      .num("cache_efficiency", cache ? cache->GetEfficiency() : 0.0)
      .integer("learn_entries_requested", learn_entries)
      .integer("learn_entries_used", TTreeCache::GetLearnEntries())
      // The entries served from the cache's learning phase (-1: no TTreeCache); the share of the read is
      // aggregate's cache_learning_share.
      .integer("cache_learning_entries",
               cache ? learning_phase_entries(tree, events, TTreeCache::GetLearnEntries()) : -1)
      .integer("threads_requested", threads)
      .integer("imt_pool_size", ROOT::IsImplicitMTEnabled() ? ROOT::GetThreadPoolSize() : 0)
      .str("env_TTreeCache.Size", gEnv->GetValue("TTreeCache.Size", "(unset)"))
      .str("env_TTreeCache.Prefill", gEnv->GetValue("TTreeCache.Prefill", "(unset)"))
      .str("env_TFile.AsyncPrefetching", gEnv->GetValue("TFile.AsyncPrefetching", "(unset)"))
;
   add_timed_read(out, process_start, loop_start, window_start, end, perf != nullptr, events, rss_baseline, false,
                  !unzip_cache);
   // ROOT's own counters of the file object (not thread-safe under implicit MT; a cross-check with 1
   // thread). TFile counts the bytes ROOT asked for; PerfStats what each read call fetched, gaps included.
   out.integer("file_bytes_read_useful", file->GetBytesRead())
      .integer("file_read_calls", file->GetReadCalls())
      .integer("other_files_bytes_read", perf ? perf->other_files_bytes() : 0)
      .integer("bytes_unpacked", bytes_unpacked);
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
   return 0;
}

}  // namespace rootparams::read
