// The RDataFrame read of a TTree (--reading-style rdataframe --columns <col>,<col>,...), the reading style of analyses
// today: one timed read of the given columns by typed actions in one RDataFrame event loop, with the spans and
// counters of the GetEntry read.
//
// One timed read of entries [0, N) of the given columns with ROOT::RDataFrame, as an analysis reads a file
// today, beside the TTree::GetEntry read of read_ttree.cxx (--reading-style getentry, the default).
// --threads T > 1: ROOT::EnableImplicitMT(T) before the RDataFrame is made (RDataFrame's multi-threaded event
// loop: one task per cluster range, each with its own TFile, TTree and TTreeCache); 1: implicit MT off.
//
// How it is made comparable, and what RDataFrame decides by itself:
// - The entry range: an RDatasetSpec with WithGlobalRange({0, N}), the one way ROOT 6.40 offers that works
//   with and without implicit MT (Range() throws "Range was called with ImplicitMT enabled"). Single-threaded,
//   RDataFrame reads its chain with one TTreeReader over [0, N); multi-threaded, TTreeProcessorMT cuts the
//   clusters at N (events_read, from a Count, says how many were processed; fewer is an error).
// - No just-in-time compilation: every column's type is asked of RDataFrame (GetColumnType) and dispatched
//   here, in compiled code, to a typed action (ColumnSum<T>), so no compiler time falls into the loop. RDF's
//   own log says whether it had anything to jit (rdf_jitted, from "Nothing to jit and execute.").
// - Every value is touched: each column's action sums its values (and counts them); a Count gives the entries
//   processed. All are booked first and run in ONE event loop, triggered by the Count's GetValue().
// - The TTreeCache: RDataFrame opens the file itself (a TChain; one per thread with implicit MT) and its
//   TTreeReader takes the tree's automatic cache, sized from the AutoFlush cluster by gEnv's TTreeCache.Size
//   (pinned to 1.0 by the reader), adds the branches it reads, stops the learning phase at once and limits
//   the cache to the task's entry range. There is no hook to give those trees another size before the loop,
//   so --cache-size must be -1 ("as the reader decides", the automatic size) and --learn-entries -1 (there is
//   no learning phase); anything else is refused rather than silently ignored. What the cache really was is
//   recorded from the task's tree during the loop (cache_size_used, cache_buffer_bytes, cache_cached_branches,
//   cache_cached_zip_bytes).
// - Where the files are opened: single-threaded, RDataFrame opens its chain's file when it is made (it lists
//   the branches), in the open span, beside the reader's own open (which checks the file, tree, entries and
//   columns, and is closed again). With implicit MT, TTreeProcessorMT opens the file inside the loop once to
//   list the clusters and once more in every worker thread that runs a task, and each of those opens reads the
//   file's header, streamer info and tree metadata again. Those reads are in the loop span, counted apart as
//   loop_uncached_bytes_read (reads by a file object that has no TTreeCache yet; tree_open_bytes_read is what
//   one such open reads). The rest of the loop's bytes are the baskets the caches fetched.
//
// Spans and counters are those of the GetEntry read (read_counters.h: Snapshot, add_span, add_timed_read, PerfStats
// installed in every implicit-MT thread with install_in_workers). RDataFrame has no "second entry" moment (with
// implicit MT the tasks start in parallel), so the note's window is the loop: note_window_is_loop is true and the
// note_window_* fields are the loop's.
#include "read_rdataframe.h"

#include "read_common.h"
#include "read_counters.h"
#include "read_ttree.h"

#include <ROOT/RDataFrame.hxx>
#include <ROOT/RDF/RActionImpl.hxx>
#include <ROOT/RDF/RDatasetSpec.hxx>
#include <ROOT/RLogger.hxx>
#include <ROOT/RTTreeDS.hxx>
#include <ROOT/RVec.hxx>
#include <ROOT/TIOFeatures.hxx>
#include <TBranchElement.h>
#include <TChain.h>
#include <TEnv.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TROOT.h>
#include <TTree.h>
#include <TTreeCache.h>
#include <TTreeReader.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <type_traits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace rootparams::read {

namespace {

// The values of one column over the entries read: their sum (every value touched) and their number.
struct ValueSum {
   double sum = 0;
   long long values = 0;
};

template <typename T>
struct IsRVec : std::false_type {};
template <typename E>
struct IsRVec<ROOT::RVec<E>> : std::true_type {};

// A typed action (no JIT): sums the values of one column of type T, a scalar or a ROOT::RVec of scalars,
// into one partial per slot (with implicit MT the slots run in parallel), merged at the end of the loop.
template <typename T>
class ColumnSum : public ROOT::Detail::RDF::RActionImpl<ColumnSum<T>> {
public:
   using Result_t = ValueSum;
   explicit ColumnSum(unsigned int slots) : fResult(std::make_shared<ValueSum>()), fPartials(slots) {}
   ColumnSum(ColumnSum &&) = default;
   ColumnSum(const ColumnSum &) = delete;
   std::shared_ptr<ValueSum> GetResultPtr() const { return fResult; }
   void Initialize() {}
   void InitTask(TTreeReader *, unsigned int) {}
   void Exec(unsigned int slot, const T &value)
   {
      auto &p = fPartials[slot];
      if constexpr (IsRVec<T>::value) {
         double sum = 0;
         for (auto x : value)
            sum += x;
         p.sum += sum;
         p.values += static_cast<long long>(value.size());
      } else {
         p.sum += value;
         ++p.values;
      }
   }
   void Finalize()
   {
      for (auto &p : fPartials) {
         fResult->sum += p.sum;
         fResult->values += p.values;
      }
   }
   std::string GetActionName() { return "ColumnSum"; }

private:
   struct alignas(64) Partial {  // one cache line per slot: the threads do not share lines
      double sum = 0;
      long long values = 0;
   };
   std::shared_ptr<ValueSum> fResult;
   std::vector<Partial> fPartials;
};

// What the TTreeCache of RDataFrame's trees was, seen from inside the loop: at the first entry of every task
// (booked after the column actions, so that entry's baskets were already requested through the cache), the
// task's tree, its file and that file's cache for it. With implicit MT each task's TTreeReader is given to the
// actions; single-threaded it is not (RDataFrame reads through its data source), and the data source's chain
// (fChain) is the way to the tree.
struct CacheSeen {
   long long tasks = 0;             // tasks (entry ranges) that processed at least one entry
   long long cache_size = -1;       // the largest TTree::GetCacheSize() of the tasks' trees (-1: not reachable)
   long long buffer_bytes = -1;     // the largest TTreeCache buffer
   long long cached_branches = -1;  // the most branches a task's cache held
   long long cached_zip_bytes = -1; // and their compressed bytes (all entries), what the cache fetches from
   long long files = 0;             // distinct TFile objects the tasks read the entries through
   double first_entry_steady = 0;   // steady clock when the first task had its first entry read
};

class CacheProbe : public ROOT::Detail::RDF::RActionImpl<CacheProbe> {
public:
   using Result_t = CacheSeen;
   CacheProbe(unsigned int slots, TTree *chain)
      : fResult(std::make_shared<CacheSeen>()), fReaders(slots, nullptr), fFirst(slots, 1), fChain(chain)
   {
   }
   CacheProbe(CacheProbe &&) = default;
   CacheProbe(const CacheProbe &) = delete;
   std::shared_ptr<CacheSeen> GetResultPtr() const { return fResult; }
   void Initialize() {}
   void InitTask(TTreeReader *reader, unsigned int slot)
   {
      fReaders[slot] = reader;
      fFirst[slot] = 1;
   }
   void Exec(unsigned int slot)
   {
      if (!fFirst[slot])
         return;
      fFirst[slot] = 0;
      const double now = steady_now();
      TTree *chain = fReaders[slot] ? fReaders[slot]->GetTree() : fChain;
      TTree *tree = chain ? chain->GetTree() : nullptr;  // the chain's current tree
      TFile *file = tree ? tree->GetCurrentFile() : nullptr;
      auto *cache = file ? dynamic_cast<TTreeCache *>(file->GetCacheRead(tree)) : nullptr;
      std::lock_guard<std::mutex> lock(*fMutex);
      auto &r = *fResult;
      if (r.tasks++ == 0 || now < r.first_entry_steady)
         r.first_entry_steady = now;
      if (file)
         fFiles.insert(file);
      if (tree)
         r.cache_size = std::max(r.cache_size, static_cast<long long>(tree->GetCacheSize()));
      if (cache) {
         r.buffer_bytes = std::max(r.buffer_bytes, static_cast<long long>(cache->GetBufferSize()));
         if (const auto *branches = cache->GetCachedBranches()) {
            long long zip = 0;
            for (const auto *b : *branches)
               zip += static_cast<const TBranch *>(b)->GetZipBytes();
            r.cached_branches = std::max(r.cached_branches, static_cast<long long>(branches->GetEntries()));
            r.cached_zip_bytes = std::max(r.cached_zip_bytes, zip);
         }
      }
   }
   void Finalize() { fResult->files = static_cast<long long>(fFiles.size()); }
   std::string GetActionName() { return "CacheProbe"; }

private:
   std::shared_ptr<CacheSeen> fResult;
   std::vector<TTreeReader *> fReaders;
   std::vector<char> fFirst;  // per slot: the task's first entry is still to come
   TTree *fChain;              // the data source's chain (single-threaded)
   std::set<const TFile *> fFiles;
   std::unique_ptr<std::mutex> fMutex = std::make_unique<std::mutex>();  // the helper is moved into RDataFrame
};

// RDataFrame's own log (channel ROOT.RDF, info level) during the read: whether it had code to jit, and the
// event loop's time by RDataFrame's own stopwatch. Other messages go on to ROOT's handlers.
class RdfLogCapture : public ROOT::RLogHandler {
public:
   struct Seen {
      std::mutex mutex;
      bool nothing_to_jit = false, jitted = false;
      double loop_seconds = std::nan("");
   };
   explicit RdfLogCapture(std::shared_ptr<Seen> seen) : fSeen(std::move(seen)) {}
   bool Emit(const ROOT::RLogEntry &entry) override
   {
      if (entry.fChannel != &ROOT::Detail::RDF::RDFLogChannel() || entry.fLevel < ROOT::ELogLevel::kInfo)
         return true;  // not ours: the next handler prints it
      std::lock_guard<std::mutex> lock(fSeen->mutex);
      const std::string &m = entry.fMessage;
      if (m.rfind("Nothing to jit", 0) == 0)
         fSeen->nothing_to_jit = true;
      else if (m.rfind("Just-in-time compilation", 0) == 0)
         fSeen->jitted = true;
      const auto elapsed = m.find("s CPU, ");
      if (m.rfind("Finished event loop", 0) == 0 && elapsed != std::string::npos)
         fSeen->loop_seconds = std::atof(m.c_str() + elapsed + 7);
      return false;  // an info message we asked for: not printed
   }

private:
   std::shared_ptr<Seen> fSeen;
};

// PerfStats (every read and decompression of the file under test, in every thread) that also counts apart the
// reads a TFile object makes before it has a TTreeCache: with implicit MT, RDataFrame opens the file inside the
// loop (once to list the clusters, once per worker thread), and those opens read the file's header, streamer
// info and tree metadata through TFile::ReadBuffer before the tree's cache exists (the TTreeReader creates it at
// the task's first entry). The baskets of the columns are read through the cache. (TFile::GetCacheRead() without
// a tree also finds the file's only cache while a vector read has unset the current one.)
class RdfPerfStats : public PerfStats {
public:
   explicit RdfPerfStats(const std::string &path)
      : PerfStats(path), fName(path.find("://") == std::string::npos ? path : path.substr(0, path.find('?')))
   {
   }
   void FileReadEvent(TFile *file, Int_t len, Double_t start) override
   {
      PerfStats::FileReadEvent(file, len, start);
      // The file object is used by one thread at a time (each worker has its own), so its cache is stable here.
      if (file && fName == file->GetName() && !file->GetCacheRead()) {
         fUncachedCalls.fetch_add(1, std::memory_order_relaxed);
         fUncachedBytes.fetch_add(len, std::memory_order_relaxed);
      }
   }
   long long uncached_calls() const { return fUncachedCalls.load(); }
   long long uncached_bytes() const { return fUncachedBytes.load(); }

private:
   const std::string fName;  // the name PerfStats counts the file under test by
   std::atomic<long long> fUncachedCalls{0}, fUncachedBytes{0};
};

// Books the typed action of one column. The column types RDataFrame reports for TTree branches: a split
// std::vector<T> sub-branch or a leaf array with a counter (NanoAOD's Electron_pt[nElectron]) is
// ROOT::VecOps::RVec<T>, a scalar leaf is T, both spelled either way (float or Float_t).
using ColumnBooker =
   std::function<ROOT::RDF::RResultPtr<ValueSum>(ROOT::RDF::RNode &, const std::string &, unsigned int)>;

template <typename T>
ROOT::RDF::RResultPtr<ValueSum> book_sum(ROOT::RDF::RNode &df, const std::string &column, unsigned int slots)
{
   return df.Book<T>(ColumnSum<T>(slots), {column});
}

template <typename E>
void add_type(std::map<std::string, ColumnBooker> &table, std::initializer_list<const char *> spellings)
{
   for (const char *name : spellings) {
      table[name] = book_sum<E>;
      table[std::string("ROOT::VecOps::RVec<") + name + ">"] = book_sum<ROOT::RVec<E>>;
   }
}

const std::map<std::string, ColumnBooker> &column_bookers()
{
   static const std::map<std::string, ColumnBooker> table = [] {
      std::map<std::string, ColumnBooker> t;
      add_type<float>(t, {"float", "Float_t"});
      add_type<double>(t, {"double", "Double_t"});
      add_type<char>(t, {"char", "Char_t"});
      add_type<unsigned char>(t, {"unsigned char", "UChar_t"});
      add_type<short>(t, {"short", "Short_t"});
      add_type<unsigned short>(t, {"unsigned short", "UShort_t"});
      add_type<int>(t, {"int", "Int_t"});
      add_type<unsigned int>(t, {"unsigned int", "UInt_t"});
      add_type<long>(t, {"long", "Long_t"});
      add_type<unsigned long>(t, {"unsigned long", "ULong_t"});
      add_type<Long64_t>(t, {"long long", "Long64_t"});
      add_type<ULong64_t>(t, {"unsigned long long", "ULong64_t"});
      add_type<bool>(t, {"bool", "Bool_t"});
      return t;
   }();
   return table;
}

std::string supported_types()
{
   return "the scalars float, double, char, unsigned char, short, unsigned short, int, unsigned int, long, "
          "unsigned long, Long64_t, ULong64_t and bool (and their ROOT spellings Float_t, ...), and "
          "ROOT::VecOps::RVec of each (a std::vector<T> branch or a leaf array with a counter)";
}

std::vector<std::string> split_columns(const std::string &list)
{
   std::vector<std::string> columns;
   std::stringstream s(list);
   std::string name;
   while (std::getline(s, name, ','))
      if (!name.empty())
         columns.push_back(name);
   return columns;
}

// The branch a column reads: a branch of that name, or the branch of a leaf of that name.
TBranch *column_branch(TTree *tree, const std::string &column)
{
   if (auto *b = tree->GetBranch(column.c_str()))
      return b;
   if (auto *leaf = tree->GetLeaf(column.c_str()))
      return leaf->GetBranch();
   return tree->FindBranch(column.c_str());
}

// The branches reading `b` also reads: those holding the counters of its leaves (nElectron for
// Electron_pt[nElectron]; the size branch of a split std::vector of structs for its members).
void add_with_counters(TBranch *b, std::set<TBranch *> &out)
{
   out.insert(b);
   for (auto *obj : *b->GetListOfLeaves())
      if (auto *count = static_cast<TLeaf *>(obj)->GetLeafCount())
         out.insert(count->GetBranch());
   if (auto *be = dynamic_cast<TBranchElement *>(b); be && be->GetBranchCount())
      out.insert(be->GetBranchCount());
}

std::string name_list(const std::vector<std::string> &names, size_t most = 25)
{
   std::string s;
   for (size_t i = 0; i < names.size() && i < most; ++i)
      s += (i ? ", " : "") + names[i];
   return s + (names.size() > most ? ", ... (" + std::to_string(names.size()) + " in all)" : "");
}

// Levenshtein distance, for the names closest to a misspelt column.
size_t edit_distance(const std::string &a, const std::string &b)
{
   std::vector<size_t> row(b.size() + 1);
   for (size_t j = 0; j <= b.size(); ++j)
      row[j] = j;
   for (size_t i = 1; i <= a.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
         const size_t up = row[j];
         row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
         diagonal = up;
      }
   }
   return row[b.size()];
}

// What the user may have meant by an unknown `column`: the columns whose variable (the part after the last
// '.' or '_') is within a few edits of its variable, or contains it, those of the same container first.
std::vector<std::string> similar_columns(const std::vector<std::string> &all, const std::string &column)
{
   auto split = [](const std::string &name) {
      const auto cut = name.find_last_of("._");
      return cut == std::string::npos ? std::make_pair(std::string(), name)
                                      : std::make_pair(name.substr(0, cut + 1), name.substr(cut + 1));
   };
   const auto [head, tail] = split(column);
   const size_t most = std::max<size_t>(2, tail.size() / 3);
   std::vector<std::pair<size_t, std::string>> scored;
   for (auto &name : all) {
      const auto [h, t] = split(name);
      size_t score = edit_distance(t, tail);
      if (tail.size() >= 3 && t.find(tail) != std::string::npos)
         score = std::min<size_t>(score, 1);
      score += h != head;
      if (score <= most)
         scored.emplace_back(score, name);
   }
   std::sort(scored.begin(), scored.end());
   std::vector<std::string> out;
   for (size_t k = 0; k < scored.size() && k < 10; ++k)
      out.push_back(scored[k].second);
   return out;
}

// Counters of the loop beside the Snapshot's.
struct Extra {
   long long uncached_calls, uncached_bytes, other_files_bytes, useful_bytes;
   static Extra take(const RdfPerfStats *perf)
   {
      return perf ? Extra{perf->uncached_calls(), perf->uncached_bytes(), perf->other_files_bytes(),
                          TFile::GetFileBytesRead()}
                  : Extra{0, 0, 0, TFile::GetFileBytesRead()};
   }
};

// What an RDataFrame read is asked, parsed and checked once (this file's head says why the cache settings are
// refused).
struct RdfRequest {
   std::string path, tree_name, selection;
   Long64_t events = 0, cache_size = -1;
   int threads = 1, learn_entries = -1;
   std::vector<std::string> columns;

   static RdfRequest parse(const std::map<std::string, std::string> &args)
   {
      RdfRequest r;
      r.path = required_arg(args, "file");
      r.tree_name = tree_name_arg(args);
      r.events = std::stoll(required_arg(args, "events"));
      r.threads = std::stoi(required_arg(args, "threads"));
      if (!args.count("columns"))
         fail("--reading-style rdataframe needs --columns <branch>,<branch>,...: the branches or leaves to read");
      r.columns = split_columns(args.at("columns"));
      r.cache_size = args.count("cache-size") ? std::stoll(args.at("cache-size")) : -1;
      r.learn_entries = args.count("learn-entries") ? std::stoi(args.at("learn-entries")) : -1;
      r.check(args);
      return r;
   }

private:
   void check(const std::map<std::string, std::string> &args)
   {
      if (events < 1)
         fail("--events must be at least 1");
      if (threads < 1)
         fail("--threads must be at least 1");
      if (columns.empty())
         fail("--reading-style rdataframe needs --columns <branch>,<branch>,... (none given)");
      // The harness resolves a read point's branch selection into --columns before the file is evicted, and sends
      // the selection along: it is recorded (column_selection), never read again.
      selection = args.count("branches") ? args.at("branches") : "";
      if (cache_size != -1)
         fail(path + ": --cache-size " + std::to_string(cache_size) +
              " cannot be applied with --reading-style rdataframe: RDataFrame opens the file itself and its TTreeReader uses "
              "the tree's automatic TTreeCache (sized from the AutoFlush cluster); use --cache-size -1");
      if (learn_entries != -1)
         fail(path + ": --learn-entries " + std::to_string(learn_entries) +
              " cannot be applied with --reading-style rdataframe: its TTreeReader registers the columns' branches with the "
              "TTreeCache and ends the learning phase at once; use --learn-entries -1");
      {
         std::set<std::string> seen;
         for (auto &c : columns)
            if (!seen.insert(c).second)
               fail("--columns names '" + c + "' twice");
      }
   }
};

// The reader's own look at the file (open span): a damaged file, a missing tree or too few entries are reported as
// for the GetEntry read, and the columns' branches (with their counters) give the bytes the read should fetch.
// Closed before RDataFrame opens the file on its own.
struct FileLook {
   std::string file_class;
   Long64_t entries_in_tree = 0;
   long long selected_zip = 0, selected_tot = 0, column_branches = 0, tree_open_bytes = -1;
   std::map<std::string, std::vector<std::string>> split_collections;  // column -> its members' branches
};

FileLook look_at_file(const RdfRequest &r, const RdfPerfStats *perf)
{
   const auto &[path, tree_name, selection, events, cache_size, threads, learn_entries, columns] = r;
   FileLook look;
   {
      const long long before = perf ? perf->bytes() : 0;
      auto [file, tree] = open_tree(path, tree_name);
      if (perf)  // what one open of the file and its tree reads, for comparison with the opens inside the loop
         look.tree_open_bytes = perf->bytes() - before;
      look.file_class = file->ClassName();
      look.entries_in_tree = tree->GetEntries();
      // ROOT 6.40.00's TTreeReader returns wrong values from counted arrays whose offsets are generated on read
      // (tests/test_bulk.py: most of NanoAOD's analysis variables differ from GetEntry's, with the same number of
      // values), so such a file is refused rather than measured with wrong values.
      if (tree->GetIOFeatures().Test(ROOT::Experimental::EIOFeatures::kGenerateOffsetMap))
         fail(path + ": tree '" + tree_name + "' was written with ROOT's I/O feature kGenerateOffsetMap (offsets: "
              "generated), from which ROOT " + gROOT->GetVersion() + "'s RDataFrame reads wrong values; read it with "
              "--reading-style getentry or bulk, or write it with offsets: stored");
      if (look.entries_in_tree < events)
         damaged(path + ": has " + std::to_string(look.entries_in_tree) + " entries, but " + std::to_string(events) +
                 " were requested");
      std::set<TBranch *> branches;
      for (auto &c : columns) {
         auto *b = column_branch(tree, c);
         if (!b)
            continue;  // not a branch or leaf: RDataFrame says so below
         add_with_counters(b, branches);
         // A split collection's own branch (TClonesArray 3, STL 4) holds only the collection's size; RDataFrame
         // types it Int_t, but its TTreeReader refuses to read a vector<T> branch as a number, inside the loop.
         auto *be = dynamic_cast<TBranchElement *>(b);
         if (be && (be->GetType() == 3 || be->GetType() == 4)) {
            std::vector<std::string> members;
            for (auto *sub : *be->GetListOfBranches())
               members.push_back(sub->GetName());
            look.split_collections[c] = members;
         }
      }
      for (auto *b : branches) {
         look.selected_zip += b->GetZipBytes();
         look.selected_tot += b->GetTotBytes();
      }
      look.column_branches = static_cast<long long>(branches.size());
   }
   return look;
}

// The columns' typed actions (ColumnSum) booked on `df`, with their types; every column that cannot be read (not a
// column, a split collection's own branch, a type without an action) named in one message.
struct Booked {
   std::vector<std::pair<std::string, std::string>> column_types;
   std::vector<ROOT::RDF::RResultPtr<ValueSum>> sums;
};

Booked book_columns(ROOT::RDF::RNode &df, const RdfRequest &r, const FileLook &look, unsigned int slots)
{
   const auto &[path, tree_name, columns] = std::tie(r.path, r.tree_name, r.columns);
   const auto &split_collections = look.split_collections;
   Booked booked;
   auto &column_types = booked.column_types;
   auto &sums = booked.sums;
   std::vector<std::string> all_columns, unknown, unreadable, unsupported;
   for (auto &c : columns) {
      if (!df.HasColumn(c)) {
         if (all_columns.empty())
            all_columns = df.GetColumnNames();
         const auto similar = similar_columns(all_columns, c);
         unknown.push_back("'" + c + "'" + (similar.empty() ? "" : " (similar: " + name_list(similar) + ")"));
         continue;
      }
      const std::string type = df.GetColumnType(c);
      const auto booker = column_bookers().find(type);
      if (split_collections.count(c))
         unreadable.push_back("column '" + c + "' is a split collection (RDataFrame calls it " + type +
                              ", the collection's size, but its TTreeReader cannot read the collection's branch as "
                              "a number): read its members instead, " + name_list(split_collections.at(c)));
      else if (booker == column_bookers().end())
         unsupported.push_back("'" + c + "' (" + type + ")");
      else if (unknown.empty() && unreadable.empty() && unsupported.empty())
         sums.push_back(booker->second(df, c, slots));
      column_types.emplace_back(c, type);
   }
   // Every column that cannot be read, in one message.
   if (!unknown.empty())
      fail(path + ": --columns " + name_list(unknown, unknown.size()) + (unknown.size() > 1 ? " are" : " is") +
           " not a branch or leaf of tree '" + tree_name + "'. Available: " + name_list(all_columns));
   if (!unsupported.empty())
      unreadable.push_back("--reading-style rdataframe does not read the type of column " +
                           name_list(unsupported, unsupported.size()) +
                           " (a typed action per type, no JIT); supported: " + supported_types());
   if (!unreadable.empty()) {
      std::string all;
      for (auto &problem : unreadable)
         all += (all.empty() ? "" : "; ") + problem;
      fail(path + ": " + all);
   }
   return booked;
}

// What the loop gave: its snapshots and extra counters, the events read, and the memory before it.
struct RdfLoop {
   Snapshot loop_start, end;
   Extra extra_start, extra_end;
   ULong64_t events_read;
   long long rss_baseline;
};

void report_rdataframe(const RdfRequest &r, const FileLook &look, Booked &booked, const CacheSeen &cache,
                       const RdfLogCapture::Seen &log, const RdfLoop &loop, const RdfPerfStats *perf,
                       const char *mode, int perf_threads, unsigned int slots, const Snapshot &process_start)
{
   const auto &[path, tree_name, selection, events, cache_size, threads, learn_entries, columns] = r;
   const auto &[file_class, entries_in_tree, selected_zip, selected_tot, column_branches, tree_open_bytes,
                split_collections] = look;
   auto &[column_types, sums] = booked;
   const auto &[loop_start, end, extra_start, extra_end, events_read, rss_baseline] = loop;
   double values_sum = 0;
   long long values_count = 0;
   JsonObject types, column_sums, column_values;
   for (size_t k = 0; k < sums.size(); ++k) {
      const auto &[column, type] = column_types[k];
      const ValueSum &s = sums[k].GetValue();
      values_sum += s.sum;
      values_count += s.values;
      types.str(column, type);
      column_sums.num(column, s.sum);
      column_values.integer(column, s.values);
   }
   JsonObject out;
   add_ttree_read_header(out, path, file_class, "rdataframe", perf != nullptr, mode, perf_threads);
   out.str("column_selection", selection)  // the --branches the columns were resolved from ("" if none)
      .integer("columns", static_cast<long long>(columns.size()))
      .raw("column_types", types.dump())
      .integer("column_branches", column_branches)  // the columns' branches and the counters they read
      .integer("selected_zip_bytes", selected_zip)
      .integer("selected_tot_bytes", selected_tot)
      .str("read_mode", "objects")
      .num("values_sum", values_sum)
      .integer("values_count", values_count)
      .raw("column_sums", column_sums.dump())
      .raw("column_values", column_values.dump())
      .integer("entries_in_tree", entries_in_tree)
      .integer("events_requested", events)
      .integer("events_read", static_cast<long long>(events_read))
      .integer("cache_size_requested", cache_size)
      .integer("cache_size_used", cache.cache_size)
      .integer("cache_buffer_bytes", cache.buffer_bytes)
      .integer("cache_cached_branches", cache.cached_branches)
      // The branches RDataFrame's TTreeReader put in the cache can be more than the columns and their counters:
      // a member of a split std::vector of structs brings every member (the vector's branch and its sub-branches).
      .integer("cache_cached_zip_bytes", cache.cached_zip_bytes)
      .integer("learn_entries_requested", learn_entries)
      .integer("threads_requested", threads)
      .integer("rdf_threads", threads)
      .integer("rdf_slots", slots)
      .integer("rdf_tasks", cache.tasks)
      .integer("rdf_task_files", cache.files)
      // From RDF's log: "Nothing to jit and execute." (false), "Just-in-time compilation ..." (true), neither (null).
      .raw("rdf_jitted", log.jitted ? "true" : log.nothing_to_jit ? "false" : "null")
      .num("rdf_event_loop_seconds", log.loop_seconds)
      .integer("imt_pool_size", ROOT::IsImplicitMTEnabled() ? ROOT::GetThreadPoolSize() : 0)
      .str("env_TTreeCache.Size", gEnv->GetValue("TTreeCache.Size", "(unset)"))
      .str("env_TTreeCache.Prefill", gEnv->GetValue("TTreeCache.Prefill", "(unset)"))
      .str("env_TFile.AsyncPrefetching", gEnv->GetValue("TFile.AsyncPrefetching", "(unset)"));
   add_timed_read(out, process_start, loop_start, loop_start, end, perf != nullptr, events, rss_baseline, true);
   // The first entry any task had read, from the start of the loop (with implicit MT: after the clusters were
   // listed and the first task's file opened).
   out.num("first_entry_seconds", cache.tasks ? cache.first_entry_steady - loop_start.steady : std::nan(""))
      .integer("other_files_bytes_read", perf ? perf->other_files_bytes() : 0);
   // Where the loop's bytes went (docs/measurement.md, "The RDataFrame reading style"):
   //   loop_uncached_*       reads of the file under test by a TFile object with no TTreeCache yet: the opens of
   //                         RDataFrame's own file objects inside the loop (tree_open_bytes_read is what one open
   //                         of the file and its tree read, measured in the open span);
   //   loop_useful_bytes_read  TFile's global count of the bytes ROOT asked for (every TFile object, the gaps that a
   //                         vector read fetches between the requested blocks excluded; loop_bytes_read includes
   //                         them, as for the GetEntry read).
   out.integer("loop_useful_bytes_read", extra_end.useful_bytes - extra_start.useful_bytes);
   if (perf)
      out.integer("loop_uncached_bytes_read", extra_end.uncached_bytes - extra_start.uncached_bytes)
         .integer("loop_uncached_read_calls", extra_end.uncached_calls - extra_start.uncached_calls)
         .integer("loop_other_files_bytes_read", extra_end.other_files_bytes - extra_start.other_files_bytes)
         .integer("tree_open_bytes_read", tree_open_bytes);
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
}

}  // namespace

// The timed read of --reading-style rdataframe (this file's head says how it is made comparable); prints its
// "ROOTPARAMS_JSON {...}" line like the GetEntry read.
int timed_read_rdataframe(const std::map<std::string, std::string> &args, const Snapshot &process_start,
                          const char *mode)
{
   const RdfRequest request = RdfRequest::parse(args);
   const auto &[path, tree_name, selection, events, cache_size, threads, learn_entries, columns] = request;

   // Before the RDataFrame is made: it takes its number of slots from the implicit-MT pool at construction.
   if (threads > 1)
      ROOT::EnableImplicitMT(threads);
   RdfPerfStats *perf = args.count("no-perfstats") ? nullptr : new RdfPerfStats(path);
   int perf_threads = 0;
   if (perf) {
      gPerfStats = perf;
      perf_threads = threads > 1 ? install_in_workers(perf, threads) : 1;
   }
   const FileLook look = look_at_file(request, perf);

   auto log = std::make_shared<RdfLogCapture::Seen>();
   ROOT::RLogManager::Get().PushFront(std::make_unique<RdfLogCapture>(log));
   ROOT::RLogScopedVerbosity verbosity(ROOT::Detail::RDF::RDFLogChannel(), ROOT::ELogLevel::kInfo);

   ROOT::RDF::Experimental::RDatasetSpec spec;
   spec.AddSample({"rootparams", tree_name, path});
   spec.WithGlobalRange({0, events});
   // What RDataFrame(spec) does, with a handle kept on the loop manager: single-threaded, the data source's
   // chain is the CacheProbe's way to the tree (RTTreeDS::GetTree).
   auto loop_manager = std::make_shared<ROOT::Detail::RDF::RLoopManager>(std::move(spec));
   ROOT::RDF::RNode df = ROOT::RDF::RInterface<ROOT::Detail::RDF::RLoopManager>(loop_manager);
   auto *source = dynamic_cast<ROOT::Internal::RDF::RTTreeDS *>(loop_manager->GetDataSource());
   const unsigned int slots = loop_manager->GetNSlots();
   Booked booked = book_columns(df, request, look, slots);
   auto count = df.Count();
   // Booked last: at an entry, it looks at the cache after the columns' actions read that entry.
   auto probe = df.Book<>(CacheProbe(slots, source ? source->GetTree() : nullptr), {});
   const long long rss_baseline = current_rss_bytes();

   // The loop span: the one event loop of every booked action, from the trigger to its return.
   const Extra extra_start = Extra::take(perf);
   const Snapshot loop_start = Snapshot::take(perf);
   ULong64_t events_read = 0;
   try {
      events_read = count.GetValue();
   } catch (const std::exception &e) {
      fail(path + ": RDataFrame's event loop over --columns stopped: " + e.what() +
           " (ROOT's messages before this one name the branch)");
   }
   const Snapshot end = Snapshot::take(perf);
   const Extra extra_end = Extra::take(perf);
   if (static_cast<Long64_t>(events_read) != events)
      damaged(path + ": RDataFrame processed " + std::to_string(events_read) + " of the " + std::to_string(events) +
              " entries requested (an entry it could not read is skipped: corrupt basket or I/O error)");

   const CacheSeen &cache = probe.GetValue();
   std::lock_guard<std::mutex> log_lock(log->mutex);  // RDataFrame logs from the loop's thread; it is over
   const RdfLoop loop{loop_start, end, extra_start, extra_end, events_read, rss_baseline};
   report_rdataframe(request, look, booked, cache, *log, loop, perf, mode, perf_threads, slots, process_start);
   return 0;
}

}  // namespace rootparams::read
