#pragma once
// Reads a 1-D dataset of variable-length strings (schema version 1's /strings) without letting
// libhdf5 follow the heap ids stored in it. libhdf5 reads such strings through the file's global
// heap (H5HG_read) and trusts each id's object index, so a corrupt id crashes it. Here the
// dataset's raw storage (one id per string: length, collection address, object index) is read
// with pread, every global heap collection ("GCOL", HDF5 file format specification III.E) that
// an id names is read and parsed with bounds checks, and each string is copied out of its
// collection only after its object is found there and holds the string's length.
#include <string>
#include <vector>

#include "engine/trace/hdf5_checked.h"

namespace fb::h5 {

// Reads the `count` strings of `dataset` (opened with OpenChecked, check_storage false). The
// dataset must be contiguous in a file with 8-byte addresses and lengths and no user block.
// DataLoss naming the file and `name` for storage or heap data that does not fit the file or
// does not parse; InvalidArgument for another layout.
StatusOr<std::vector<std::string>> ReadVlenStringsFromHeap(hid_t dataset, uint64_t count,
                                                           const std::string& name,
                                                           const FileBounds& file);

}  // namespace fb::h5
