#pragma once
// The /transfers table of a profile (schema 5, sim/profile.h): ProfileExecutor::transfer_points
// of every thread count, one row per (threads, size). Kept apart from sim/profile.cc so the
// executor's and the kernels' tables and this one change independently.
//
//   /transfers   compound {threads (int32), devices (int32), bytes, transfer_ns, compress_ns,
//                decompress_ns (float64)}, rows of one thread count sorted by bytes
#include <string>

#include <hdf5.h>

#include "engine/trace/hdf5_checked.h"
#include "sim/profile.h"

namespace fb::sim {

// Writes the transfer points of `executor` (all rows; none: an empty table). Internal naming
// `path` for HDF5 failures.
Status WriteTransferTable(hid_t root, const std::vector<ProfileExecutor>& executor,
                          const std::string& path);

// Reads /transfers into the executor rows of matching threads (schema 5; the caller skips older
// files). InvalidArgument naming the file and row for a missing or malformed table, a negative or
// non-finite cost or size, bytes <= 0, fewer than 2 devices, a thread count without an /executor
// row, or sizes of one thread count not strictly increasing; DataLoss for a truncated file.
Status ReadTransferTable(hid_t root, const h5::FileBounds& f, std::vector<ProfileExecutor>* executor);

}  // namespace fb::sim
