#include "datasets/idx_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

namespace fb::datasets {
namespace {

constexpr int kMaxRank = 4;
constexpr int64_t kMaxElements = int64_t{1} << 34;  // 16 GiB of uint8: far beyond any IDX file

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// Reads up to `n` bytes; returns how many were read, or an error naming the file.
StatusOr<int64_t> ReadBytes(gzFile f, const std::string& path, void* out, int64_t n) {
  int64_t total = 0;
  auto* dst = static_cast<uint8_t*>(out);
  while (total < n) {
    unsigned chunk = static_cast<unsigned>(std::min<int64_t>(n - total, 1 << 30));
    int got = gzread(f, dst + total, chunk);
    if (got < 0) {
      int errnum = 0;
      const char* msg = gzerror(f, &errnum);
      return Internal("IDX file '", path, "': read failed: ", msg ? msg : "unknown gzip error");
    }
    if (got == 0) break;
    total += got;
  }
  return total;
}

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

Status ReadHeader(gzFile f, const std::string& path, std::vector<int64_t>* dims) {
  uint8_t magic[4];
  ASSIGN_OR_RETURN(int64_t got, ReadBytes(f, path, magic, 4));
  if (got < 4) return DataLoss("IDX file '", path, "': truncated header (", got, " of 4 magic bytes)");
  if (magic[0] != 0 || magic[1] != 0) {
    return DataLoss("IDX file '", path, "': bad magic number: expected 0x0000 followed by type and ",
                    "rank, got bytes ", int{magic[0]}, ",", int{magic[1]}, ",", int{magic[2]}, ",",
                    int{magic[3]});
  }
  if (magic[2] != kIdxTypeUint8) {
    return DataLoss("IDX file '", path, "': unsupported data type code ", int{magic[2]},
                    " (only unsigned byte, code 8, is supported)");
  }
  const int rank = magic[3];
  if (rank < 1 || rank > kMaxRank) {
    return DataLoss("IDX file '", path, "': rank ", rank, " out of range [1, ", kMaxRank, "]");
  }
  uint8_t raw[4 * kMaxRank];
  ASSIGN_OR_RETURN(got, ReadBytes(f, path, raw, 4 * rank));
  if (got < 4 * rank) {
    return DataLoss("IDX file '", path, "': truncated header: ", rank, " dimensions need ",
                    4 * rank, " bytes, found ", got);
  }
  int64_t elements = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t d = BigEndian32(raw + 4 * i);
    if (d == 0) return DataLoss("IDX file '", path, "': dimension ", i, " is 0");
    if (d > kMaxElements / elements) {  // checked before multiplying: no overflow
      return DataLoss("IDX file '", path, "': dimensions too large (more than ", kMaxElements,
                      " elements)");
    }
    elements *= d;
    dims->push_back(d);
  }
  return Status::OK();
}

}  // namespace

int64_t IdxArray::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

namespace {

// Reads the `n` data bytes the header declares. An uncompressed file is checked against its size
// first; a gzip stream's size is unknown until read, so its buffer grows with the data actually
// decompressed (never more than 64 MiB ahead of it) instead of being allocated from the header.
Status ReadData(gzFile f, const std::string& path, int64_t header_bytes, int64_t n,
                std::vector<uint8_t>* data) {
  if (gzdirect(f)) {
    std::error_code ec;
    const auto file_bytes = static_cast<int64_t>(std::filesystem::file_size(path, ec));
    if (!ec && file_bytes - header_bytes < n) {
      return DataLoss("IDX file '", path, "': truncated data: the header's dimensions need ", n,
                      " bytes, found ", file_bytes - header_bytes, " in the file after its ",
                      header_bytes, "-byte header");
    }
  }
  constexpr int64_t kChunk = int64_t{64} << 20;
  int64_t total = 0;
  while (total < n) {
    const int64_t want = std::min(n - total, kChunk);
    data->resize(total + want);
    ASSIGN_OR_RETURN(int64_t got, ReadBytes(f, path, data->data() + total, want));
    total += got;
    if (got < want) {
      return DataLoss("IDX file '", path, "': truncated data: the header's dimensions need ", n,
                      " bytes, found ", total);
    }
  }
  return Status::OK();
}

}  // namespace

StatusOr<IdxArray> ReadIdxFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return NotFound("IDX file '", path, "' not found");
  }
  GzFile f(gzopen(path.c_str(), "rb"));
  if (!f) return Internal("IDX file '", path, "': cannot open: ", std::strerror(errno));
  IdxArray array;
  RETURN_IF_ERROR(ReadHeader(f.get(), path, &array.dims));
  const int64_t n = array.num_elements();
  const int64_t header_bytes = 4 + 4 * static_cast<int64_t>(array.dims.size());
  RETURN_IF_ERROR(ReadData(f.get(), path, header_bytes, n, &array.data));
  uint8_t extra;
  ASSIGN_OR_RETURN(int64_t got, ReadBytes(f.get(), path, &extra, 1));
  if (got != 0) {
    return DataLoss("IDX file '", path, "': trailing bytes after the ", n,
                    " bytes the header's dimensions describe");
  }
  return array;
}

Status WriteIdxFile(const std::string& path, const IdxArray& array) {
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  GzFile f(gzopen(path.c_str(), gz ? "wb" : "wbT"));
  if (!f) return Internal("IDX file '", path, "': cannot create: ", std::strerror(errno));
  std::vector<uint8_t> header = {0, 0, kIdxTypeUint8, static_cast<uint8_t>(array.dims.size())};
  for (int64_t d : array.dims) {
    for (int shift = 24; shift >= 0; shift -= 8) header.push_back((d >> shift) & 0xff);
  }
  auto write = [&](const void* p, size_t n) {
    return n == 0 || gzwrite(f.get(), p, static_cast<unsigned>(n)) == static_cast<int>(n);
  };
  if (!write(header.data(), header.size()) || !write(array.data.data(), array.data.size())) {
    return Internal("IDX file '", path, "': write failed");
  }
  if (gzclose(f.release()) != Z_OK) return Internal("IDX file '", path, "': close failed");
  return Status::OK();
}

}  // namespace fb::datasets
