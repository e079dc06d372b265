// What the two rewriters share (rootparams-rewrite, ROOT's slow clone; rootparams-recompress, the baskets
// recompressed as they are): argument checks, opening the source, crash signals, the branch tree, and the copy of
// the source's streamer info records (see rewrite_tree.cxx's header comment for why every record is copied).
#pragma once

#include "common.h"

#include <TArrayC.h>
#include <TBranch.h>
#include <TClass.h>
#include <TClassEdit.h>
#include <TFile.h>
#include <TKey.h>
#include <TList.h>
#include <TObjArray.h>
#include <TROOT.h>
#include <TStreamerInfo.h>
#include <TSystem.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <sys/stat.h>
#include <tuple>
#include <vector>

namespace rootparams {

[[noreturn]] inline void fail(const std::string &msg)
{
   throw std::runtime_error(msg);
}

inline long long integer_arg(const std::map<std::string, std::string> &args, const char *key)
{
   const std::string &v = required_arg(args, key);
   size_t used = 0;
   long long x = 0;
   try {
      x = std::stoll(v, &used);
   } catch (const std::exception &) {
      used = 0;
   }
   if (used == 0 || used != v.size())
      fail(std::string("--") + key + " '" + v + "' is not an integer");
   return x;
}

// ROOT's setting: 0 (uncompressed) or 100 * algorithm + level, algorithm 1 ZLIB, 2 LZMA, 4 LZ4, 5 ZSTD, level 1-9.
inline int compression_arg(const std::map<std::string, std::string> &args)
{
   const long long s = integer_arg(args, "compression");
   const long long alg = s / 100, level = s % 100;
   if (s != 0 && !(s > 0 && (alg == 1 || alg == 2 || alg == 4 || alg == 5) && level >= 1 && level <= 9))
      fail("--compression " + std::to_string(s) +
           ": must be 0 (uncompressed) or 100*algorithm+level with algorithm 1 (ZLIB), 2 (LZMA), 4 (LZ4) or "
           "5 (ZSTD) and level 1-9, e.g. 101, 207, 404, 505");
   return static_cast<int>(s);
}

// The names and classes of the source's top-level keys, for an error that says what is there.
inline std::string key_list(TFile *file)
{
   std::string out;
   for (auto *obj : *file->GetListOfKeys()) {
      auto *key = static_cast<TKey *>(obj);
      out += (out.empty() ? "" : ", ") + std::string(key->GetName()) + " (" + key->GetClassName() + ")";
   }
   return out.empty() ? "(none)" : out;
}

inline std::unique_ptr<TFile> open_source(const std::string &path)
{
   struct stat st{};
   if (stat(path.c_str(), &st) != 0)
      fail(path + ": no such file");
   if (!S_ISREG(st.st_mode))
      fail(path + ": not a regular file");
   std::unique_ptr<TFile> file(TFile::Open(path.c_str(), "READ"));
   if (!file || file->IsZombie())
      fail(path + ": cannot be opened as a ROOT file (not ROOT, truncated or unreadable)");
   return file;
}

inline bool is_ntuple(TFile *file, const std::string &name)
{
   auto *key = file->GetKey(name.c_str());
   return key && std::string(key->GetClassName()) == "ROOT::RNTuple";
}


inline void check_output(const std::string &input, const std::string &output)
{
   char *in_real = realpath(input.c_str(), nullptr);
   char *out_real = realpath(output.c_str(), nullptr);
   const bool same = in_real && out_real && std::strcmp(in_real, out_real) == 0;
   std::free(in_real);
   std::free(out_real);
   if (same)
      fail("--output " + output + " is the source file itself: the source is never overwritten");
}

// Crashes kill the process with the real signal, fast (ROOT's handlers would run gdb for a stack trace).
inline void default_crash_signals()
{
   for (auto sig : {kSigBus, kSigSegmentationViolation, kSigIllegalInstruction, kSigFloatingException})
      gSystem->ResetSignal(sig, true);
   for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
      std::signal(sig, SIG_DFL);
}

inline std::vector<TBranch *> all_branches(TObjArray *list)
{
   std::vector<TBranch *> out;
   for (auto *obj : *list) {
      auto *b = static_cast<TBranch *>(obj);
      out.push_back(b);
      for (auto *sub : all_branches(b->GetListOfBranches()))
         out.push_back(sub);
   }
   return out;
}


// A streamer info record as the file's StreamerInfo list holds it: class name, class version and checksum.
struct InfoRecord {
   std::string name;
   int version = 0;
   unsigned checksum = 0;
   bool operator<(const InfoRecord &o) const
   {
      return std::tie(name, version, checksum) < std::tie(o.name, o.version, o.checksum);
   }
   std::string text() const
   {
      char sum[16];
      std::snprintf(sum, sizeof sum, "%08x", checksum);
      return name + " (version " + std::to_string(version) + ", checksum 0x" + sum + ")";
   }
};

// The records of a file's StreamerInfo list (the I/O rules list beside them left out).
inline std::set<InfoRecord> info_records(TFile *file)
{
   std::set<InfoRecord> out;
   std::unique_ptr<TList> list(file->GetStreamerInfoList());
   if (!list)
      return out;
   for (auto *obj : *list)
      if (auto *info = dynamic_cast<TStreamerInfo *>(obj))
         out.insert({info->GetName(), info->GetClassVersion(), info->GetCheckSum()});
   return out;
}

// Mark every streamer info record of `in` for writing into `out` (see the header comment): the registered
// TStreamerInfo of the same class and checksum, which ROOT made when it opened `in`. Returns the records it
// could not find registered (none expected).
inline std::vector<std::string> copy_streamer_infos(TFile *in, TFile *out)
{
   std::vector<std::string> not_found;
   TArrayC *index = out->GetClassIndex();
   for (const auto &record : info_records(in)) {
      TClass *cl = TClass::GetClass(record.name.c_str(), false, true);
      TVirtualStreamerInfo *info = cl ? cl->FindStreamerInfo(record.checksum) : nullptr;
      const Int_t number = info ? info->GetNumber() : -1;
      if (number < 0 || !index) {
         not_found.push_back(record.text());
         continue;
      }
      if (number >= index->GetSize())
         index->Set(number + 1);  // keeps the marks made so far
      index->fArray[number] = 1;
      index->fArray[0] = 1;  // "new records to write": TFile::WriteStreamerInfo writes the list again at Close
   }
   return not_found;
}

// The records of the source the written file lacks, read back from it.
inline std::vector<std::string> missing_streamer_infos(const std::set<InfoRecord> &source, const std::string &path)
{
   std::unique_ptr<TFile> written(TFile::Open(path.c_str(), "READ"));
   if (!written || written->IsZombie())
      fail("cannot open " + path + " again to compare its streamer infos with the source's");
   // By class and checksum: ROOT writes its own record of a class it has a dictionary for, which may carry a
   // newer class version for the same layout (TAttMarker 3 for a source's TAttMarker 2, one checksum).
   std::set<std::pair<std::string, unsigned>> have;
   for (const auto &record : info_records(written.get()))
      have.emplace(record.name, record.checksum);
   // Left out: STL collections (vector<int>, vector<vector<float> >, ...), whose layout ROOT knows without a record
   // and writes only where it needs one (not those of an older file's spelling); and classes this process has a
   // dictionary for (ROOT's own, such as an older ROOT's TBranchElement or a TBranchRef no branch uses): every
   // reader brings its own dictionary for them, and ROOT registers no record of another checksum for such a class,
   // so none could be copied. What the check is for are the classes without a dictionary (an experiment's), whose
   // records are all a reader has.
   std::vector<std::string> missing;
   for (const auto &record : source) {
      if (have.count({record.name, record.checksum}) || TClassEdit::IsSTLCont(record.name) != ROOT::kNotSTL)
         continue;
      TClass *cl = TClass::GetClass(record.name.c_str(), false, true);
      if (cl && cl->HasDictionary())
         continue;
      missing.push_back(record.text());
   }
   return missing;
}

}  // namespace rootparams
