#pragma once
// Small helpers over the HDF5 C API shared by the trace files (engine/trace) and checkpoints
// (engine/checkpoint): RAII handles, a guard that serialises HDF5 calls and silences HDF5's
// default error printing, HDF5 errors turned into Status values that name the file, scalar
// attributes, and 1-D tables of compound records (chunked, extendable, gzip-compressed).
//
// Thread-safety: every public entry point of a module using HDF5 takes an Hdf5Guard first; the
// guard's mutex is recursive, so helpers below may be called with or without it held.
#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/framework/status.h"

namespace fb::h5 {

// Owns one HDF5 identifier (file, group, dataset, dataspace, type, property list, attribute)
// and closes it with the matching H5?close function.
class Handle {
 public:
  using CloseFn = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, CloseFn close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { Reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now; returns false if HDF5 reported an error while closing (e.g. a failed flush).
  bool Reset();

 private:
  hid_t id_ = -1;
  CloseFn close_ = nullptr;
};

// Serialises HDF5 calls process-wide (HDF5 builds without --enable-threadsafe need it) and turns
// off HDF5's automatic error printing for the calling thread (errors become Status instead).
class Hdf5Guard {
 public:
  Hdf5Guard();

 private:
  std::unique_lock<std::recursive_mutex> lock_;
};

// A Status with `code` and message "<path>: <what> (HDF5: <innermost HDF5 error>)"; clears the
// calling thread's HDF5 error stack.
Status Error(Code code, const std::string& path, const std::string& what);

// Opens an existing HDF5 file read-only. NotFound when `path` does not exist; DataLoss when it
// is not an HDF5 file or HDF5 cannot open it (truncated or corrupt), with HDF5's reason.
// `what` ("trace", "checkpoint") words the messages.
StatusOr<Handle> OpenFileForRead(const std::string& path, const std::string& what);

// True if `path` ("a/b/c") names an object below `loc`; checks each component, so a missing
// intermediate group is "false", never an HDF5 error.
bool Exists(hid_t loc, const std::string& path);

// Scalar attributes on `obj`. Strings are variable-length UTF-8 (h5py reads them as str).
// Errors are Internal/NotFound/InvalidArgument naming `path` (the file) and the attribute.
Status WriteAttr(hid_t obj, const std::string& name, const std::string& value,
                 const std::string& path);
Status WriteAttr(hid_t obj, const std::string& name, int64_t value, const std::string& path);
Status WriteAttr(hid_t obj, const std::string& name, double value, const std::string& path);
StatusOr<std::string> ReadStringAttr(hid_t obj, const std::string& name, const std::string& path);
StatusOr<int64_t> ReadIntAttr(hid_t obj, const std::string& name, const std::string& path);

// A 1-D dataset of compound records of type `type` (record size `record_bytes`), chunked by
// `chunk_records`, extendable without limit and gzip-compressed (with the shuffle filter).
class AppendTable {
 public:
  static StatusOr<AppendTable> Create(hid_t loc, const std::string& name, hid_t type,
                                      size_t chunk_records, const std::string& path);
  // Appends `n` records laid out as `type` describes.
  Status Append(const void* records, size_t n);
  template <typename T>
  Status Append(const std::vector<T>& records) {
    return records.empty() ? Status::OK() : Append(records.data(), records.size());
  }
  int64_t size() const { return size_; }

 private:
  AppendTable(Handle dataset, hid_t type, std::string where)
      : dataset_(std::move(dataset)), type_(type), where_(std::move(where)) {}
  Handle dataset_;
  hid_t type_ = -1;  // not owned
  int64_t size_ = 0;
  std::string where_;  // "<path>: /<name>" for messages
};

// Creates table `name` under `loc` holding `records` (possibly none).
template <typename T>
Status WriteTable(hid_t loc, const std::string& name, hid_t type, const std::vector<T>& records,
                  const std::string& path) {
  ASSIGN_OR_RETURN(AppendTable table, AppendTable::Create(loc, name, type, 4096, path));
  return table.Append(records);
}

// A 1-D dataset of variable-length UTF-8 strings (h5py: f[name].asstr()[:]), as trace schema
// version 1 stored /strings. Reading untrusted tables and strings: hdf5_checked.h and
// global_heap_strings.h (libhdf5 follows variable-length data's heap ids unchecked).
Status WriteStrings(hid_t loc, const std::string& name, const std::vector<std::string>& strings,
                    const std::string& path);

// A variable-length UTF-8 string type (owned handle).
Handle VarStringType();

// fsync of a file or directory by path. Internal naming the path and errno text on failure.
Status FsyncPath(const std::string& path);

}  // namespace fb::h5
