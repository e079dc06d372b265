// rootparams-write: write a synthetic xAOD-like CollectionTree at one grid point, as a TTree or an RNTuple.
//
//   rootparams-write --recipe R --output F --events N --compression S --autoflush A --split L
//                    --basket B --seed X [--threads T]
//   rootparams-write --container rntuple --recipe R --output F --events N --compression S --autoflush A
//                    --page-size P --seed X [--threads T]
//
// The RNTuple holds the same events in ATLAS's RNTuple layout (docs/formats.md, "RNTuple"): the interface
// object <Name> as a class field, and every aux variable, static or dynamic, as a top-level field
// <Name>AuxDyn:<var>. AutoFlush keeps its meaning as the cluster size: A > 0 commits a cluster every A events,
// A < 0 asks for clusters of about -A compressed bytes (SetApproxZippedClusterSize, as TTree's negative
// AutoFlush), 0 leaves RNTuple's own default. P is the largest uncompressed page (SetMaxUnzippedPageSize),
// the counterpart of the basket size; split levels have no RNTuple meaning.
//
//   rootparams-write ... --content C      read the events from C (written earlier from the same recipe)
//   rootparams-write ... --float-mantissa N   every float value rounded to N explicit mantissa bits (1..22;
//                        round to nearest, ties to even, on the float's bits) before it is written; an RNTuple's
//                        float fields are also stored truncated to 1 + 8 + N bits (SetTruncated), which keeps
//                        the rounded values exactly. The JSON then lists the precision lost per variable.
//   rootparams-write ... --hot-branches B1,B2,... --hot-compression S   (TTree only) the named top-level branches
//                        and all their sub-branches compressed with setting S, the others with --compression
//                        (rootparams.generate picks them: the N largest, or those a regex finds)
//   rootparams-write ... --offsets stored|generated   (TTree only) whether variable-size baskets store their entries'
//                        offsets (stored, ROOT's default) or leave them to be generated on read (ROOT's I/O feature
//                        kGenerateOffsetMap, set with TTree::SetIOFeatures before the branches are made: a counted
//                        array keeps none, a std::vector or string branch stores per-entry sizes instead)
//   rootparams-write ... --reference-draws   every value drawn by the recipe's word interpreter from TRandom3
//                        itself, the definition of the events: slow, the same events (what the tests compare with)
//   rootparams-write --clone-from F --output G --compression S   ROOT's CloneTree rewrite (benchmarks)
//
// The recipe (text, one directive per line, written by rootparams.formats) says which containers the events hold
// and how their values are distributed: its language is in write_recipe.h, its distributions and multiplicities in
// write_distributions.h.
//
// Content depends only on (recipe, seed, event number): every container of every event draws from its own
// random stream, so the same events are written under every compression, AutoFlush and split setting.
// On success it prints one line "ROOTPARAMS_JSON {...}" with timings; on any error it exits non-zero
// with a message naming the file and the problem.
//
// The writer's units (docs/measurement.md, "The writer's source"), each a header and a source in namespace
// rootparams::write, linked into this one executable:
//   write_collection_tree.cxx  main: the command line, the content file, the event loop, the report; --clone-from
//   write_common.h             how the writer fails (the one header without a source)
//   write_random               the hashes, the events' streams (TRandom3 seeded lazily) and the private streams
//   write_distributions        the multiplicities and the values' distribution language: interpreter and compiler
//   write_column               a column's storage and how an event fills it (links, reuse, order, float precision)
//   write_framing              leaf types (TTree leaf codes, RNTuple types) and framed records
//   write_recipe               the recipe's language and its reader
//   write_sinks                where the events go: TTree, RNTuple, RNTuple imported from a flat TTree
#include "XaodClasses.h"
#include "common.h"
#include "write_common.h"
#include "write_distributions.h"
#include "write_random.h"
#include "write_recipe.h"
#include "write_sinks.h"

#include <TClass.h>
#include <TFile.h>
#include <TROOT.h>
#include <TRandom3.h>
#include <TTree.h>

#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace rootparams::write {

namespace {

// ROOT's own rewrite of a file, for comparison with this writer: TTree::CloneTree(-1, "") re-streams every
// object (no fast cloning) into a new file; branch settings (split, baskets, AutoFlush) come with the tree.
int clone_tree(const std::map<std::string, std::string> &args)
{
   const std::string source = required_arg(args, "clone-from"), output = required_arg(args, "output");
   const int compression = std::stoi(required_arg(args, "compression"));
   std::unique_ptr<TFile> in(TFile::Open(source.c_str(), "READ"));
   if (!in || in->IsZombie())
      fail("cannot open " + source);
   auto *tree = in->Get<TTree>(tree_name_arg(args).c_str());
   if (!tree)
      fail(source + " has no tree " + tree_name_arg(args));
   const double wall0 = steady_now(), cpu0 = process_cpu_seconds();
   std::unique_ptr<TFile> out(TFile::Open(output.c_str(), "RECREATE", "", compression));
   if (!out || out->IsZombie())
      fail("cannot create " + output);
   TTree *copy = tree->CloneTree(-1, "");
   if (!copy)
      fail("CloneTree failed for " + source);
   copy->Write();
   const Long64_t tot_bytes = copy->GetTotBytes(), zip_bytes = copy->GetZipBytes();
   out->Close();
   JsonObject j;
   j.str("file", output)
      .str("source", source)
      .num("clone_wall_seconds", steady_now() - wall0)
      .num("clone_cpu_seconds", process_cpu_seconds() - cpu0)
      .integer("tree_tot_bytes", tot_bytes)
      .integer("tree_zip_bytes", zip_bytes);
   std::cout << "ROOTPARAMS_JSON " << j.dump() << std::endl;
   return 0;
}

// What a write is asked, parsed and checked once (in the order the checks have always been made).
struct WriteRequest {
   std::string output, tree_name, container, recipe;
   Long64_t events = 0, autoflush = 0;
   int compression = 0;
   uint64_t seed = 0;
   bool ntuple = false;
   int split = -1, basket = 0;
   long long page_size = 0;
   int float_mantissa = 0;
   std::vector<std::string> hot_branches;
   int hot_compression = -1;
   int threads = 1;
   bool generate_offsets = false;  // --offsets generated: ROOT's kGenerateOffsetMap (write_sinks.h, TreeSink)

   static WriteRequest parse(const std::map<std::string, std::string> &args)
   {
      auto need = [&](const char *key) { return required_arg(args, key); };
      WriteRequest r;
      r.output = need("output");
      r.events = std::stoll(need("events"));
      r.compression = std::stoi(need("compression"));
      r.autoflush = std::stoll(need("autoflush"));
      r.seed = std::stoull(need("seed"));
      r.tree_name = tree_name_arg(args);
      r.container = args.count("container") ? args.at("container") : "ttree";
      if (r.container != "ttree" && r.container != "rntuple")
         fail("--container " + r.container + ": must be ttree or rntuple");
      r.ntuple = r.container == "rntuple";
      r.split = r.ntuple ? -1 : std::stoi(need("split"));
      r.basket = r.ntuple ? 0 : std::stoi(need("basket"));
      r.page_size = r.ntuple ? std::stoll(need("page-size")) : 0;
      r.float_mantissa = args.count("float-mantissa") ? std::stoi(args.at("float-mantissa")) : 0;
      if (r.float_mantissa < 0 || r.float_mantissa > 22)
         fail("--float-mantissa " + std::to_string(r.float_mantissa) +
              ": must be from 1 to 22 (explicit mantissa bits kept), or 0 for full precision");
      if (args.count("hot-branches")) {
         if (r.ntuple)
            fail("--hot-branches: an RNTuple has one compression setting per file in ROOT 6.40 (RNTupleWriteOptions::"
                 "SetCompression); per-branch settings are for a TTree");
         std::stringstream names(args.at("hot-branches"));
         for (std::string name; std::getline(names, name, ',');)
            if (!name.empty())
               r.hot_branches.push_back(name);
         r.hot_compression = std::stoi(required_arg(args, "hot-compression"));
      }
      const std::string offsets = args.count("offsets") ? args.at("offsets") : "stored";
      if (offsets != "stored" && offsets != "generated")
         fail(r.output + ": --offsets " + offsets + ": must be stored (ROOT's default: every variable-size basket "
              "keeps its entries' offsets) or generated (ROOT's I/O feature kGenerateOffsetMap: offsets rebuilt "
              "from the counter when read)");
      r.generate_offsets = offsets == "generated";
      if (r.generate_offsets && r.ntuple)
         fail(r.output + ": --offsets generated is a TTree setting (TTree::SetIOFeatures); an RNTuple always stores "
              "its collections' offsets as index columns: use --offsets stored with --container rntuple");
      r.threads = args.count("threads") ? std::stoi(args.at("threads")) : 1;
      r.recipe = need("recipe");
      return r;
   }
};

// Content written once per format can be read back instead of generated again: the same recipe gives the same
// objects, so reading fills exactly what generation would have filled. The content file's tree, its branches
// pointed at the containers' objects.
struct ContentFile {
   std::unique_ptr<TFile> file;
   TTree *tree = nullptr;
};

ContentFile open_content(const std::string &path, const WriteRequest &request, std::vector<Collection> &containers)
{
   ContentFile content;
   content.file.reset(TFile::Open(path.c_str(), "READ"));
   if (!content.file || content.file->IsZombie())
      fail("cannot open the content file " + path);
   TTree *tree = content.tree = content.file->Get<TTree>(request.tree_name.c_str());
   if (!tree || tree->GetEntries() < request.events)
      fail("content file " + path + " has " + std::to_string(tree ? tree->GetEntries() : 0) + " events, " +
           std::to_string(request.events) + " are needed");
   for (auto &c : containers)
      if (c.scalars || c.flat || !c.records.empty())
         fail("--content is not supported for recipes with scalar, flat-layout or record columns; generate the "
              "events");
   auto attach = [&](const std::string &bname, void *address, TClass *cl) {
      if (!tree->GetBranch(bname.c_str()))
         fail("content file " + path + " has no branch " + bname + " (written from another recipe?)");
      tree->SetBranchAddress(bname.c_str(), address, nullptr, cl, kOther_t, true);
   };
   for (auto &c : containers) {
      if (c.interface_class)
         attach(c.name, &c.interface_object, c.interface_class);
      if (c.aux_class)
         attach(c.name + "Aux.", &c.aux_object, c.aux_class);
      for (auto &[bname, cls_addr] : c.dynamic_branches)
         attach(bname, &cls_addr.second, TClass::GetClass(cls_addr.first.c_str()));
   }
   return content;
}

// The sink of the request's container, and which kind of RNTuple sink it is (for the report), if any.
struct Output {
   std::unique_ptr<Sink> sink;
   NTupleSink *ntuple = nullptr;
   ImportedNTupleSink *imported = nullptr;
};

Output make_sink(const WriteRequest &r, bool flat_layout, std::vector<Collection> &containers,
                 const std::map<std::string, int> &baskets)
{
   Output out;
   if (r.ntuple && flat_layout) {
      if (r.float_mantissa > 0)
         fail("--float-mantissa with a flat-layout recipe and --container rntuple is not supported (the RNTuple is "
              "imported from a TTree)");
      auto s = std::make_unique<ImportedNTupleSink>(r.output, r.tree_name, r.compression, r.autoflush, r.page_size,
                                                    containers);
      out.imported = s.get();
      out.sink = std::move(s);
   } else if (r.ntuple) {
      auto s = std::make_unique<NTupleSink>(r.output, r.tree_name, r.compression, r.autoflush, r.page_size,
                                            r.threads > 1, r.float_mantissa, containers);
      out.ntuple = s.get();
      out.sink = std::move(s);
   } else {
      auto s = std::make_unique<TreeSink>(r.output, r.tree_name, r.compression, r.autoflush, r.split, r.basket,
                                          containers, baskets, r.generate_offsets);
      if (!r.hot_branches.empty())
         s->set_branch_compression(r.hot_branches, r.hot_compression);
      out.sink = std::move(s);
   }
   return out;
}

// The events' generation: each container's count in the event (its entry in the event's multiplicities, which stays
// where it is) and the base of its interface object, found once instead of for every event.
class Generator {
public:
   Generator(std::vector<Collection> &containers, uint64_t seed, bool ntuple)
      : containers_(containers), seed_(seed), ntuple_(ntuple)
   {
      TClass *base_class = TClass::GetClass("xAODlike::AuxVectorBase");
      for (auto &c : containers) {
         multiplicity_of_container_.push_back(&ev_.multiplicity[c.name]);
         interface_base_.push_back(
            c.interface_class
               ? static_cast<xAODlike::AuxVectorBase *>(c.interface_class->DynamicCast(base_class, c.interface_object))
               : nullptr);
      }
   }

   // Event i into the containers' memory: every container's multiplicity from its stream 2k, then its columns (and
   // records, for a TTree) from its stream 2k + 1.
   void generate(Long64_t i, TRandom &rng)
   {
      ev_.number = i;
      for (size_t k = 0; k < containers_.size(); ++k) {
         rng.SetSeed(stream_seed(seed_, i, 2 * k));
         *multiplicity_of_container_[k] = multiplicity_of(containers_[k].multiplicity, rng);
      }
      ev_.hash_multiplicities();
      for (size_t k = 0; k < containers_.size(); ++k) {
         auto &c = containers_[k];
         rng.SetSeed(stream_seed(seed_, i, 2 * k + 1));
         const uint32_t n = *multiplicity_of_container_[k];
         if (interface_base_[k])
            interface_base_[k]->m_size = n;
         c.count = n;
         for (auto &col : c.columns)
            col.fill(col.has_size ? multiplicity_of(col.size, rng) : n, rng, ev_);
         if (!ntuple_)
            for (auto &r : c.records)
               compose(r, c.columns, n);
      }
   }

private:
   std::vector<Collection> &containers_;
   uint64_t seed_;
   bool ntuple_;
   Event ev_;
   std::vector<uint32_t *> multiplicity_of_container_;
   std::vector<xAODlike::AuxVectorBase *> interface_base_;
};

// The precision lost per float variable (none listed at full precision), one JSON object each; `rounded` counts the
// float values rounded.
std::vector<std::string> precision_losses(const std::vector<Collection> &containers, int float_mantissa,
                                          long long &rounded)
{
   std::vector<std::string> losses;
   rounded = 0;
   if (float_mantissa > 0)
      for (const auto &c : containers)
         for (const auto &col : c.columns)
            if (col.is_float()) {
               rounded += col.loss.values;
               JsonObject l;
               l.str("collection", c.name)  // the particle container (not the file's TTree/RNTuple "container")
                  .str("variable", col.name)
                  .integer("mantissa_bits", float_mantissa)
                  .integer("values", col.loss.values)
                  .num("max_rel_error", col.loss.max_rel)
                  .num("rms_rel_error", col.loss.rms_rel())
                  .num("max_abs_error", col.loss.max_abs);
               losses.push_back(l.dump());
            }
   return losses;
}

// The clocks of a write: started before the sink is made; the event loop's generation and ROOT's part (in wall time
// and in CPU time of all the process's threads: implicit MT compresses baskets and pages on worker threads during the
// fills, so the CPU time is the write cost that does not grow when another job shares the cores).
struct WriteTimes {
   double wall0 = 0, cpu0 = 0, epoch0 = 0;
   double generate_seconds = 0, fill_seconds = 0, fill_cpu_seconds = 0;
};

void print_report(const WriteRequest &r, const std::map<std::string, std::string> &args, const WriteTimes &times,
                  std::pair<Long64_t, Long64_t> bytes, const Output &output, const std::vector<Collection> &containers,
                  bool lazy_streams)
{
   long long float_values_rounded = 0;
   const auto losses = precision_losses(containers, r.float_mantissa, float_values_rounded);
   const auto [tot_bytes, zip_bytes] = bytes;
   JsonObject out;
   out.str("file", r.output)
      .str("container", r.container)
      .integer("events", r.events)
      .integer("compression_setting_requested", r.compression)
      .integer("split_level_requested", r.split)
      .integer("basket_size_requested", r.basket)
      .integer("page_size_requested", r.page_size)
      .str("offsets", r.generate_offsets ? "generated" : "stored")
      .integer("seed", static_cast<long long>(r.seed))
      .integer("write_threads", r.threads)
      .str("content_source", args.count("content") ? args.at("content") : "generated")
      .num("write_start_time", times.epoch0)
      .num("write_end_time", epoch_now())
      .num("write_wall_seconds", steady_now() - times.wall0)
      .num("write_cpu_seconds", process_cpu_seconds() - times.cpu0)
      .num("generate_seconds", times.generate_seconds)
      .num("root_write_seconds", times.fill_seconds)
      .num("root_write_cpu_seconds", times.fill_cpu_seconds)
      // TTree: GetTotBytes/GetZipBytes; RNTuple: -1 (see Sink::close).
      .integer("tree_tot_bytes", tot_bytes)
      .integer("tree_zip_bytes", zip_bytes)
      .integer("ntuple_clusters", output.ntuple     ? output.ntuple->clusters()
                                  : output.imported ? output.imported->clusters()
                                                    : -1)
      .integer("float_mantissa_bits", r.float_mantissa > 0 ? r.float_mantissa : 23)
      .integer("float_values_truncated", float_values_rounded)
      .integer("ntuple_truncated_float_fields", output.ntuple ? output.ntuple->truncated_fields() : 0)
      .raw("float_precision_loss", json_array(losses))
      .raw("hot_branches", json_string_array(r.hot_branches))
      .integer("hot_compression_setting", r.hot_compression)
      .str("random_streams", lazy_streams ? "TRandom3 (lazily seeded)" : "TRandom3")
      .boolean("reference_draws", reference_draws)
      .integer("peak_rss_bytes", peak_rss_bytes());
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
}

int run(const std::map<std::string, std::string> &args)
{
   if (args.count("clone-from"))
      return clone_tree(args);
   const WriteRequest request = WriteRequest::parse(args);

   // ROOT's implicit MT compresses the baskets of a cluster (the pages, for RNTuple) in parallel when they are
   // flushed; the content, and so every read measurement, does not depend on it (the order in the file may).
   if (request.threads > 1)
      ROOT::EnableImplicitMT(request.threads);

   bool flat_layout = false;
   std::map<std::string, int> baskets;
   auto containers = read_recipe(request.recipe, flat_layout, baskets);
   // Leaf columns keep their storage where the branches point: room for the usual element counts up front.
   for (auto &c : containers)
      for (auto &col : c.columns)
         if (col.leaf)
            col.reserve(c.scalars ? 1 : 64);
   ContentFile content;
   if (args.count("content"))
      content = open_content(args.at("content"), request, containers);

   WriteTimes times;
   times.wall0 = steady_now(), times.cpu0 = process_cpu_seconds(), times.epoch0 = epoch_now();
   Output output = make_sink(request, flat_layout, containers, baskets);
   Generator generator(containers, request.seed, request.ntuple);
   // The events' streams: TRandom3's numbers, seeded lazily (LazyMersenneTwister), or TRandom3 itself should it
   // ever draw otherwise.
   reference_draws = args.count("reference-draws") > 0;
   const bool lazy_streams = !reference_draws && matches_trandom3();
   std::unique_ptr<TRandom> streams;
   if (lazy_streams)
      streams = std::make_unique<LazyMersenneTwister>();
   else
      streams = std::make_unique<TRandom3>();
   TRandom &rng = *streams;
   for (Long64_t i = 0; i < request.events; ++i) {
      const double g0 = steady_now();
      if (content.tree) {
         if (content.tree->GetEntry(i) <= 0)
            fail("reading event " + std::to_string(i) + " of the content file failed");
      } else {
         generator.generate(i, rng);
      }
      if (request.float_mantissa > 0)
         for (auto &c : containers)
            for (auto &col : c.columns)
               if (col.is_float())
                  col.round_floats(request.float_mantissa);
      const double f0 = steady_now(), fc0 = process_cpu_seconds();
      times.generate_seconds += f0 - g0;
      output.sink->fill(i);
      times.fill_seconds += steady_now() - f0;
      times.fill_cpu_seconds += process_cpu_seconds() - fc0;
   }
   const double c0 = steady_now(), cc0 = process_cpu_seconds();
   const auto bytes = output.sink->close();
   times.fill_seconds += steady_now() - c0;
   times.fill_cpu_seconds += process_cpu_seconds() - cc0;
   print_report(request, args, times, bytes, output, containers, lazy_streams);
   return 0;
}

}  // namespace

}  // namespace rootparams::write

int main(int argc, char **argv)
{
   try {
      return rootparams::write::run(rootparams::parse_args(argc, argv));
   } catch (const std::exception &e) {
      std::cerr << "rootparams-write: error: " << e.what() << std::endl;
      return 2;
   }
}
