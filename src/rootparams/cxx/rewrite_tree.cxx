// rootparams-rewrite: rewrite a user's own TTree (or RNTuple) into a new file at other file settings.
//
//   rootparams-rewrite --input SRC --tree NAME --output OUT --compression S --autoflush N --basket B
//                      [--streamer-infos source|tree]
//   rootparams-rewrite --input SRC --tree NAME --output OUT --compression S --container rntuple
//   rootparams-rewrite --input SRC --tree NAME --diagnose [--compression S] [--max-failures K]
//
// S is ROOT's compression setting (100 * algorithm + level: 101, 207, 404, 505; 0 = uncompressed), N the
// AutoFlush (> 0: entries per cluster, < 0: about -N compressed bytes per cluster), B the basket size in bytes
// of every branch, or 0 to keep each branch's basket size from the source.
//
// TTree: a *slow* clone. TTree::CloneTree(0) makes an empty tree with the source's branches (same classes,
// same split levels, same streamers) in the output file; then every branch gets the new compression setting
// (TBranch::SetCompressionSettings, recursive), the tree the new AutoFlush, every branch the new basket size
// (B > 0; with B = 0 each keeps the source's, which CloneTree copies), and every entry is read (GetEntry)
// and filled again (Fill): each basket is re-streamed and re-compressed, never copied as it is (a fast
// clone would keep the source's compression and clusters). ROOT's one-time basket resizing at the first
// AutoFlush (TTree::OptimizeBaskets) is undone: the branches keep the basket size asked for.
// Split level cannot change through a clone: the clone's branches are the source's branches (a split
// branch's sub-branches are fixed by how the source was written), so this tool offers no split option.
// Only the tree is copied: other top-level objects of the source (metadata trees, histograms, RNTuples) are
// not, because a file-side scan reads only the tree under test.
//
// Streamer infos: the new file gets every TStreamerInfo record of the source's StreamerInfo list (the default,
// --streamer-infos source), not only those ROOT marks while it writes the tree (--streamer-infos tree, ROOT's
// own CloneTree behaviour). ROOT never writes the streamer info of a class that has a collection proxy
// (TStreamerInfo::ForceWriteInfo: "We are an STL collection"), and in a process without the experiment's
// dictionaries an ATLAS interface class such as DataVector<xAOD::Electron_v1> is exactly that: an emulated
// collection, made from its streamer info's single "This" element. Its record is therefore dropped from a
// copy (those of its items, xAOD::Electron_v1 and bases, are kept), and a reader without the dictionaries
// then sees a class with neither streamer info nor collection proxy: it cannot tell that the branch holds
// particles (a copy of a Run-3 PHYSLITE file made this way lacked 84 of its 157 records, all 18 DataVector ones
// among them; the others were those of STL collections and of the classes of the metadata trees, not copied).
// The source's records are found among those ROOT registered when it opened the source (by class and
// checksum) and marked for writing in the new file's class index, as ROOT marks the records of a file opened
// for update. After the file is closed it is opened again and its StreamerInfo list compared with the
// source's: streamer_infos_missing names any record of the source (class and checksum) the new file lacks,
// STL collections aside (ROOT needs no record to read a vector<float>, and writes one only where it must).
// The I/O customization rules stored beside the records (listOfRules) are not copied: ROOT does not register
// rules read from a file, and a reader with the experiment's dictionaries brings its own.
//
// The source is opened read-only. The output must be another path; it is overwritten.
//
// Classes without a dictionary (real ATLAS xAOD files outside Athena) are read as emulated classes, and ROOT
// 6.40 can crash while re-streaming them (heap corruption, SIGSEGV, SIGABRT). The rewrite therefore runs in a
// process of its own (rootparams.rewrite), and ROOT's own crash handlers are switched off here so that a crash
// kills this process with the real signal at once (no gdb stack trace, which takes seconds).
//
// --diagnose: which top-level branch cannot be rewritten. The parent makes one empty clone of the tree in a
// TMemFile (CloneTree(0), at the same compression); for each top-level branch a child process (fork) reads
// that branch alone (all other branches disabled) and fills every entry into the clone's branch, then
// flushes (compresses and writes) its baskets and the branch; a child that dies of a signal marks its branch. The report lists the first
// K (default 10) such branches with their class (TBranch::GetClassName), whether ROOT has a dictionary for it,
// and the signal, plus how many failed in all. Children run one at a time (forked from a parent that has the
// file open and the clone made, so each costs a fork and one branch's entries).
//
// RNTuple (--container rntuple): ROOT 6.40's RNTupleMerger (ROOT::Experimental::Internal, the engine of
// `hadd` for RNTuples) rewrites one RNTuple into a new file with fCompressionSettings set: every page is
// decompressed and compressed again; clusters and pages keep their boundaries, so only the compression can
// change (--autoflush and --basket are refused). The merger builds a model from the source's descriptor, which
// needs a dictionary for every class field: on the ATLAS PHYSLITE RNTuple (xAOD classes, no dictionaries) it
// aborts (Fatal "typeName == fieldDesc.GetTypeName() violated", SIGABRT), exactly as `hadd -f404` does.
// So the tool checks first and refuses such an RNTuple with a clear error (exit 2) instead of crashing.
// --diagnose on an RNTuple lists the top-level fields whose type has no dictionary (no children needed).
//
// On success one line "ROOTPARAMS_JSON {...}"; errors: a message naming the file on stderr, exit code 2.
#include "rewrite_common.h"

#include <TArrayC.h>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TClass.h>
#include <TClassEdit.h>
#include <TError.h>
#include <TFile.h>
#include <TKey.h>
#include <TLeaf.h>
#include <TMemFile.h>
#include <TROOT.h>
#include <TStreamerInfo.h>
#include <TSystem.h>
#include <TTree.h>

#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleMerger.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RPageStorage.hxx>
#include <ROOT/RPageStorageFile.hxx>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace rootparams;

namespace {

TTree *source_tree(TFile *file, const std::string &path, const std::string &name)
{
   auto *key = file->GetKey(name.c_str());
   if (key && is_ntuple(file, name))
      fail(path + ": '" + name + "' is an RNTuple, not a TTree: rewrite it with --container rntuple");
   auto *tree = file->Get<TTree>(name.c_str());
   if (!tree)
      fail(path + ": has no TTree named '" + name + "'; its top-level keys are: " + key_list(file));
   return tree;
}

// A tree as empty clone in the current directory (the output file) at the new settings.
TTree *empty_clone(TTree *tree, int compression, Long64_t autoflush, long long basket)
{
   TTree *clone = tree->CloneTree(0);
   if (!clone)
      fail("CloneTree(0) failed");
   for (auto *b : all_branches(clone->GetListOfBranches())) {
      b->SetCompressionSettings(compression);
      if (basket > 0)
         b->SetBasketSize(static_cast<Int_t>(basket));
   }
   clone->SetAutoFlush(autoflush);
   return clone;
}

int rewrite_tree(const std::map<std::string, std::string> &args)
{
   const std::string input = required_arg(args, "input"), output = required_arg(args, "output");
   const std::string name = required_arg(args, "tree");
   const int compression = compression_arg(args);
   const long long autoflush = integer_arg(args, "autoflush");
   const long long basket = integer_arg(args, "basket");
   // 0 is TTree::SetAutoFlush(0): no AutoFlush, baskets flushed when full and no cluster boundaries (as CMS's
   // NanoAOD sample has); then ROOT never optimizes the basket sizes either.
   if (basket != 0 && (basket < 100 || basket > (1LL << 30)))
      fail("--basket " + std::to_string(basket) + ": must be 0 (keep the source's) or 100 bytes to 1 GiB");
   const std::string infos = args.count("streamer-infos") ? args.at("streamer-infos") : "source";
   if (infos != "source" && infos != "tree")
      fail("--streamer-infos " + infos + ": must be source (every record of the source's StreamerInfo list, the "
           "default) or tree (only those ROOT writes for the tree: its CloneTree behaviour)");
   check_output(input, output);

   auto in = open_source(input);
   TTree *tree = source_tree(in.get(), input, name);
   const double wall0 = steady_now(), cpu0 = process_cpu_seconds(), epoch0 = epoch_now();
   std::unique_ptr<TFile> out(TFile::Open(output.c_str(), "RECREATE", "", compression));
   if (!out || out->IsZombie())
      fail("cannot create " + output);
   out->cd();
   TTree *clone = empty_clone(tree, compression, autoflush, basket);
   // The basket sizes asked for (B, or the source's), per branch. TTree::Fill resizes every basket once, at
   // the first AutoFlush (TTree::OptimizeBaskets); they are put back right after it, so that the file's
   // branches keep the basket size of the request (the first cluster's baskets were written at it anyway).
   std::vector<std::pair<TBranch *, Int_t>> basket_sizes;
   for (auto *b : all_branches(clone->GetListOfBranches()))
      basket_sizes.emplace_back(b, b->GetBasketSize());
   bool restored = false;
   const Long64_t entries = tree->GetEntries();
   for (Long64_t i = 0; i < entries; ++i) {
      if (tree->GetEntry(i) < 0)
         fail(input + ": reading entry " + std::to_string(i) + " of " + name + " failed");
      if (clone->Fill() < 0 || out->TestBit(TFile::kWriteError))
         fail("writing entry " + std::to_string(i) + " to " + output + " failed (disk full or I/O error?)");
      // First flush: at entry N (N > 0), or when a byte-based AutoFlush turned into an entry count.
      if (!restored && ((autoflush > 0 && i + 1 == autoflush) || (autoflush < 0 && clone->GetAutoFlush() > 0))) {
         for (auto &[b, size] : basket_sizes)  // parents first: TBranchElement::SetBasketSize also sets its children
            b->SetBasketSize(size);
         restored = true;
      }
   }
   out->cd();
   clone->Write("", TObject::kOverwrite);
   const auto source_infos = info_records(in.get());
   const auto not_found = infos == "source" ? copy_streamer_infos(in.get(), out.get()) : std::vector<std::string>{};
   const Long64_t tot_bytes = clone->GetTotBytes(), zip_bytes = clone->GetZipBytes();
   const long long top = clone->GetListOfBranches()->GetEntries();
   const long long total = static_cast<long long>(all_branches(clone->GetListOfBranches()).size());
   const bool write_error = out->TestBit(TFile::kWriteError);
   out->Close();
   if (write_error)
      fail("writing " + output + " failed (disk full or I/O error?)");
   const double end_epoch = epoch_now(), end_wall = steady_now(), end_cpu = process_cpu_seconds();
   const auto missing = missing_streamer_infos(source_infos, output);  // not part of the rewrite's time

   JsonObject j;
   j.str("file", output)
      .str("source", input)
      .str("tree", name)
      .str("container", "ttree")
      .integer("entries", entries)
      .integer("top_level_branches", top)
      .integer("branches", total)
      .integer("compression_setting_requested", compression)
      .integer("autoflush_requested", autoflush)
      .integer("basket_size_requested", basket)
      .num("rewrite_start_time", epoch0)
      .num("rewrite_end_time", end_epoch)
      .num("rewrite_wall_seconds", end_wall - wall0)
      .num("rewrite_cpu_seconds", end_cpu - cpu0)
      .integer("tree_tot_bytes", tot_bytes)
      .integer("tree_zip_bytes", zip_bytes)
      .str("streamer_infos_copied", infos)
      .integer("streamer_infos_source", static_cast<long long>(source_infos.size()))
      .integer("streamer_infos_missing_count", static_cast<long long>(missing.size()))
      .raw("streamer_infos_missing", json_string_array(missing))
      .raw("streamer_infos_not_found", json_string_array(not_found))
      .integer("peak_rss_bytes", peak_rss_bytes())
      .str("root_version", gROOT->GetVersion());
   std::cout << "ROOTPARAMS_JSON " << j.dump() << std::endl;
   return 0;
}

// RNTuple: the top-level fields whose type is a class without a dictionary (the RNTupleMerger needs one for
// each): how many, the first max_listed as JSON objects, and the same as text ("field (class), ...").
struct MissingDictionaries {
   long long count = 0;
   std::vector<std::string> json;
   std::string text;
};

MissingDictionaries ntuple_fields_without_dictionary(ROOT::Internal::RPageSource &source, long long max_listed)
{
   MissingDictionaries out;
   auto guard = source.GetSharedDescriptorGuard();
   for (const auto &f : guard->GetTopLevelFields()) {
      const std::string type = f.GetTypeName();
      TClass *cl = TClass::GetClass(type.c_str(), true, true);
      if (!cl || cl->HasDictionary() || cl->GetCollectionProxy())
         continue;  // fundamental types and collections need none; classes with a dictionary are fine
      if (out.count++ >= max_listed)
         continue;
      out.json.push_back(JsonObject().str("branch", f.GetFieldName()).str("class", type)
                            .boolean("class_known", true).boolean("has_dictionary", false).dump());
      out.text += (out.text.empty() ? "" : ", ") + f.GetFieldName() + " (" + type + ")";
   }
   return out;
}

int diagnose_ntuple(const std::string &input, const std::string &name, long long max_failures)
{
   const double wall0 = steady_now();
   auto source = ROOT::Internal::RPageSource::Create(name, input);
   source->Attach();
   long long fields = 0;
   {
      auto guard = source->GetSharedDescriptorGuard();
      for (const auto &f : guard->GetTopLevelFields()) {
         (void)f;
         ++fields;
      }
   }
   const auto missing = ntuple_fields_without_dictionary(*source, max_failures);
   JsonObject j;
   j.str("file", input)
      .str("tree", name)
      .str("container", "rntuple")
      .str("mode", "diagnose")
      .integer("entries", static_cast<long long>(source->GetNEntries()))
      .integer("top_level_branches", fields)
      .integer("branches_tested", fields)
      .integer("crashed_count", 0)
      .raw("crashed", "[]")
      .integer("no_dictionary_count", missing.count)
      .raw("no_dictionary", json_array(missing.json))
      .integer("error_count", 0)
      .raw("errors", "[]")
      .num("diagnose_wall_seconds", steady_now() - wall0)
      .str("root_version", gROOT->GetVersion());
   std::cout << "ROOTPARAMS_JSON " << j.dump() << std::endl;
   return 0;
}

// RNTuple: RNTupleMerger with one source and a compression setting (see the header comment).
int rewrite_ntuple(const std::map<std::string, std::string> &args)
{
   const std::string input = required_arg(args, "input"), output = required_arg(args, "output");
   const std::string name = required_arg(args, "tree");
   const int compression = compression_arg(args);
   for (const char *key : {"autoflush", "basket", "page-size"})
      if (args.count(key))
         fail(std::string("--") + key + " with --container rntuple: an RNTuple rewrite keeps the source's clusters "
              "and pages (RNTupleMerger); only the compression can change");
   check_output(input, output);
   {
      auto in = open_source(input);
      if (!is_ntuple(in.get(), name))
         fail(input + ": has no RNTuple named '" + name + "'; its top-level keys are: " + key_list(in.get()));
   }
   const double wall0 = steady_now(), cpu0 = process_cpu_seconds(), epoch0 = epoch_now();
   auto source = ROOT::Internal::RPageSource::Create(name, input);
   source->Attach();
   const long long entries = static_cast<long long>(source->GetNEntries());
   long long fields = 0;
   {
      auto guard = source->GetSharedDescriptorGuard();
      for (const auto &f : guard->GetTopLevelFields()) {
         (void)f;
         ++fields;
      }
   }
   // The merger would abort (Fatal in RFieldBase, SIGABRT) on a class field without a dictionary: refuse first.
   if (const auto missing = ntuple_fields_without_dictionary(*source, 3); missing.count > 0)
      fail(input + ": the RNTuple " + name + " cannot be rewritten by ROOT " + gROOT->GetVersion() + ": " +
           std::to_string(missing.count) + " of its top-level fields are classes without a dictionary, e.g. " +
           missing.text + "; ROOT's RNTupleMerger (as hadd) needs a dictionary for every class field and aborts "
           "without one");
   ROOT::RNTupleWriteOptions options;
   options.SetCompression(compression);
   auto sink = std::make_unique<ROOT::Internal::RPageSinkFile>(name, output, options);
   ROOT::Experimental::Internal::RNTupleMerger merger(std::move(sink));
   ROOT::Experimental::Internal::RNTupleMergeOptions merge_options;
   merge_options.fCompressionSettings = static_cast<std::uint32_t>(compression);
   std::vector<ROOT::Internal::RPageSource *> sources{source.get()};
   auto result = merger.Merge(sources, merge_options);
   if (!result)
      fail("RNTupleMerger could not rewrite " + name + " of " + input + ": " + result.GetError()->GetReport());

   JsonObject j;
   j.str("file", output)
      .str("source", input)
      .str("tree", name)
      .str("container", "rntuple")
      .integer("entries", entries)
      .integer("top_level_branches", fields)
      .integer("branches", fields)
      .integer("compression_setting_requested", compression)
      .integer("autoflush_requested", 0)
      .integer("basket_size_requested", 0)
      .num("rewrite_start_time", epoch0)
      .num("rewrite_end_time", epoch_now())
      .num("rewrite_wall_seconds", steady_now() - wall0)
      .num("rewrite_cpu_seconds", process_cpu_seconds() - cpu0)
      .integer("tree_tot_bytes", -1)
      .integer("tree_zip_bytes", -1)
      .integer("peak_rss_bytes", peak_rss_bytes())
      .str("root_version", gROOT->GetVersion());
   std::cout << "ROOTPARAMS_JSON " << j.dump() << std::endl;
   return 0;
}

struct ClassInfo {
   bool known = false, has_dictionary = false;
};

ClassInfo class_info(const std::string &cls)
{
   ClassInfo info;
   if (cls.empty())
      return info;
   TClass *cl = TClass::GetClass(cls.c_str(), true, true);
   info.known = cl != nullptr;
   info.has_dictionary = cl && cl->HasDictionary();
   return info;
}

std::string signal_name(int sig)
{
   switch (sig) {
   case SIGSEGV: return "SIGSEGV";
   case SIGABRT: return "SIGABRT";
   case SIGBUS: return "SIGBUS";
   case SIGILL: return "SIGILL";
   case SIGFPE: return "SIGFPE";
   case SIGKILL: return "SIGKILL";
   case SIGALRM: return "SIGALRM";
   case SIGTERM: return "SIGTERM";
   default: return "signal " + std::to_string(sig);
   }
}

// Enable one branch, its sub-branches and the branches that count its leaves (flat arrays: nMuon for Muon_pt).
void enable(TBranch *b)
{
   b->ResetBit(kDoNotProcess);
   for (auto *leaf_obj : *b->GetListOfLeaves()) {
      auto *leaf = static_cast<TLeaf *>(leaf_obj);
      if (leaf->GetLeafCount() && leaf->GetLeafCount()->GetBranch() != b)
         enable(leaf->GetLeafCount()->GetBranch());
   }
   for (auto *sub : *b->GetListOfBranches())
      enable(static_cast<TBranch *>(sub));
}

// In a forked child: rewrite branch b of the source alone into the parent's empty clone (in a TMemFile):
// every entry of b (and of the branches that count its leaves) is read and filled into the clone's branch,
// whose baskets are then compressed and written, with the branch's description (not the whole clone's: that
// would cost ~50 ms per child). Exit code 0 on success.
[[noreturn]] void child_rewrite(TTree *tree, TTree *clone, TBranch *b, TMemFile *scratch, unsigned timeout)
{
   alarm(timeout);
   const int devnull = open("/dev/null", O_WRONLY);
   if (devnull >= 0) {  // ROOT's warnings for 1400 children would bury the report
      dup2(devnull, 1);
      dup2(devnull, 2);
   }
   int code = 0;
   try {
      enable(b);
      std::vector<TBranch *> targets;
      for (auto *obj : *tree->GetListOfBranches())
         if (!obj->TestBit(kDoNotProcess))
            if (auto *cb = static_cast<TBranch *>(clone->GetListOfBranches()->FindObject(obj->GetName())))
               targets.push_back(cb);
      for (Long64_t i = 0, n = tree->GetEntries(); i < n && code == 0; ++i) {
         if (tree->GetEntry(i) < 0)
            code = 4;
         for (auto *cb : targets)
            if (cb->Fill() < 0)
               code = 4;
      }
      scratch->cd();
      for (auto *cb : targets) {  // compress and write its baskets, then the branch's own description
         cb->FlushBaskets();
         scratch->WriteTObject(cb);
      }
   } catch (...) {
      code = 5;
   }
   _exit(code);
}

int diagnose_tree(TFile *in, TTree *tree, const std::string &input, const std::string &name, int compression,
                  long long max_failures, unsigned timeout)
{
   const double wall0 = steady_now();
   std::vector<TBranch *> top;
   for (auto *obj : *tree->GetListOfBranches())
      top.push_back(static_cast<TBranch *>(obj));
   // One empty clone of the whole tree, made here once (a CloneTree costs ~0.1 s on 1400 branches): each child
   // fills one branch of it. The source's branches are then all disabled; a child enables its own.
   tree->LoadTree(0);
   TMemFile scratch("rootparams-diagnose", "RECREATE", "", compression);
   scratch.cd();
   TTree *clone = tree->CloneTree(0);
   if (!clone)
      fail("CloneTree(0) failed on " + name + " of " + input);
   for (auto *sub : all_branches(clone->GetListOfBranches()))
      sub->SetCompressionSettings(compression);
   tree->SetBranchStatus("*", false);
   std::vector<std::string> failures, errors;
   long long failed = 0, errored = 0, tested = 0;
   std::cout.flush();
   std::cerr.flush();
   for (auto *b : top) {
      ++tested;
      const pid_t pid = fork();
      if (pid < 0)
         fail("fork failed while diagnosing " + input);
      if (pid == 0)
         child_rewrite(tree, clone, b, &scratch, timeout);
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
         continue;
      const std::string cls = b->GetClassName();
      const ClassInfo info = class_info(cls);
      JsonObject f;
      f.str("branch", b->GetName()).str("class", cls).boolean("class_known", info.known)
         .boolean("has_dictionary", info.has_dictionary);
      if (WIFSIGNALED(status)) {
         ++failed;
         f.integer("signal", WTERMSIG(status)).str("signal_name", WTERMSIG(status) == SIGALRM ? "timeout" : signal_name(WTERMSIG(status)));
         if (static_cast<long long>(failures.size()) < max_failures)
            failures.push_back(f.dump());
      } else {
         ++errored;
         f.integer("exit_code", WEXITSTATUS(status));
         if (static_cast<long long>(errors.size()) < max_failures)
            errors.push_back(f.dump());
      }
      if (failed >= max_failures)
         break;  // enough to name the culprits; the rest would only cost time
   }
   JsonObject j;
   j.str("file", input)
      .str("tree", name)
      .str("container", "ttree")
      .str("mode", "diagnose")
      .integer("entries", tree->GetEntries())
      .integer("top_level_branches", static_cast<long long>(top.size()))
      .integer("branches_tested", tested)
      .integer("compression_setting", compression)
      .integer("crashed_count", failed)
      .boolean("stopped_early", failed >= max_failures && tested < static_cast<long long>(top.size()))
      .raw("crashed", json_array(failures))
      .integer("error_count", errored)
      .raw("errors", json_array(errors))
      .num("diagnose_wall_seconds", steady_now() - wall0)
      .integer("peak_rss_bytes", peak_rss_bytes())
      .str("root_version", gROOT->GetVersion());
   std::cout << "ROOTPARAMS_JSON " << j.dump() << std::endl;
   (void)in;
   return 0;
}

int diagnose(const std::map<std::string, std::string> &args)
{
   const std::string input = required_arg(args, "input"), name = required_arg(args, "tree");
   const int compression = args.count("compression") ? compression_arg(args) : 404;
   const long long max_failures = args.count("max-failures") ? integer_arg(args, "max-failures") : 10;
   const long long timeout = args.count("child-timeout") ? integer_arg(args, "child-timeout") : 120;
   if (max_failures < 1 || timeout < 1)
      fail("--max-failures and --child-timeout must be >= 1");
   auto in = open_source(input);
   if (is_ntuple(in.get(), name))
      return diagnose_ntuple(input, name, max_failures);
   TTree *tree = source_tree(in.get(), input, name);
   return diagnose_tree(in.get(), tree, input, name, compression, max_failures, static_cast<unsigned>(timeout));
}

int run(const std::map<std::string, std::string> &args)
{
   default_crash_signals();
   if (args.count("diagnose"))
      return diagnose(args);
   const std::string container = args.count("container") ? args.at("container") : "ttree";
   if (container == "rntuple")
      return rewrite_ntuple(args);
   if (container != "ttree")
      fail("--container " + container + ": must be ttree or rntuple");
   return rewrite_tree(args);
}

}  // namespace

int main(int argc, char **argv)
{
   try {
      return run(parse_args(argc, argv));
   } catch (const std::exception &e) {
      std::cerr << "rootparams-rewrite: error: " << e.what() << std::endl;
      return 2;
   }
}
