// rootparams-write's shared ground: how the writer fails. Every unit of the writer includes it; main, the command
// line and the event loop are in write_collection_tree.cxx (docs/measurement.md, "The writer's source").
#pragma once

#include "common.h"

#include <stdexcept>
#include <string>

namespace rootparams::write {

// Every error of the writer: main prints "rootparams-write: error: <msg>" and exits with code 2.
[[noreturn]] inline void fail(const std::string &msg)
{
   throw std::runtime_error(msg);
}

}  // namespace rootparams::write
