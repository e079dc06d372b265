// The RNTuple read: opening an RNTuple (its anchor in the TFile), --inspect of an RNTuple, and the timed read of its
// selected fields by views, with RNTuple's own metrics in the columns PerfStats fills for a TTree and the fields
// ROOT cannot create read by their subfields.
#pragma once

#include "common.h"
#include "read_counters.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class TFile;
namespace ROOT {
class RNTupleDescriptor;
class RNTupleReader;
class RNTupleReadOptions;
}

namespace rootparams::read {

// The reader of the RNTuple `name` in `file`; a file without it, or one ROOT cannot open, is damaged (exit code 3).
std::unique_ptr<ROOT::RNTupleReader> open_ntuple(const std::string &path, const std::string &name, TFile *file,
                                                 const ROOT::RNTupleReadOptions &options);

// RNTuple's metrics (RNTupleReader.RPageSourceFile.*) as a timed read's I/O counters (read_ntuple.cxx says which
// counter fills which column); the reader must have been opened with metrics enabled.
std::unique_ptr<IOCounters> ntuple_io_counters(const ROOT::RNTupleReader &reader);

// The compressed and uncompressed bytes of the pages of `fields` (and their subfields), each page counted once.
std::pair<long long, long long> ntuple_fields_bytes(const ROOT::RNTupleDescriptor &desc,
                                                    const std::vector<std::string> &fields);

// --inspect for an RNTuple: the keys of inspect() (catalogue_entry reads them), with fields for branches.
int inspect_ntuple(const std::string &path, const std::string &name);

// One timed read of an RNTuple (--container rntuple); prints its "ROOTPARAMS_JSON {...}" line, with the keys of the
// TTree read where they have a meaning here (read_ntuple.cxx says which counter fills which column).
int timed_read_ntuple(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode);

}  // namespace rootparams::read
