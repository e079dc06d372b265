// rootparams-unzipkinds: ROOT's own decompression timed on the baskets of one TTree, group of branches by group,
// at each compression setting asked for (rootparams.unzipkinds groups the branches by content kind).
//
//   rootparams-unzipkinds --file F [--tree T] --plan P --settings S,S,... [--repetitions R] [--min-seconds M]
//                         [--jobs J]
//
//   P: a text file, one branch per line, tab-separated: <index> <name> <group> <share>. index: the branch's
//      position in the tree's branches walked depth first (each branch before its sub-branches, in
//      TTree::GetListOfBranches order: the order rootparams.inspection lists them in); name is checked against it.
//      share (0 < share <= 1): the part of the branch's baskets to load, evenly spaced over the file (basket i is
//      taken where floor((i + 1) share) > floor(i share), i counting the baskets of the group's branches in the
//      plan's order, so that the group's sample is evenly spaced over all of its baskets; a group that would get
//      none takes the middle basket of its branch with the most).
//   S: ROOT's compression settings (100 x algorithm + level; 0 and level 0 are refused: nothing to unzip).
//   R: repetitions of each timing (default 5); M: the least CPU time of one repetition (default 0.01 s): a group
//      whose baskets unzip faster is unzipped that many times over (passes) and its time divided by them.
//   J: threads that compress (default 1); the timings run on the main thread alone, after them.
//
// What it does, in order:
//   1. loads the chosen baskets of each branch (TBranch::GetBasket: ROOT reads and decompresses them) and keeps
//      each basket's object bytes (fObjlen bytes after its key: what TBasket::WriteBuffer compressed);
//   2. for each setting (J settings at a time) compresses every basket as TBasket::WriteBuffer does (R__zipMultipleAlgorithm in blocks
//      of at most kMAXZIPBUF, with the target no larger than the source; a basket whose block does not shrink is
//      stored as it is, and ROOT does not unzip it when reading);
//   3. unzips every compressed basket once and compares the result with the original bytes (a failure stops);
//   4. R times, in rounds (every setting and group once per round), unzips all compressed baskets of a group as
//      TBasket::ReadBasketBuffers does (R__unzip_header, then R__unzip block by block into one output buffer, as
//      a branch reuses its basket buffer), timed with the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) and the
//      wall clock.
//
// Output: one line "ROOTPARAMS_JSON {...}": file, tree, settings, repetitions, min_seconds, branches (per branch:
// index, name, group, baskets_in_file, baskets_loaded, uncompressed_bytes, and file_bytes: the same baskets' bytes in
// the file, keys left out, which at the file's own setting are the compressed bytes made here) and timings (per setting and group:
// baskets, unzip_output_bytes and unzip_input_bytes of the compressed baskets, stored_raw_bytes and
// stored_raw_baskets, passes, cpu_seconds and wall_seconds per pass of each repetition). Errors: a message on
// stderr and exit code 2, or 3 when the file is damaged.
#include "common.h"
#include "read_common.h"

#include <Compression.h>
#include <RZip.h>
#include <TBasket.h>
#include <TBranch.h>
#include <TBuffer.h>
#include <TFile.h>
#include <TObjArray.h>
#include <TTree.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using rootparams::JsonObject;
using rootparams::read::damaged;
using rootparams::read::fail;

namespace {

struct PlanEntry {
   long index = -1;
   std::string name, group;
   double share = 1.0;
};

struct Basket {
   std::vector<char> bytes;  // the object bytes, uncompressed
};

struct LoadedBranch {
   PlanEntry plan;
   long baskets_in_file = 0;
   std::vector<Basket> baskets;
   long long uncompressed_bytes = 0;
   long long file_bytes = 0;  // the loaded baskets' bytes in the file, keys left out (fNbytes - fKeylen)
};

// One basket compressed at one setting: its blocks back to back, or empty where it is stored as it is.
struct Compressed {
   const Basket *original = nullptr;
   std::vector<unsigned char> bytes;
};

double thread_cpu_seconds()
{
   timespec ts{};
   clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
   return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

std::vector<PlanEntry> read_plan(const std::string &path)
{
   std::ifstream in(path);
   if (!in)
      fail("cannot read the plan " + path);
   std::vector<PlanEntry> plan;
   std::string line;
   int number = 0;
   while (std::getline(in, line)) {
      ++number;
      if (line.empty())
         continue;
      std::vector<std::string> cols;
      std::stringstream s(line);
      std::string col;
      while (std::getline(s, col, '\t'))
         cols.push_back(col);
      if (cols.size() != 4)
         fail(path + ":" + std::to_string(number) + ": expected 4 tab-separated columns (index, name, group, share), got " +
              std::to_string(cols.size()));
      PlanEntry e;
      e.index = std::stol(cols[0]);
      e.name = cols[1];
      e.group = cols[2];
      e.share = std::stod(cols[3]);
      if (!(e.share > 0 && e.share <= 1))
         fail(path + ":" + std::to_string(number) + ": share " + cols[3] + " is not in (0, 1]");
      plan.push_back(e);
   }
   if (plan.empty())
      fail(path + ": the plan lists no branch");
   return plan;
}

void walk(TObjArray *branches, std::vector<TBranch *> &out)
{
   for (auto *obj : *branches) {
      auto *b = static_cast<TBranch *>(obj);
      out.push_back(b);
      walk(b->GetListOfBranches(), out);
   }
}

// The baskets of a branch written to the file (its current basket, kept in the TTree object, is not one).
std::vector<int> baskets_on_disk(TBranch *b)
{
   std::vector<int> on_disk;
   for (int i = 0; i < b->GetWriteBasket(); ++i)
      if (b->GetBasketBytes()[i] > 0)
         on_disk.push_back(i);
   return on_disk;
}

// Loads the baskets `chosen` of branch `b`: their object bytes, and their bytes in the file.
LoadedBranch load(TBranch *b, const PlanEntry &plan, const std::vector<int> &chosen, long in_file,
                  const std::string &path)
{
   LoadedBranch out;
   out.plan = plan;
   out.baskets_in_file = in_file;
   for (int i : chosen) {
      TBasket *basket = b->GetBasket(i);
      if (!basket || !basket->GetBufferRef())
         damaged(path + ": basket " + std::to_string(i) + " of branch " + b->GetName() + " cannot be read");
      const int keylen = basket->GetKeylen(), objlen = basket->GetObjlen();
      const char *start = basket->GetBufferRef()->Buffer() + keylen;
      out.baskets.push_back(Basket{std::vector<char>(start, start + objlen)});
      out.uncompressed_bytes += objlen;
      out.file_bytes += basket->GetNbytes() - keylen;
   }
   b->DropBaskets("all");
   return out;
}

// TBasket::WriteBuffer's compression of fObjlen bytes: empty where the basket would be stored as it is.
std::vector<unsigned char> compress(const Basket &basket, int setting)
{
   const int objlen = static_cast<int>(basket.bytes.size());
   const int level = setting % 100;
   const auto algorithm = static_cast<ROOT::RCompressionSetting::EAlgorithm::EValues>(setting / 100);
   const int nbuffers = 1 + (objlen - 1) / kMAXZIPBUF;
   std::vector<unsigned char> out(objlen + 9 * nbuffers + 28);
   int noutot = 0, nzip = 0;
   for (int i = 0; i < nbuffers; ++i) {
      int bufmax = i == nbuffers - 1 ? objlen - nzip : kMAXZIPBUF;
      int nout = 0;
      R__zipMultipleAlgorithm(level, &bufmax, basket.bytes.data() + nzip, &bufmax,
                              reinterpret_cast<char *>(out.data()) + noutot, &nout, algorithm);
      if (nout == 0 || nout >= objlen)
         return {};
      noutot += nout;
      nzip += kMAXZIPBUF;
   }
   out.resize(noutot);
   return out;
}

// TBasket::ReadBasketBuffers' decompression loop; false where the blocks do not add up to objlen.
bool unzip(const std::vector<unsigned char> &in, int objlen, unsigned char *target)
{
   const unsigned char *src = in.data();
   unsigned char *dst = target;
   int noutot = 0;
   while (true) {
      int nin = 0, nbuf = 0, nout = 0;
      if (R__unzip_header(&nin, src, &nbuf) != 0)
         return false;
      R__unzip(&nin, src, &nbuf, dst, &nout);
      if (!nout)
         return false;
      noutot += nout;
      if (noutot >= objlen)
         break;
      src += nin;
      dst += nout;
   }
   return noutot == objlen;
}

std::vector<int> parse_settings(const std::string &text)
{
   std::vector<int> settings;
   std::stringstream s(text);
   std::string item;
   while (std::getline(s, item, ',')) {
      const int setting = std::stoi(item);
      const int algorithm = setting / 100, level = setting % 100;
      if (algorithm < 1 || algorithm >= ROOT::RCompressionSetting::EAlgorithm::kUndefined || level < 1)
         fail("--settings: " + item + " is not a compressing setting (100 x algorithm + level, algorithm 1-" +
              std::to_string(ROOT::RCompressionSetting::EAlgorithm::kUndefined - 1) + ", level 1-9)");
      settings.push_back(setting);
   }
   if (settings.empty())
      fail("--settings: give at least one compression setting, e.g. 101,404,505");
   return settings;
}

std::string numbers(const std::vector<double> &values)
{
   std::vector<std::string> items;
   for (double v : values) {
      std::ostringstream s;
      s.precision(9);
      s << v;
      items.push_back(s.str());
   }
   return rootparams::json_array(items);
}

// 1. The baskets, per group in the plan's order: the plan's branches (checked against the tree's) and the baskets
// chosen of each, loaded. A group's baskets are counted through its branches in the plan's order, and basket k of
// the group is taken where floor((k + 1) share) > floor(k share): evenly spaced over the group, whatever the size of
// each branch. A group that gets none this way (fewer baskets than 1 / share) takes the middle basket of its branch
// with the most. `groups`: the groups in the plan's order.
std::vector<LoadedBranch> load_plan(TTree *tree, const std::vector<PlanEntry> &plan, const std::string &path,
                                    const std::string &tree_name, std::vector<std::string> &groups)
{
   std::vector<TBranch *> all;
   walk(tree->GetListOfBranches(), all);
   std::vector<TBranch *> branch_of;
   std::vector<std::vector<int>> on_disk;
   for (const auto &entry : plan) {
      if (entry.index < 0 || entry.index >= static_cast<long>(all.size()))
         fail(path + ": the plan's branch index " + std::to_string(entry.index) + " (" + entry.name + ") is outside the " +
              std::to_string(all.size()) + " branches of " + tree_name);
      TBranch *b = all[entry.index];
      if (entry.name != b->GetName())
         fail(path + ": branch " + std::to_string(entry.index) + " of " + tree_name + " is '" + b->GetName() +
              "', the plan says '" + entry.name + "' (a plan made for another file?)");
      branch_of.push_back(b);
      on_disk.push_back(baskets_on_disk(b));
      if (std::find(groups.begin(), groups.end(), entry.group) == groups.end())
         groups.push_back(entry.group);
   }
   std::vector<std::vector<int>> chosen(plan.size());
   for (const auto &group : groups) {
      long k = 0;
      size_t taken = 0, most = plan.size();
      for (size_t p = 0; p < plan.size(); ++p) {
         if (plan[p].group != group)
            continue;
         if (most == plan.size() || on_disk[p].size() > on_disk[most].size())
            most = p;
         for (int i : on_disk[p]) {
            if (std::floor((k + 1) * plan[p].share) > std::floor(k * plan[p].share)) {
               chosen[p].push_back(i);
               ++taken;
            }
            ++k;
         }
      }
      if (!taken && most < plan.size() && !on_disk[most].empty())
         chosen[most].push_back(on_disk[most][on_disk[most].size() / 2]);
   }
   std::vector<LoadedBranch> loaded;
   for (size_t p = 0; p < plan.size(); ++p)
      loaded.push_back(load(branch_of[p], plan[p], chosen[p], static_cast<long>(on_disk[p].size()), path));
   return loaded;
}

// Per setting, the groups' compressed baskets, and the bytes and baskets stored as they are (not compressed).
struct CompressedSettings {
   std::vector<std::map<std::string, std::vector<Compressed>>> compressed;  // [setting][group]
   std::vector<std::map<std::string, std::pair<long long, long>>> raw;      // [setting][group]: bytes, baskets
};

// 2-3. Every basket at every setting, checked once; the settings share out over `jobs` threads (the compression
// is not timed, and LZMA-9 takes most of the run), the timings run on the main thread alone, after them.
CompressedSettings compress_all(const std::vector<LoadedBranch> &loaded, const std::vector<int> &settings, int jobs,
                                size_t largest, const std::string &path)
{
   CompressedSettings out;
   out.compressed.resize(settings.size());
   out.raw.resize(settings.size());
   std::vector<std::string> problems(settings.size());
   auto compress_setting = [&](size_t s) {
      std::vector<unsigned char> check(largest);
      for (auto &lb : loaded) {
         for (auto &bk : lb.baskets) {
            if (bk.bytes.empty())
               continue;
            Compressed c{&bk, compress(bk, settings[s])};
            if (c.bytes.empty()) {
               out.raw[s][lb.plan.group].first += static_cast<long long>(bk.bytes.size());
               out.raw[s][lb.plan.group].second += 1;
               continue;
            }
            if (!unzip(c.bytes, static_cast<int>(bk.bytes.size()), check.data()) ||
                std::memcmp(check.data(), bk.bytes.data(), bk.bytes.size()) != 0) {
               problems[s] = path + ": branch " + lb.plan.name + " compressed at setting " +
                             std::to_string(settings[s]) + " does not unzip to its own bytes";
               return;
            }
            out.compressed[s][lb.plan.group].push_back(std::move(c));
         }
      }
   };
   // The slowest first (LZMA, then the higher levels), each thread taking the next setting when it is done.
   std::vector<size_t> order(settings.size());
   for (size_t s = 0; s < order.size(); ++s)
      order[s] = s;
   std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      auto cost = [&](size_t s) { return std::make_pair(settings[s] / 100 != 2, -(settings[s] % 100)); };
      return cost(a) < cost(b);
   });
   std::atomic<size_t> next{0};
   std::vector<std::thread> workers;
   for (int t = 0; t < jobs; ++t)
      workers.emplace_back([&]() {
         for (size_t i = next++; i < order.size(); i = next++)
            compress_setting(order[i]);
      });
   for (auto &w : workers)
      w.join();
   for (auto &problem : problems)
      if (!problem.empty())
         fail(problem);
   return out;
}

// Per setting and group, the passes and each repetition's CPU and wall seconds per pass.
struct Timings {
   std::vector<std::map<std::string, int>> passes;
   std::vector<std::map<std::string, std::vector<double>>> cpu, wall;
};

// 4. The timings: passes per (setting, group) from one untimed pass, then rounds of repetitions, on this thread.
Timings time_unzips(CompressedSettings &c, size_t settings, int repetitions, double min_seconds, size_t largest)
{
   std::vector<unsigned char> target(largest);
   auto unzip_all = [&](const std::vector<Compressed> &baskets) {
      for (auto &b : baskets)
         unzip(b.bytes, static_cast<int>(b.original->bytes.size()), target.data());
   };
   Timings t;
   t.passes.resize(settings);
   for (size_t s = 0; s < settings; ++s)
      for (auto &[group, baskets] : c.compressed[s]) {
         const double t0 = thread_cpu_seconds();
         unzip_all(baskets);
         const double once = thread_cpu_seconds() - t0;
         t.passes[s][group] = once > 0 ? std::max(1, static_cast<int>(std::ceil(min_seconds / once))) : 1000;
      }
   t.cpu.resize(settings);
   t.wall.resize(settings);
   for (int rep = 0; rep < repetitions; ++rep)
      for (size_t s = 0; s < settings; ++s)
         for (auto &[group, baskets] : c.compressed[s]) {
            const int n = t.passes[s][group];
            const double w0 = rootparams::steady_now(), c0 = thread_cpu_seconds();
            for (int p = 0; p < n; ++p)
               unzip_all(baskets);
            const double c1 = thread_cpu_seconds(), w1 = rootparams::steady_now();
            t.cpu[s][group].push_back((c1 - c0) / n);
            t.wall[s][group].push_back((w1 - w0) / n);
         }
   return t;
}

void print_report(const std::string &path, const std::string &tree_name, const std::vector<int> &settings,
                  int repetitions, double min_seconds, const std::vector<LoadedBranch> &loaded,
                  const std::vector<std::string> &groups, CompressedSettings &c, Timings &t)
{
   std::vector<std::string> branch_items, timing_items;
   for (auto &lb : loaded)
      branch_items.push_back(JsonObject()
                                .integer("index", lb.plan.index)
                                .str("name", lb.plan.name)
                                .str("group", lb.plan.group)
                                .num("share", lb.plan.share)
                                .integer("baskets_in_file", lb.baskets_in_file)
                                .integer("baskets_loaded", static_cast<long long>(lb.baskets.size()))
                                .integer("uncompressed_bytes", lb.uncompressed_bytes)
                                .integer("file_bytes", lb.file_bytes)
                                .dump());
   for (size_t s = 0; s < settings.size(); ++s)
      for (auto &group : groups) {
         long long out_bytes = 0, in_bytes = 0;
         const auto &baskets = c.compressed[s][group];
         for (auto &b : baskets) {
            out_bytes += static_cast<long long>(b.original->bytes.size());
            in_bytes += static_cast<long long>(b.bytes.size());
         }
         JsonObject timing;
         timing.integer("setting", settings[s])
            .str("group", group)
            .integer("baskets", static_cast<long long>(baskets.size()))
            .integer("unzip_output_bytes", out_bytes)
            .integer("unzip_input_bytes", in_bytes)
            .integer("stored_raw_bytes", c.raw[s][group].first)
            .integer("stored_raw_baskets", c.raw[s][group].second)
            .integer("passes", t.passes[s].count(group) ? t.passes[s][group] : 0)
            .raw("cpu_seconds", numbers(t.cpu[s][group]))
            .raw("wall_seconds", numbers(t.wall[s][group]));
         timing_items.push_back(timing.dump());
      }
   std::vector<std::string> setting_items;
   for (int s : settings)
      setting_items.push_back(std::to_string(s));
   JsonObject out;
   out.str("file", path)
      .str("tree", tree_name)
      .raw("settings", rootparams::json_array(setting_items))
      .integer("repetitions", repetitions)
      .num("min_seconds", min_seconds)
      .str("clock", "CLOCK_THREAD_CPUTIME_ID")
      .raw("branches", rootparams::json_array(branch_items))
      .raw("timings", rootparams::json_array(timing_items));
   std::cout << "ROOTPARAMS_JSON " << out.dump() << std::endl;
}

int run(const std::map<std::string, std::string> &args)
{
   const std::string path = rootparams::required_arg(args, "file");
   const std::string tree_name = rootparams::tree_name_arg(args);
   const auto plan = read_plan(rootparams::required_arg(args, "plan"));
   const auto settings = parse_settings(rootparams::required_arg(args, "settings"));
   const int repetitions = args.count("repetitions") ? std::stoi(args.at("repetitions")) : 5;
   const double min_seconds = args.count("min-seconds") ? std::stod(args.at("min-seconds")) : 0.01;
   const int jobs = args.count("jobs") ? std::stoi(args.at("jobs")) : 1;
   if (repetitions < 1)
      fail("--repetitions must be at least 1");
   if (jobs < 1)
      fail("--jobs must be at least 1");

   auto [file, tree] = rootparams::read::open_tree(path, tree_name);
   std::vector<std::string> groups;
   const auto loaded = load_plan(tree, plan, path, tree_name, groups);
   size_t largest = 1;
   for (auto &lb : loaded)
      for (auto &bk : lb.baskets)
         largest = std::max(largest, bk.bytes.size());
   auto compressed = compress_all(loaded, settings, jobs, largest, path);
   auto timings = time_unzips(compressed, settings.size(), repetitions, min_seconds, largest);
   print_report(path, tree_name, settings, repetitions, min_seconds, loaded, groups, compressed, timings);
   return 0;
}

}  // namespace

int main(int argc, char **argv)
{
   try {
      return run(rootparams::parse_args(argc, argv));
   } catch (const rootparams::read::DamagedFile &e) {
      std::cerr << "rootparams-unzipkinds: error: " << e.what() << std::endl;
      return rootparams::read::kExitDamagedFile;
   } catch (const std::exception &e) {
      std::cerr << "rootparams-unzipkinds: error: " << e.what() << std::endl;
      return rootparams::read::kExitError;
   }
}
