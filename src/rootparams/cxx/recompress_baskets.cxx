// rootparams-recompress: a user's own TTree or RNTuple at another compression setting, on its own bytes, without
// any of its classes' dictionaries; optionally tiled (its clusters repeated) to make a short file long enough to
// time.
//
//   rootparams-recompress --input SRC --tree NAME --output OUT --compression S|keep [--copies N] [--no-verify]
//
// S is ROOT's compression setting (100 * algorithm + level; 0 = uncompressed), or "keep": every basket (page)
// copied as it is, as ROOT's fast clone copies it. N (default 1) is how many times the whole tree is written one
// after the other: entries 0..E-1 of the source become entries kE..kE+E-1 of copy k.
//
// Why this works without dictionaries: ROOT compresses every basket of a TTree (every page of an RNTuple) on its
// own, from a byte buffer. Changing the algorithm or level means decompressing that buffer and compressing it
// again; no object is ever unstreamed, so no class is needed. ROOT's own tools cannot do it for such files: a
// slow clone (TTree::CloneTree(-1, ""), `hadd -f<N>`, rootparams-rewrite) re-streams every entry and crashes on
// emulated ATLAS classes, and a fast clone (TTreeCloner) copies the compressed bytes as they are.
//
// TTree. The output tree is TTree::CloneTree(0) of the source (the same branches, classes, split levels, basket
// sizes, AutoFlush: ROOT makes that copy from the tree's metadata alone, as `rootparams-rewrite --diagnose` relies
// on). Then, branch by branch and basket by basket, in the order the baskets lie in the source file (as
// TTreeCloner's default, kSortBasketsByOffset, so that the output's layout on disk is the source's):
//   * a basket on disk is read as it is (TBasket::LoadBasketBuffers: its key and compressed payload), its payload
//     decompressed (R__unzip, block by block as TBasket::ReadBasketBuffers does) and compressed again at S exactly as
//     TBasket::WriteBuffer does (blocks of at most kMAXZIPBUF, R__zipMultipleAlgorithm; stored uncompressed when
//     compression does not make it smaller), and written with its own key header (TKey::Create at the end of the
//     new file; fNbytes and fSeekKey updated), then registered in the new branch (TBranch::AddBasket, as TTreeCloner
//     does: fBasketSeek, fBasketBytes, fBasketEntry, the branch's and the tree's byte counts);
//   * a basket kept in memory (inside the TTree object: small files written without a final flush) is serialized as
//     TBasket::WriteBuffer would (its data, then its entry offsets and displacements) and written the same way, as a
//     basket of its own on disk.
// Every basket keeps its entries, its offsets and its uncompressed bytes: only the compression changes (and, with
// copies, the entry numbers it starts at). The cluster boundaries are the source's, repeated per copy (the tree's
// cluster ranges are set explicitly where AutoFlush alone would not give them). The other records of the source are
// kept as rootparams-rewrite keeps them: every streamer info record (rewrite_common.h, copy_streamer_infos).
// Other top-level objects of the source (metadata trees, histograms) are not copied: a scan reads the tree.
//
// RNTuple. The output's schema is the source's descriptor, unchanged (RPagePersistentSink::InitFromDescriptor, no
// model built from dictionaries); then cluster by cluster, column by column, every sealed page is loaded
// (RPageSource::LoadSealedPage), decompressed to its packed on-disk bytes (RNTupleDecompressor) and compressed again
// (RNTupleCompressor; checksum recomputed) and committed (CommitSealedPage), the cluster committed with the source's
// entries. Pages keep their boundaries and element counts.
//
// Verification (unless --no-verify), after the new file is closed, through ROOT's own reading code, not this
// tool's: every basket of the new file is read back (TBasket::ReadBasketBuffers, which decompresses it and parses
// its entry offsets) and compared with the source's basket it came from (read the same way, or taken from memory):
// the same number of entries, the same data bytes, the same entry offsets. The JSON reports how many were compared,
// a checksum of all uncompressed bytes (the same for the source and each copy), and the first mismatches. An RNTuple's
// pages are compared likewise (decompressed bytes of each page, source against copy).
//
// On success one line "ROOTPARAMS_JSON {...}"; errors: a message naming the file on stderr, exit code 2; a verification
// that fails: exit code 3 (the JSON is printed first).
#include "rewrite_common.h"

#include <RZip.h>
#include <TBasket.h>
#include <TBranchElement.h>
#include <TBranchRef.h>
#include <TBufferFile.h>
#include <TDirectory.h>
#include <TError.h>
#include <TLeaf.h>
#include <TTree.h>

#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleSerialize.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RNTupleZip.hxx>
#include <ROOT/RPageStorage.hxx>
#include <ROOT/RPageStorageFile.hxx>

#include <algorithm>
#include <deque>
#include <iostream>
#include <map>
#include <numeric>

using namespace rootparams;

namespace {

// FNV-1a, 64 bits: a checksum of uncompressed bytes that any reader can recompute (no library needed).
struct Checksum {
   std::uint64_t value = 1469598103934665603ULL;
   void add(const void *data, std::size_t n)
   {
      const auto *p = static_cast<const unsigned char *>(data);
      for (std::size_t i = 0; i < n; ++i) {
         value ^= p[i];
         value *= 1099511628211ULL;
      }
   }
   template <typename T>
   void add_value(T v) { add(&v, sizeof v); }
   std::string hex() const
   {
      char s[20];
      std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(value));
      return s;
   }
};

// ROOT's compression of one buffer, as TBasket::WriteBuffer does it: blocks of at most kMAXZIPBUF bytes, each
// compressed alone; if a block does not shrink (or compression is off), the whole buffer is stored as it is.
// Returns the bytes to store after the key header; `compressed` says which.
std::vector<char> root_zip(const char *raw, Int_t objlen, int setting, bool &compressed)
{
   const int level = setting % 100, algorithm = setting / 100;
   compressed = false;
   if (level > 0 && objlen > 0) {
      const Int_t nbuffers = 1 + (objlen - 1) / kMAXZIPBUF;
      std::vector<char> out(static_cast<std::size_t>(objlen) + 9 * nbuffers + 28);
      const char *objbuf = raw;
      char *bufcur = out.data();
      Int_t noutot = 0, nzip = 0;
      bool ok = true;
      for (Int_t i = 0; i < nbuffers; ++i) {
         Int_t bufmax = (i == nbuffers - 1) ? objlen - nzip : kMAXZIPBUF;
         Int_t nout = 0;
         R__zipMultipleAlgorithm(level, &bufmax, objbuf, &bufmax, bufcur, &nout,
                                 static_cast<ROOT::RCompressionSetting::EAlgorithm::EValues>(algorithm));
         if (nout == 0 || nout >= objlen) {  // WriteBuffer's test: not smaller, store it uncompressed
            ok = false;
            break;
         }
         bufcur += nout;
         noutot += nout;
         objbuf += kMAXZIPBUF;
         nzip += kMAXZIPBUF;
      }
      if (ok) {
         out.resize(noutot);
         compressed = true;
         return out;
      }
   }
   return std::vector<char>(raw, raw + objlen);
}

// ROOT's decompression of a stored basket payload (TBasket::ReadBasketBuffers): stored uncompressed when the key's
// payload is as long as the object, else a sequence of compressed blocks.
std::vector<char> root_unzip(const char *payload, Int_t nbytes, Int_t objlen, const std::string &where)
{
   std::vector<char> out(objlen);
   if (nbytes == objlen) {
      std::memcpy(out.data(), payload, objlen);
      return out;
   }
   const auto *src = reinterpret_cast<const unsigned char *>(payload);
   auto *dst = reinterpret_cast<unsigned char *>(out.data());
   Int_t noutot = 0, nintot = 0;
   while (noutot < objlen) {
      Int_t nin = 0, nbuf = 0;
      if (nintot >= nbytes || R__unzip_header(&nin, src, &nbuf) != 0)
         fail(where + ": a compressed block's header is inconsistent (after " + std::to_string(noutot) + " of " +
              std::to_string(objlen) + " bytes)");
      Int_t nout = 0;
      R__unzip(&nin, src, &nbuf, dst, &nout);
      if (nout <= 0)
         fail(where + ": a compressed block could not be decompressed");
      noutot += nout;
      nintot += nin;
      src += nin;
      dst += nout;
   }
   if (noutot != objlen)
      fail(where + ": decompressed to " + std::to_string(noutot) + " bytes, the key says " + std::to_string(objlen));
   return out;
}

// A basket handled as bytes: a key header (TKey + TBasket header: entries, offsets' length, last byte) and a
// payload. Derived from TBasket for access to the key's fields and to TKey::Create/WriteFileKeepBuffer, which
// TBasket::CopyTo uses as this does.
class RawBasket : public TBasket {
public:
   RawBasket() = default;

   // The key as it is on disk (header and compressed payload), TTreeCloner's way; its payload decompressed only
   // when it is to be compressed again (a later copy reuses the first copy's bytes).
   void load(Long64_t seek, Int_t nbytes, TFile *file, TTree *tree, const std::string &where, bool unzip)
   {
      if (LoadBasketBuffers(seek, nbytes, file, tree) != 0)
         fail(where + ": reading the basket at byte " + std::to_string(seek) + " failed");
      if (fNbytes != nbytes || fKeylen <= 0 || fKeylen > nbytes)
         fail(where + ": the basket at byte " + std::to_string(seek) + " has an inconsistent key (" +
              std::to_string(fNbytes) + " bytes, header " + std::to_string(fKeylen) + ", expected " +
              std::to_string(nbytes) + ")");
      fFromDisk = true;
      fPayload.clear();
      if (unzip)
         fPayload = root_unzip(fBufferRef->Buffer() + fKeylen, fNbytes - fKeylen, fObjlen, where);
   }

   // A basket kept in memory (its TBasket object, read with the TTree): its key header streamed as it is, its
   // payload serialized as TBasket::WriteBuffer would (data, then entry offsets and displacements).
   void load_memory(TBasket *m, const std::string &where)
   {
      TBufferFile header(TBuffer::kWrite, 256);
      bool TBasket::*header_only = &RawBasket::fHeaderOnly;
      m->*header_only = true;
      m->Streamer(header);
      m->*header_only = false;
      const Int_t keylen = m->GetKeylen(), last = m->GetLast(), nev = m->GetNevBuf();
      if (header.Length() != keylen)
         fail(where + ": the basket kept in memory has a header of " + std::to_string(header.Length()) +
              " bytes, its key says " + std::to_string(keylen));
      if (!m->GetBufferRef() || last < keylen)
         fail(where + ": the basket kept in memory holds no data buffer");
      TBufferFile body(TBuffer::kWrite, std::max(256, last + 8 * (nev + 2) + 16));
      body.WriteFastArray(m->GetBufferRef()->Buffer() + keylen, last - keylen);
      if (Int_t *offsets = m->GetEntryOffset()) {
         std::vector<Int_t> o(offsets, offsets + nev);
         o.push_back(0);  // fEntryOffset[fNevBuf], as a freshly filled basket has it
         body.WriteArray(o.data(), nev + 1);
         if (Int_t *disp = m->GetDisplacement()) {
            std::vector<Int_t> d(disp, disp + nev);
            d.push_back(0);
            body.WriteArray(d.data(), nev + 1);
         }
      }
      // Read the header back into this object, as LoadBasketBuffers does; the payload is the serialized body.
      delete fBufferRef;
      fBufferRef = new TBufferFile(TBuffer::kRead, keylen + body.Length() + 8);
      std::memcpy(fBufferRef->Buffer(), header.Buffer(), keylen);
      fBufferRef->SetBufferOffset(0);
      fHeaderOnly = true;
      Streamer(*fBufferRef);
      fHeaderOnly = false;
      fPayload.assign(body.Buffer(), body.Buffer() + body.Length());
      fObjlen = static_cast<Int_t>(fPayload.size());
      fLast = last;
      fFromDisk = false;
   }

   // The bytes to store after the key header: the payload compressed at `setting`, or, with `keep`, a basket's
   // bytes as they were on disk (a basket kept in memory is compressed at `setting`, its branch's own).
   std::vector<char> stored(int setting, bool keep, const std::string &where, bool &compressed)
   {
      if (keep && fFromDisk) {
         compressed = fNbytes - fKeylen != fObjlen;
         return std::vector<char>(fBufferRef->Buffer() + fKeylen, fBufferRef->Buffer() + fNbytes);
      }
      if (fPayload.empty() && fObjlen > 0)
         fPayload = root_unzip(fBufferRef->Buffer() + fKeylen, fNbytes - fKeylen, fObjlen, where);
      return root_zip(fPayload.data(), fObjlen, setting, compressed);
   }

   // Append this key, with `bytes` after its header, to `out`; returns the key's bytes on disk.
   Int_t write(TFile *out, const std::vector<char> &bytes, const std::string &where)
   {
      const Int_t keylen = fKeylen;
      auto *image = new TBufferFile(TBuffer::kWrite, keylen + static_cast<Int_t>(bytes.size()) + 8);
      std::memcpy(image->Buffer() + keylen, bytes.data(), bytes.size());
      delete fBufferRef;
      fBufferRef = image;
      fBuffer = fBufferRef->Buffer();
      // TBasket::CopyTo's steps: space at the end of the file (TKey::Create sets fSeekKey and fNbytes), the header
      // streamed again with them, and the whole key written.
      Create(static_cast<Int_t>(bytes.size()), out);
      fBufferRef->SetBufferOffset(0);
      fHeaderOnly = true;
      Streamer(*fBufferRef);
      fHeaderOnly = false;
      if (fBufferRef->Length() != keylen)
         fail(where + ": the key header grew from " + std::to_string(keylen) + " to " +
              std::to_string(fBufferRef->Length()) + " bytes (a file beyond 2 GB?); write fewer copies");
      if (WriteFileKeepBuffer(out) <= 0)
         fail("writing a basket of " + where + " failed (disk full or I/O error?)");
      fFromDisk = false;  // fBufferRef now holds what was written, not a key loaded from disk
      return fNbytes;
   }

private:
   std::vector<char> fPayload;  // uncompressed: data, entry offsets, displacements
   bool fFromDisk = false;      // fBufferRef holds the key as loaded from disk
};

// A key's stored bytes (after its header) as they are on disk, hashed: how a later copy's basket is compared with
// the first copy's without decompressing it (the tool writes the first copy's bytes again).
std::uint64_t stored_checksum(TBranch *b, Int_t i, TFile *file)
{
   const Int_t n = b->GetBasketBytes()[i];
   std::vector<char> raw(n);
   if (file->ReadBuffer(raw.data(), b->GetBasketSeek(i), n))
      fail(std::string(file->GetName()) + ": branch " + b->GetName() + ", basket " + std::to_string(i) +
           " cannot be read");
   // The key header's length (TKey: bytes 14-15, big-endian) separates it from the stored bytes.
   const int keylen = (static_cast<unsigned char>(raw[14]) << 8) | static_cast<unsigned char>(raw[15]);
   Checksum c;
   if (keylen < n)
      c.add(raw.data() + keylen, n - keylen);
   return c.value;
}

// --- TTree ------------------------------------------------------------------------------------------------------

TTree *source_tree(TFile *file, const std::string &path, const std::string &name)
{
   auto *tree = file->Get<TTree>(name.c_str());
   if (!tree)
      fail(path + ": has no TTree named '" + name + "'; its top-level keys are: " + key_list(file));
   return tree;
}

// An empty tree with the source's branches: TTree::CloneTree(0) without its last step, CopyAddresses, which makes
// an object for every branch (and aborts on a TClonesArray of classes without a dictionary: "Unsupported value type"
// in TEmulatedCollectionProxy). Only metadata is copied: the tree object streamed and read back (TObject::Clone),
// emptied (TTree::Reset).
TTree *empty_copy(TTree *tree)
{
   tree->LoadTree(0);
   auto *copy = static_cast<TTree *>(tree->Clone());
   if (!copy)
      return nullptr;
   for (auto *b : all_branches(copy->GetListOfBranches()))
      if (auto *element = dynamic_cast<TBranchElement *>(b))
         element->ResetDeleteObject();  // the copy owns no object of the source's
   copy->Reset();
   return copy;
}

// The tree's branches in a fixed order (top-level first, depth first), its TRef table's branch last.
std::vector<TBranch *> tree_branches(TTree *tree)
{
   auto out = all_branches(tree->GetListOfBranches());
   if (auto *ref = tree->GetBranchRef())
      out.push_back(ref);
   return out;
}

// The source's cluster boundaries: the first entry of every cluster, and the number of entries.
std::vector<Long64_t> cluster_starts(TTree *tree)
{
   std::vector<Long64_t> starts;
   const Long64_t n = tree->GetEntries();
   auto it = tree->GetClusterIterator(0);
   for (Long64_t start = it(); start < n; start = it())
      starts.push_back(start);
   return starts;
}

// TTree's cluster ranges (protected members; TTreeCloner is a friend, this is not), reached the one legal way: a
// pointer to member named through a derived class.
struct TreeClusters : TTree {
   static void set(TTree *t, const std::vector<Long64_t> &starts, Long64_t entries)
   {
      // Consecutive clusters of one size form one range: (last entry of the range, cluster size).
      std::vector<std::pair<Long64_t, Long64_t>> ranges;
      for (std::size_t i = 0; i < starts.size(); ++i) {
         const Long64_t end = i + 1 < starts.size() ? starts[i + 1] : entries;
         const Long64_t size = end - starts[i];
         if (!ranges.empty() && ranges.back().second == size && ranges.back().first + 1 == starts[i])
            ranges.back().first = end - 1;
         else
            ranges.emplace_back(end - 1, size);
      }
      Int_t TTree::*n = &TreeClusters::fNClusterRange;
      Int_t TTree::*max = &TreeClusters::fMaxClusterRange;
      Long64_t *TTree::*ends = &TreeClusters::fClusterRangeEnd;
      Long64_t *TTree::*sizes = &TreeClusters::fClusterSize;
      delete[](t->*ends);
      delete[](t->*sizes);
      const Int_t count = static_cast<Int_t>(ranges.size());
      t->*ends = new Long64_t[std::max(count, 1)];
      t->*sizes = new Long64_t[std::max(count, 1)];
      for (Int_t i = 0; i < count; ++i) {
         (t->*ends)[i] = ranges[i].first;
         (t->*sizes)[i] = ranges[i].second;
      }
      t->*n = count;
      t->*max = std::max(count, 1);
   }
};

struct BasketRef {
   std::size_t branch;  // index into the branch list
   Int_t basket;        // index among the branch's baskets
   Long64_t seek;       // 0: kept in memory
};

// A basket's content as ROOT reads it: entries, data bytes, entry offsets relative to the data's start.
std::uint64_t content_checksum(TBasket *b, Checksum *total)
{
   Checksum c;
   const Int_t keylen = b->GetKeylen(), last = b->GetLast(), nev = b->GetNevBuf();
   c.add_value(nev);
   const char *data = b->GetBufferRef() ? b->GetBufferRef()->Buffer() + keylen : nullptr;
   if (data && last > keylen) {
      c.add(data, last - keylen);
      if (total)
         total->add(data, last - keylen);
   }
   if (Int_t *o = b->GetEntryOffset())
      for (Int_t i = 0; i < nev; ++i)
         c.add_value(o[i] - keylen);
   return c.value;
}

// Per branch, every basket in entry order: its content checksum as ROOT reads it (TBasket::ReadBasketBuffers, which
// decompresses it and parses its entry offsets), and, for a file of several copies, its stored bytes' checksum. The
// content is read for the first and the last copy; a copy between them is compared by its stored bytes with the
// first copy's (it holds the same bytes), which costs no decompression.
struct BranchContents {
   std::vector<std::uint64_t> content;  // 0 where not read (a middle copy)
   std::vector<std::uint64_t> stored;   // only with copies > 1
};

std::vector<BranchContents> tree_contents(TTree *tree, Checksum *total, int copies = 1)
{
   std::vector<BranchContents> out;
   TFile *file = tree->GetCurrentFile();
   for (auto *b : tree_branches(tree)) {
      BranchContents sums;
      const Int_t n = b->GetWriteBasket(), per_copy = n / std::max(copies, 1);
      for (Int_t i = 0; i < n; ++i) {
         if (b->GetBasketSeek(i) == 0) {
            sums.content.push_back(content_checksum(b->GetBasket(i), total));
            continue;
         }
         if (copies > 1)
            sums.stored.push_back(stored_checksum(b, i, file));
         if (copies > 1 && i >= per_copy && i < n - per_copy) {
            sums.content.push_back(0);
            continue;
         }
         TBasket basket(b->GetName(), tree->GetName(), b);
         if (basket.ReadBasketBuffers(b->GetBasketSeek(i), b->GetBasketBytes()[i], file) != 0)
            fail(std::string(file->GetName()) + ": branch " + b->GetName() + ", basket " + std::to_string(i) +
                 " cannot be read back");
         sums.content.push_back(content_checksum(&basket, total));
      }
      if (b->GetListOfBaskets()->GetEntries())
         if (TBasket *m = b->GetBasket(b->GetWriteBasket()); m && m->GetNevBuf() > 0)
            sums.content.push_back(content_checksum(m, total));
      out.push_back(std::move(sums));
   }
   return out;
}

struct Totals {
   long long baskets = 0, stored_uncompressed = 0, memory_baskets = 0;
   double zip_cpu_seconds = 0;  // decompressing and compressing the first copy (the others reuse its bytes)
};

void copy_tree_baskets(TTree *tree, TTree *clone, TFile *out, int setting, bool keep, int copies, Totals &totals)
{
   const auto from = tree_branches(tree), to = tree_branches(clone);
   if (from.size() != to.size())
      fail("the new tree has " + std::to_string(to.size()) + " branches, the source " + std::to_string(from.size()));
   std::vector<BasketRef> order;
   for (std::size_t i = 0; i < from.size(); ++i) {
      if (std::string(from[i]->GetName()) != to[i]->GetName())
         fail(std::string("branch order differs: ") + from[i]->GetName() + " against " + to[i]->GetName());
      for (Int_t b = 0; b < from[i]->GetWriteBasket(); ++b)
         order.push_back({i, b, from[i]->GetBasketSeek(b)});
   }
   // The source's order on disk (TTreeCloner's kSortBasketsByOffset); a branch's own baskets stay in entry order.
   std::stable_sort(order.begin(), order.end(), [](const BasketRef &a, const BasketRef &b) { return a.seek < b.seek; });
   TFile *in = tree->GetCurrentFile();
   const Long64_t entries = tree->GetEntries();
   RawBasket basket;
   // The first copy's stored bytes, in the order they are written: a later copy writes them again (a basket is
   // compressed alone, so its bytes do not depend on where it lies), so N copies cost one recompression.
   std::vector<std::pair<std::vector<char>, bool>> first_copy;
   for (int copy = 0; copy < copies; ++copy) {
      const Long64_t shift = copy * entries;
      std::size_t position = 0;
      auto add = [&](std::size_t i, Long64_t first_entry) {
         const std::string where = std::string(in->GetName()) + ", branch " + from[i]->GetName();
         if (copy == 0) {
            bool compressed = false;
            const double cpu0 = process_cpu_seconds();
            // keep: a basket kept in memory is compressed at its branch's own setting, as ROOT would on a flush.
            auto bytes = basket.stored(keep ? from[i]->GetCompressionSettings() : setting, keep, where, compressed);
            totals.zip_cpu_seconds += process_cpu_seconds() - cpu0;
            first_copy.emplace_back(copies > 1 ? bytes : std::vector<char>{}, compressed);
            basket.write(out, bytes, where);
         } else {
            basket.write(out, first_copy[position].first, where);
         }
         to[i]->AddBasket(basket, true, shift + first_entry);
         ++totals.baskets;
         totals.stored_uncompressed += !first_copy[position].second;
         ++position;
      };
      for (const auto &ref : order) {
         TBranch *b = from[ref.branch];
         const std::string where = std::string(in->GetName()) + ", branch " + b->GetName();
         if (ref.seek == 0) {  // a basket in memory that is not the last one (TTreeCloner's "pos == 0" case)
            TBasket *m = b->GetBasket(ref.basket);
            if (!m || m->GetNevBuf() == 0)
               continue;
            basket.load_memory(m, where);
            add(ref.branch, b->GetBasketEntry()[ref.basket]);
            ++totals.memory_baskets;
            continue;
         }
         basket.load(ref.seek, b->GetBasketBytes()[ref.basket], in, tree, where, false);
         add(ref.branch, b->GetBasketEntry()[ref.basket]);
      }
      for (std::size_t i = 0; i < from.size(); ++i) {  // the baskets kept in the TTree object, written as baskets
         TBranch *b = from[i];
         if (!b->GetListOfBaskets()->GetEntries())
            continue;
         TBasket *m = b->GetBasket(b->GetWriteBasket());
         if (!m || m->GetNevBuf() == 0)
            continue;
         basket.load_memory(m, std::string(in->GetName()) + ", branch " + b->GetName());
         add(i, b->GetBasketEntry()[b->GetWriteBasket()]);
         ++totals.memory_baskets;
      }
   }
   // Entries per branch: the source's times the copies (also for an object branch whose baskets hold none), and the
   // slot of the next basket, as TTreeCloner leaves them.
   for (std::size_t i = 0; i < from.size(); ++i) {
      to[i]->SetEntries(copies * from[i]->GetEntries());
      to[i]->AddLastBasket(copies * entries);
   }
   clone->SetEntries(copies * entries);
}

// The verification of a recompressed tree (the head of this file): every basket of `output`'s tree read back through
// ROOT and compared with the source's basket it came from (a middle copy's by its stored bytes), the entries and the
// clusters; its figures and the first mismatches added to `j`. Whether all agree.
bool verify_tree(TTree *tree, const std::string &output, const std::string &name, int copies,
                 const std::vector<Long64_t> &all_starts, JsonObject &j)
{
   const Long64_t entries = tree->GetEntries();
   Checksum source_total, copy_total;
   const auto expected = tree_contents(tree, &source_total);
   std::unique_ptr<TFile> check(TFile::Open(output.c_str(), "READ"));
   TTree *written = check ? check->Get<TTree>(name.c_str()) : nullptr;
   if (!written)
      fail(output + ": the new file has no TTree " + name + " when read back");
   const auto found = tree_contents(written, &copy_total, copies);
   std::vector<std::string> mismatches;
   long long compared = 0, compared_stored = 0;
   const auto branches = tree_branches(written);
   if (found.size() != expected.size())
      mismatches.push_back("the new tree has " + std::to_string(found.size()) + " branches, the source " +
                           std::to_string(expected.size()));
   for (std::size_t i = 0; i < found.size() && i < expected.size(); ++i) {
      const auto &e = expected[i].content;
      const auto &f = found[i];
      if (f.content.size() != e.size() * copies) {
         mismatches.push_back(std::string(branches[i]->GetName()) + ": " + std::to_string(f.content.size()) +
                              " baskets, expected " + std::to_string(e.size() * copies));
         continue;
      }
      for (std::size_t k = 0; k < f.content.size(); ++k) {
         const std::size_t first = k % e.size();
         if (f.content[k] != 0) {
            ++compared;
            if (f.content[k] != e[first])
               mismatches.push_back(std::string(branches[i]->GetName()) + ": basket " + std::to_string(k) +
                                    " differs from the source's basket " + std::to_string(first));
         } else {
            ++compared_stored;
            if (k >= f.stored.size() || f.stored[k] != f.stored[first])
               mismatches.push_back(std::string(branches[i]->GetName()) + ": basket " + std::to_string(k) +
                                    " is not the first copy's basket " + std::to_string(first));
         }
      }
   }
   if (written->GetEntries() != copies * entries)
      mismatches.push_back("the new tree has " + std::to_string(written->GetEntries()) + " entries, expected " +
                           std::to_string(copies * entries));
   const auto new_starts = cluster_starts(written);
   if (new_starts != all_starts)
      mismatches.push_back("the new tree has " + std::to_string(new_starts.size()) + " clusters, expected " +
                           std::to_string(all_starts.size()));
   const bool verified = mismatches.empty();
   std::vector<std::string> listed(mismatches.begin(), mismatches.begin() + std::min<std::size_t>(10, mismatches.size()));
   j.boolean("verified", verified)
      .integer("baskets_compared", compared)
      .integer("baskets_compared_stored", compared_stored)
      .integer("mismatch_count", static_cast<long long>(mismatches.size()))
      .raw("mismatches", json_string_array(listed))
      .str("source_content_checksum", source_total.hex())
      .integer("clusters", static_cast<long long>(new_starts.size()));
   (void)copy_total;
   return verified;
}

int recompress_tree(const std::string &input, const std::string &name, const std::string &output, int setting,
                    bool keep, int copies, bool verify)
{
   auto in = open_source(input);
   TTree *tree = source_tree(in.get(), input, name);
   const double wall0 = steady_now(), cpu0 = process_cpu_seconds(), epoch0 = epoch_now();
   const Long64_t entries = tree->GetEntries();
   const auto starts = cluster_starts(tree);
   const int file_setting = keep ? in->GetCompressionSettings() : setting;
   std::unique_ptr<TFile> out(TFile::Open(output.c_str(), "RECREATE", "", file_setting));
   if (!out || out->IsZombie())
      fail("cannot create " + output);
   // A tree in a subdirectory goes into the same subdirectory.
   TDirectory *dir = out.get();
   const std::string path = name.find('/') == std::string::npos ? "" : name.substr(0, name.rfind('/'));
   if (!path.empty())
      dir = out->mkdir(path.c_str(), "", true);
   dir->cd();
   TTree *clone = empty_copy(tree);
   if (!clone)
      fail(input + ": the tree " + name + " could not be copied (TObject::Clone)");
   clone->SetDirectory(dir);
   const auto from = tree_branches(tree), to = tree_branches(clone);
   for (std::size_t i = 0; i < to.size() && i < from.size(); ++i)
      to[i]->SetCompressionSettings(keep ? from[i]->GetCompressionSettings() : setting);
   Totals totals;
   copy_tree_baskets(tree, clone, out.get(), setting, keep, copies, totals);
   // The clusters: the source's, once per copy.
   std::vector<Long64_t> all_starts;
   for (int copy = 0; copy < copies; ++copy)
      for (Long64_t s : starts)
         all_starts.push_back(copy * entries + s);
   TreeClusters::set(clone, all_starts, copies * entries);
   dir->cd();
   clone->Write("", TObject::kOverwrite);
   const auto source_infos = info_records(in.get());
   const auto not_found = copy_streamer_infos(in.get(), out.get());
   const Long64_t tot_bytes = clone->GetTotBytes(), zip_bytes = clone->GetZipBytes();
   const bool write_error = out->TestBit(TFile::kWriteError);
   out->Close();
   if (write_error)
      fail("writing " + output + " failed (disk full or I/O error?)");
   const double wall = steady_now() - wall0, cpu = process_cpu_seconds() - cpu0;
   const auto missing = missing_streamer_infos(source_infos, output);

   JsonObject j;
   j.str("file", output).str("source", input).str("tree", name).str("container", "ttree")
      .str("mode", keep ? "keep" : "recompress")
      .integer("compression_setting", file_setting)
      .integer("copies", copies)
      .integer("source_entries", entries)
      .integer("entries", copies * entries)
      .integer("source_clusters", static_cast<long long>(starts.size()))
      .integer("branches", static_cast<long long>(from.size()))
      .integer("top_level_branches", tree->GetListOfBranches()->GetEntries())
      .integer("baskets_written", totals.baskets)
      .integer("baskets_from_memory", totals.memory_baskets)
      .integer("baskets_stored_uncompressed", totals.stored_uncompressed)
      .num("zip_cpu_seconds_per_copy", totals.zip_cpu_seconds)
      .integer("tree_tot_bytes", tot_bytes)
      .integer("tree_zip_bytes", zip_bytes)
      .integer("source_tree_tot_bytes", tree->GetTotBytes())
      .integer("source_tree_zip_bytes", tree->GetZipBytes())
      .num("rewrite_start_time", epoch0)
      .num("rewrite_end_time", epoch_now())
      .num("rewrite_wall_seconds", wall)
      .num("rewrite_cpu_seconds", cpu)
      .integer("streamer_infos_source", static_cast<long long>(source_infos.size()))
      .integer("streamer_infos_missing_count", static_cast<long long>(missing.size()))
      .raw("streamer_infos_missing", json_string_array(missing))
      .raw("streamer_infos_not_found", json_string_array(not_found));

   bool verified = true;
   if (verify)
      verified = verify_tree(tree, output, name, copies, all_starts, j);
   j.integer("peak_rss_bytes", peak_rss_bytes()).str("root_version", gROOT->GetVersion());
   std::cout << "ROOTPARAMS_JSON " << j.dump() << std::endl;
   return verified ? 0 : 3;
}

// --- RNTuple ----------------------------------------------------------------------------------------------------

using ROOT::Internal::RPageSource;
using ROOT::Internal::RPageStorage;

// One column's pages of one cluster, loaded sealed (packed and compressed, as on disk).
struct SealedPages {
   std::vector<std::unique_ptr<unsigned char[]>> buffers;
   std::vector<RPageStorage::RSealedPage> pages;
};

SealedPages load_pages(RPageSource &source, const ROOT::RNTupleDescriptor &desc, ROOT::DescriptorId_t cluster,
                       ROOT::DescriptorId_t column)
{
   SealedPages out;
   const auto &range = desc.GetClusterDescriptor(cluster).GetPageRange(column);
   ROOT::NTupleSize_t first = 0;
   for (const auto &info : range.GetPageInfos()) {
      RPageStorage::RSealedPage page;
      const ROOT::RNTupleLocalIndex index(cluster, first);
      source.LoadSealedPage(column, index, page);  // the size first
      out.buffers.emplace_back(new unsigned char[page.GetBufferSize()]);
      page.SetBuffer(out.buffers.back().get());
      source.LoadSealedPage(column, index, page);
      out.pages.push_back(page);
      first += info.GetNElements();
   }
   return out;
}

std::size_t packed_size(std::uint64_t elements, std::uint16_t bits)
{
   return (static_cast<std::size_t>(elements) * bits + 7) / 8;
}

// A page's packed bytes (decompressed, as ROOT's RPageSource::UnsealPage does before unpacking).
std::vector<unsigned char> unseal(const RPageStorage::RSealedPage &page, std::uint16_t bits)
{
   std::vector<unsigned char> out(packed_size(page.GetNElements(), bits));
   ROOT::Internal::RNTupleDecompressor::Unzip(page.GetBuffer(), page.GetDataSize(), out.size(), out.data());
   return out;
}

// A column that needs zeros where a later copy's entries precede the column's first element: a field's principal
// column outside any collection or variant (RNTupleMerger's GenerateZeroPagesForColumns, whose rule this follows:
// the other columns of such a field, and every column inside a collection, hold nothing for those entries). A column
// added after the first entry (late model extension, "deferred") starts at its first element index; ROOT reads
// the elements before it as zeros in the first copy, but a second copy's entries must carry them.
struct Padding {
   bool needed = false;
   std::uint64_t repetitions = 1;  // elements per entry
};

std::vector<Padding> paddings(const ROOT::RNTupleDescriptor &desc)
{
   std::vector<Padding> out(desc.GetNPhysicalColumns());
   for (ROOT::DescriptorId_t c = 0; c < out.size(); ++c) {
      const auto &column = desc.GetColumnDescriptor(c);
      const auto &field = desc.GetFieldDescriptor(column.GetFieldId());
      if (field.GetLogicalColumnIds().empty() || field.GetLogicalColumnIds()[0] != c)
         continue;
      std::uint64_t repetitions = std::max<std::uint64_t>(field.GetNRepetitions(), 1);
      bool inside = false;
      for (auto id = field.GetParentId(); id != ROOT::kInvalidDescriptorId && id != desc.GetFieldZeroId();) {
         const auto &parent = desc.GetFieldDescriptor(id);
         if (parent.GetStructure() == ROOT::ENTupleStructure::kCollection ||
             parent.GetStructure() == ROOT::ENTupleStructure::kVariant) {
            inside = true;
            break;
         }
         repetitions *= std::max<std::uint64_t>(parent.GetNRepetitions(), 1);
         id = parent.GetParentId();
      }
      out[c] = {!inside, repetitions};
   }
   return out;
}

// The elements of column `c` that a copy after the first must add, as zeros, before cluster `cluster`'s own.
std::uint64_t missing_elements(const ROOT::RNTupleDescriptor &desc, const ROOT::RClusterDescriptor &cluster,
                               ROOT::DescriptorId_t c, const Padding &padding)
{
   if (!padding.needed)
      return 0;
   const std::uint64_t first_entry_element = cluster.GetFirstEntryIndex() * padding.repetitions;
   if (!cluster.ContainsColumn(c))
      return cluster.GetNEntries() * padding.repetitions;  // the column starts in a later cluster
   const auto first = static_cast<std::uint64_t>(desc.GetColumnDescriptor(c).GetFirstElementIndex());
   return first > first_entry_element ? first - first_entry_element : 0;
}

// Zero pages of `elements` elements (at most 256 kB packed each, as RNTupleMerger makes them), compressed at `setting`.
void zero_pages(std::uint64_t elements, std::uint16_t bits, int setting, bool checksum,
                std::vector<std::unique_ptr<unsigned char[]>> &buffers, RPageStorage::SealedPageSequence_t &out)
{
   constexpr std::size_t kPageBytes = 256 * 1024;
   const std::uint64_t per_page = std::max<std::uint64_t>(1, kPageBytes * 8 / std::max<std::uint16_t>(bits, 1));
   const std::size_t extra = checksum ? RPageStorage::kNBytesPageChecksum : 0;
   for (std::uint64_t done = 0; done < elements;) {
      const std::uint64_t n = std::min(per_page, elements - done);
      std::vector<unsigned char> zeros(packed_size(n, bits), 0);
      buffers.emplace_back(new unsigned char[zeros.size() + extra + 64]);
      const std::size_t size = ROOT::Internal::RNTupleCompressor::Zip(zeros.data(), zeros.size(), setting, buffers.back().get());
      RPageStorage::RSealedPage page(buffers.back().get(), size + extra, static_cast<std::uint32_t>(n), checksum);
      page.ChecksumIfEnabled();
      out.push_back(page);
      done += n;
   }
}

// Per output cluster and column: the pages' checksums of their packed bytes, and their element counts.
struct ColumnPages {
   std::vector<std::uint64_t> sums;    // of the packed bytes; 0 where not decompressed (a middle copy)
   std::vector<std::uint64_t> stored;  // of the sealed bytes as stored, with copies > 1
   std::vector<std::uint32_t> elements;
};

std::uint64_t bytes_checksum(const std::vector<unsigned char> &packed, Checksum *total)
{
   Checksum c;
   c.add(packed.data(), packed.size());
   if (total)
      total->add(packed.data(), packed.size());
   return c.value;
}

// Every cluster's pages, column by column (only the pages on disk: attached for writing, as they are stored).
std::vector<std::vector<ColumnPages>> ntuple_contents(const std::string &path, const std::string &name, Checksum *total,
                                                      long long &entries, int copies = 1, std::size_t per_copy = 0)
{
   auto source = RPageSource::Create(name, path);
   source->Attach(ROOT::Internal::RNTupleSerializer::EDescriptorDeserializeMode::kForWriting);
   auto guard = source->GetSharedDescriptorGuard();
   const auto &desc = guard.GetRef();
   std::vector<std::vector<ColumnPages>> out;
   entries = static_cast<long long>(desc.GetNEntries());
   std::size_t k = 0;
   for (auto id = desc.FindClusterId(0, 0); id != ROOT::kInvalidDescriptorId; id = desc.FindNextClusterId(id), ++k) {
      const auto &cluster = desc.GetClusterDescriptor(id);
      // The first and the last copy are decompressed; a copy between them is compared by its stored bytes.
      const bool middle = copies > 2 && per_copy > 0 && k >= per_copy && k < per_copy * (copies - 1);
      std::vector<ColumnPages> columns(desc.GetNPhysicalColumns());
      for (ROOT::DescriptorId_t c = 0; c < desc.GetNPhysicalColumns(); ++c) {
         if (!cluster.ContainsColumn(c) || cluster.GetColumnRange(c).IsSuppressed())
            continue;
         const auto bits = desc.GetColumnDescriptor(c).GetBitsOnStorage();
         auto sealed = load_pages(*source, desc, id, c);
         for (const auto &page : sealed.pages) {
            columns[c].sums.push_back(middle ? 0 : bytes_checksum(unseal(page, bits), total));
            if (copies > 1) {
               Checksum raw;
               raw.add(page.GetBuffer(), page.GetDataSize());
               columns[c].stored.push_back(raw.value);
            }
            columns[c].elements.push_back(page.GetNElements());
         }
      }
      out.push_back(std::move(columns));
   }
   return out;
}

// RPagePersistentSink::InitFromDescriptor without its model. ROOT 6.40's version builds a model of the descriptor
// (RNTupleDescriptor::CreateModel, only to set the projected fields' on-disk id), and that needs every class: on the
// ATLAS PHYSLITE RNTuple, 78 of 854 top-level fields (element links and aux stores, templates of classes without a
// dictionary) abort in the emulation (Fatal "typeName == fieldDesc.GetTypeName() violated", RFieldBase.cxx, a spelling
// "> >" against ">>"). Pages are committed sealed, so no model is needed: this sink takes the schema from the
// descriptor and sets up its column and page ranges exactly as InitFromDescriptor does (ROOT 6.40 source), then
// serializes the header. The sink's own bookkeeping is private to RPagePersistentSink; it is reached through explicit
// template instantiation, which C++ exempts from access checks ([temp.explicit]/14) — tied to ROOT 6.40, which is
// pinned.
template <typename Tag, typename Tag::type M>
struct Reach {
   friend typename Tag::type member(Tag) { return M; }
};
struct OpenColumnRanges {
   using type = std::vector<ROOT::RClusterDescriptor::RColumnRange> ROOT::Internal::RPagePersistentSink::*;
   friend type member(OpenColumnRanges);
};
struct OpenPageRanges {
   using type = std::vector<ROOT::RClusterDescriptor::RPageRange> ROOT::Internal::RPagePersistentSink::*;
   friend type member(OpenPageRanges);
};
struct SerializationContext {
   using type = ROOT::Internal::RNTupleSerializer::RContext ROOT::Internal::RPagePersistentSink::*;
   friend type member(SerializationContext);
};
template struct Reach<OpenColumnRanges, &ROOT::Internal::RPagePersistentSink::fOpenColumnRanges>;
template struct Reach<OpenPageRanges, &ROOT::Internal::RPagePersistentSink::fOpenPageRanges>;
template struct Reach<SerializationContext, &ROOT::Internal::RPagePersistentSink::fSerializationContext>;

class DescriptorSink : public ROOT::Internal::RPageSinkFile {
public:
   using RPageSinkFile::RPageSinkFile;

   void init_from(const ROOT::RNTupleDescriptor &source)
   {
      fDescriptorBuilder.SetSchemaFromExisting(source);
      const auto &descriptor = fDescriptorBuilder.GetDescriptor();
      auto &columns = this->*member(OpenColumnRanges());
      auto &pages = this->*member(OpenPageRanges());
      const auto n = descriptor.GetNPhysicalColumns();
      columns.reserve(n);
      pages.reserve(n);
      for (ROOT::DescriptorId_t i = 0; i < n; ++i) {
         ROOT::RClusterDescriptor::RColumnRange range;
         range.SetPhysicalColumnId(i);
         range.SetFirstElementIndex(descriptor.GetColumnDescriptor(i).GetFirstElementIndex());
         range.SetNElements(0);
         range.SetCompressionSettings(GetWriteOptions().GetCompression());
         columns.emplace_back(range);
         ROOT::RClusterDescriptor::RPageRange page_range;
         page_range.SetPhysicalColumnId(i);
         pages.emplace_back(std::move(page_range));
      }
      auto &context = this->*member(SerializationContext());
      context = ROOT::Internal::RNTupleSerializer::SerializeHeader(nullptr, descriptor).Unwrap();
      std::vector<unsigned char> header(context.GetHeaderSize());
      context = ROOT::Internal::RNTupleSerializer::SerializeHeader(header.data(), descriptor).Unwrap();
      InitImpl(header.data(), context.GetHeaderSize());
      fDescriptorBuilder.BeginHeaderExtension();
      fIsInitialized = true;
   }
};

// The compression setting of an RNTuple's first column range that has one (as hadd -fk takes it); 0 if none.
int source_setting(const ROOT::RNTupleDescriptor &desc)
{
   const auto first = desc.FindClusterId(0, 0);
   if (first != ROOT::kInvalidDescriptorId)
      for (const auto &range : desc.GetClusterDescriptor(first).GetColumnRangeIterable())
         if (range.GetCompressionSettings())
            return static_cast<int>(*range.GetCompressionSettings());
   return 0;
}

// What the page copy did: pages committed, stored uncompressed, zero pages; the CPU time of the first copy's
// decompression and compression (the others reuse its pages), its compressed and packed bytes.
struct PageCopy {
   long long pages = 0, stored_uncompressed = 0, zero_pages_written = 0;
   double zip_cpu = 0;
   std::size_t zip_bytes = 0, packed_bytes = 0;
};

// How the pages are copied: the source (for messages), the setting, keep, the copies, the zero pages' setting, and
// whether the sink checksums pages.
struct PageCopyRequest {
   const std::string &input, &name;
   int setting;
   bool keep;
   int copies, zero_setting;
   bool page_checksums;
};

// Per cluster and column, the first copy's sealed pages and, for the later copies, the zero pages before them:
// made once and committed again for every copy (a page is compressed alone, so its bytes do not depend on where
// it lies), so that N copies cost one recompression. The cache owns the buffers the sealed pages point into (kept
// until the sink is closed).
struct Cached {
   std::vector<std::unique_ptr<unsigned char[]>> buffers;
   RPageStorage::SealedPageSequence_t pages, zeros;
   bool zeros_made = false;
};
using PageCache = std::map<std::pair<ROOT::DescriptorId_t, ROOT::DescriptorId_t>, Cached>;

// Every cluster of the source, `copies` times, committed to the sink column by column: the first copy's pages
// decompressed and compressed again (or kept), and for every later copy the same sealed pages, after the zero pages
// its deferred columns need (see Padding).
PageCopy copy_pages(RPageSource &source, const ROOT::RNTupleDescriptor &desc, DescriptorSink &sink,
                    const PageCopyRequest &how, const std::vector<Padding> &padding, PageCache &cache)
{
   const auto &[input, name, setting, keep, copies, zero_setting, page_checksums] = how;
   PageCopy out;
   for (int copy = 0; copy < copies; ++copy) {
      for (auto id = desc.FindClusterId(0, 0); id != ROOT::kInvalidDescriptorId; id = desc.FindNextClusterId(id)) {
         const auto &cluster = desc.GetClusterDescriptor(id);
         std::vector<RPageStorage::RSealedPageGroup> groups;
         std::deque<RPageStorage::SealedPageSequence_t> sequences;
         std::vector<std::pair<ROOT::DescriptorId_t, ROOT::DescriptorId_t>> uncached;
         for (ROOT::DescriptorId_t c = 0; c < desc.GetNPhysicalColumns(); ++c) {
            const auto bits = desc.GetColumnDescriptor(c).GetBitsOnStorage();
            auto &cached = cache[{id, c}];
            RPageStorage::SealedPageSequence_t sequence;
            if (copy > 0) {
               if (!cached.zeros_made) {
                  zero_pages(missing_elements(desc, cluster, c, padding[c]), bits, zero_setting,
                             page_checksums, cached.buffers, cached.zeros);
                  cached.zeros_made = true;
               }
               sequence.insert(sequence.end(), cached.zeros.begin(), cached.zeros.end());
               out.zero_pages_written += static_cast<long long>(cached.zeros.size());
            }
            if (cluster.ContainsColumn(c)) {
               if (cluster.GetColumnRange(c).IsSuppressed())
                  fail(input + ": the RNTuple " + name + " has a suppressed column (" + std::to_string(c) +
                       ") in a cluster, which this tool does not copy");
               if (copy == 0) {
                  auto loaded = load_pages(source, desc, id, c);
                  for (auto &buffer : loaded.buffers)
                     cached.buffers.push_back(std::move(buffer));
                  for (const auto &page : loaded.pages) {
                     if (keep) {
                        cached.pages.push_back(page);
                        continue;
                     }
                     const double cpu0 = process_cpu_seconds();
                     const auto packed = unseal(page, bits);
                     out.packed_bytes += packed.size();
                     const std::size_t extra = page.GetHasChecksum() ? RPageStorage::kNBytesPageChecksum : 0;
                     cached.buffers.emplace_back(new unsigned char[packed.size() + extra + 64]);
                     const std::size_t n = ROOT::Internal::RNTupleCompressor::Zip(packed.data(), packed.size(),
                                                                                  setting, cached.buffers.back().get());
                     out.stored_uncompressed += n == packed.size();
                     RPageStorage::RSealedPage resealed(cached.buffers.back().get(), n + extra, page.GetNElements(),
                                                        page.GetHasChecksum());
                     resealed.ChecksumIfEnabled();
                     cached.pages.push_back(resealed);
                     out.zip_cpu += process_cpu_seconds() - cpu0;
                  }
               }
               for (const auto &page : cached.pages)
                  out.zip_bytes += page.GetDataSize();
               out.pages += static_cast<long long>(cached.pages.size());
               sequence.insert(sequence.end(), cached.pages.begin(), cached.pages.end());
            }
            if (sequence.empty())
               continue;
            sequences.push_back(std::move(sequence));
            groups.emplace_back(c, sequences.back().cbegin(), sequences.back().cend());
         }
         sink.CommitSealedPageV(groups);
         sink.CommitCluster(cluster.GetNEntries());
      }
   }
   return out;
}

// The verification of a recompressed RNTuple (the head of this file): each output cluster against the source cluster
// it copies, page by page (a middle copy's against the last copy's stored pages), and the entries; its figures and
// the first mismatches added to `j`. Whether all agree.
bool verify_ntuple(const ROOT::RNTupleDescriptor &desc, const std::string &input, const std::string &output,
                   const std::string &name, int copies, const std::vector<Padding> &padding, JsonObject &j)
{
   // Each output cluster against the source cluster it copies: per column, the zero pages a later copy adds
   // (all-zero packed bytes, as many elements as are missing) and then the source's pages, byte for byte.
   Checksum source_total, copy_total;
   long long source_entries = 0, new_entries = 0;
   const auto expected = ntuple_contents(input, name, &source_total, source_entries);
   const auto found = ntuple_contents(output, name, &copy_total, new_entries, copies, expected.size());
   std::vector<std::string> mismatches;
   long long compared = 0, compared_stored = 0;
   auto report = [&](const std::string &what) {
      if (mismatches.size() < 10)
         mismatches.push_back(what);
   };
   if (found.size() != expected.size() * copies)
      report("the new RNTuple has " + std::to_string(found.size()) + " clusters, expected " +
             std::to_string(expected.size() * copies));
   std::vector<const ROOT::RClusterDescriptor *> clusters;
   for (auto id = desc.FindClusterId(0, 0); id != ROOT::kInvalidDescriptorId; id = desc.FindNextClusterId(id))
      clusters.push_back(&desc.GetClusterDescriptor(id));
   const std::size_t per_copy = expected.size();
   for (std::size_t k = 0; k < found.size() && k < per_copy * copies && per_copy > 0; ++k) {
      const std::size_t i = k % per_copy;
      const bool later = k >= per_copy;
      const bool middle = copies > 2 && k >= per_copy && k < per_copy * (copies - 1);
      const std::size_t last = per_copy * (copies - 1) + i;  // the same cluster in the last copy
      for (ROOT::DescriptorId_t c = 0; c < found[k].size() && c < expected[i].size(); ++c) {
         const auto &f = found[k][c];
         if (middle) {  // the same stored pages as the last copy (zero pages included)
            ++compared_stored;
            if (last >= found.size() || f.stored != found[last][c].stored || f.elements != found[last][c].elements)
               report("cluster " + std::to_string(k) + ", column " + std::to_string(c) +
                      ": not the pages of the last copy's cluster " + std::to_string(last));
            continue;
         }
         const auto &e = expected[i][c];
         const auto bits = desc.GetColumnDescriptor(c).GetBitsOnStorage();
         std::uint64_t zeros = later ? missing_elements(desc, *clusters[i], c, padding[c]) : 0;
         std::size_t p = 0;
         for (; p < f.sums.size() && zeros > 0; ++p) {  // the zero pages
            Checksum z;
            std::vector<unsigned char> none(packed_size(f.elements[p], bits), 0);
            z.add(none.data(), none.size());
            if (f.sums[p] != z.value || f.elements[p] > zeros)
               report("cluster " + std::to_string(k) + ", column " + std::to_string(c) + ": a padding page is not zeros");
            zeros -= std::min<std::uint64_t>(zeros, f.elements[p]);
         }
         if (f.sums.size() - p != e.sums.size()) {
            report("cluster " + std::to_string(k) + ", column " + std::to_string(c) + ": " +
                   std::to_string(f.sums.size() - p) + " pages, the source " + std::to_string(e.sums.size()));
            continue;
         }
         for (std::size_t q = 0; q < e.sums.size(); ++q, ++p, ++compared)
            if (f.sums[p] != e.sums[q] || f.elements[p] != e.elements[q])
               report("cluster " + std::to_string(k) + ", column " + std::to_string(c) + ", page " +
                      std::to_string(q) + " differs from the source's");
      }
   }
   if (new_entries != copies * source_entries)
      report("the new RNTuple has " + std::to_string(new_entries) + " entries, expected " +
             std::to_string(copies * source_entries));
   const bool verified = mismatches.empty();
   j.boolean("verified", verified)
      .integer("pages_compared", compared)
      .integer("pages_compared_stored", compared_stored)
      .integer("mismatch_count", static_cast<long long>(mismatches.size()))
      .raw("mismatches", json_string_array(mismatches))
      .str("source_content_checksum", source_total.hex())
      .integer("clusters", static_cast<long long>(found.size()));
   return verified;
}

int recompress_ntuple(const std::string &input, const std::string &name, const std::string &output, int setting,
                      bool keep, int copies, bool verify)
{
   const double wall0 = steady_now(), cpu0 = process_cpu_seconds(), epoch0 = epoch_now();
   auto source = RPageSource::Create(name, input);
   source->LoadStreamerInfo();  // the streamer infos of ROOT-streamed fields, carried into the new file
   source->Attach(ROOT::Internal::RNTupleSerializer::EDescriptorDeserializeMode::kForWriting);
   auto guard = source->GetSharedDescriptorGuard();
   const auto &desc = guard.GetRef();
   // keep: the source's setting (of its first column range, as hadd -fk takes it) for the sink's bookkeeping.
   const int sink_setting = keep ? source_setting(desc) : setting;
   ROOT::RNTupleWriteOptions options;
   options.SetCompression(sink_setting);
   auto sink = std::make_unique<DescriptorSink>(name, output, options);
   sink->init_from(desc);
   for (const auto &extra : desc.GetExtraTypeInfoIterable())
      sink->UpdateExtraTypeInfo(extra);
   const auto padding = paddings(desc);
   // keep: zero pages (a later copy's deferred columns) are compressed at the sink's setting.
   const int zero_setting = keep ? sink_setting : setting;
   PageCache cache;
   const PageCopy copied = copy_pages(*source, desc, *sink, {input, name, setting, keep, copies, zero_setting,
                                                             options.GetEnablePageChecksums()}, padding, cache);
   sink->CommitClusterGroup();
   sink->CommitDataset();
   sink.reset();
   const double wall = steady_now() - wall0, cpu = process_cpu_seconds() - cpu0;
   const long long entries = static_cast<long long>(desc.GetNEntries());
   JsonObject j;
   j.str("file", output).str("source", input).str("tree", name).str("container", "rntuple")
      .str("mode", keep ? "keep" : "recompress")
      .integer("compression_setting", sink_setting)
      .integer("copies", copies)
      .integer("source_entries", entries)
      .integer("entries", copies * entries)
      .integer("pages_written", copied.pages)
      .integer("pages_stored_uncompressed", copied.stored_uncompressed * copies)
      .num("zip_cpu_seconds_per_copy", copied.zip_cpu)
      .integer("zip_bytes", static_cast<long long>(copied.zip_bytes))
      .integer("packed_bytes", static_cast<long long>(copied.packed_bytes))
      .num("rewrite_start_time", epoch0)
      .num("rewrite_end_time", epoch_now())
      .num("rewrite_wall_seconds", wall)
      .num("rewrite_cpu_seconds", cpu);
   j.integer("zero_pages_written", copied.zero_pages_written);
   bool verified = true;
   if (verify)
      verified = verify_ntuple(desc, input, output, name, copies, padding, j);
   j.integer("peak_rss_bytes", peak_rss_bytes()).str("root_version", gROOT->GetVersion());
   std::cout << "ROOTPARAMS_JSON " << j.dump() << std::endl;
   return verified ? 0 : 3;
}

// --- main -------------------------------------------------------------------------------------------------------

int run(const std::map<std::string, std::string> &args)
{
   default_crash_signals();
   const std::string input = required_arg(args, "input"), output = required_arg(args, "output");
   const std::string name = required_arg(args, "tree");
   const std::string comp = required_arg(args, "compression");
   const bool keep = comp == "keep";
   const int setting = keep ? -1 : compression_arg(args);
   const long long copies = args.count("copies") ? integer_arg(args, "copies") : 1;
   if (copies < 1 || copies > 100000)
      fail("--copies " + std::to_string(copies) + ": must be 1 to 100000");
   check_output(input, output);
   const bool verify = !args.count("no-verify");
   auto in = open_source(input);
   const bool ntuple = is_ntuple(in.get(), name);
   in.reset();
   if (ntuple)
      return recompress_ntuple(input, name, output, setting, keep, static_cast<int>(copies), verify);
   return recompress_tree(input, name, output, setting, keep, static_cast<int>(copies), verify);
}

}  // namespace

int main(int argc, char **argv)
{
   try {
      return run(parse_args(argc, argv));
   } catch (const std::exception &e) {
      std::cerr << "rootparams-recompress: error: " << e.what() << std::endl;
      return 2;
   }
}
