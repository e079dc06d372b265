// rootparams-read's shared ground: how a read fails (exit code 2, or 3 for a damaged file), how the file under
// test is opened (a TFile, its TTree, the keys it holds for messages), and what every timed read is asked
// (ReadRequest). Every unit of the reader includes it; main and the fork server are in read_collection_tree.cxx.
#pragma once

#include "common.h"

#include <RtypesCore.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

class TFile;
class TTree;

namespace rootparams::read {

[[noreturn]] void fail(const std::string &msg);

// The file under test is not a sound ROOT file with our tree: exit code 3, so that the harness can tell a
// damaged file (which it removes, to be written again) from any other failure without matching text.
struct DamagedFile : std::runtime_error {
   using std::runtime_error::runtime_error;
};
constexpr int kExitError = 2;
constexpr int kExitDamagedFile = 3;

[[noreturn]] void damaged(const std::string &msg);

// "name (class), ...": what a file holds, for error messages.
std::string key_list(TFile *file);

bool has_ntuple(TFile *file, const std::string &name);

// The file, or exit code 3 (damaged) if ROOT cannot open it or had to recover it; from here on a fatal ROOT error
// while it is read is reported as a damaged file naming it (read_common.cxx, fatal_means_damaged).
std::unique_ptr<TFile> open_root_file(const std::string &path);

// The file and its TTree `tree_name`; a file without that tree is damaged too (the message lists what it holds).
std::pair<std::unique_ptr<TFile>, TTree *> open_tree(const std::string &path, const std::string &tree_name);

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

}  // namespace rootparams::read
