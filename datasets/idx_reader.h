#pragma once
// IDX files, the format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/, "FILE
// FORMATS"): a big-endian header of magic bytes {0, 0, type, rank} followed by `rank` uint32
// dimensions and the row-major data. Files may be gzip-compressed (read through zlib, which
// also reads uncompressed files transparently).
//
// Only unsigned-byte data (type 0x08) is supported: MNIST-format images and labels. Every error
// names the file and says what was expected and what was found.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb::datasets {

inline constexpr uint8_t kIdxTypeUint8 = 0x08;

// The contents of one IDX file: its dimensions and the row-major uint8 values.
struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
  int64_t num_elements() const;
};

// Reads and validates an IDX file. Errors (naming `path`): NotFound when the file does not
// exist; DataLoss for a bad magic number ("expected 0x0000 followed by type and rank"), a type
// other than uint8, a rank outside 1..4, a zero or oversized dimension, a truncated header, data
// shorter than the dimensions require ("need N bytes, found M"), or trailing bytes after the
// data; Internal for gzip read errors. The declared size is checked against the file (or, for
// gzip, the data actually read) before memory is allocated for it.
StatusOr<IdxArray> ReadIdxFile(const std::string& path);

// Writes `array` as an IDX file, gzip-compressed when `path` ends in ".gz" (tests, synthetic
// data). Internal naming the file on I/O errors.
Status WriteIdxFile(const std::string& path, const IdxArray& array);

}  // namespace fb::datasets
