// The content checksum (--checksum): one hash of a file's events that does not depend on how, or in which container
// (TTree or RNTuple), they were stored; the check that every setting of the study writes the same events.
#pragma once

#include <string>

namespace rootparams::read {

// Prints ROOTPARAMS_JSON {"file", "entries", "content_checksum"} for the TTree or RNTuple `name` of `path`
// (read_checksum.cxx says what is hashed).
int content_checksum(const std::string &path, const std::string &name);

}  // namespace rootparams::read
