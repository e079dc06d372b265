// rootparams-read: one timed read of a CollectionTree, or a structural inspection of a file.
//
// Timed read (one process = one repetition, as the paper's jobs were):
//   rootparams-read --file F --events N --branches SEL --cache-size C --learn-entries L --threads T
//     SEL: particle | all | regex:<ECMAScript regex on top-level names> | list:<name>,<name>,...
//     C:   0 = TTreeCache off, -1 = sized from the AutoFlush cluster, > 0 = bytes
//     L:   TTreeCache learn entries, -1 = ROOT's built-in default
//     T:   implicit-MT threads, 1 = implicit MT off
//   --no-perfstats: the same loop without TTreePerfStats (the bare loop of the benchmarks)
// Inspection (what the file really is, for the catalogue):
//   rootparams-read --file F --inspect
// Content checksum (independent of compression, AutoFlush, basket size and split level):
//   rootparams-read --file F --checksum
//
// Every ROOT setting that changes the result is pinned here, whatever the user's environment says:
// ROOT_TTREECACHE_SIZE / ROOT_TTREECACHE_PREFILL are removed, gEnv's TTreeCache.* and async prefetching
// are set, the cache size is set explicitly, implicit MT is enabled only when asked for.
// Output: one line "ROOTPARAMS_JSON {...}" on stdout. Errors: exit code 2 and a message naming the file.
#include "common.h"

#include <ROOT/RConfig.hxx>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TBufferFile.h>
#include <TClass.h>
#include <TEnv.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TROOT.h>
#include <TTree.h>
#include <TTreeCache.h>
#include <TTreePerfStats.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace rootparams;

namespace {

[[noreturn]] void fail(const std::string &msg)
{
   throw std::runtime_error(msg);
}

const char *kParticleBase = "xAODlike::IParticleContainer";

// TTreePerfStats as the paper used it (read calls, bytes, disk and unzip time), with two changes:
// - the decompressor's input and output byte counts, which it keeps to itself, are exposed;
// - its per-basket bookkeeping (which basket was used, cached, missed) is switched off: ROOT calls it for
//   every branch of every entry and none of the paper's metrics comes from it (switching it off took the
//   harness from 0.71 to 0.80 of the bare loop in benchmarks/read_throughput.py; detaching the object from
//   the tree, below, did the rest).
class PerfStats : public TTreePerfStats {
public:
   using TTreePerfStats::TTreePerfStats;
   Long64_t UnzipInputBytes() const { return fUnzipInputSize; }
   Long64_t UnzipOutputBytes() const { return fUnzipObjSize; }
   void SetLoaded(TBranch *, size_t) override {}
   void SetLoaded(size_t, size_t) override {}
   void SetLoadedMiss(TBranch *, size_t) override {}
   void SetLoadedMiss(size_t, size_t) override {}
   void SetMissed(TBranch *, size_t) override {}
   void SetMissed(size_t, size_t) override {}
   void SetUsed(TBranch *, size_t) override {}
   void SetUsed(size_t, size_t) override {}
   void UpdateBranchIndices(TObjArray *) override {}
};

bool is_particle_container(TBranch *b)
{
   TClass *cl = TClass::GetClass(b->GetClassName());
   return cl && cl->InheritsFrom(kParticleBase);
}

// Top-level branch names a selection keeps.
std::vector<std::string> select_top_branches(TTree *tree, const std::string &selection, const std::string &path)
{
   std::vector<std::string> all;
   for (auto *obj : *tree->GetListOfBranches())
      all.push_back(obj->GetName());
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
      std::set<std::string> containers;
      for (auto *obj : *tree->GetListOfBranches())
         if (is_particle_container(static_cast<TBranch *>(obj)))
            containers.insert(obj->GetName());
      if (containers.empty())
         fail(path + ": no particle-container branches (interface class deriving from " + std::string(kParticleBase) +
              ") in the tree; choose another branch selection ('all', 'regex:...', 'list:...'). Top-level branches: " +
              available());
      for (auto &name : all) {
         for (auto &c : containers) {
            if (name == c || name == c + "Aux." || name.rfind(c + "AuxDyn.", 0) == 0) {
               chosen.push_back(name);
               break;
            }
         }
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
         fail(path + ": branch selection '" + selection + "' matches no top-level branch. Available: " + available());
   } else if (selection.rfind("list:", 0) == 0) {
      std::stringstream s(selection.substr(5));
      std::string name;
      std::set<std::string> have(all.begin(), all.end());
      while (std::getline(s, name, ',')) {
         if (!have.count(name))
            fail(path + ": branch '" + name + "' of selection '" + selection + "' is not in the tree. Available: " +
                 available());
         chosen.push_back(name);
      }
   } else {
      fail("unknown branch selection '" + selection + "' (use particle, all, regex:<re> or list:<a>,<b>)");
   }
   return chosen;
}

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

std::pair<std::unique_ptr<TFile>, TTree *> open_tree(const std::string &path, const std::string &tree_name)
{
   std::unique_ptr<TFile> file(TFile::Open(path.c_str(), "READ"));
   if (!file || file->IsZombie())
      fail(path + ": cannot be opened as a ROOT file (missing, truncated or not ROOT)");
   if (file->TestBit(TFile::kRecovered))
      fail(path + ": ROOT had to recover the file (it was not closed properly; truncated or still being written)");
   auto *tree = file->Get<TTree>(tree_name.c_str());
   if (!tree) {
      std::string keys;
      for (auto *k : *file->GetListOfKeys())
         keys += std::string(keys.empty() ? "" : ", ") + k->GetName();
      fail(path + ": has no TTree named '" + tree_name + "'; its top-level keys are: " + (keys.empty() ? "(none)" : keys));
   }
   return {std::move(file), tree};
}

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
         particle |= (name == c || name == c + "Aux." || name.rfind(c + "AuxDyn.", 0) == 0);
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
         .integer("baskets", b->GetWriteBasket());
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

// A checksum of the event content that does not depend on how it was stored: every top-level branch's
// in-memory object is re-serialized with its class streamer into a fresh buffer and hashed (FNV-1a 64),
// so compression, AutoFlush, basket size and split level all give the same value for the same events.
int content_checksum(const std::string &path, const std::string &tree_name)
{
   auto [file, tree] = open_tree(path, tree_name);
   uint64_t hash = 1469598103934665603ull;
   auto mix = [&hash](const char *data, size_t n) {
      for (size_t i = 0; i < n; ++i) {
         hash ^= static_cast<unsigned char>(data[i]);
         hash *= 1099511628211ull;
      }
   };
   std::vector<std::pair<TBranch *, TClass *>> branches;
   for (auto *obj : *tree->GetListOfBranches()) {
      auto *b = static_cast<TBranch *>(obj);
      TClass *cl = TClass::GetClass(b->GetClassName());
      if (!cl)
         fail(path + ": branch " + b->GetName() + " has no class (only object branches are supported)");
      branches.emplace_back(b, cl);
   }
   for (Long64_t i = 0; i < tree->GetEntries(); ++i) {
      if (tree->GetEntry(i) < 0)
         fail(path + ": reading entry " + std::to_string(i) + " failed");
      for (auto &[b, cl] : branches) {
         void *object = static_cast<TBranchElement *>(b)->GetObject();
         TBufferFile buffer(TBuffer::kWrite);
         buffer.WriteObjectAny(object, cl);
         mix(b->GetName(), std::strlen(b->GetName()));
         mix(buffer.Buffer(), buffer.Length());
      }
   }
   char hex[17];
   std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
   std::cout << "ROOTPARAMS_JSON "
             << JsonObject().str("file", path).integer("entries", tree->GetEntries()).str("content_checksum", hex).dump()
             << std::endl;
   return 0;
}

int timed_read(const std::map<std::string, std::string> &args)
{
   const double process_start = steady_now(), process_start_epoch = epoch_now();
   auto need = [&](const char *key) { return required_arg(args, key); };
   const std::string path = need("file");
   const std::string tree_name = tree_name_arg(args);
   const Long64_t events = std::stoll(need("events"));
   const std::string selection = need("branches");
   const Long64_t cache_size = std::stoll(need("cache-size"));
   const int learn_entries = std::stoi(need("learn-entries"));
   const int threads = std::stoi(need("threads"));
   if (events < 2)
      fail("--events must be at least 2 (the event rate is measured from the 2nd event on)");
   if (threads < 1)
      fail("--threads must be at least 1");

   if (threads > 1)
      ROOT::EnableImplicitMT(threads);  // otherwise it stays off: ROOT never enables it by itself

   const double open_start = steady_now();
   auto [file, tree] = open_tree(path, tree_name);
   if (tree->GetEntries() < events)
      fail(path + ": has " + std::to_string(tree->GetEntries()) + " entries, but " + std::to_string(events) +
           " were requested");

   const auto chosen = select_top_branches(tree, selection, path);
   tree->SetBranchStatus("*", false);
   long long selected_zip = 0, selected_tot = 0;
   for (auto &name : chosen) {
      auto *b = tree->GetBranch(name.c_str());
      // A split object: enable every sub-branch too. Not by name pattern: the sub-branches of a branch
      // named without a trailing dot ("Electrons") are not prefixed with it ("m_size"), so names repeat.
      enable_branch(b);
      selected_zip += b->GetZipBytes("*");
      selected_tot += b->GetTotBytes("*");
   }

   if (learn_entries >= 0)
      TTreeCache::SetLearnEntries(learn_entries);
   if (tree->SetCacheSize(cache_size) < 0)
      fail("TTree::SetCacheSize(" + std::to_string(cache_size) + ") failed for " + path);
   // --no-perfstats gives the bare loop the benchmarks compare against (same binary, same settings).
   PerfStats *perf = args.count("no-perfstats") ? nullptr : new PerfStats("ioperf", tree);
   // Keep it as the global gPerfStats (file reads and unzipping report to it) but detach it from the
   // tree: with a tree-level PerfStats, ROOT's TTreeCache searches every branch and basket on each cache
   // miss to book-keep it (TTreeCache::ReadBufferNormal), which slowed the loop by ~20% on a 1000-branch
   // file here, an artefact of the instrument, not of the file.
   if (perf)
      tree->SetPerfStats(nullptr);

   const long long rss_baseline = current_rss_bytes();
   const double open_seconds = steady_now() - open_start;

   // Event 0 is outside the timed window (it pays for object creation and cache learning), as in the paper.
   const double first_start = steady_now();
   if (tree->GetEntry(0) < 0)
      fail(path + ": reading entry 0 failed (corrupt basket or I/O error)");
   const double loop_start = steady_now(), loop_start_epoch = epoch_now(), cpu_start = process_cpu_seconds();
   long long bytes_unpacked = 0;
   for (Long64_t i = 1; i < events; ++i) {
      const int n = tree->GetEntry(i);
      if (n < 0)
         fail(path + ": reading entry " + std::to_string(i) + " failed (corrupt basket or I/O error)");
      bytes_unpacked += n;
   }
   const double loop_end = steady_now(), loop_end_epoch = epoch_now(), cpu_end = process_cpu_seconds();
   if (perf)
      perf->Finish();
   const double loop_seconds = loop_end - loop_start;

   auto *cache = dynamic_cast<TTreeCache *>(file->GetCacheRead(tree));
   const double disk_time = (perf ? perf->GetDiskTime() : 0), unzip_time = (perf ? perf->GetUnzipTime() : 0);
   const long long bytes_read = file->GetBytesRead();
   const int read_calls = file->GetReadCalls();

   JsonObject out;
   out.str("file", path)
      .str("root_version", gROOT->GetVersion())
      .str("branches", selection)
      .boolean("perfstats", perf != nullptr)
      .integer("selected_top_branches", static_cast<long long>(chosen.size()))
      .integer("active_branches", active_branch_count(tree->GetListOfBranches()))
      .integer("selected_zip_bytes", selected_zip)
      .integer("selected_tot_bytes", selected_tot)
      .integer("entries_in_tree", tree->GetEntries())
      .integer("events_read", events)
      .integer("cache_size_requested", cache_size)
      .integer("cache_size_used", tree->GetCacheSize())
      .integer("cache_buffer_bytes", cache ? cache->GetBufferSize() : 0)
      .integer("cache_cached_branches", cache && cache->GetCachedBranches() ? cache->GetCachedBranches()->GetEntries() : 0)
      .num("cache_efficiency", cache ? cache->GetEfficiency() : 0.0)
      .integer("learn_entries_requested", learn_entries)
      .integer("learn_entries_used", TTreeCache::GetLearnEntries())
      .integer("threads_requested", threads)
      .integer("imt_pool_size", ROOT::IsImplicitMTEnabled() ? ROOT::GetThreadPoolSize() : 0)
      .str("env_TTreeCache.Size", gEnv->GetValue("TTreeCache.Size", "(unset)"))
      .str("env_TTreeCache.Prefill", gEnv->GetValue("TTreeCache.Prefill", "(unset)"))
      .str("env_TFile.AsyncPrefetching", gEnv->GetValue("TFile.AsyncPrefetching", "(unset)"))
      .num("process_start_time", process_start_epoch)
      .num("start_time", loop_start_epoch)
      .num("end_time", loop_end_epoch)
      .num("event_loop_seconds", loop_seconds)
      .num("event_rate_hz", (events - 1) / loop_seconds)
      .num("first_event_seconds", loop_start - first_start)
      .num("open_seconds", open_seconds)
      .num("wall_seconds", loop_end - process_start)
      .num("loop_cpu_seconds", cpu_end - cpu_start)
      .num("process_cpu_seconds", process_cpu_seconds())
      .integer("read_calls", read_calls)
      .integer("bytes_read", bytes_read)
      .num("bytes_per_read", read_calls ? double(bytes_read) / read_calls : 0.0)
      .integer("perfstats_read_calls", (perf ? perf->GetReadCalls() : 0))
      .integer("perfstats_bytes_read", (perf ? perf->GetBytesRead() : 0))
      .integer("perfstats_bytes_read_extra", (perf ? perf->GetBytesReadExtra() : 0))
      .integer("perfstats_tree_cache_size", (perf ? perf->GetTreeCacheSize() : 0))
      .num("perfstats_real_seconds", (perf ? perf->GetRealTime() : 0))
      .num("perfstats_cpu_seconds", (perf ? perf->GetCpuTime() : 0))
      .num("disk_seconds", disk_time)
      .num("unzip_seconds", unzip_time)
      .integer("unzip_input_bytes", (perf ? perf->UnzipInputBytes() : 0))
      .integer("unzip_output_bytes", (perf ? perf->UnzipOutputBytes() : 0))
      .num("read_mb_per_s_compressed", loop_seconds > 0 ? bytes_read / 1e6 / loop_seconds : 0.0)
      .num("read_mb_per_s_uncompressed", loop_seconds > 0 ? (perf ? perf->UnzipOutputBytes() : 0) / 1e6 / loop_seconds : 0.0)
      .integer("bytes_unpacked", bytes_unpacked)
      .integer("rss_baseline_bytes", rss_baseline)
      .integer("peak_rss_bytes", peak_rss_bytes())
      .integer("rss_increase_bytes", peak_rss_bytes() - rss_baseline)
      .integer("vm_peak_bytes", proc_status_bytes("VmPeak"))
      .integer("pid", getpid());
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
   return 0;
}

}  // namespace

int main(int argc, char **argv)
{
   // Before ROOT reads its environment: no user override may change the cache being measured.
   unsetenv("ROOT_TTREECACHE_SIZE");
   unsetenv("ROOT_TTREECACHE_PREFILL");
   try {
      gEnv->SetValue("TTreeCache.Size", 1.0);
      // ROOT's own default (1: during the learning phase the cache is prefilled with every branch), pinned
      // so that no user's .rootrc changes it; with 0, the learning entries would be read basket by basket.
      gEnv->SetValue("TTreeCache.Prefill", 1);
      gEnv->SetValue("TFile.AsyncPrefetching", 0);
      auto args = parse_args(argc, argv);
      if (args.count("checksum"))
         return content_checksum(required_arg(args, "file"), tree_name_arg(args));
      if (args.count("inspect"))
         return inspect(required_arg(args, "file"), tree_name_arg(args));
      return timed_read(args);
   } catch (const std::exception &e) {
      std::cerr << "rootparams-read: error: " << e.what() << std::endl;
      return 2;
   }
}
