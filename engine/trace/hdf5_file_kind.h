#pragma once
// Which kind of flowbench HDF5 file a path holds, from its root attributes, so that a reader
// handed another kind of flowbench file (a profile as --cost-model measured:, a trace as
// profile:, sweep results to `flowbench trace summary`) says what the file is and where it
// belongs instead of failing on the first attribute it misses.
#include <string>

#include <hdf5.h>

#include "engine/framework/status.h"

namespace fb::h5 {

// "trace" (root attribute `clock`), "profile" (`format`, sim/profile.h), "sweep results table"
// (`schema`, sweep/sweep_results.h), "checkpoint" (`format_version`), or "" when the root holds
// none of them. Never leaves an HDF5 error on the stack. Call under Hdf5Guard.
std::string FlowbenchFileKind(hid_t root);

// OK when the file's kind is `expected` (one of the kinds above) or unknown (the reader's own
// checks follow). Otherwise InvalidArgument "<path>: a flowbench <kind>, not a flowbench
// <expected> (<where that kind is used>)".
Status CheckFlowbenchFileKind(hid_t root, const std::string& path, const std::string& expected);

}  // namespace fb::h5
