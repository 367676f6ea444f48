#include "engine/trace/hdf5_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace fb::h5 {

Handle& Handle::operator=(Handle&& o) noexcept {
  if (this != &o) {
    Reset();
    id_ = std::exchange(o.id_, -1);
    close_ = o.close_;
  }
  return *this;
}

bool Handle::Reset() {
  bool ok = true;
  if (id_ >= 0 && close_) ok = close_(id_) >= 0;
  id_ = -1;
  return ok;
}

namespace {
std::recursive_mutex& Hdf5Mutex() {
  static auto* mu = new std::recursive_mutex;
  return *mu;
}

herr_t LastErrorDesc(unsigned n, const H5E_error2_t* err, void* data) {
  // Walking downward, the last entry is the innermost (most specific) error.
  if (err->desc && err->desc[0]) *static_cast<std::string*>(data) = err->desc;
  return 0;
}
}  // namespace

Hdf5Guard::Hdf5Guard() : lock_(Hdf5Mutex()) { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

Status Error(Code code, const std::string& path, const std::string& what) {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, LastErrorDesc, &detail);
  H5Eclear2(H5E_DEFAULT);
  std::string msg = path + ": " + what;
  if (!detail.empty()) msg += " (HDF5: " + detail + ")";
  return Status(code, msg);
}

StatusOr<Handle> OpenFileForRead(const std::string& path, const std::string& what) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return NotFound(path, ": cannot open ", what, ": ", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(path, ": ", what, " is not a regular file");
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return DataLoss(path, ": not an HDF5 file (", st.st_size, " bytes); expected a flowbench ",
                    what);
  }
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid())
    return Error(Code::kDataLoss, path, "cannot open " + what + " (truncated or corrupt?)");
  return file;
}

bool Exists(hid_t loc, const std::string& path) {
  size_t pos = 0;
  while (true) {
    size_t slash = path.find('/', pos);
    std::string prefix = path.substr(0, slash);
    if (prefix.empty() || H5Lexists(loc, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    if (slash == std::string::npos) return true;
    pos = slash + 1;
  }
}

Handle VarStringType() {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return Handle(t, H5Tclose);
}

namespace {
Status WriteScalarAttr(hid_t obj, const std::string& name, hid_t type, const void* value,
                       const std::string& path) {
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
  if (!attr.valid() || H5Awrite(attr.get(), type, value) < 0)
    return Error(Code::kInternal, path, "cannot write attribute '" + name + "'");
  return Status::OK();
}

StatusOr<Handle> OpenAttr(hid_t obj, const std::string& name, const std::string& path) {
  if (H5Aexists(obj, name.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return NotFound(path, ": missing attribute '", name, "'");
  }
  Handle attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attr.valid()) return Error(Code::kDataLoss, path, "cannot open attribute '" + name + "'");
  // Reads below fill one value: a corrupt dataspace of more elements would overrun it.
  Handle space(H5Aget_space(attr.get()), H5Sclose);
  if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1)
    return InvalidArgument(path, ": attribute '", name, "' must hold exactly one value");
  return attr;
}
}  // namespace

Status WriteAttr(hid_t obj, const std::string& name, const std::string& value,
                 const std::string& path) {
  Handle type = VarStringType();
  const char* p = value.c_str();
  return WriteScalarAttr(obj, name, type.get(), &p, path);
}

Status WriteAttr(hid_t obj, const std::string& name, int64_t value, const std::string& path) {
  return WriteScalarAttr(obj, name, H5T_NATIVE_INT64, &value, path);
}

Status WriteAttr(hid_t obj, const std::string& name, double value, const std::string& path) {
  return WriteScalarAttr(obj, name, H5T_NATIVE_DOUBLE, &value, path);
}

StatusOr<std::string> ReadStringAttr(hid_t obj, const std::string& name, const std::string& path) {
  ASSIGN_OR_RETURN(Handle attr, OpenAttr(obj, name, path));
  Handle file_type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_STRING)
    return InvalidArgument(path, ": attribute '", name, "' must be a string");
  if (H5Tis_variable_str(file_type.get()) > 0) {
    Handle type = VarStringType();
    char* p = nullptr;
    if (H5Aread(attr.get(), type.get(), &p) < 0)
      return Error(Code::kDataLoss, path, "cannot read attribute '" + name + "'");
    std::string s = p ? p : "";
    H5free_memory(p);
    return s;
  }
  size_t n = H5Tget_size(file_type.get());
  if (n == 0 || n > (size_t{1} << 20))
    return InvalidArgument(path, ": attribute '", name, "' is a string of ", n, " bytes");
  std::string s(n, '\0');
  if (H5Aread(attr.get(), file_type.get(), s.data()) < 0)
    return Error(Code::kDataLoss, path, "cannot read attribute '" + name + "'");
  return std::string(s.c_str());  // fixed-length strings may be NUL-padded
}

StatusOr<int64_t> ReadIntAttr(hid_t obj, const std::string& name, const std::string& path) {
  ASSIGN_OR_RETURN(Handle attr, OpenAttr(obj, name, path));
  Handle file_type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_INTEGER)
    return InvalidArgument(path, ": attribute '", name, "' must be an integer");
  int64_t v = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) < 0)
    return Error(Code::kDataLoss, path, "cannot read attribute '" + name + "'");
  return v;
}

StatusOr<AppendTable> AppendTable::Create(hid_t loc, const std::string& name, hid_t type,
                                          size_t chunk_records, const std::string& path) {
  hsize_t dims[1] = {0}, max_dims[1] = {H5S_UNLIMITED}, chunk[1] = {chunk_records};
  Handle space(H5Screate_simple(1, dims, max_dims), H5Sclose);
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_chunk(dcpl.get(), 1, chunk);
  H5Pset_shuffle(dcpl.get());
  H5Pset_deflate(dcpl.get(), 4);
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  // On disk the record type is packed (no alignment padding); writes convert from `type`.
  Handle packed(H5Tcopy(type), H5Tclose);
  if (H5Tget_class(type) == H5T_COMPOUND) H5Tpack(packed.get());
  Handle ds(H5Dcreate2(loc, name.c_str(), packed.get(), space.get(), lcpl.get(), dcpl.get(),
                       H5P_DEFAULT),
            H5Dclose);
  if (!ds.valid()) return Error(Code::kInternal, path, "cannot create dataset /" + name);
  return AppendTable(std::move(ds), type, path + ": /" + name);
}

Status AppendTable::Append(const void* records, size_t n) {
  if (n == 0) return Status::OK();
  hsize_t new_size[1] = {static_cast<hsize_t>(size_ + n)};
  if (H5Dset_extent(dataset_.get(), new_size) < 0)
    return Error(Code::kInternal, where_, "cannot extend dataset");
  Handle file_space(H5Dget_space(dataset_.get()), H5Sclose);
  hsize_t start[1] = {static_cast<hsize_t>(size_)}, count[1] = {n};
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
  Handle mem_space(H5Screate_simple(1, count, nullptr), H5Sclose);
  if (H5Dwrite(dataset_.get(), type_, mem_space.get(), file_space.get(), H5P_DEFAULT, records) < 0)
    return Error(Code::kInternal, where_, "cannot write records");
  size_ += static_cast<int64_t>(n);
  return Status::OK();
}

Status WriteStrings(hid_t loc, const std::string& name, const std::vector<std::string>& strings,
                    const std::string& path) {
  hsize_t dims[1] = {strings.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
  Handle type = VarStringType();
  Handle ds(H5Dcreate2(loc, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT),
            H5Dclose);
  if (!ds.valid()) return Error(Code::kInternal, path, "cannot create dataset /" + name);
  std::vector<const char*> ptrs;
  for (const std::string& s : strings) ptrs.push_back(s.c_str());
  if (!ptrs.empty() &&
      H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()) < 0)
    return Error(Code::kInternal, path, "cannot write dataset /" + name);
  return Status::OK();
}

Status FsyncPath(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return Internal(path, ": cannot open for fsync: ", std::strerror(errno));
  int rc = fsync(fd);
  int err = errno;
  close(fd);
  if (rc != 0) return Internal(path, ": fsync failed: ", std::strerror(err));
  return Status::OK();
}

}  // namespace fb::h5
