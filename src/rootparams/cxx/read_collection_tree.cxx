// rootparams-read: one timed read of a CollectionTree, or a structural inspection of a file.
//
// Timed read (one process = one repetition, as the paper's jobs were):
//   rootparams-read --file F --events N --branches SEL --cache-size C --learn-entries L --threads T [--unzip U]
//     SEL: particle | all | regex:<ECMAScript regex on top-level names> | list:<name>,<name>,...  (top-level
//            branches or fields)
//          | analysis | sparse | vars:<Collection>.<attribute>,...  (variables, both containers; see "Variable
//            selections" below): analysis = pt, eta, phi, m of up to 8 collections (32 variables), sparse = pt
//            and eta of the first 3 (6), in a fixed order of collections (electrons, muons, photons, taus,
//            jets, then the others in file order). Each variable is read from the smallest branch that holds it
//            (a split store's member, a dynamic attribute, a flat array with its counter); at split level 0 the
//            whole store ("class-wise"). Outputs: selection, selected_variables, selected_collections,
//            variables (comma-joined, "Electrons.pt"), variables_classwise, selected_branches_read (the
//            branches or fields enabled, comma-joined), and variables_value_sum (every value read, summed as
//            double in entry order inside the loop, as an analysis touches what it reads: equal for the same
//            content at any split level, in either container, and with or without --unzip),
//            variables_values_summed, variables_summed / variables_not_summed (a variable read basket by
//            basket, see below, is not summed). selected_zip_bytes / selected_tot_bytes are those of what is
//            read, for every SEL.
//     C:   0 = TTreeCache off, -1 = sized from the AutoFlush cluster, > 0 = bytes
//     L:   TTreeCache learn entries, -1 = ROOT's built-in default
//     T:   implicit-MT threads, 1 = implicit MT off
//     U:   0 (default) = TTreeCache; 1 = parallel unzip (TTreeCacheUnzip; TTree, GetEntry read and a cache only).
//          Its tasks run only under implicit MT (T > 1); PerfStats does not see its decompression, so with U = 1
//          the *_unzip_* figures and loop_mb_per_s_uncompressed are null (see timed_read). Outputs
//          unzip_requested, cache_class (TTreeCache | TTreeCacheUnzip), unzip_parallel_tasks, and the cache's
//          counters unzip_blocks_unzipped / _found / _stalled / _missed (-1 without TTreeCacheUnzip).
//   --no-perfstats: the same loop without TTreePerfStats (the bare loop of the benchmarks)
//   The output's reading_style is "getentry" (TTree::GetEntry of the selected branches' objects).
// RDataFrame read of a TTree (read_rdataframe.cxx), the reading style of analyses today:
//   rootparams-read --file F --events N --reading-style rdataframe --columns <col>,<col>,... --threads T
//     <col>: a branch or leaf RDataFrame reads as a scalar or a ROOT::RVec of a fundamental type (a split
//       std::vector<T> member such as ElectronsAux.pt, NanoAOD's Electron_pt[nElectron], a scalar such as run);
//       every value is summed by a typed action (no JIT), all columns in one event loop over entries [0, N)
//     T: > 1 = ROOT::EnableImplicitMT(T) before the RDataFrame is made (its multi-threaded event loop)
//     --cache-size and --learn-entries must be -1 (RDataFrame sizes and fills the TTreeCache itself); --branches,
//     the selection the columns were resolved from, is only recorded (column_selection); outputs
//     reading_style "rdataframe", rdf_threads, columns, column_types, values_sum (the sum of
//     every value read, to compare with another reader of the same entries), cache_size_used and
//     note_window_is_loop: true (no second-entry moment: the note_window_* fields are the loop's)
// Bulk read of a TTree (read_bulk.cxx), ROOT's bulk API (TBranch::GetBulkRead): a basket of entries per call:
//   rootparams-read --file F --events N --reading-style bulk --columns <col>,<col>,... [--branches SEL]
//                   --cache-size C --learn-entries -1 --threads 1
//     <col>: a plain branch of one leaf of a fundamental type, scalar or fixed-size (GetBulkEntries) or counted by
//       another such branch (GetEntriesSerialized; its counter is read too); any other branch (std::vector, class,
//       Float16_t/Double32_t, string, leaf list) is refused, named in the message. Without --columns, SEL is resolved
//       as the GetEntry read resolves it. C: the TTreeCache as for GetEntry, the columns' branches added to it and
//       its learning phase stopped at once. Outputs the RDataFrame read's values_sum, column_sums and
//       column_values, GetEntry's variables_value_sum for a variable selection, and bulk_* (branches read each
//       way, baskets, clusters); note_window_is_loop: true. With --container rntuple: RNTuple's bulk read
//       (RFieldBase::RBulkValues, a cluster per call) of fields of a fundamental type, RVec or std::vector of one,
//       or collection sizes; --cache-size 0 turns the cluster cache off
// Selection only (not timed): rootparams-read --file F [--tree T] --resolve-selection SEL
//     prints ROOTPARAMS_JSON {"container": "ttree" | "rntuple", "branches": [...], "variables": [...],
//     "collections": [...], "classwise": [...]}: the branch (or RNTuple field) names a columnar reader
//     (RDataFrame, uproot) reads for SEL, counters of flat arrays included; the one definition of every
//     selection, shared with the timed read.
// Fork server (the same timed read, without paying ROOT's start-up once per repetition):
//   rootparams-read --serve
//     prints "ROOTPARAMS_READY {...}" once ROOT is initialized, then reads one request per line on stdin:
//     tab-separated key=value pairs with the options above (file=F, events=N, unzip=1, reader=rdataframe,
//     columns=<col>,<col>, ...) plus optionally
//     cgroup-procs=<cgroup.procs file the child joins before it opens the file> and
//     stderr=<file for the child's messages>. For each request it forks a child that makes one timed read
//     (printing its "ROOTPARAMS_JSON {...}" line), waits for it, and prints "ROOTPARAMS_CHILD {...}" with
//     the child's exit status and CPU time. The server never opens a data file itself, so every child
//     starts with no file open, no TTreeCache and no baskets in memory, as a fresh process would.
//     A request "probe=<loads>" forks nothing: the server follows a chain of <loads> dependent loads through
//     a 64 MB buffer and prints "ROOTPARAMS_PROBE {"seconds": ...}", this host's memory latency at that
//     moment (the harness probes before and after each read; docs/measurement.md, "Noise from the host").
// Files without dictionaries (a user's own ATLAS files; README of the real test files): nothing is skipped.
//   TTree: a selected branch whose objects ROOT can only emulate (a class known from the file's streamer info
//     alone: DataVector<xAOD::...>, xAOD aux stores, ElementLink vectors, PileUpEventInfo_p5, which corrupted the
//     heap when streamed) is read basket by basket: every basket of its branches fetched through the TTreeCache,
//     counted by TTreePerfStats and decompressed, but not streamed into objects. The output says so:
//     read_mode "objects" | "objects+baskets" | "baskets", basket_mode_* (branches, bytes, classes).
//   RNTuple: a field whose type ROOT cannot create is read by its subfields (records, collection offsets and
//     items, fundamentals under unknown typedefs); read_mode "objects" | "objects+subfields", and any
//     subfield that still cannot be read is listed with its bytes (unread_subfield_list, unread_zip_bytes).
//   particle: our synthetic containers (xAODlike::IParticleContainer) or ATLAS DataVector<T> with T deriving
//     from xAOD::IParticle (TTree: the emulated item class; RNTuple: the item's base-class subfields).
// Inspection (what the file really is, for the catalogue):
//   rootparams-read --file F --inspect
// Content checksum (independent of compression, AutoFlush, basket size and split level):
//   rootparams-read --file F --checksum
//     flat branches (NanoAOD) are hashed leaf by leaf; a TTree with emulated classes is refused, naming the
//     branch and class
//
// Spans (docs/measurement.md): every byte count, time and rate of a timed read belongs to one of
//   process      the process (or forked child) from its start to the end of the event loop;
//   open         process start until the first entry is requested: open, branch selection, cache set-up and
//                the creation of the branch objects;
//   loop         the event loop: from the request of the first entry to the end of the loop, all N events.
//                The headline event rate (event_rate_hz) is N / loop_seconds;
//   note_window  from the second entry to the end of the loop, the ATLAS note's window; with fewer clusters
//                than the note's 2000-event reads it misses the first cluster's I/O, so it is kept as a
//                column (note_window_event_rate_hz) and its share of the I/O is recorded.
//
// Every ROOT setting that changes the result is pinned here, whatever the user's environment says:
// ROOT_TTREECACHE_SIZE / ROOT_TTREECACHE_PREFILL are removed, gEnv's TTreeCache.* and async prefetching
// are set, the cache size is set explicitly, implicit MT is enabled only when asked for.
// Output: one line "ROOTPARAMS_JSON {...}" on stdout. Errors: a message naming the file on stderr and exit
// code 2, or 3 when the file itself is damaged (not ROOT, truncated, no such tree, a corrupt basket).
//
// The units of this one binary, each a header and a source: this file (main, the dispatch of the commands above,
// the fork server and its memory probe); read_common (errors and exit codes, opening the file, the read request);
// read_counters (PerfStats, the kernel's counters, Snapshot, the spans' figures); read_selection (branch and
// variable selections and their catalogues); read_ttree and read_ntuple (--inspect and the timed read of each
// container); read_rdataframe (--reading-style rdataframe); read_bulk (--reading-style bulk); read_checksum (--checksum).
#include "common.h"
#include "read_bulk.h"
#include "read_checksum.h"
#include "read_common.h"
#include "read_counters.h"
#include "read_ntuple.h"
#include "read_rdataframe.h"
#include "read_selection.h"
#include "read_ttree.h"

#include <ROOT/RNTupleReadOptions.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <TClass.h>
#include <TEnv.h>
#include <TFile.h>
#include <TROOT.h>
#include <TTree.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace rootparams::read {

namespace {

// Every option the reader knows: a misspelt or renamed one stops the read, rather than silently measuring
// the default it would have changed.
void check_options(const std::map<std::string, std::string> &args)
{
   static const std::set<std::string> known = {
      "async-prefetch", "branches",      "cache-size",        "cgroup-procs", "checksum", "cluster-bunch",
      "columns",        "container",     "disk-device",       "events",       "file",     "inspect",
      "learn-entries",  "no-perfstats",  "probe",             "reading-style", "resolve-selection",
      "serve",          "stderr",        "threads",           "tree",         "unzip"};
   static const std::map<std::string, std::string> renamed = {{"reader", "reading-style"}};
   for (const auto &[key, value] : args) {
      if (known.count(key))
         continue;
      auto it = renamed.find(key);
      std::string message = "unknown option --" + key;
      if (it != renamed.end())
         message += ": it is now called --" + it->second;
      else {
         message += "; the options are";
         for (const auto &k : known)
            message += " --" + k;
      }
      fail(message);
   }
}

// A timed read of either container (--container ttree, the default, or rntuple), by TTree::GetEntry or, for a
// TTree, --reading-style rdataframe or bulk.
int timed_read_any(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode)
{
   check_options(args);
   if (args.count("disk-device")) {
      g_disk_device = args.at("disk-device");
      if (g_disk_device.find(':') == std::string::npos || disk_completed_read_bytes() < 0)
         fail("--disk-device '" + g_disk_device + "' is not a major:minor listed in /proc/diskstats");
   }
   if (args.count("async-prefetch")) {
      // TTreeCache's asynchronous prefetching (TFilePrefetch: a thread reads the next cluster's blocks while
      // the loop works on this one). Off (main's pin) unless asked for; read by ROOT when the file opens.
      const std::string value = args.at("async-prefetch");
      if (value != "0" && value != "1")
         fail("--async-prefetch '" + value + "': must be 0 or 1");
      gEnv->SetValue("TFile.AsyncPrefetching", std::stoi(value));
   }
   std::string container = args.count("container") ? args.at("container") : "ttree";
   if (container == "auto") {  // untimed reads (a warm-up): the file says which
      auto file = open_root_file(required_arg(args, "file"));
      container = has_ntuple(file.get(), tree_name_arg(args)) ? "rntuple" : "ttree";
   }
   const std::string reader = args.count("reading-style") ? args.at("reading-style") : "getentry";
   if (reader != "getentry" && reader != "rdataframe" && reader != "bulk")
      fail("--reading-style '" + reader + "': must be getentry (TTree::GetEntry, the default), rdataframe or bulk "
           "(ROOT's bulk API, TBranch::GetBulkRead)");
   if (container == "rntuple" && reader == "rdataframe")
      fail(required_arg(args, "file") + ": --reading-style rdataframe reads TTrees only, not --container rntuple");
   if (container == "rntuple")
      return reader == "bulk" ? timed_read_ntuple_bulk(args, process_start, mode)
                              : timed_read_ntuple(args, process_start, mode);
   if (container != "ttree")
      fail("--container '" + container + "': must be ttree, rntuple or auto");
   if (reader == "rdataframe" && args.count("unzip") && args.at("unzip") != "0")
      fail(required_arg(args, "file") + ": --unzip " + args.at("unzip") + " is a setting of the GetEntry read "
           "(--reading-style getentry); RDataFrame makes its own TTreeCache: use --unzip 0 with --reading-style rdataframe");
   if (reader == "rdataframe")
      return timed_read_rdataframe(args, process_start, mode);
   if (reader == "bulk")
      return timed_read_bulk(args, process_start, mode);
   return timed_read(args, process_start, mode);
}

// --inspect of either container: the file says which.
int inspect_any(const std::string &path, const std::string &name)
{
   auto file = open_root_file(path);
   const bool ntuple = has_ntuple(file.get(), name);
   file.reset();
   return ntuple ? inspect_ntuple(path, name) : inspect(path, name);
}

// One request line of the fork server: tab-separated key=value pairs.
std::map<std::string, std::string> parse_request(const std::string &line)
{
   std::map<std::string, std::string> args;
   std::stringstream s(line);
   std::string item;
   while (std::getline(s, item, '\t')) {
      auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
         fail("request item '" + item + "' is not key=value");
      args[item.substr(0, eq)] = item.substr(eq + 1);
   }
   return args;
}

// The child's side of a request: its own messages file, its cgroup (the storage profile's throttle), the read.
[[noreturn]] void serve_child(const std::map<std::string, std::string> &args)
{
   const Snapshot start = Snapshot::take(nullptr);
   int code = 0;
   try {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the server
      if (args.count("stderr") && !std::freopen(args.at("stderr").c_str(), "w", stderr))
         fail("cannot write " + args.at("stderr"));
      if (args.count("cgroup-procs")) {
         std::ofstream procs(args.at("cgroup-procs"));
         procs << getpid() << std::endl;
         if (!procs)
            fail("cannot join the cgroup of " + args.at("cgroup-procs"));
      }
      code = timed_read_any(args, start, "fork");
   } catch (const DamagedFile &e) {
      std::cerr << "rootparams-read: error: " << e.what() << std::endl;
      code = kExitDamagedFile;
   } catch (const std::exception &e) {
      std::cerr << "rootparams-read: error: " << e.what() << std::endl;
      code = kExitError;
   }
   std::cout.flush();
   std::fflush(stdout);
   std::fflush(stderr);
   _exit(code);  // no ROOT tear-down: the server's objects are not the child's to destroy
}

// A chain of dependent loads through a buffer far larger than the caches: one random cycle over its
// cache lines, so that every load waits for memory. Its time for a fixed number of loads is the host's
// memory latency; on virtual machines that moves by tens of percent in spells that slow every memory-bound
// read alike, while compute in the L1 cache does not move. Built once in the server (not in the children, whose
// memory is measured), deterministic, ~20 ms to build.
class MemoryProbe {
public:
   MemoryProbe() : lines_((64u << 20) / kLine)
   {
      std::vector<uint32_t> order(lines_);
      for (uint32_t i = 0; i < lines_; ++i)
         order[i] = i;
      uint64_t x = 0x9E3779B97F4A7C15ull;  // Sattolo's shuffle: a single cycle through every line
      for (uint32_t i = lines_ - 1; i > 0; --i) {
         x ^= x << 13, x ^= x >> 7, x ^= x << 17;
         std::swap(order[i], order[x % i]);
      }
      buffer_.assign(static_cast<size_t>(lines_) * kLine / sizeof(uint32_t), 0);
      for (uint32_t i = 0; i < lines_; ++i)
         at(order[i]) = order[(i + 1) % lines_];
   }
   double seconds(long loads)
   {
      const double t0 = steady_now();
      uint32_t p = position_;
      for (long i = 0; i < loads; ++i)
         p = at(p);
      position_ = p;  // kept, so that the compiler cannot drop the chain
      return steady_now() - t0;
   }

private:
   static constexpr uint32_t kLine = 64;
   uint32_t &at(uint32_t line) { return buffer_[static_cast<size_t>(line) * (kLine / sizeof(uint32_t))]; }
   uint32_t lines_;
   std::vector<uint32_t> buffer_;
   uint32_t position_ = 0;
};

// Fork server: ROOT's start-up (interpreter, C++ modules, the xAOD-like classes' dictionary) is paid once; every
// request is read by a child forked from this initialized but file-less state.
int serve()
{
   prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the measuring job
   const double t0 = steady_now();
   gROOT->GetVersion();  // initialize ROOT (and its interpreter) here, not in every child
   for (const char *cls : {"xAODlike::ElectronContainer_v1", "xAODlike::ParticleAuxContainer_v1"})
      TClass::GetClass(cls);
   std::cout << "ROOTPARAMS_READY "
             << JsonObject().integer("pid", getpid()).str("root_version", gROOT->GetVersion())
                  .num("init_seconds", steady_now() - t0).dump()
             << std::endl;
   MemoryProbe probe;
   std::string line;
   while (std::getline(std::cin, line)) {
      if (line.empty())
         continue;
      std::map<std::string, std::string> args;
      try {
         args = parse_request(line);
      } catch (const std::exception &e) {
         std::cout << "ROOTPARAMS_CHILD " << JsonObject().integer("exit_code", kExitError).str("error", e.what()).dump()
                   << std::endl;
         continue;
      }
      if (args.count("probe")) {
         const long loads = std::atol(args["probe"].c_str());
         std::cout << "ROOTPARAMS_PROBE " << JsonObject().integer("loads", loads).num("seconds", probe.seconds(loads)).dump()
                   << std::endl;
         continue;
      }
      std::cout.flush();
      std::fflush(stdout);
      std::fflush(stderr);
      const pid_t pid = fork();
      if (pid < 0) {
         std::cout << "ROOTPARAMS_CHILD " << JsonObject().integer("exit_code", kExitError).str("error", "fork failed").dump()
                   << std::endl;
         continue;
      }
      if (pid == 0)
         serve_child(args);
      int status = 0;
      rusage usage{};
      while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      JsonObject done;
      done.integer("pid", pid)
         .integer("exit_code", WIFEXITED(status) ? WEXITSTATUS(status) : -1)
         .integer("signal", WIFSIGNALED(status) ? WTERMSIG(status) : 0)
         .num("cpu_user_seconds", usage.ru_utime.tv_sec + 1e-6 * usage.ru_utime.tv_usec)
         .num("cpu_system_seconds", usage.ru_stime.tv_sec + 1e-6 * usage.ru_stime.tv_usec)
         .integer("maxrss_bytes", static_cast<long long>(usage.ru_maxrss) * 1024);
      std::cout << "ROOTPARAMS_CHILD " << done.dump() << std::endl;
   }
   return 0;
}

// --resolve-selection SEL: what a columnar reader (RDataFrame, uproot) reads for SEL, the one definition of every
// selection: ROOTPARAMS_JSON {"container": "ttree" | "rntuple", "branches": [...], "variables": [...],
// "collections": [...], "classwise": [...]}. branches: the branch (TTree) or field (RNTuple) names to read, as
// the timed read reads them (a flat array's counter included); variables and collections: those of a variable
// selection (empty otherwise); classwise: the branches read whole to get a variable of an unsplit store.
int resolve_selection(const std::string &path, const std::string &name, const std::string &selection)
{
   auto file = open_root_file(path);
   const bool ntuple = has_ntuple(file.get(), name);
   std::vector<std::string> branches, names, collections, classwise;
   auto from_variables = [&](const std::vector<Variable> &variables) {
      branches = variables_read(variables);
      for (auto &v : variables) {
         names.push_back(v.name);
         const auto c = v.name.substr(0, v.name.rfind('.'));
         if (std::find(collections.begin(), collections.end(), c) == collections.end())
            collections.push_back(c);
         if (v.classwise && std::find(classwise.begin(), classwise.end(), v.read) == classwise.end())
            classwise.push_back(v.read);
      }
   };
   if (ntuple) {
      auto reader = open_ntuple(path, name, file.get(), ROOT::RNTupleReadOptions());
      if (is_variable_selection(selection))
         from_variables(resolve_variables(NTupleCatalogue(reader->GetDescriptor()), selection, path));
      else
         for (auto &field : select_top_fields(reader->GetDescriptor(), selection, path))
            branches.push_back(field.first);
   } else {
      file.reset();
      auto [owner, tree] = open_tree(path, name);
      if (is_variable_selection(selection))
         from_variables(resolve_variables(TreeCatalogue(tree), selection, path));
      else
         branches = select_top_branches(tree, selection, path);
   }
   JsonObject out;
   out.str("file", path)
      .str("container", ntuple ? "rntuple" : "ttree")
      .str("selection", selection)
      .raw("branches", json_string_array(branches))
      .raw("variables", json_string_array(names))
      .raw("collections", json_string_array(collections))
      .raw("classwise", json_string_array(classwise));
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
   return 0;
}

}  // namespace

}  // namespace rootparams::read

int main(int argc, char **argv)
{
   using namespace rootparams;
   using namespace rootparams::read;
   const Snapshot start = Snapshot::take(nullptr);
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
      check_options(args);
      if (args.count("serve"))
         return serve();
      if (args.count("checksum"))
         return content_checksum(required_arg(args, "file"), tree_name_arg(args));
      if (args.count("inspect"))
         return inspect_any(required_arg(args, "file"), tree_name_arg(args));
      if (args.count("resolve-selection"))
         return resolve_selection(required_arg(args, "file"), tree_name_arg(args), args.at("resolve-selection"));
      return timed_read_any(args, start, "exec");
   } catch (const DamagedFile &e) {
      std::cerr << "rootparams-read: error: " << e.what() << std::endl;
      return kExitDamagedFile;
   } catch (const std::exception &e) {
      std::cerr << "rootparams-read: error: " << e.what() << std::endl;
      return kExitError;
   }
}
