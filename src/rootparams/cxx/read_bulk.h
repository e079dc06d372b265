// The bulk reading style of rootparams-read (--reading-style bulk): ROOT's bulk API for TTrees
// (TBranch::GetBulkRead(): GetBulkEntries, GetEntriesSerialized), a basket of entries per call instead of an entry per
// call, on the branches it can read, and RNTuple's (RFieldBase::RBulkValues), a cluster's entries per call.
// read_bulk.cxx says which branches those are and why, and how the read is made comparable with the GetEntry read.
#pragma once

#include "read_counters.h"

#include <map>
#include <string>

namespace rootparams::read {

// The timed read of --reading-style bulk; prints its "ROOTPARAMS_JSON {...}" line like the GetEntry read.
int timed_read_bulk(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode);

// The same for an RNTuple (--container rntuple): RFieldBase::RBulkValues, a cluster's entries per call.
int timed_read_ntuple_bulk(const std::map<std::string, std::string> &args, const Snapshot &process_start,
                           const char *mode);

}  // namespace rootparams::read
