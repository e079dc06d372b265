// rootparams-write's sinks (write_sinks.h): the TTree, the RNTuple, and the RNTuple imported from a flat TTree.
#include "write_sinks.h"

#include <TBranch.h>
#include <TClass.h>
#include <TFile.h>
#include <TROOT.h>
#include <ROOT/TIOFeatures.hxx>
#include <TTree.h>

#include <ROOT/REntry.hxx>
#include <ROOT/RField.hxx>
#include <ROOT/RNTupleImporter.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RNTupleWriter.hxx>

#include <cstdio>

namespace rootparams::write {

// --- TreeSink ----------------------------------------------------------------------------------------------------

TreeSink::TreeSink(const std::string &output, const std::string &name, int compression, Long64_t autoflush, int split,
                   int basket, std::vector<Collection> &containers, const std::map<std::string, int> &baskets,
                   bool generate_offsets)
   : output_(output)
{
   const int recipe_baskets = basket == 0;
   if (recipe_baskets)
      basket = 32000;
   file_.reset(TFile::Open(output.c_str(), "RECREATE", "", compression));
   if (!file_ || file_->IsZombie())
      fail("cannot create " + output);
   tree_ = new TTree(name.c_str(), "xAOD-like synthetic events (rootparams)");  // owned by the file
   tree_->SetAutoFlush(autoflush);
   if (generate_offsets) {
      // ROOT 6.40.00 cannot read back a split class branch written with the feature (unbounded recursion in
      // TLeaf::GenerateOffsetArrayBase, reading a std::vector member: tests/test_bulk.py), so only a flat recipe,
      // whose variable-size branches are counted leaf arrays, takes it.
      for (auto &c : containers)
         if (!c.scalars && !c.flat)
            fail(output + ": --offsets generated is for flat recipes (scalars and counted leaf arrays): container " +
                 c.name + " is written as class branches, which ROOT " + gROOT->GetVersion() +
                 " cannot read back with generated offsets; use --offsets stored");
      // Before the first branch: a branch copies the tree's I/O features when it is made, and a basket its
      // branch's when it is made (TBranch and TBranchElement constructors, TBasket's), so set later it would change
      // nothing. The feature is stored with the tree (TTree::fIOFeatures) and in every basket's header.
      ROOT::TIOFeatures features;
      features.Set(ROOT::Experimental::EIOFeatures::kGenerateOffsetMap);
      tree_->SetIOFeatures(features);
      if (!tree_->GetIOFeatures().Test(ROOT::Experimental::EIOFeatures::kGenerateOffsetMap))
         fail(output + ": TTree::SetIOFeatures(kGenerateOffsetMap) was not taken by ROOT " + gROOT->GetVersion() +
              " (--offsets generated)");
   }
   for (auto &c : containers) {
      if (c.scalars || c.flat) {
         // Leaf branches: split levels do not apply to leaf lists (a real NanoAOD's branches are the same at
         // every split level); the basket size does.
         if (c.flat)
            tree_->Branch(c.counter.c_str(), &c.count, (c.counter + "/i").c_str(), basket);
         for (auto &col : c.columns) {
            const std::string shape = c.flat ? "[" + c.counter + "]" : "";
            static_cast<void>(col.data());  // checks that it is a leaf kind
            leaf_columns_.push_back(
               {tree_->Branch(col.branch.c_str(), col.data(),
                              (col.branch + shape + "/" + leaf_type_of(col.kind).code).c_str(), basket),
                &col});
         }
         continue;
      }
      // A record (a class with its own streamer) is never split, whatever the split level.
      auto branch = [&](const std::string &bname, const std::string &part, const char *cls, void *&address) {
         if (auto *r = const_cast<Record *>(c.record_of(part)))
            tree_->Branch(bname.c_str(), r->cl->GetName(), &r->object, basket, 0);
         else
            tree_->Branch(bname.c_str(), cls, &address, basket, split);
      };
      if (c.interface_class)
         branch(c.name, "interface", c.interface_class->GetName(), c.interface_object);
      if (c.aux_class)
         branch(c.name + "Aux.", "aux", c.aux_class->GetName(), c.aux_object);
      for (auto &[bname, cls_addr] : c.dynamic_branches)
         branch(bname, bname.substr(c.name.size() + 7), cls_addr.first.c_str(), cls_addr.second);
   }
   if (recipe_baskets)
      for (auto *obj : *tree_->GetListOfBranches()) {
         auto *b = static_cast<TBranch *>(obj);
         auto it = baskets.find(b->GetName());
         if (it != baskets.end())
            b->SetBasketSize(it->second);
      }
}

TreeSink::~TreeSink() = default;

void TreeSink::set_branch_compression(const std::vector<std::string> &names, int setting)
{
   for (const auto &name : names) {
      TBranch *b = tree_->GetBranch(name.c_str());
      if (!b || b->GetMother() != b)
         fail("--hot-branches: " + name + " is not a top-level branch of the tree");
      std::vector<TBranch *> todo{b};
      while (!todo.empty()) {
         TBranch *x = todo.back();
         todo.pop_back();
         x->SetCompressionSettings(setting);
         for (auto *sub : *x->GetListOfBranches())
            todo.push_back(static_cast<TBranch *>(sub));
      }
   }
}

void TreeSink::fill(Long64_t i)
{
   // A leaf column's storage may move when it grows: point its branch at where the values are now.
   for (auto &[branch, col] : leaf_columns_)
      if (branch->GetAddress() != static_cast<char *>(col->data()))
         branch->SetAddress(col->data());
   if (tree_->Fill() < 0 || file_->TestBit(TFile::kWriteError))
      fail("writing event " + std::to_string(i) + " to " + output_ + " failed (disk full or I/O error?)");
}

std::pair<Long64_t, Long64_t> TreeSink::close()
{
   file_->cd();
   tree_->Write();
   const std::pair<Long64_t, Long64_t> bytes{tree_->GetTotBytes(), tree_->GetZipBytes()};
   const bool write_error = file_->TestBit(TFile::kWriteError);
   file_->Close();
   if (write_error)
      fail("writing " + output_ + " failed (disk full or I/O error?)");
   return bytes;
}

// --- NTupleSink --------------------------------------------------------------------------------------------------

NTupleSink::NTupleSink(const std::string &output, const std::string &name, int compression, Long64_t autoflush,
                       long long page_size, bool parallel_zip, int float_mantissa, std::vector<Collection> &containers)
   : output_(output), name_(name), cluster_entries_(autoflush > 0 ? autoflush : 0)
{
   auto model = ROOT::RNTupleModel::Create();
   std::vector<std::pair<std::string, void *>> bindings;
   auto add = [&](const std::string &field, const std::string &type, void *address) {
      auto created = ROOT::RFieldBase::Create(field, type);
      if (!created)
         fail("RNTuple field " + field + " of type " + type + ": " + created.GetError()->GetReport());
      model->AddField(created.Unwrap());
      bindings.emplace_back(field, address);
   };
   for (auto &c : containers) {
      if (c.scalars) {  // one value per event
         for (auto &col : c.columns)
            add(rntuple_field_name(col.branch), leaf_type_of(col.kind).ntuple, col.data());
         continue;
      }
      if (c.flat) {
         // A collection beside containers (a TClonesArray's members): its counter, and each column a vector
         // of its own, as RDataFrame writes RVec columns. (A flat-layout recipe goes through a TTree and
         // RNTupleImporter instead: ImportedNTupleSink.)
         add(rntuple_field_name(c.counter), "std::uint32_t", &c.count);
         for (auto &col : c.columns)
            add(rntuple_field_name(col.branch), ntuple_type_of(col.kind), col.address);
         continue;
      }
      if (c.interface_class)
         add(c.name, c.interface_class->GetName(), c.interface_object);
      for (auto &col : c.columns)
         add(c.name + "AuxDyn:" + col.name, ntuple_type_of(col.kind), col.address);
   }
   if (float_mantissa > 0) {
      // Every float field, at any depth (the items of vector<float> and vector<vector<float>> fields too), stored
      // truncated to sign + exponent + N mantissa bits. ROOT truncates (rounds towards zero); the values were
      // rounded to N bits already, so nothing more is lost and the stored values are the rounded ones exactly.
      for (auto &field : model->GetMutableFieldZero())
         if (auto *f = dynamic_cast<ROOT::RField<float> *>(&field)) {
            f->SetTruncated(static_cast<std::size_t>(1 + 8 + float_mantissa));
            ++truncated_fields_;
         }
   }
   ROOT::RNTupleWriteOptions options;
   options.SetCompression(compression);
   if (autoflush > 0) {
      // Clusters of exactly N events, committed by hand: the automatic flush must never come first.
      options.SetMaxUnzippedClusterSize(std::size_t(64) << 30);
      options.SetApproxZippedClusterSize(std::size_t(16) << 30);
   } else if (autoflush < 0) {
      options.SetApproxZippedClusterSize(static_cast<std::size_t>(-autoflush));
   }
   if (page_size > 0)
      options.SetMaxUnzippedPageSize(static_cast<std::size_t>(page_size));
   // As the TTree writer: ROOT compresses pages in parallel only when the writer was given threads.
   options.SetUseImplicitMT(parallel_zip ? ROOT::RNTupleWriteOptions::EImplicitMT::kDefault
                                         : ROOT::RNTupleWriteOptions::EImplicitMT::kOff);
   try {
      writer_ = ROOT::RNTupleWriter::Recreate(std::move(model), name, output, options);
   } catch (const std::exception &e) {
      fail("cannot create the RNTuple " + name + " in " + output + ": " + e.what());
   }
   entry_ = writer_->CreateEntry();
   for (auto &[field, address] : bindings)
      entry_->BindRawPtr(field, address);
}

NTupleSink::~NTupleSink() = default;

void NTupleSink::fill(Long64_t i)
{
   try {
      writer_->Fill(*entry_);
      if (cluster_entries_ && (i + 1) % cluster_entries_ == 0)
         writer_->CommitCluster();
   } catch (const std::exception &e) {
      fail("writing event " + std::to_string(i) + " to " + output_ + " failed: " + e.what());
   }
}

std::pair<Long64_t, Long64_t> NTupleSink::close()
{
   entry_.reset();
   try {
      writer_.reset();  // commits the last cluster, the header and the footer, and closes the file
   } catch (const std::exception &e) {
      fail("closing " + output_ + " failed: " + e.what());
   }
   // The sizes are the reader's --inspect business (it counts merged pages once); the clusters are checked here.
   auto reader = ROOT::RNTupleReader::Open(name_, output_);
   const auto &desc = reader->GetDescriptor();
   clusters_ = desc.GetNClusters();
   return {-1, -1};
}

// --- ImportedNTupleSink ------------------------------------------------------------------------------------------

ImportedNTupleSink::ImportedNTupleSink(const std::string &output, const std::string &name, int compression,
                                       Long64_t autoflush, long long page_size, std::vector<Collection> &containers)
   : output_(output), name_(name), tree_file_(output + ".flat-tree.root"), compression_(compression),
     autoflush_(autoflush), page_size_(page_size)
{
   tree_ = std::make_unique<TreeSink>(tree_file_, name, compression, 0, 99, 32000, containers,
                                      std::map<std::string, int>{});
}

std::pair<Long64_t, Long64_t> ImportedNTupleSink::close()
{
   tree_->close();
   std::remove(output_.c_str());
   try {
      std::unique_ptr<TFile> in(TFile::Open(tree_file_.c_str(), "READ"));
      auto *tree = in ? in->Get<TTree>(name_.c_str()) : nullptr;
      if (!tree)
         fail("the flat TTree for the RNTuple import is missing from " + tree_file_);
      auto importer = ROOT::Experimental::RNTupleImporter::Create(tree, output_);
      importer->SetNTupleName(name_);
      importer->SetIsQuiet(true);
      auto options = importer->GetWriteOptions();
      options.SetCompression(compression_);
      if (autoflush_ < 0)
         options.SetApproxZippedClusterSize(static_cast<std::size_t>(-autoflush_));
      if (page_size_ > 0)
         options.SetMaxUnzippedPageSize(static_cast<std::size_t>(page_size_));
      importer->SetWriteOptions(options);
      importer->Import();
   } catch (const std::exception &e) {
      std::remove(tree_file_.c_str());
      fail("importing the flat events into the RNTuple " + name_ + " in " + output_ + " failed: " + e.what());
   }
   std::remove(tree_file_.c_str());
   auto reader = ROOT::RNTupleReader::Open(name_, output_);
   clusters_ = reader->GetDescriptor().GetNClusters();
   return {-1, -1};
}

}  // namespace rootparams::write
