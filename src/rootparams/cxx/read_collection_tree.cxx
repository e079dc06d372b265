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
//   The output's reader_style is "getentry" (TTree::GetEntry of the selected branches' objects).
// RDataFrame read of a TTree (read_rdataframe.h), the reading style of analyses today:
//   rootparams-read --file F --events N --reader rdataframe --columns <col>,<col>,... --threads T
//     <col>: a branch or leaf RDataFrame reads as a scalar or a ROOT::RVec of a fundamental type (a split
//       std::vector<T> member such as ElectronsAux.pt, NanoAOD's Electron_pt[nElectron], a scalar such as run);
//       every value is summed by a typed action (no JIT), all columns in one event loop over entries [0, N)
//     T: > 1 = ROOT::EnableImplicitMT(T) before the RDataFrame is made (its multi-threaded event loop)
//     --cache-size and --learn-entries must be -1 (RDataFrame sizes and fills the TTreeCache itself); --branches,
//     the selection the columns were resolved from, is only recorded (column_selection); outputs
//     reader_style "rdataframe", rdf_threads, columns, column_types, values_sum (the sum of
//     every value read, to compare with another reader of the same entries), cache_size_used and
//     note_window_is_loop: true (no second-entry moment: the note_window_* fields are the loop's)
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
#include "common.h"

#include <ROOT/RConfig.hxx>
#include <TBasket.h>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TBufferFile.h>
#include <TClass.h>
#include <TDataMember.h>
#include <TEnv.h>
#include <TError.h>
#include <TFile.h>
#include <TKey.h>
#include <TLeaf.h>
#include <TROOT.h>
#include <TTree.h>
#include <TTreeCache.h>
#include <TTreeCacheUnzip.h>
#include <TTimeStamp.h>
#include <TTreePerfStats.h>
#include <TVirtualCollectionProxy.h>
#include <TVirtualPerfStats.h>
#include <ROOT/TThreadExecutor.hxx>
#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleMetrics.hxx>
#include <ROOT/RNTupleReadOptions.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <utility>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <iostream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

using namespace rootparams;

namespace {

[[noreturn]] void fail(const std::string &msg)
{
   throw std::runtime_error(msg);
}

// The file under test is not a sound ROOT file with our tree: exit code 3, so that the harness can tell a
// damaged file (which it removes, to be written again) from any other failure without matching text.
struct DamagedFile : std::runtime_error {
   using std::runtime_error::runtime_error;
};
constexpr int kExitError = 2;
constexpr int kExitDamagedFile = 3;

[[noreturn]] void damaged(const std::string &msg)
{
   throw DamagedFile(msg);
}

// A corrupt basket can make ROOT call Fatal() (e.g. TBuffer with a negative size), which aborts the process
// with a stack trace instead of returning an error. While a data file is open, a fatal ROOT error is reported
// as a damaged file (exit code 3) naming it; every other message goes to ROOT's default handler.
std::string g_open_file;

void fatal_means_damaged(int level, Bool_t abort, const char *location, const char *msg)
{
   if (level >= kFatal && !g_open_file.empty()) {
      std::cerr << "rootparams-read: error: " << g_open_file << ": ROOT stopped with a fatal error while reading it ("
                << (location ? location : "?") << ": " << (msg ? msg : "") << "); corrupt basket or damaged file"
                << std::endl;
      std::fflush(stdout);
      _exit(kExitDamagedFile);
   }
   DefaultErrorHandler(level, abort, location, msg);
}

const char *kParticleBase = "xAODlike::IParticleContainer";

// TTreePerfStats as the paper used it (read calls, bytes, disk and unzip time), made exact for every span and
// every thread:
// - it is installed as ROOT's gPerfStats before the file is opened, so the open's reads are counted too
//   (TFile::ReadBuffer reports every read to gPerfStats, TBasket every decompression);
// - its counters are atomic and read at span boundaries (Snapshot below), not only at the end;
// - gPerfStats is thread-local once implicit MT is on, and the tree's own PerfStats pointer stays null (see
//   below), so with more than one thread the worker threads would report to nobody: install_in_workers gives
//   every thread of ROOT's pool the same object (tests/test_cxx.py compares 1 and 2 threads);
// - the per-basket bookkeeping (which basket was used, cached, missed) and TTreePerfStats' per-read graph
//   are switched off: none of the paper's metrics comes from them, and they are not thread-safe.
// The I/O counters of the file under test that the spans difference: TTreePerfStats for a TTree (PerfStats
// below), RNTuple's own metrics for an RNTuple (NTupleCounters, in the RNTuple section). Each source names
// itself in the record's io_counters_source; docs/measurement.md says what each column is for each.
class IOCounters {
public:
   virtual ~IOCounters() = default;
   virtual long long calls() const = 0;
   virtual long long bytes() const = 0;
   virtual double disk_seconds() const = 0;
   virtual double unzip_seconds() const = 0;
   virtual long long unzip_in() const = 0;  // -1: not counted by this source
   virtual long long unzip_out() const = 0;
};

class PerfStats : public TTreePerfStats, public IOCounters {
public:
   // The default constructor: no stopwatch, graphs or pave (Finish() must not be called); every figure
   // comes from the counters below. `path` is the file under test: reads of other files (ROOT reads the
   // dictionaries' .pcm files through TFile too) are counted apart.
   // A URL's options ("?remote=1") are not part of the name ROOT gives its file object (TNetXNGFile).
   explicit PerfStats(std::string path)
      : TTreePerfStats(), fPath(path.find("://") == std::string::npos ? path : path.substr(0, path.find('?')))
   {
   }
   void Attach(TTree *tree)
   {
      fTree = tree;
      fFile = tree->GetCurrentFile();
   }
   void FileReadEvent(TFile *file, Int_t len, Double_t start) override
   {
      const double seconds = Double_t(TTimeStamp()) - start;
      if (file && fPath == file->GetName()) {
         add(fDiskSeconds, seconds);
         fCalls.fetch_add(1, std::memory_order_relaxed);
         fBytes.fetch_add(len, std::memory_order_relaxed);
      } else {
         fOtherBytes.fetch_add(len, std::memory_order_relaxed);
      }
   }
   void UnzipEvent(TObject *, Long64_t, Double_t start, Int_t complen, Int_t objlen) override
   {
      add(fUnzipSeconds, Double_t(TTimeStamp()) - start);
      fUnzipIn.fetch_add(complen, std::memory_order_relaxed);
      fUnzipOut.fetch_add(objlen, std::memory_order_relaxed);
   }
   Long64_t GetBytesRead() const override { return fBytes.load(); }
   void SetLoaded(TBranch *, size_t) override {}
   void SetLoaded(size_t, size_t) override {}
   void SetLoadedMiss(TBranch *, size_t) override {}
   void SetLoadedMiss(size_t, size_t) override {}
   void SetMissed(TBranch *, size_t) override {}
   void SetMissed(size_t, size_t) override {}
   void SetUsed(TBranch *, size_t) override {}
   void SetUsed(size_t, size_t) override {}
   void UpdateBranchIndices(TObjArray *) override {}

   long long calls() const override { return fCalls.load(); }
   long long bytes() const override { return fBytes.load(); }
   long long other_files_bytes() const { return fOtherBytes.load(); }
   double disk_seconds() const override { return fDiskSeconds.load(); }
   double unzip_seconds() const override { return fUnzipSeconds.load(); }
   long long unzip_in() const override { return fUnzipIn.load(); }
   long long unzip_out() const override { return fUnzipOut.load(); }

private:
   static void add(std::atomic<double> &sum, double x)
   {
      double old = sum.load(std::memory_order_relaxed);
      while (!sum.compare_exchange_weak(old, old + x, std::memory_order_relaxed)) {
      }
   }
   const std::string fPath;
   std::atomic<long long> fCalls{0}, fBytes{0}, fOtherBytes{0}, fUnzipIn{0}, fUnzipOut{0};
   std::atomic<double> fDiskSeconds{0}, fUnzipSeconds{0};
};

// Make `perf` the gPerfStats of every thread of ROOT's implicit-MT pool (gPerfStats is thread-local once
// implicit MT is on). Tasks that sleep a little are spread over the pool until each of its threads has run
// one; TBB's pool never has more threads than ROOT allowed, so once `threads` distinct threads (this one
// included) are seen, all are covered. Returns the number of threads covered.
int install_in_workers(TVirtualPerfStats *perf, int threads)
{
   std::mutex mutex;
   std::unordered_set<std::thread::id> seen{std::this_thread::get_id()};
   ROOT::TThreadExecutor pool(threads);
   for (int round = 0; round < 100 && static_cast<int>(seen.size()) < threads; ++round) {
      pool.Foreach(
         [&] {
            gPerfStats = perf;
            {
               std::lock_guard<std::mutex> lock(mutex);
               seen.insert(std::this_thread::get_id());
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
         },
         4 * threads);
   }
   if (static_cast<int>(seen.size()) < threads)
      fail("could not install TTreePerfStats in every implicit-MT thread (" + std::to_string(seen.size()) + " of " +
           std::to_string(threads) + " reached); worker threads' reads and decompression would be missed");
   return static_cast<int>(seen.size());
}

// /proc/self/io: bytes this process (all its threads) caused to be fetched from storage, and read syscalls.
struct ProcIO {
   long long storage_read_bytes = 0, rchar = 0, syscr = 0;
   static ProcIO now()
   {
      ProcIO io;
      std::ifstream in("/proc/self/io");
      std::string key;
      long long value = 0;
      while (in >> key >> value) {
         if (key == "read_bytes:")
            io.storage_read_bytes = value;
         else if (key == "rchar:")
            io.rchar = value;
         else if (key == "syscr:")
            io.syscr = value;
      }
      return io;
   }
};

// The disk ("major:minor") whose completed reads the spans also count (--disk-device); empty: none.
std::string g_disk_device;

// Bytes of read requests the disk has completed since boot, for every process (/proc/diskstats); -1 without
// a disk. /proc/self/io counts a request when the reader submits it, and so does the blkio group
// (blkio.throttle.io_service_bytes, as measured here); this counts it when it is done. Under a throttle, a
// read-ahead window submitted near the end of a span and held back is in the span's storage_read_bytes but
// not in its disk_completed_read_bytes (benchmarks/physics_checks.py, check (b)). Every process's requests
// are counted: other readers of the disk during the span add to it.
long long disk_completed_read_bytes()
{
   if (g_disk_device.empty())
      return -1;
   const auto colon = g_disk_device.find(':');
   const std::string major = g_disk_device.substr(0, colon), minor = g_disk_device.substr(colon + 1);
   std::ifstream in("/proc/diskstats");
   std::string line;
   while (std::getline(in, line)) {
      std::istringstream f(line);
      std::string ma, mi, name;
      long long reads = 0, merged = 0, sectors = 0;
      if (f >> ma >> mi >> name >> reads >> merged >> sectors && ma == major && mi == minor)
         return sectors * 512;
   }
   return -1;
}

// Every counter at one instant; a span's figures are the differences between the snapshots at its ends.
struct Snapshot {
   double steady = 0, epoch = 0, cpu = 0;
   long long bytes = 0, calls = 0, unzip_in = 0, unzip_out = 0;  // of the file under test
   double disk = 0, unzip = 0;
   long long disk_completed_bytes = -1;
   ProcIO io;

   static Snapshot take(const IOCounters *perf)
   {
      Snapshot s;
      s.steady = steady_now();
      s.epoch = epoch_now();
      s.cpu = process_cpu_seconds();
      if (perf) {
         s.bytes = perf->bytes();
         s.calls = perf->calls();
         s.disk = perf->disk_seconds();
         s.unzip = perf->unzip_seconds();
         s.unzip_in = perf->unzip_in();
         s.unzip_out = perf->unzip_out();
      }
      s.io = ProcIO::now();
      s.disk_completed_bytes = disk_completed_read_bytes();
      return s;
   }
};

// The figures of the span [a, b] under the name `span` ("loop" gives loop_seconds, loop_bytes_read, ...).
// Byte counts, read calls, disk and unzip time come from PerfStats (the file under test only), so a bare
// loop (--no-perfstats) has times, CPU and the kernel's storage bytes only. `unzip_counted` false: the
// decompression did not pass where the counters see it (TTreeCacheUnzip, see timed_read), its figures are null.
void add_span(JsonObject &out, const std::string &span, const Snapshot &a, const Snapshot &b, bool perf,
              bool unzip_counted = true)
{
   const double nan = std::nan("");
   out.num(span + "_seconds", b.steady - a.steady)
      .num(span + "_cpu_seconds", b.cpu - a.cpu)
      .integer(span + "_storage_read_bytes", b.io.storage_read_bytes - a.io.storage_read_bytes)
      .integer(span + "_read_syscalls", b.io.syscr - a.io.syscr);
   if (a.disk_completed_bytes >= 0 && b.disk_completed_bytes >= 0)
      out.integer(span + "_disk_completed_read_bytes", b.disk_completed_bytes - a.disk_completed_bytes);
   if (perf)
      out.integer(span + "_bytes_read", b.bytes - a.bytes)
         .integer(span + "_read_calls", b.calls - a.calls)
         .num(span + "_disk_seconds", b.disk - a.disk)
         .num(span + "_unzip_seconds", unzip_counted ? b.unzip - a.unzip : nan)
         .num(span + "_unzip_input_bytes", a.unzip_in < 0 || !unzip_counted ? nan : double(b.unzip_in - a.unzip_in))
         .num(span + "_unzip_output_bytes", unzip_counted ? double(b.unzip_out - a.unzip_out) : nan);
}

double ratio(double a, double b)
{
   return b > 0 ? a / b : std::nan("");
}

// What every timed read reports, TTree or RNTuple: the span boundaries, the four spans, the rates (each the
// bytes or events of one span over that span's time), the shares of the process's I/O inside the timed spans,
// and memory. `counted`: the I/O counters (PerfStats or RNTuple metrics) were on. `window_is_loop`: a read with no
// "second entry" moment (--reader rdataframe) passes window_start = loop_start; its window holds all the events,
// and the time to the first entry is the caller's to report. `unzip_counted`: see add_span.
void add_timed_read(JsonObject &out, const Snapshot &process_start, const Snapshot &loop_start,
                    const Snapshot &window_start, const Snapshot &end, bool counted, long long events,
                    long long rss_baseline, bool window_is_loop = false, bool unzip_counted = true)
{
   const double loop_seconds = end.steady - loop_start.steady;
   const double window_seconds = end.steady - window_start.steady;
   const long long window_events = window_is_loop ? events : events - 1;
   const long long process_bytes = end.bytes - process_start.bytes;
   const long long process_storage = end.io.storage_read_bytes - process_start.io.storage_read_bytes;
   const double nan = std::nan("");
   // Epoch times of the span boundaries (the monitor's samples and the overlap check use them).
   out.num("process_start_time", process_start.epoch)
      .num("loop_start_time", loop_start.epoch)
      .num("note_window_start_time", window_start.epoch)
      .num("end_time", end.epoch)
      .boolean("note_window_is_loop", window_is_loop);
   if (!window_is_loop)
      out.num("first_entry_seconds", window_start.steady - loop_start.steady);
   add_span(out, "process", process_start, end, counted, unzip_counted);
   add_span(out, "open", process_start, loop_start, counted, unzip_counted);
   add_span(out, "loop", loop_start, end, counted, unzip_counted);
   add_span(out, "note_window", window_start, end, counted, unzip_counted);
   out.num("event_rate_hz", events / loop_seconds)
      .num("note_window_event_rate_hz", window_events / window_seconds)
      // Each rate divides the bytes of its own span by that span's time.
      .num("loop_mb_per_s_compressed", counted ? (end.bytes - loop_start.bytes) / 1e6 / loop_seconds : nan)
      .num("loop_mb_per_s_uncompressed",
           counted && unzip_counted ? (end.unzip_out - loop_start.unzip_out) / 1e6 / loop_seconds : nan)
      .num("note_window_mb_per_s_compressed", counted ? (end.bytes - window_start.bytes) / 1e6 / window_seconds : nan)
      // Shares of the process's I/O (ROOT's bytes, and the bytes the kernel fetched from storage for it,
      // read-ahead included) that fall inside each timed span.
      .num("loop_io_share", ratio(end.bytes - loop_start.bytes, process_bytes))
      .num("note_window_io_share", ratio(end.bytes - window_start.bytes, process_bytes))
      .num("loop_storage_share", ratio(end.io.storage_read_bytes - loop_start.io.storage_read_bytes, process_storage))
      .num("note_window_storage_share",
           ratio(end.io.storage_read_bytes - window_start.io.storage_read_bytes, process_storage))
      .num("loop_bytes_per_call", ratio(end.bytes - loop_start.bytes, end.calls - loop_start.calls))
      .integer("rss_baseline_bytes", rss_baseline)
      .integer("peak_rss_bytes", proc_status_bytes("VmHWM"))
      .integer("rss_increase_bytes", proc_status_bytes("VmHWM") - rss_baseline)
      .integer("vm_peak_bytes", proc_status_bytes("VmPeak"))
      .integer("pid", getpid());
}

// The ATLAS interface class every particle inherits from. In a file read without the ATLAS dictionaries,
// an interface container such as `AnalysisElectrons` is an emulated collection `DataVector<xAOD::Electron_v1>`
// whose item class, built from the file's streamer info, keeps its bases (Electron_v1 -> Egamma_v1 -> IParticle).
const char *kAtlasParticleBase = "xAOD::IParticle";

bool is_particle_class(const std::string &name)
{
   TClass *cl = name.empty() ? nullptr : TClass::GetClass(name.c_str());
   return cl && (cl->InheritsFrom(kParticleBase) || cl->InheritsFrom(kAtlasParticleBase));
}

// Our synthetic containers (a class deriving from xAODlike::IParticleContainer), or an ATLAS DataVector of
// a class deriving from xAOD::IParticle (the item class of the emulated collection).
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

// The first class of a branch (or of its sub-branches) whose objects ROOT cannot build as the class itself:
// one known only from the file's streamer info (emulated: no dictionary, and the interpreter does not know
// it), or a collection of such a class. Empty if ROOT can build every object of the branch. Plain TBranch
// leaves (fundamental types) always can.
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

// Top-level branch names a selection keeps.
// The names of one container: the interface object <c>, its static store and its aux variables, with the
// container's separator ('.' for TTree branches, ':' for RNTuple fields).
bool belongs_to(const std::string &name, const std::string &c, char sep)
{
   return name == c || name == c + "Aux" + sep || name.rfind(c + "AuxDyn" + sep, 0) == 0;
}

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

// ---- Variable selections (seed 001's access patterns): analysis, sparse, vars:<Collection>.<attribute>,... ----
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

// Where a container keeps its variables; one implementation per container (TTree below, RNTuple after the
// RNTuple helpers).
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

// Stems in order of preference: a collection's stem is its name in lower case without a leading "analysis"
// and a trailing "s" (Electrons, AnalysisElectrons and NanoAOD's Electron are all "electron"). Electrons,
// muons, photons, taus, then jets: particle-flow, EM-topo, plain (NanoAOD's Jet, PHYSLITE's AnalysisJets),
// LC-topo, large-R (PHYSLITE's AnalysisLargeRJets, NanoAOD's FatJet).
const std::vector<std::string> kCollectionPreference = {
   "electron", "muon", "photon", "tau", "taujet", "antikt4empflowjet", "antikt4emtopojet", "jet",
   "antikt4lctopojet", "largerjet", "fatjet"};
const std::vector<std::string> kKinematics = {"pt", "eta", "phi", "m"};

bool is_variable_selection(const std::string &selection)
{
   return selection == "analysis" || selection == "sparse" || selection.rfind("vars:", 0) == 0;
}

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

// The variables of `selection` in the file `path` (an error names the file and what would work instead).
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

// Every branch of a tree by its full name, sub-branches included (TTree::GetBranch searches the whole tree on
// every call: an xAOD file has ~1500 branches, and a selection asks about hundreds of names).
class TreeCatalogue : public VariableCatalogue {
public:
   explicit TreeCatalogue(TTree *tree)
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
   std::vector<std::string> collections() const override { return collections_; }
   TBranch *branch(const std::string &name) const
   {
      auto it = branches_.find(name);
      return it == branches_.end() ? nullptr : it->second;
   }
   Variable find(const std::string &c, const std::string &attr) const override
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
   std::vector<std::string> attributes(const std::string &c) const override
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
   std::string looked_for(const std::string &c, const std::string &a) const override
   {
      return c + "Aux." + a + ", " + c + "AuxDyn." + a + ", " + c + "_" + a + (a == "m" ? ", " + c + "_mass" : "") +
             " and a member " + a + " of an unsplit " + c + "Aux.";
   }
   std::string unit() const override { return "branch"; }

private:
   TBranch *unsplit_store(const std::string &c) const
   {
      auto *store = branch(c + "Aux.");
      return store && store->GetListOfBranches()->GetEntries() == 0 ? store : nullptr;
   }
   std::map<std::string, TBranch *> branches_;
   std::vector<std::string> collections_;
};

// The branches or fields that a list of variables reads, each once: a flat array's counter before the array.
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
   static VariableValues of_object(const void *address, const std::string &type)
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

// "name (class), ...": what a file holds, for error messages.
std::string key_list(TFile *file)
{
   std::string keys;
   for (auto *obj : *file->GetListOfKeys()) {
      auto *k = static_cast<TKey *>(obj);
      keys += std::string(keys.empty() ? "" : ", ") + k->GetName() + " (" + k->GetClassName() + ")";
   }
   return keys.empty() ? "(none)" : keys;
}

bool has_ntuple(TFile *file, const std::string &name)
{
   auto *key = file->GetKey(name.c_str());
   return key && std::string(key->GetClassName()) == "ROOT::RNTuple";
}

std::unique_ptr<TFile> open_root_file(const std::string &path)
{
   g_open_file = path;
   SetErrorHandler(fatal_means_damaged);
   std::unique_ptr<TFile> file(TFile::Open(path.c_str(), "READ"));
   if (!file || file->IsZombie())
      damaged(path + ": cannot be opened as a ROOT file (missing, truncated or not ROOT)");
   if (file->TestBit(TFile::kRecovered))
      damaged(path + ": ROOT had to recover the file (it was not closed properly; truncated or still being written)");
   return file;
}

std::pair<std::unique_ptr<TFile>, TTree *> open_tree(const std::string &path, const std::string &tree_name)
{
   auto file = open_root_file(path);
   auto *tree = file->Get<TTree>(tree_name.c_str());
   if (!tree)
      damaged(path + ": has no TTree named '" + tree_name + "'; its top-level keys are: " + key_list(file.get()) +
              (has_ntuple(file.get(), tree_name) ? " (an RNTuple: read it with container rntuple)" : ""));
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

// What every timed read is asked, TTree or RNTuple, parsed and checked once.
struct ReadRequest {
   std::string path, name, selection;
   Long64_t events = 0, cache_size = 0;
   int threads = 1;

   static ReadRequest parse(const std::map<std::string, std::string> &args)
   {
      auto need = [&](const char *key) { return required_arg(args, key); };
      ReadRequest r;
      r.path = need("file");
      r.name = tree_name_arg(args);
      r.events = std::stoll(need("events"));
      r.selection = need("branches");
      r.cache_size = std::stoll(need("cache-size"));
      r.threads = std::stoi(need("threads"));
      if (r.events < 2)
         fail("--events must be at least 2 (the note's window starts at the 2nd event)");
      if (r.threads < 1)
         fail("--threads must be at least 1");
      return r;
   }
};

// The fields every timed read of a TTree starts with, whatever reads it (GetEntry, RDataFrame).
void add_ttree_read_header(JsonObject &out, const std::string &path, const std::string &file_class, const char *style,
                           bool perf, const char *mode, int perf_threads)
{
   out.str("file", path)
      .str("file_class", file_class)  // TFile for a local path, TNetXNGFile through root://
      .str("container", "ttree")
      .str("reader_style", style)
      .str("io_counters_source", perf ? "TTreePerfStats" : "none")
      .str("root_version", gROOT->GetVersion())
      .str("reader_mode", mode)
      .boolean("perfstats", perf)
      .integer("perfstats_threads_covered", perf_threads);
}

// The selection's part of a timed read's output (both containers): what was asked, the variables, how many of
// them were read through a whole object, and the branches or fields actually read.
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

// TTreeCacheUnzip counts the blocks found while a task was still unzipping them (fNStalls) but has no getter
// for it; a derived class may read the protected member of the cache ROOT made.
struct UnzipCacheStalls : TTreeCacheUnzip {
   static long long of(TTreeCacheUnzip *cache) { return cache->*(&UnzipCacheStalls::fNStalls); }
};

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

   // A variable selection (analysis, sparse, vars:) reads the branches that hold its variables, which may be
   // sub-branches of a split store (and the counters of flat arrays); the others read top-level branches.
   const bool by_variable = is_variable_selection(selection);
   std::unique_ptr<TreeCatalogue> catalogue;
   std::vector<Variable> variables;
   std::vector<std::string> chosen;
   if (by_variable) {
      catalogue = std::make_unique<TreeCatalogue>(tree);
      variables = resolve_variables(*catalogue, selection, path);
      chosen = variables_read(variables);
   } else {
      chosen = select_top_branches(tree, selection, path);
   }
   tree->SetBranchStatus("*", false);
   // SetBranchStatus("*") leaves some sub-branches active: the base-class sub-branches of split emulated
   // classes ("EventInfoAux.xAOD::AuxInfoBase", "SG::IAuxElement" in ATLAS PHYSLITE), whose baskets the
   // TTreeCache then fetched although no selected branch holds them. Every branch is disabled one by one.
   disable_all(tree->GetListOfBranches());
   long long selected_zip = 0, selected_tot = 0, basket_zip = 0;
   std::vector<BasketReader> basket_readers;  // the branches read basket by basket (see BasketReader)
   std::vector<TBranch *> basket_top_branches;
   std::map<std::string, long long> basket_classes;
   std::set<TBranch *> above;  // the branches above a variable's sub-branch, enabled to reach it
   for (auto &name : chosen) {
      auto *b = catalogue ? catalogue->branch(name) : tree->GetBranch(name.c_str());
      selected_zip += b->GetZipBytes("*");
      selected_tot += b->GetTotBytes("*");
      // A class ROOT can only emulate (no dictionary): emulated xAOD objects corrupted the heap here
      // (PileUpEventInfo_p5, vector<set<unsigned int> > of ATLAS PHYSLITE), so such a branch stays disabled
      // for TTree::GetEntry and its baskets are read and decompressed as they are.
      const auto unbuildable = unbuildable_class(b);
      if (!unbuildable.empty()) {
         collect_basket_readers(b, basket_readers);
         basket_top_branches.push_back(b);
         ++basket_classes[unbuildable];
         basket_zip += b->GetZipBytes("*");
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
      selected_zip += b->GetZipBytes("");
      selected_tot += b->GetTotBytes("");
   }
   // The basket-read branches are enabled, so that the TTreeCache (which skips disabled branches when it
   // fills) fetches their baskets with the others, but they leave the tree's list of top-level branches, so
   // that TTree::GetEntry never streams them. (They are not deleted with the tree: their emulated objects were
   // never created.)
   for (auto *b : basket_top_branches) {
      enable_branch(b);
      tree->GetListOfBranches()->Remove(b);
   }
   tree->GetListOfBranches()->Compress();
   if (learn_entries >= 0)
      TTreeCache::SetLearnEntries(learn_entries);
   // Parallel unzip (seed 003), as ROOT 6.40 does it (tree/tree/src/TTreeCacheUnzip.cxx, TTree::SetCacheSizeAux):
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
   create_branch_objects(tree);
   VariableSums sums;
   for (auto &v : variables)
      if (auto value = tree_value(*catalogue, v); value.summable())
         sums.sums.push_back(value);
   const long long rss_baseline = current_rss_bytes();

   // The loop span starts with the request of the first entry: for files of few clusters, the first entry
   // holds a large share of the I/O (the TTreeCache fetches its whole cluster), so the note's window, which
   // starts at the 2nd entry, can miss most of it.
   auto read_baskets = [&](Long64_t i) {
      for (auto &r : basket_readers)
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
   long long baskets_read = 0, basket_unzipped = 0;
   for (auto &r : basket_readers) {
      baskets_read += r.baskets;
      basket_unzipped += r.unzipped_bytes;
   }
   const auto basket_top = static_cast<long long>(basket_top_branches.size());
   std::string classes = "{";
   for (auto &[cls, n] : basket_classes)
      classes += (classes.size() > 1 ? ", " : "") + JsonObject::quote(cls) + ": " + std::to_string(n);
   classes += "}";

   auto *cache = dynamic_cast<TTreeCache *>(file->GetCacheRead(tree));
   auto *unzip_cache = dynamic_cast<TTreeCacheUnzip *>(cache);
   JsonObject out;
   add_ttree_read_header(out, path, file->ClassName(), "getentry", perf != nullptr, mode, perf_threads);
   out.integer("selected_top_branches", static_cast<long long>(chosen.size()));
   add_selection(out, selection, variables, chosen);
   sums.report(out, variables.size());
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
                                     static_cast<long long>(basket_readers.size()))
      .integer("selected_zip_bytes", selected_zip)
      .integer("selected_tot_bytes", selected_tot)
      // How the selection was read: "objects" (TTree::GetEntry streams every entry into its objects),
      // "baskets" (every selected branch read basket by basket, see BasketReader) or both.
      .str("read_mode", basket_top == 0 ? "objects"
                        : basket_top == static_cast<long long>(chosen.size()) ? "baskets" : "objects+baskets")
      .integer("basket_mode_top_branches", basket_top)
      .integer("basket_mode_branches", static_cast<long long>(basket_readers.size()))
      .integer("basket_mode_zip_bytes", basket_zip)
      .integer("basket_mode_baskets_read", baskets_read)
      .integer("basket_mode_unzipped_bytes", basket_unzipped)
      .raw("basket_mode_classes", classes)  // the class that sent each such top-level branch there: count
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

// ---- RNTuple ------------------------------------------------------------------------------------------------
// The same timed read of an RNTuple: the same spans, the same snapshot of the kernel's counters, and RNTuple's
// own metrics (RNTupleReader.RPageSourceFile.*) in the columns that PerfStats fills for a TTree:
//   *_bytes_read     szReadPayload + szReadOverhead (every byte the page source read, gaps of vector reads
//                    included, as PerfStats counts what each read call fetched)
//   *_read_calls     nRead (byte ranges read: one per page with the cluster cache off, one per coalesced
//                    range of a cluster's vector read with it on; nReadV, the vector reads, is kept apart)
//   *_disk_seconds   timeWallRead (with the cluster cache on, measured in its I/O thread, overlapping the loop)
//   *_unzip_seconds  timeWallUnzip;  *_unzip_output_bytes szUnzip;  *_unzip_input_bytes not counted (NaN)
// and the counters PerfStats has no column for as *_rntuple_<counter>.

const char *kNTupleCounterPrefix = "RNTupleReader.RPageSourceFile.";
const char *kNTupleExtraCounters[] = {"nRead", "nReadV", "szReadPayload", "szReadOverhead", "nPageRead",
                                      "nPageUnsealed", "nClusterLoaded", "timeCpuRead", "timeCpuUnzip"};

class NTupleCounters : public IOCounters {
public:
   explicit NTupleCounters(const ROOT::RNTupleReader &reader) : reader_(reader) {}
   long long count(const std::string &name) const
   {
      const auto *counter = reader_.GetMetrics().GetCounter(kNTupleCounterPrefix + name);
      if (!counter)
         fail("ROOT " + std::string(gROOT->GetVersion()) + " has no RNTuple metrics counter " + kNTupleCounterPrefix +
              name + " (the counter names are checked against ROOT 6.40)");
      return counter->GetValueAsInt();
   }
   long long calls() const override { return count("nRead"); }
   long long bytes() const override { return count("szReadPayload") + count("szReadOverhead"); }
   double disk_seconds() const override { return 1e-9 * count("timeWallRead"); }
   double unzip_seconds() const override { return 1e-9 * count("timeWallUnzip"); }
   long long unzip_in() const override { return -1; }
   long long unzip_out() const override { return count("szUnzip"); }

private:
   const ROOT::RNTupleReader &reader_;
};

std::unique_ptr<ROOT::RNTupleReader> open_ntuple(const std::string &path, const std::string &name, TFile *file,
                                                 const ROOT::RNTupleReadOptions &options)
{
   auto *anchor = file->Get<ROOT::RNTuple>(name.c_str());
   if (!anchor)
      damaged(path + ": has no RNTuple named '" + name + "'; its top-level keys are: " + key_list(file) +
              (file->Get<TTree>(name.c_str()) ? " (a TTree: read it with container ttree)" : ""));
   try {
      return ROOT::RNTupleReader::Open(*anchor, options);
   } catch (const std::exception &e) {
      damaged(path + ": RNTuple '" + name + "' cannot be opened: " + e.what());
   }
}

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

// Top-level fields of an RNTuple, and those whose type is a particle container.
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

// The top-level fields a selection keeps, as (name, type): select_names with the RNTuple names of the ATLAS
// layout (<Name>AuxDyn:<var>, <Name>Aux:).
std::vector<std::pair<std::string, std::string>>
select_top_fields(const ROOT::RNTupleDescriptor &desc, const std::string &selection, const std::string &path)
{
   const auto [all, particle] = top_fields(desc);
   std::vector<std::pair<std::string, std::string>> chosen;
   for (auto &name : select_names(all, particle, ':', selection, path, {"field", "fields", "RNTuple"}))
      chosen.emplace_back(name, desc.GetFieldDescriptor(desc.FindFieldId(name)).GetTypeName());
   return chosen;
}

// The variables of an RNTuple (see "Variable selections"): <C>AuxDyn:<a> top-level fields, subfields <a> of an aux
// record field <C>Aux:, flat fields <C>_<a> (with a field n<C>). Every one has columns of its own: a view on it
// reads those alone, never the whole collection.
class NTupleCatalogue : public VariableCatalogue {
public:
   explicit NTupleCatalogue(const ROOT::RNTupleDescriptor &desc) : desc_(desc)
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
   std::vector<std::string> collections() const override { return collections_; }
   Variable find(const std::string &c, const std::string &attr) const override
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
   std::vector<std::string> attributes(const std::string &c) const override
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
   std::string looked_for(const std::string &c, const std::string &a) const override
   {
      return c + "AuxDyn:" + a + ", " + c + "_" + a + (a == "m" ? ", " + c + "_mass" : "") + " and a subfield " + a +
             " of " + c + "Aux:";
   }
   std::string unit() const override { return "field"; }

private:
   const ROOT::RNTupleDescriptor &desc_;
   std::set<std::string> top_;
   std::vector<std::string> collections_;
};

// The bytes of one field and its subfields: on storage (pages) and in memory (elements at their width), and
// the compression settings of its column ranges. A page stored once but listed for several columns or
// clusters (RNTuple's same-page merging) is counted once, for the first field that lists it (`seen` holds the
// file positions counted so far); zero pages are not stored and not counted.
struct FieldBytes {
   long long zip = 0, tot = 0, columns = 0, pages = 0;
   std::set<int> settings;
};

FieldBytes field_bytes(const ROOT::RNTupleDescriptor &desc, ROOT::DescriptorId_t field_id,
                       std::set<std::uint64_t> &seen)
{
   FieldBytes out;
   std::vector<ROOT::DescriptorId_t> todo{field_id};
   while (!todo.empty()) {
      const auto id = todo.back();
      todo.pop_back();
      for (const auto &sub : desc.GetFieldIterable(id))
         todo.push_back(sub.GetId());
      for (const auto &column : desc.GetColumnIterable(id)) {
         if (column.IsAliasColumn())
            continue;
         ++out.columns;
         const auto physical = column.GetPhysicalId();
         for (const auto &cluster : desc.GetClusterIterable()) {
            if (!cluster.ContainsColumn(physical))
               continue;
            const auto &range = cluster.GetColumnRange(physical);
            if (range.IsSuppressed())
               continue;
            out.tot += static_cast<long long>(range.GetNElements()) * column.GetBitsOnStorage() / 8;
            if (range.GetCompressionSettings())
               out.settings.insert(static_cast<int>(*range.GetCompressionSettings()));
            for (const auto &page : cluster.GetPageRange(physical).GetPageInfos()) {
               const auto &locator = page.GetLocator();
               if (locator.GetType() != ROOT::RNTupleLocator::kTypeFile)
                  continue;  // a zero page (not stored)
               ++out.pages;
               if (seen.insert(locator.GetPosition<std::uint64_t>()).second)
                  out.zip += locator.GetNBytesOnStorage();
            }
         }
      }
   }
   return out;
}

// --inspect for an RNTuple: the keys of inspect() (catalogue_entry reads them), with fields for branches.
int inspect_ntuple(const std::string &path, const std::string &name)
{
   auto file = open_root_file(path);
   auto reader = open_ntuple(path, name, file.get(), ROOT::RNTupleReadOptions());
   const auto &desc = reader->GetDescriptor();
   const std::set<std::string> particle_containers = top_fields(desc).second;
   std::vector<std::string> fields;
   std::set<int> all_settings;
   std::set<std::uint64_t> seen;
   long long zip = 0, tot = 0, particle_zip = 0, particle_tot = 0, top = 0, columns = 0;
   for (const auto &f : desc.GetTopLevelFields()) {
      ++top;
      const std::string field = f.GetFieldName();
      bool particle = false;
      for (auto &c : particle_containers)
         particle |= belongs_to(field, c, ':');
      const auto bytes = field_bytes(desc, f.GetId(), seen);
      zip += bytes.zip;
      tot += bytes.tot;
      columns += bytes.columns;
      all_settings.insert(bytes.settings.begin(), bytes.settings.end());
      if (particle) {
         particle_zip += bytes.zip;
         particle_tot += bytes.tot;
      }
      JsonObject j;
      j.str("name", field)
         .str("class", f.GetTypeName())
         .boolean("particle", particle)
         .integer("zip_bytes", bytes.zip)
         .integer("tot_bytes", bytes.tot)
         .integer("sub_branches", bytes.columns)
         .integer("split_level", -1)  // no RNTuple meaning
         .integer("compression_setting", bytes.settings.empty() ? 0 : *bytes.settings.rbegin())
         .integer("baskets", bytes.pages);
      fields.push_back(j.dump());
   }
   std::vector<std::string> cluster_starts;
   for (const auto &cluster : desc.GetClusterIterable())
      cluster_starts.push_back(std::to_string(cluster.GetFirstEntryIndex()));
   std::sort(cluster_starts.begin(), cluster_starts.end(),
             [](const std::string &a, const std::string &b) { return std::stoll(a) < std::stoll(b); });
   const long long entries = desc.GetNEntries();
   const long long clusters = desc.GetNClusters();
   JsonObject out;
   out.str("file", path)
      .str("file_class", file->ClassName())
      .str("container", "rntuple")
      .integer("entries", entries)
      .integer("file_size_bytes", file->GetSize())
      // The settings of the data: RNTuple compresses each column range (a file may mix them).
      .integer("file_compression_setting", all_settings.empty() ? 0 : *all_settings.rbegin())
      // RNTuple has no AutoFlush: the mean entries per cluster stands in for it.
      .integer("autoflush", clusters ? entries / clusters : 0)
      .integer("zip_bytes", zip)
      .integer("tot_bytes", tot)
      .integer("particle_zip_bytes", particle_zip)
      .integer("particle_tot_bytes", particle_tot)
      .integer("top_level_branches", top)
      .integer("branches", static_cast<long long>(desc.GetNFields()) - 1)  // without the zero field
      .integer("leaves", columns)
      .integer("clusters", clusters)
      .raw("cluster_starts", json_array(cluster_starts))
      .raw("branch_list", json_array(fields))
      .str("root_version", gROOT->GetVersion());
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
   return 0;
}

// How one selected field is read. A field whose type ROOT can create is read whole by one view. Otherwise
// (a class without dictionary, e.g. xAOD::TrigDecisionAuxInfo_v1 or an ElementLink) its subfields are read
// instead, from the descriptor: a record's subfields at the same index, a collection's offsets by a
// collection view and its items' subfields at every index of the collection's range, down to subfields ROOT
// can create (in the end std::uint32_t m_persKey and the like). Every column of the field is read that way,
// except those under a subfield that cannot be created and has no subfields (`unread`).
struct FieldReader {
   std::unique_ptr<ROOT::RNTupleView<void>> view;            // a field read whole
   std::unique_ptr<ROOT::RNTupleCollectionView> collection;  // or a collection's offsets, and its items' readers
   std::vector<FieldReader> children;                        // or a record's subfields
   std::unique_ptr<std::uint64_t[]> buffer;                  // the value of a view read by its own type name

   template <typename Index>
   void read(Index i)
   {
      if (view) {
         (*view)(i);
      } else if (collection) {
         for (auto j : collection->GetCollectionRange(i))
            for (auto &c : children)
               c.read(j);
      } else {
         for (auto &c : children)
            c.read(i);
      }
   }
};

struct FieldReadPlan {
   long long whole = 0, decomposed = 0, views = 0;  // fields read by one view, fields read by their subfields
   std::vector<std::pair<std::string, std::string>> unread;  // (qualified name, type) of unreadable subfields
   std::vector<ROOT::DescriptorId_t> unread_ids;
};

bool has_columns(const ROOT::RNTupleDescriptor &desc, ROOT::DescriptorId_t id)
{
   if (desc.GetFieldDescriptor(id).GetLogicalColumnIds().size())
      return true;
   for (const auto &sub : desc.GetFieldIterable(id))
      if (has_columns(desc, sub.GetId()))
         return true;
   return false;
}

FieldReader plan_field(ROOT::RNTupleReader &reader, const ROOT::RNTupleDescriptor &desc, ROOT::DescriptorId_t id,
                       FieldReadPlan &plan, bool top)
{
   FieldReader r;
   try {
      r.view = std::make_unique<ROOT::RNTupleView<void>>(reader.GetView<void>(id));
      ++plan.views;
      if (top)
         ++plan.whole;
      return r;
   } catch (const std::exception &) {
   }
   const auto &f = desc.GetFieldDescriptor(id);
   // A fundamental type under a typedef ROOT does not know (ElementLinkBase's m_persKey : std::uint32_t, alias
   // SG::sgkey_t): read as the type itself, into a buffer of the reader's.
   if (f.GetLinkIds().empty() && !f.GetTypeAlias().empty()) {
      try {
         r.buffer = std::make_unique<std::uint64_t[]>(2);
         r.view = std::make_unique<ROOT::RNTupleView<void>>(reader.GetView(id, r.buffer.get(), f.GetTypeName()));
         ++plan.views;
         return r;
      } catch (const std::exception &) {
         r.buffer.reset();
      }
   }
   if (top)
      ++plan.decomposed;
   if (f.GetStructure() == ROOT::ENTupleStructure::kCollection)
      r.collection = std::make_unique<ROOT::RNTupleCollectionView>(reader.GetCollectionView(id));
   bool any = false;
   for (const auto &sub : desc.GetFieldIterable(id)) {
      any = true;
      if (has_columns(desc, sub.GetId()))
         r.children.push_back(plan_field(reader, desc, sub.GetId(), plan, false));
   }
   if (!any && !f.GetLogicalColumnIds().empty() && !r.collection) {
      plan.unread.emplace_back(desc.GetQualifiedFieldName(id), f.GetTypeName());
      plan.unread_ids.push_back(id);
   }
   return r;
}

int timed_read_ntuple(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode)
{
   const auto [path, name, selection, events, cache_size, threads] = ReadRequest::parse(args);
   const int bunch = args.count("cluster-bunch") ? std::stoi(args.at("cluster-bunch")) : 1;
   if (bunch < 1)
      fail("--cluster-bunch must be at least 1");

   if (threads > 1)
      ROOT::EnableImplicitMT(threads);  // the page source unzips a cluster's pages in parallel tasks
   // The TTreeCache's counterpart: the cluster cache (a background I/O thread that reads the active columns of
   // the next `bunch` clusters with vector reads). Cache size 0 turns it off (every page read on demand).
   ROOT::RNTupleReadOptions options;
   options.SetClusterCache(cache_size == 0 ? ROOT::RNTupleReadOptions::EClusterCache::kOff
                                           : ROOT::RNTupleReadOptions::EClusterCache::kOn);
   ROOT::Internal::RNTupleReadOptionsManip::SetClusterBunchSize(options, bunch);
   options.SetUseImplicitMT(threads > 1 ? ROOT::RNTupleReadOptions::EImplicitMT::kDefault
                                        : ROOT::RNTupleReadOptions::EImplicitMT::kOff);
   // From construction, so that the open's reads are counted too. --no-perfstats: the bare loop (no metrics),
   // as for a TTree.
   const bool metrics = !args.count("no-perfstats");
   options.SetEnableMetrics(metrics);

   auto file = open_root_file(path);
   auto reader = open_ntuple(path, name, file.get(), options);
   NTupleCounters counters(*reader);
   const IOCounters *io = metrics ? &counters : nullptr;
   const Snapshot open_start = process_start;
   if (static_cast<Long64_t>(reader->GetNEntries()) < events)
      damaged(path + ": has " + std::to_string(reader->GetNEntries()) + " entries, but " + std::to_string(events) +
              " were requested");
   if (args.count("unzip") && args.at("unzip") != "0")
      fail(path + ": --unzip " + args.at("unzip") + " is a TTree setting (TTreeCacheUnzip); an RNTuple decompresses "
           "its pages in its own tasks under implicit MT (--threads > 1): use --unzip 0, or read a TTree");
   // A variable selection reads the fields of its variables (top-level <C>AuxDyn:<a> or subfields), the others
   // top-level fields.
   std::vector<Variable> variables;
   std::vector<std::pair<std::string, std::string>> chosen;
   if (is_variable_selection(selection)) {
      variables = resolve_variables(NTupleCatalogue(reader->GetDescriptor()), selection, path);
      for (auto &field : variables_read(variables))
         chosen.emplace_back(field, reader->GetDescriptor()
                                       .GetFieldDescriptor(reader->GetDescriptor().FindFieldId(field))
                                       .GetTypeName());
   } else {
      chosen = select_top_fields(reader->GetDescriptor(), selection, path);
   }
   // One view per selected field, each reading into an object of the field's type: what LoadEntry of a model
   // holding these fields does, without building the model of every field.
   // A field whose type ROOT cannot create (no dictionary) is read by its subfields (FieldReader).
   std::vector<FieldReader> views;
   FieldReadPlan plan;
   long long selected_zip = 0, selected_tot = 0;
   const auto &desc = reader->GetDescriptor();
   std::set<std::uint64_t> seen;
   for (auto &[field, type] : chosen) {
      const auto id = desc.FindFieldId(field);
      try {
         views.push_back(plan_field(*reader, desc, id, plan, true));
      } catch (const std::exception &e) {
         fail(path + ": cannot read field " + field + " (" + type + "): " + e.what());
      }
      const auto bytes = field_bytes(desc, id, seen);
      selected_zip += bytes.zip;
      selected_tot += bytes.tot;
   }
   // The bytes of the subfields that cannot be read (counted after the selection, so that a page shared
   // with a read field is not counted here).
   long long unread_zip = 0, unread_tot = 0;
   std::vector<std::string> unread_list;
   {
      std::set<std::uint64_t> none;
      for (size_t k = 0; k < plan.unread.size(); ++k) {
         const auto bytes = field_bytes(desc, plan.unread_ids[k], none);
         unread_zip += bytes.zip;
         unread_tot += bytes.tot;
         unread_list.push_back(JsonObject().str("field", plan.unread[k].first).str("type", plan.unread[k].second)
                                  .integer("zip_bytes", bytes.zip).integer("tot_bytes", bytes.tot).dump());
      }
   }
   // The variables' values (the field's own object, which its view reads into).
   VariableSums sums;
   for (auto &v : variables) {
      const auto k = static_cast<size_t>(
         std::find_if(chosen.begin(), chosen.end(), [&](auto &c) { return c.first == v.read; }) - chosen.begin());
      if (views[k].view)
         if (auto value = VariableValues::of_object(views[k].view->GetValue().GetPtr<void>().get(), chosen[k].second);
             value.summable())
            sums.sums.push_back(value);
   }
   const long long rss_baseline = current_rss_bytes();
   auto extra = [&]() {
      std::map<std::string, long long> values;
      for (const char *c : kNTupleExtraCounters)
         values[c] = metrics ? counters.count(c) : 0;
      return values;
   };

   const auto extra_start = extra();
   const Snapshot loop_start = Snapshot::take(io);
   auto read_entry = [&](Long64_t i) {
      try {
         for (auto &view : views)
            view.read(i);
      } catch (const std::exception &e) {
         damaged(path + ": reading entry " + std::to_string(i) + " failed: " + e.what());
      }
   };
   read_entry(0);
   sums.add_entry();
   const Snapshot window_start = Snapshot::take(io);
   for (Long64_t i = 1; i < events; ++i) {
      read_entry(i);
      sums.add_entry();
   }
   const Snapshot end = Snapshot::take(io);
   const auto extra_end = extra();

   JsonObject out;
   out.str("file", path)
      .str("container", "rntuple")
      .str("io_counters_source", metrics ? "RNTupleMetrics" : "none")
      .str("root_version", gROOT->GetVersion())
      .str("reader_mode", mode)
      .boolean("perfstats", false)
      .integer("perfstats_threads_covered", 0)
      .integer("selected_top_branches", static_cast<long long>(chosen.size()));
   std::vector<std::string> fields_read;
   for (auto &field : chosen)
      fields_read.push_back(field.first);
   add_selection(out, selection, variables, fields_read);
   sums.report(out, variables.size());
   out.integer("active_branches", plan.views)  // the views that read the selection
      // How the selection was read: "objects" (every selected field by a view of its own type) or
      // "objects+subfields" (fields whose type ROOT cannot create read by their subfields, see FieldReader).
      .str("read_mode", plan.decomposed ? "objects+subfields" : "objects")
      .integer("fields_read_whole", plan.whole)
      .integer("fields_read_by_subfields", plan.decomposed)
      .integer("unread_subfields", static_cast<long long>(plan.unread.size()))
      .integer("unread_zip_bytes", unread_zip)  // bytes of the selection that were not read (0: none)
      .integer("unread_tot_bytes", unread_tot)
      .raw("unread_subfield_list", json_array(unread_list))
      .integer("selected_zip_bytes", selected_zip)
      .integer("selected_tot_bytes", selected_tot)
      .integer("entries_in_tree", reader->GetNEntries())
      .integer("events_read", events)
      .integer("cache_size_requested", cache_size)
      .str("cluster_cache", cache_size == 0 ? "off" : "on")
      .integer("cluster_bunch_size", ROOT::Internal::RNTupleReadOptionsManip::GetClusterBunchSize(options))
      .integer("threads_requested", threads)
      .integer("imt_pool_size", ROOT::IsImplicitMTEnabled() ? ROOT::GetThreadPoolSize() : 0)
;
   // The process span's RNTuple counters start at the reader's construction (metrics are on from there);
   // the TFile open before it reads only the file's header and keys, which the kernel's counters hold.
   add_timed_read(out, open_start, loop_start, window_start, end, metrics, events, rss_baseline);
   if (metrics)
      for (const char *c : kNTupleExtraCounters)
         out.integer(std::string("loop_rntuple_") + c, extra_end.at(c) - extra_start.at(c));
   out.integer("bytes_unpacked", metrics ? end.unzip_out - loop_start.unzip_out : -1);
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
   return 0;
}

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

}  // namespace

#include "read_rdataframe.h"  // --reader rdataframe: uses the helpers above

namespace {

// A timed read of either container (--container ttree, the default, or rntuple), by TTree::GetEntry or, for a
// TTree, --reader rdataframe.
int timed_read_any(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode)
{
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
   const std::string reader = args.count("reader") ? args.at("reader") : "getentry";
   if (reader != "getentry" && reader != "rdataframe")
      fail("--reader '" + reader + "': must be getentry (TTree::GetEntry, the default) or rdataframe");
   if (container == "rntuple" && reader == "rdataframe")
      fail(required_arg(args, "file") + ": --reader rdataframe reads TTrees only, not --container rntuple");
   if (container == "rntuple")
      return timed_read_ntuple(args, process_start, mode);
   if (container != "ttree")
      fail("--container '" + container + "': must be ttree, rntuple or auto");
   if (reader == "rdataframe" && args.count("unzip") && args.at("unzip") != "0")
      fail(required_arg(args, "file") + ": --unzip " + args.at("unzip") + " is a setting of the GetEntry read "
           "(--reader getentry); RDataFrame makes its own TTreeCache: use --unzip 0 with --reader rdataframe");
   if (reader == "rdataframe")
      return timed_read_rdataframe(args, process_start, mode);
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
// memory latency; on these VMs that moves by tens of percent in spells that slow every memory-bound read
// alike, while compute in the L1 cache does not move. Built once in the server (not in the children, whose
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

// Fork server: ROOT's start-up (interpreter, C++ modules, the event model's dictionary) is paid once; every
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

int main(int argc, char **argv)
{
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
