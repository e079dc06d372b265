// The RNTuple read (read_ntuple.h): RNTuple's metrics as the I/O counters of the spans, the bytes and compression of
// a field from the descriptor (for --inspect and the selection's bytes), the plan that reads a field whole or by its
// subfields, and the timed read itself.
#include "read_ntuple.h"

#include "read_common.h"
#include "read_selection.h"

#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleMetrics.hxx>
#include <ROOT/RNTupleReadOptions.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <TFile.h>
#include <TROOT.h>
#include <TTree.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rootparams::read {

namespace {

// The timed read of an RNTuple is the TTree read's (read_ttree.cxx) with the same spans, the same snapshot of the
// kernel's counters, and RNTuple's own metrics (RNTupleReader.RPageSourceFile.*) in the columns that PerfStats
// fills for a TTree:
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

}  // namespace

std::unique_ptr<IOCounters> ntuple_io_counters(const ROOT::RNTupleReader &reader)
{
   return std::make_unique<NTupleCounters>(reader);
}

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

namespace {

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

}  // namespace

std::pair<long long, long long> ntuple_fields_bytes(const ROOT::RNTupleDescriptor &desc,
                                                    const std::vector<std::string> &fields)
{
   std::set<std::uint64_t> seen;
   long long zip = 0, tot = 0;
   for (const auto &name : fields) {
      const auto bytes = field_bytes(desc, desc.FindFieldId(name), seen);
      zip += bytes.zip;
      tot += bytes.tot;
   }
   return {zip, tot};
}

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

namespace {

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

}  // namespace

namespace {

// What a selection reads of an RNTuple: its fields (top-level, or the variables'), one reader each (a view, or the
// subfields of a field ROOT cannot create: FieldReader), their bytes, and the bytes of the subfields it cannot read.
struct NTupleSelection {
   std::vector<Variable> variables;
   std::vector<std::pair<std::string, std::string>> chosen;  // (field, type)
   std::vector<FieldReader> views;
   FieldReadPlan plan;
   long long selected_zip = 0, selected_tot = 0, unread_zip = 0, unread_tot = 0;
   std::vector<std::string> unread_list;
};

NTupleSelection plan_selection(ROOT::RNTupleReader &reader, const std::string &selection, const std::string &path)
{
   // A variable selection reads the fields of its variables (top-level <C>AuxDyn:<a> or subfields), the others
   // top-level fields.
   NTupleSelection s;
   auto &[variables, chosen, views, plan, selected_zip, selected_tot, unread_zip, unread_tot, unread_list] = s;
   if (is_variable_selection(selection)) {
      variables = resolve_variables(NTupleCatalogue(reader.GetDescriptor()), selection, path);
      for (auto &field : variables_read(variables))
         chosen.emplace_back(field, reader.GetDescriptor()
                                       .GetFieldDescriptor(reader.GetDescriptor().FindFieldId(field))
                                       .GetTypeName());
   } else {
      chosen = select_top_fields(reader.GetDescriptor(), selection, path);
   }
   // One view per selected field, each reading into an object of the field's type: what LoadEntry of a model
   // holding these fields does, without building the model of every field.
   // A field whose type ROOT cannot create (no dictionary) is read by its subfields (FieldReader).
   const auto &desc = reader.GetDescriptor();
   std::set<std::uint64_t> seen;
   for (auto &[field, type] : chosen) {
      const auto id = desc.FindFieldId(field);
      try {
         views.push_back(plan_field(reader, desc, id, plan, true));
      } catch (const std::exception &e) {
         fail(path + ": cannot read field " + field + " (" + type + "): " + e.what());
      }
      const auto bytes = field_bytes(desc, id, seen);
      selected_zip += bytes.zip;
      selected_tot += bytes.tot;
   }
   // The bytes of the subfields that cannot be read (counted after the selection, so that a page shared
   // with a read field is not counted here).
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
   return s;
}

// The spans of the loop, its extra RNTuple counters at both ends, and the memory before it.
struct NTupleLoop {
   Snapshot loop_start, window_start, end;
   std::map<std::string, long long> extra_start, extra_end;
   long long rss_baseline;
};

void report_ntuple(const ReadRequest &r, const NTupleSelection &sel, const VariableSums &sums, const NTupleLoop &loop,
                   const ROOT::RNTupleReader &reader, const ROOT::RNTupleReadOptions &options, bool metrics,
                   const char *mode, const Snapshot &open_start)
{
   const auto &[path, name, selection, events, cache_size, threads] = r;
   const auto &[variables, chosen, views, plan, selected_zip, selected_tot, unread_zip, unread_tot, unread_list] = sel;
   const auto &[loop_start, window_start, end, extra_start, extra_end, rss_baseline] = loop;
   JsonObject out;
   out.str("file", path)
      .str("container", "rntuple")
      .str("io_counters_source", metrics ? "RNTupleMetrics" : "none")
      .str("root_version", gROOT->GetVersion())
      .str("reader_process", mode)
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
      .integer("entries_in_tree", reader.GetNEntries())
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
}

}  // namespace

int timed_read_ntuple(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode)
{
   const ReadRequest request = ReadRequest::parse(args);
   const auto &[path, name, selection, events, cache_size, threads] = request;
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
   NTupleSelection sel = plan_selection(*reader, selection, path);
   auto &[variables, chosen, views, plan, selected_zip, selected_tot, unread_zip, unread_tot, unread_list] = sel;
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

   const NTupleLoop loop{loop_start, window_start, end, extra_start, extra_end, rss_baseline};
   report_ntuple(request, sel, sums, loop, *reader, options, metrics, mode, open_start);
   return 0;
}

}  // namespace rootparams::read
