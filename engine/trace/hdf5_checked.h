#pragma once
// Reading HDF5 datasets and attributes of an untrusted file (traces) after checking what the file
// declares against what the schema expects and against the file's own size, so that libhdf5 is
// never asked to read more than the file can hold or to convert a type we did not expect:
//
//   dataset   rank 1, a simple dataspace, an element class and on-disk size as expected;
//             layout contiguous (storage inside the file), compact (at most 64 KiB) or chunked
//             (1-D chunks of at most kMaxChunkElements, filters only shuffle and deflate,
//             every chunk allocated, inside the file and at most its raw size plus deflate's
//             overhead); declared bytes at most the file's bytes (unfiltered) or
//             kMaxInflation times them (deflate), and never more than kMaxDeclaredBytes;
//   compound  every member the memory type names is present with the same class and size,
//             and every member of the file's type lies inside its record;
//   attribute exactly one element, of the expected class and size.
//
// Every loop here is bounded by sizes the file declares after they were checked. Errors name the
// file and the dataset or attribute: DataLoss for storage that does not fit the file or that
// libhdf5 cannot read, InvalidArgument for a shape, type or layout the schema does not allow,
// NotFound for a missing dataset or attribute. Callers hold h5::Hdf5Guard.
#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/trace/hdf5_util.h"

namespace fb::h5 {

// The file being read, and the bounds its size puts on what its datasets may declare.
struct FileBounds {
  std::string path;
  uint64_t file_bytes = 0;
  // deflate compresses at most 1032:1, so a filtered dataset holds at most this many raw bytes
  // per byte of file.
  static constexpr uint64_t kMaxInflation = 1100;
  static constexpr uint64_t kMaxDeclaredBytes = uint64_t{1} << 36;  // 64 GiB in memory
  static constexpr uint64_t kMaxChunkElements = uint64_t{1} << 22;
};

// stat()s `path`. NotFound when it does not exist, InvalidArgument when it is not a regular file;
// `what` ("trace", "profile") words the messages.
StatusOr<FileBounds> GetFileBounds(const std::string& path, const std::string& what = "trace");

// A dataset whose structure was checked; `count` elements of `element_bytes` on disk.
struct CheckedDataset {
  Handle dataset;
  Handle file_type;
  uint64_t count = 0;
  size_t element_bytes = 0;
};

// Opens 1-D dataset `name` under `loc` and checks it as described above: element class `cls`,
// on-disk element size `element_bytes` (0: any size up to 4096), at most `max_count` elements.
// `check_storage` false skips the layout checks (variable-length strings, whose storage holds
// heap ids, are checked by their reader).
StatusOr<CheckedDataset> OpenChecked(hid_t loc, const std::string& name, H5T_class_t cls,
                                     size_t element_bytes, uint64_t max_count,
                                     const FileBounds& file, bool check_storage = true);

// Reads the whole compound table `name`, converted to `mem_type` (record size `record_bytes`),
// after OpenChecked and the compound checks above.
Status ReadCheckedTableRaw(hid_t loc, const std::string& name, hid_t mem_type,
                           size_t record_bytes, std::vector<char>* bytes, size_t* count,
                           const FileBounds& file);
template <typename T>
StatusOr<std::vector<T>> ReadCheckedTable(hid_t loc, const std::string& name, hid_t mem_type,
                                          const FileBounds& file) {
  std::vector<char> bytes;
  size_t count = 0;
  RETURN_IF_ERROR(ReadCheckedTableRaw(loc, name, mem_type, sizeof(T), &bytes, &count, file));
  std::vector<T> out(count);
  if (count) std::memcpy(out.data(), bytes.data(), count * sizeof(T));
  return out;
}

// Whole 1-D integer datasets: unsigned 8-bit (a blob) and signed 64-bit.
StatusOr<std::vector<uint8_t>> ReadCheckedBytes(hid_t loc, const std::string& name,
                                                const FileBounds& file);
StatusOr<std::vector<int64_t>> ReadCheckedInt64s(hid_t loc, const std::string& name,
                                                 uint64_t max_count, const FileBounds& file);

// Scalar attributes: an integer of at most 8 bytes, a fixed-length string of at most
// `max_bytes` bytes (NUL padding removed).
StatusOr<int64_t> ReadCheckedIntAttr(hid_t obj, const std::string& name, const FileBounds& file);
StatusOr<std::string> ReadCheckedFixedStringAttr(hid_t obj, const std::string& name,
                                                 size_t max_bytes, const FileBounds& file);
// Opens attribute `name` of `obj` after checking it holds exactly one element.
StatusOr<Handle> OpenCheckedAttr(hid_t obj, const std::string& name, const FileBounds& file);

// Writes a scalar fixed-length, NUL-padded UTF-8 string attribute (h5py reads it as bytes).
Status WriteFixedStringAttr(hid_t obj, const std::string& name, const std::string& value,
                            const std::string& path);

}  // namespace fb::h5
