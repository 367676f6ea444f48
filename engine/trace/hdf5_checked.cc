#include "engine/trace/hdf5_checked.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

namespace fb::h5 {
namespace {

constexpr uint64_t kMaxCompactBytes = 64 * 1024;
constexpr size_t kMaxRecordBytes = 4096;
constexpr int kMaxCompoundMembers = 64;

const char* ClassName(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    default: return "other";
  }
}

std::string Where(const FileBounds& f, const std::string& name) {
  return f.path + ": dataset /" + name;
}

// Contiguous storage must lie inside the file; a compact dataset is small by construction.
Status CheckContiguous(hid_t ds, uint64_t bytes, const FileBounds& f, const std::string& name) {
  const haddr_t addr = H5Dget_offset(ds);
  H5Eclear2(H5E_DEFAULT);
  if (addr == HADDR_UNDEF) return Status::OK();  // not allocated: reads give the fill value
  if (addr > f.file_bytes || bytes > f.file_bytes - addr)
    return DataLoss(Where(f, name), ": contiguous storage of ", bytes, " bytes at offset ", addr,
                    " lies outside the file (", f.file_bytes, " bytes)");
  return Status::OK();
}

// Filters: none, shuffle or deflate. Sets *deflate when deflate is in the pipeline.
Status CheckFilters(hid_t dcpl, const FileBounds& f, const std::string& name, bool* deflate) {
  const int n = H5Pget_nfilters(dcpl);
  if (n < 0 || n > 2)
    return InvalidArgument(Where(f, name), ": expected at most 2 filters (shuffle, deflate), "
                           "found ", n);
  *deflate = false;
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, values[8];
    size_t num_values = 8;
    char filter_name[64];
    H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &num_values, values,
                                     sizeof filter_name, filter_name, nullptr);
    if (id == H5Z_FILTER_DEFLATE) *deflate = true;
    else if (id != H5Z_FILTER_SHUFFLE)
      return InvalidArgument(Where(f, name), ": filter ", id, " is not shuffle or deflate");
  }
  return Status::OK();
}

// Every chunk of a 1-D chunked dataset is allocated, inside the file and not larger than its
// raw bytes plus deflate's worst-case overhead.
Status CheckChunks(hid_t ds, uint64_t count, uint64_t chunk, size_t element_bytes,
                   const FileBounds& f, const std::string& name) {
  const uint64_t expected = (count + chunk - 1) / chunk;
  Handle space(H5Dget_space(ds), H5Sclose);
  hsize_t n = 0;
  if (!space.valid() || H5Dget_num_chunks(ds, space.get(), &n) < 0)
    return Error(Code::kDataLoss, Where(f, name), "cannot index its chunks");
  if (n != expected)
    return DataLoss(Where(f, name), ": ", count, " elements in chunks of ", chunk, " need ",
                    expected, " chunks, the file has ", n);
  const uint64_t max_chunk_bytes = chunk * element_bytes + chunk * element_bytes / 16 + 1024;
  for (hsize_t i = 0; i < n; ++i) {
    hsize_t offset[1] = {0};
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    if (H5Dget_chunk_info(ds, space.get(), i, offset, &mask, &addr, &size) < 0)
      return Error(Code::kDataLoss, Where(f, name), "cannot read the index of chunk " +
                                                        std::to_string(i));
    if (addr == HADDR_UNDEF || addr > f.file_bytes || size > f.file_bytes - addr ||
        size > max_chunk_bytes || offset[0] % chunk != 0 || offset[0] >= count)
      return DataLoss(Where(f, name), ": chunk ", i, " (element ", offset[0], ", ", size,
                      " bytes at offset ", addr, ") does not fit the dataset and the file (",
                      f.file_bytes, " bytes)");
  }
  return Status::OK();
}

Status CheckChunked(hid_t ds, hid_t dcpl, uint64_t count, size_t element_bytes,
                    const FileBounds& f, const std::string& name) {
  hsize_t chunk[1] = {0};
  if (H5Pget_chunk(dcpl, 1, chunk) != 1 || chunk[0] < 1 ||
      chunk[0] > FileBounds::kMaxChunkElements)
    return InvalidArgument(Where(f, name), ": expected 1-D chunks of 1 to ",
                           FileBounds::kMaxChunkElements, " elements, found ", chunk[0]);
  bool deflate = false;
  RETURN_IF_ERROR(CheckFilters(dcpl, f, name, &deflate));
  const uint64_t bytes = count * element_bytes;
  const uint64_t limit = std::min(
      FileBounds::kMaxDeclaredBytes, deflate ? f.file_bytes * FileBounds::kMaxInflation
                                             : f.file_bytes);
  if (bytes > limit)
    return DataLoss(Where(f, name), ": declares ", count, " elements (", bytes,
                    " bytes), more than a file of ", f.file_bytes, " bytes can hold");
  return CheckChunks(ds, count, chunk[0], element_bytes, f, name);
}

Status CheckStorage(hid_t ds, uint64_t count, size_t element_bytes, const FileBounds& f,
                    const std::string& name) {
  Handle dcpl(H5Dget_create_plist(ds), H5Pclose);
  if (!dcpl.valid()) return Error(Code::kDataLoss, Where(f, name), "cannot read its layout");
  const uint64_t bytes = count * element_bytes;
  switch (H5Pget_layout(dcpl.get())) {
    case H5D_CONTIGUOUS:
      if (bytes > f.file_bytes)
        return DataLoss(Where(f, name), ": declares ", count, " elements (", bytes,
                        " bytes), more than the file's ", f.file_bytes, " bytes");
      return CheckContiguous(ds, bytes, f, name);
    case H5D_COMPACT:
      if (bytes > kMaxCompactBytes)
        return DataLoss(Where(f, name), ": compact storage declares ", bytes, " bytes");
      return Status::OK();
    case H5D_CHUNKED: return CheckChunked(ds, dcpl.get(), count, element_bytes, f, name);
    default: return InvalidArgument(Where(f, name), ": unsupported storage layout");
  }
}

// Every member of `mem` is in `file` with the same class and size; every member of `file` lies
// inside its record.
Status CheckCompound(hid_t file_type, hid_t mem, const FileBounds& f, const std::string& name) {
  const int n_file = H5Tget_nmembers(file_type), n_mem = H5Tget_nmembers(mem);
  const size_t record = H5Tget_size(file_type);
  if (n_file < 1 || n_file > kMaxCompoundMembers)
    return InvalidArgument(Where(f, name), ": compound type with ", n_file, " members");
  for (int i = 0; i < n_file; ++i) {
    Handle member(H5Tget_member_type(file_type, static_cast<unsigned>(i)), H5Tclose);
    const size_t offset = H5Tget_member_offset(file_type, static_cast<unsigned>(i));
    const size_t size = member.valid() ? H5Tget_size(member.get()) : 0;
    if (!member.valid() || size == 0 || offset > record || size > record - offset)
      return DataLoss(Where(f, name), ": compound member ", i, " lies outside its ", record,
                      "-byte record");
  }
  for (int i = 0; i < n_mem; ++i) {
    char* member_name = H5Tget_member_name(mem, static_cast<unsigned>(i));
    const std::string field = member_name ? member_name : "";
    H5free_memory(member_name);
    const int j = H5Tget_member_index(file_type, field.c_str());
    H5Eclear2(H5E_DEFAULT);
    if (j < 0) return InvalidArgument(Where(f, name), ": missing field '", field, "'");
    Handle want(H5Tget_member_type(mem, static_cast<unsigned>(i)), H5Tclose);
    Handle got(H5Tget_member_type(file_type, static_cast<unsigned>(j)), H5Tclose);
    const H5T_class_t want_class = H5Tget_class(want.get()), got_class = H5Tget_class(got.get());
    if (want_class != got_class || H5Tget_size(want.get()) != H5Tget_size(got.get()))
      return InvalidArgument(Where(f, name), ": field '", field, "' must be a ",
                             H5Tget_size(want.get()), "-byte ", ClassName(want_class),
                             ", found a ", H5Tget_size(got.get()), "-byte ",
                             ClassName(got_class));
  }
  return Status::OK();
}

template <typename T>
StatusOr<std::vector<T>> ReadCheckedScalars(hid_t loc, const std::string& name, hid_t mem_type,
                                            uint64_t max_count, const FileBounds& f) {
  ASSIGN_OR_RETURN(CheckedDataset d, OpenChecked(loc, name, H5T_INTEGER, sizeof(T), max_count, f));
  std::vector<T> out(d.count);
  if (d.count && H5Dread(d.dataset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                         out.data()) < 0)
    return Error(Code::kDataLoss, Where(f, name), "cannot read");
  return out;
}

}  // namespace

StatusOr<FileBounds> GetFileBounds(const std::string& path, const std::string& what) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return NotFound(path, ": cannot open ", what, ": ", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(path, ": ", what, " is not a regular file");
  return FileBounds{path, static_cast<uint64_t>(st.st_size)};
}

StatusOr<CheckedDataset> OpenChecked(hid_t loc, const std::string& name, H5T_class_t cls,
                                     size_t element_bytes, uint64_t max_count,
                                     const FileBounds& f, bool check_storage) {
  if (!Exists(loc, name)) return NotFound(f.path, ": missing dataset /", name);
  CheckedDataset d;
  d.dataset = Handle(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.dataset.valid()) return Error(Code::kDataLoss, Where(f, name), "cannot open");
  d.file_type = Handle(H5Dget_type(d.dataset.get()), H5Tclose);
  Handle space(H5Dget_space(d.dataset.get()), H5Sclose);
  if (!d.file_type.valid() || !space.valid())
    return Error(Code::kDataLoss, Where(f, name), "cannot read its type and shape");
  const H5T_class_t found = H5Tget_class(d.file_type.get());
  d.element_bytes = H5Tget_size(d.file_type.get());
  if (found != cls || d.element_bytes == 0 ||
      (element_bytes ? d.element_bytes != element_bytes : d.element_bytes > kMaxRecordBytes))
    return InvalidArgument(Where(f, name), ": expected ", ClassName(cls), " elements of ",
                           element_bytes ? std::to_string(element_bytes) : "at most 4096",
                           " bytes, found ", ClassName(found), " of ", d.element_bytes);
  hsize_t dims[1] = {0};
  if (H5Sget_simple_extent_type(space.get()) != H5S_SIMPLE ||
      H5Sget_simple_extent_ndims(space.get()) != 1 ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 1)
    return InvalidArgument(Where(f, name), ": must be 1-D");
  if (dims[0] > max_count)
    return DataLoss(Where(f, name), ": declares ", dims[0], " elements, at most ", max_count,
                    " expected");
  d.count = dims[0];
  if (check_storage)
    RETURN_IF_ERROR(CheckStorage(d.dataset.get(), d.count, d.element_bytes, f, name));
  return d;
}

Status ReadCheckedTableRaw(hid_t loc, const std::string& name, hid_t mem_type,
                           size_t record_bytes, std::vector<char>* bytes, size_t* count,
                           const FileBounds& f) {
  ASSIGN_OR_RETURN(CheckedDataset d, OpenChecked(loc, name, H5T_COMPOUND, 0,
                                                 FileBounds::kMaxDeclaredBytes, f));
  RETURN_IF_ERROR(CheckCompound(d.file_type.get(), mem_type, f, name));
  if (d.count > FileBounds::kMaxDeclaredBytes / record_bytes)
    return DataLoss(Where(f, name), ": declares ", d.count, " records, too many to read");
  bytes->assign(d.count * record_bytes, 0);
  *count = d.count;
  if (d.count && H5Dread(d.dataset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                         bytes->data()) < 0)
    return Error(Code::kDataLoss, Where(f, name), "cannot read");
  return Status::OK();
}

StatusOr<std::vector<uint8_t>> ReadCheckedBytes(hid_t loc, const std::string& name,
                                                const FileBounds& f) {
  return ReadCheckedScalars<uint8_t>(loc, name, H5T_NATIVE_UINT8, FileBounds::kMaxDeclaredBytes,
                                     f);
}

StatusOr<std::vector<int64_t>> ReadCheckedInt64s(hid_t loc, const std::string& name,
                                                 uint64_t max_count, const FileBounds& f) {
  return ReadCheckedScalars<int64_t>(loc, name, H5T_NATIVE_INT64, max_count, f);
}

StatusOr<Handle> OpenCheckedAttr(hid_t obj, const std::string& name, const FileBounds& f) {
  if (H5Aexists(obj, name.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return NotFound(f.path, ": missing attribute '", name, "'");
  }
  Handle attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return Error(Code::kDataLoss, f.path, "cannot open attribute '" + name + "'");
  Handle space(H5Aget_space(attr.get()), H5Sclose);
  if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1)
    return InvalidArgument(f.path, ": attribute '", name, "' must hold exactly one value");
  return attr;
}

StatusOr<int64_t> ReadCheckedIntAttr(hid_t obj, const std::string& name, const FileBounds& f) {
  ASSIGN_OR_RETURN(Handle attr, OpenCheckedAttr(obj, name, f));
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) > 8)
    return InvalidArgument(f.path, ": attribute '", name, "' must be an integer");
  int64_t v = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) < 0)
    return Error(Code::kDataLoss, f.path, "cannot read attribute '" + name + "'");
  return v;
}

StatusOr<std::string> ReadCheckedFixedStringAttr(hid_t obj, const std::string& name,
                                                 size_t max_bytes, const FileBounds& f) {
  ASSIGN_OR_RETURN(Handle attr, OpenCheckedAttr(obj, name, f));
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  const size_t n = H5Tget_size(type.get());
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0 || n == 0 ||
      n > max_bytes)
    return InvalidArgument(f.path, ": attribute '", name,
                           "' must be a fixed-length string of at most ", max_bytes, " bytes");
  std::string s(n, '\0');
  if (H5Aread(attr.get(), type.get(), s.data()) < 0)
    return Error(Code::kDataLoss, f.path, "cannot read attribute '" + name + "'");
  return std::string(s.c_str());  // NUL-padded
}

Status WriteFixedStringAttr(hid_t obj, const std::string& name, const std::string& value,
                            const std::string& path) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<size_t>(1, value.size()));
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  std::string padded = value;
  padded.resize(std::max<size_t>(1, value.size()), '\0');
  if (!attr.valid() || H5Awrite(attr.get(), type.get(), padded.data()) < 0)
    return Error(Code::kInternal, path, "cannot write attribute '" + name + "'");
  return Status::OK();
}

}  // namespace fb::h5
