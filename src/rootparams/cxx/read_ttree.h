// The TTree read: --inspect of a TTree, and the timed read by TTree::GetEntry (--reading-style getentry, the default) with
// its branch selection, TTreeCache (or TTreeCacheUnzip) and PerfStats, including the branches ROOT can only emulate,
// read basket by basket. The fields every TTree read's output starts with are shared with the RDataFrame read.
#pragma once

#include "common.h"
#include "read_counters.h"

#include <map>
#include <string>

class TBranch;

namespace rootparams::read {

// The first class of a branch (or of its sub-branches) whose objects ROOT cannot build as the class itself:
// one known only from the file's streamer info (emulated: no dictionary, and the interpreter does not know
// it), or a collection of such a class. Empty if ROOT can build every object of the branch. Plain TBranch
// leaves (fundamental types) always can.
std::string unbuildable_class(TBranch *b);

// --inspect of a TTree: what the file really is, for the catalogue (ROOTPARAMS_JSON with the file's and every
// top-level branch's sizes, compression, split level and clusters).
int inspect(const std::string &path, const std::string &tree_name);

// The fields every timed read of a TTree starts with, whatever reads it (GetEntry, RDataFrame).
void add_ttree_read_header(JsonObject &out, const std::string &path, const std::string &file_class, const char *style,
                           bool perf, const char *mode, int perf_threads);

// One timed read of a TTree by TTree::GetEntry; prints its "ROOTPARAMS_JSON {...}" line. `mode`: "exec" (a process
// of its own) or "fork" (a child of the fork server).
int timed_read(const std::map<std::string, std::string> &args, const Snapshot &process_start, const char *mode);

}  // namespace rootparams::read
