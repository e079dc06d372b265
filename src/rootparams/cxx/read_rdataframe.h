// The RDataFrame reading style of rootparams-read (--reading-style rdataframe --columns <col>,<col>,..., TTree files):
// one entry function; read_rdataframe.cxx says how the read is made comparable with the GetEntry read and what
// RDataFrame decides by itself.
#pragma once

#include "read_counters.h"

#include <map>
#include <string>

namespace rootparams::read {

// The timed read of --reading-style rdataframe; prints its "ROOTPARAMS_JSON {...}" line like the GetEntry read.
int timed_read_rdataframe(const std::map<std::string, std::string> &args, const Snapshot &process_start,
                          const char *mode);

}  // namespace rootparams::read
