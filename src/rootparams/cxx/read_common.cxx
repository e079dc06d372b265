// rootparams-read's shared ground (read_common.h): failing with exit code 2 or 3, and opening the file under
// test, with ROOT's fatal errors turned into "damaged file" while it is open.
#include "read_common.h"

#include <TError.h>
#include <TFile.h>
#include <TKey.h>
#include <TTree.h>

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace rootparams::read {

[[noreturn]] void fail(const std::string &msg)
{
   throw std::runtime_error(msg);
}

[[noreturn]] void damaged(const std::string &msg)
{
   throw DamagedFile(msg);
}

namespace {

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

}  // namespace

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

}  // namespace rootparams::read
