// One read of every top-level branch of a TTree in one of three reading patterns, with the TTreeCache as asked, for
// benchmarks/readspeed_gap.py (why ROOT's rootreadspeed seemed to read a file faster than rootparams-read):
//
//   read_patterns FILE TREE PATTERN CACHE
//     PATTERN  tree:       TTree::GetEntry(i) for every entry, every branch enabled, the branch objects created
//                          before the clock starts (rootparams-read's loop);
//              branch:     rootreadspeed's single-threaded loop (ROOT 6.40, tree/readspeed/src/ReadSpeed.cxx,
//                          ReadSpeed::ReadTree): SetBranchStatus("*", 0), TBranch::SetStatus(1) on each top-level
//                          branch (which leaves the sub-branches of a split branch disabled: none of them is read),
//                          then for each entry TBranch::GetEntry(i) of each top-level branch in the tree's order;
//              branch-all: the same loop with every sub-branch enabled too, so that it reads all the tree's bytes.
//     CACHE    auto: nothing set (ROOT's own default, TTreeCache.Size 1.0 in gEnv); off: SetCacheSize(0);
//              cluster: SetCacheSize(-1) (sized from the AutoFlush cluster, the reader's default).
//
// Prints one line "READ_PATTERNS {json}": TFile::Open (file_open_seconds), the tree's set-up (tree_setup_seconds:
// reading the TTree, branch statuses, the cache, and for "tree" the branch objects; rootreadspeed's own clock starts
// earlier still, before ROOT's start-up: docs/measurement.md), the loop (wall and CPU; the branch patterns create
// the branch objects in the first GetEntry, as rootreadspeed does), the bytes GetEntry returned (what rootreadspeed
// calls uncompressed bytes), the TFile's read calls and bytes during the loop (its compressed bytes), and the cache
// ROOT used (its class, size, cached branches, efficiency).
#include <TBranch.h>
#include <TFile.h>
#include <TObjArray.h>
#include <TROOT.h>
#include <TTree.h>
#include <TTreeCache.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

namespace {

double wall()
{
   return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu()
{
   timespec t{};
   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
   return t.tv_sec + 1e-9 * t.tv_nsec;
}

}  // namespace

int main(int argc, char **argv)
{
   const std::string pattern = argc == 5 ? argv[3] : "", cache = argc == 5 ? argv[4] : "";
   if ((pattern != "tree" && pattern != "branch" && pattern != "branch-all") ||
       (cache != "auto" && cache != "off" && cache != "cluster")) {
      std::fprintf(stderr, "usage: read_patterns FILE TREE tree|branch|branch-all auto|off|cluster\n");
      return 2;
   }
   gROOT->GetVersion();  // ROOT initialized before any clock starts
   const double t_open = wall();
   std::unique_ptr<TFile> file(TFile::Open(argv[1], "READ"));
   if (!file || file->IsZombie())
      return 3;
   const double t_setup = wall(), c_setup = cpu();
   auto *tree = file->Get<TTree>(argv[2]);
   if (!tree)
      return 3;
   std::vector<TBranch *> branches;
   for (auto *obj : *tree->GetListOfBranches())
      branches.push_back(static_cast<TBranch *>(obj));
   if (pattern == "branch") {  // "branch-all" and "tree": every branch stays enabled, as TFile::Get leaves them
      tree->SetBranchStatus("*", false);
      for (auto *b : branches)
         b->SetStatus(true);
   }
   if (cache == "off")
      tree->SetCacheSize(0);
   else if (cache == "cluster")
      tree->SetCacheSize(-1);
   if (pattern == "tree")
      for (auto *b : branches)
         b->SetupAddresses();
   const Long64_t entries = tree->GetEntries();
   const Long64_t calls_before = file->GetReadCalls(), bytes_before = file->GetBytesRead();
   const double t_loop = wall(), c_loop = cpu();
   long long unpacked = 0;
   for (Long64_t e = 0; e < entries; ++e) {
      if (pattern == "tree")
         unpacked += tree->GetEntry(e);
      else
         for (auto *b : branches)
            unpacked += b->GetEntry(e);
   }
   const double t_end = wall(), c_end = cpu();
   auto *tc = tree->GetReadCache(file.get());
   std::printf("READ_PATTERNS {\"pattern\": \"%s\", \"cache\": \"%s\", \"entries\": %lld, \"top_branches\": %zu, "
               "\"file_open_seconds\": %.6f, \"tree_setup_seconds\": %.6f, \"tree_setup_cpu_seconds\": %.6f, "
               "\"loop_seconds\": %.6f, \"loop_cpu_seconds\": %.6f, \"getentry_bytes\": %lld, "
               "\"file_read_calls\": %lld, \"file_bytes_read\": %lld, \"cache_class\": \"%s\", \"cache_size\": %lld, "
               "\"cache_branches\": %d, \"cache_efficiency\": %.4f}\n",
               pattern.c_str(), cache.c_str(), entries, branches.size(), t_setup - t_open, t_loop - t_setup,
               c_loop - c_setup, t_end - t_loop, c_end - c_loop, unpacked,
               static_cast<long long>(file->GetReadCalls() - calls_before),
               static_cast<long long>(file->GetBytesRead() - bytes_before), tc ? tc->ClassName() : "none",
               static_cast<long long>(tree->GetCacheSize()),
               tc && tc->GetCachedBranches() ? tc->GetCachedBranches()->GetEntries() : 0,
               tc ? tc->GetEfficiency() : 0.0);
   return 0;
}
