// rootparams-write's sinks: where the events go. A TTree in a TFile (TreeSink), an RNTuple in ATLAS's RNTuple layout
// (NTupleSink), or, for a flat-layout recipe, an RNTuple imported from a TTree as CMS's NanoAOD RNTuples are made
// (ImportedNTupleSink). All take the containers' memory as it is after each event is generated (or read from the
// content file), so that they hold the same values.
#pragma once

#include "write_recipe.h"

#include <Rtypes.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class TBranch;
class TFile;
class TTree;
namespace ROOT {
class REntry;
class RNTupleWriter;
}  // namespace ROOT

namespace rootparams::write {

class Sink {
public:
   virtual ~Sink() = default;
   virtual void fill(Long64_t i) = 0;
   // Writes what is left and closes the file; returns (uncompressed, compressed) bytes of the data, or -1 where
   // the container does not keep them (RNTuple: rootparams-read --inspect has them).
   virtual std::pair<Long64_t, Long64_t> close() = 0;
};

class TreeSink : public Sink {
public:
   // basket 0: each branch's basket size from the recipe's basket lines (the real file's), 32000 for the others.
   // generate_offsets: ROOT's I/O feature kGenerateOffsetMap (--offsets generated): a counted array's baskets keep
   // no entry offsets (ROOT rebuilds them from the counter when it reads), other variable-size branches store
   // per-entry sizes instead of offsets.
   TreeSink(const std::string &output, const std::string &name, int compression, Long64_t autoflush, int split,
            int basket, std::vector<Collection> &containers, const std::map<std::string, int> &baskets,
            bool generate_offsets = false);
   ~TreeSink() override;
   // The branches' own compression (--hot-branches): the setting of each named top-level branch and of every
   // branch below it, before the first fill, so that every basket of theirs is compressed with it. (TBranch::
   // SetCompressionSettings recurses in ROOT 6.40 too; setting each one here does not depend on it.)
   void set_branch_compression(const std::vector<std::string> &names, int setting);
   void fill(Long64_t i) override;
   std::pair<Long64_t, Long64_t> close() override;

private:
   std::string output_;
   std::unique_ptr<TFile> file_;
   TTree *tree_ = nullptr;
   std::vector<std::pair<TBranch *, Column *>> leaf_columns_;
};

// The RNTuple holds the same events in ATLAS's RNTuple layout (docs/formats.md, "RNTuple"): the interface object
// <Name> as a class field, and every aux variable, static or dynamic, as a top-level field <Name>AuxDyn:<var>.
// autoflush > 0 commits a cluster every `autoflush` events, < 0 asks for clusters of about -autoflush compressed
// bytes, 0 leaves RNTuple's own default; page_size: the largest uncompressed page (0: RNTuple's default).
class NTupleSink : public Sink {
public:
   NTupleSink(const std::string &output, const std::string &name, int compression, Long64_t autoflush,
              long long page_size, bool parallel_zip, int float_mantissa, std::vector<Collection> &containers);
   ~NTupleSink() override;
   void fill(Long64_t i) override;
   std::pair<Long64_t, Long64_t> close() override;
   long long clusters() const { return clusters_; }
   long long truncated_fields() const { return truncated_fields_; }

private:
   std::string output_, name_;
   Long64_t cluster_entries_;
   std::unique_ptr<ROOT::RNTupleWriter> writer_;
   std::unique_ptr<ROOT::REntry> entry_;
   long long clusters_ = 0;
   long long truncated_fields_ = 0;
};

// A flat-layout recipe (NanoAOD-like leaf-list arrays) as an RNTuple: the events are written to a TTree next to
// the output, which ROOT's RNTupleImporter then converts, as CMS's NanoAOD RNTuples are made: one untyped
// collection of records per counter (`_collection<N>`), its arrays projected as `<branch>` and its count as the
// cardinality `<counter>`, scalars as fields. The TTree is removed afterwards.
class ImportedNTupleSink : public Sink {
public:
   ImportedNTupleSink(const std::string &output, const std::string &name, int compression, Long64_t autoflush,
                      long long page_size, std::vector<Collection> &containers);
   void fill(Long64_t i) override { tree_->fill(i); }
   std::pair<Long64_t, Long64_t> close() override;
   long long clusters() const { return clusters_; }

private:
   std::string output_, name_, tree_file_;
   int compression_;
   Long64_t autoflush_;
   long long page_size_;
   std::unique_ptr<TreeSink> tree_;
   long long clusters_ = 0;
};

}  // namespace rootparams::write
