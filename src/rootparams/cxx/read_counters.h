// The I/O counters of a timed read and its spans: the counters' interface (IOCounters), TTreePerfStats made exact
// for every span and thread (PerfStats), the kernel's counters (/proc/self/io, /proc/diskstats), a Snapshot of all
// of them at one instant, and the JSON of a span (add_span) and of a whole timed read (add_timed_read).
// Used by the TTree, RNTuple and RDataFrame reads alike; the spans are defined in read_collection_tree.cxx's head.
#pragma once

#include "common.h"

#include <TTreePerfStats.h>

#include <atomic>
#include <fstream>
#include <string>

class TFile;
class TObject;
class TTree;
class TVirtualPerfStats;

namespace rootparams::read {

// TTreePerfStats as the paper used it (read calls, bytes, disk and unzip time), made exact for every span and
// every thread:
// - it is installed as ROOT's gPerfStats before the file is opened, so the open's reads are counted too
//   (TFile::ReadBuffer reports every read to gPerfStats, TBasket every decompression);
// - its counters are atomic and read at span boundaries (Snapshot below), not only at the end;
// - gPerfStats is thread-local once implicit MT is on, and the tree's own PerfStats pointer stays null (see
//   timed_read), so with more than one thread the worker threads would report to nobody: install_in_workers gives
//   every thread of ROOT's pool the same object (tests/test_cxx.py compares 1 and 2 threads);
// - the per-basket bookkeeping (which basket was used, cached, missed) and TTreePerfStats' per-read graph
//   are switched off: none of the paper's metrics comes from them, and they are not thread-safe.
// The I/O counters of the file under test that the spans difference: TTreePerfStats for a TTree (PerfStats
// below), RNTuple's own metrics for an RNTuple (NTupleCounters, in read_ntuple.cxx). Each source names
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
   void Attach(TTree *tree);
   void FileReadEvent(TFile *file, Int_t len, Double_t start) override;
   void UnzipEvent(TObject *, Long64_t, Double_t start, Int_t complen, Int_t objlen) override;
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
int install_in_workers(TVirtualPerfStats *perf, int threads);

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
extern std::string g_disk_device;

// Bytes of read requests the disk has completed since boot, for every process (/proc/diskstats); -1 without
// a disk. /proc/self/io counts a request when the reader submits it, and so does the blkio group
// (blkio.throttle.io_service_bytes, as measured here); this counts it when it is done. Under a throttle, a
// read-ahead window submitted near the end of a span and held back is in the span's storage_read_bytes but
// not in its disk_completed_read_bytes (benchmarks/physics_checks.py, check (b)). Every process's requests
// are counted: other readers of the disk during the span add to it.
long long disk_completed_read_bytes();

// Every counter at one instant; a span's figures are the differences between the snapshots at its ends.
struct Snapshot {
   double steady = 0, epoch = 0, cpu = 0, system_cpu = 0;
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
      s.system_cpu = process_system_cpu_seconds();
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
              bool unzip_counted = true);

// What every timed read reports, TTree or RNTuple: the span boundaries, the four spans, the rates (each the
// bytes or events of one span over that span's time), the shares of the process's I/O inside the timed spans,
// and memory. `counted`: the I/O counters (PerfStats or RNTuple metrics) were on. `window_is_loop`: a read with no
// "second entry" moment (--reading-style rdataframe) passes window_start = loop_start; its window holds all the events,
// and the time to the first entry is the caller's to report. `unzip_counted`: see add_span.
void add_timed_read(JsonObject &out, const Snapshot &process_start, const Snapshot &loop_start,
                    const Snapshot &window_start, const Snapshot &end, bool counted, long long events,
                    long long rss_baseline, bool window_is_loop = false, bool unzip_counted = true);

}  // namespace rootparams::read
