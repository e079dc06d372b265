// The I/O counters and spans of a timed read (read_counters.h): PerfStats' callbacks, its installation in every
// implicit-MT thread, the disk's completed reads, and the JSON figures of each span and of the whole read.
#include "read_counters.h"

#include "read_common.h"

#include <ROOT/TThreadExecutor.hxx>
#include <TFile.h>
#include <TTimeStamp.h>
#include <TTree.h>
#include <TVirtualPerfStats.h>

#include <chrono>
#include <cmath>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <unordered_set>

namespace rootparams::read {

void PerfStats::Attach(TTree *tree)
{
   fTree = tree;
   fFile = tree->GetCurrentFile();
}

void PerfStats::FileReadEvent(TFile *file, Int_t len, Double_t start)
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

void PerfStats::UnzipEvent(TObject *, Long64_t, Double_t start, Int_t complen, Int_t objlen)
{
   add(fUnzipSeconds, Double_t(TTimeStamp()) - start);
   fUnzipIn.fetch_add(complen, std::memory_order_relaxed);
   fUnzipOut.fetch_add(objlen, std::memory_order_relaxed);
}

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

std::string g_disk_device;

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

void add_span(JsonObject &out, const std::string &span, const Snapshot &a, const Snapshot &b, bool perf,
              bool unzip_counted)
{
   const double nan = std::nan("");
   out.num(span + "_seconds", b.steady - a.steady)
      .num(span + "_cpu_seconds", b.cpu - a.cpu)
      .num(span + "_system_cpu_seconds", b.system_cpu - a.system_cpu)
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

namespace {

double ratio(double a, double b)
{
   return b > 0 ? a / b : std::nan("");
}

}  // namespace

void add_timed_read(JsonObject &out, const Snapshot &process_start, const Snapshot &loop_start,
                    const Snapshot &window_start, const Snapshot &end, bool counted, long long events,
                    long long rss_baseline, bool window_is_loop, bool unzip_counted)
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

}  // namespace rootparams::read
