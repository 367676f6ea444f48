#include "engine/checkpoint/checkpoint_file.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include <zlib.h>

#include "engine/trace/hdf5_checked.h"
#include "engine/trace/hdf5_util.h"
#include "engine/trace/isolated_call.h"

namespace fb {

namespace {

constexpr hsize_t kMaxChunkBytes = 16 << 20;
constexpr const char* kCrcAttr = "crc32";

uLong Crc32Bytes(uLong crc, const void* data, size_t bytes) {
  const Bytef* p = static_cast<const Bytef*>(data);
  while (bytes > 0) {  // zlib takes uInt lengths: feed at most 1 GiB at a time
    const uInt n = static_cast<uInt>(std::min<size_t>(bytes, size_t{1} << 30));
    crc = crc32(crc, p, n);
    p += n;
    bytes -= n;
  }
  return crc;
}

// Temporary files this process is writing now (IsTemporaryCheckpointInUse).
std::mutex& InFlightMutex() {
  static std::mutex mu;
  return mu;
}
std::multiset<std::string>& InFlight() {
  static std::multiset<std::string> paths;
  return paths;
}
struct InFlightWrite {
  explicit InFlightWrite(std::string p) : path(std::move(p)) {
    std::lock_guard<std::mutex> lock(InFlightMutex());
    InFlight().insert(path);
  }
  ~InFlightWrite() {
    std::lock_guard<std::mutex> lock(InFlightMutex());
    InFlight().erase(InFlight().find(path));
  }
  std::string path;
};

// The HDF5 type a dtype is stored as (also used as the in-memory type: layouts agree).
StatusOr<h5::Handle> StorageType(DataType dt) {
  auto copy = [](hid_t t) { return h5::Handle(H5Tcopy(t), H5Tclose); };
  switch (dt) {
    case DataType::kFloat: return copy(H5T_NATIVE_FLOAT);
    case DataType::kDouble: return copy(H5T_NATIVE_DOUBLE);
    case DataType::kInt8: return copy(H5T_NATIVE_INT8);
    case DataType::kInt16: return copy(H5T_NATIVE_INT16);
    case DataType::kInt32: return copy(H5T_NATIVE_INT32);
    case DataType::kInt64: return copy(H5T_NATIVE_INT64);
    case DataType::kUInt8: return copy(H5T_NATIVE_UINT8);
    case DataType::kUInt16: return copy(H5T_NATIVE_UINT16);
    case DataType::kUInt32: return copy(H5T_NATIVE_UINT32);
    case DataType::kUInt64: return copy(H5T_NATIVE_UINT64);
    case DataType::kHalf:
    case DataType::kBFloat16: return copy(H5T_NATIVE_UINT16);
    case DataType::kBool: {  // h5py's bool: enum(int8) {FALSE = 0, TRUE = 1}
      h5::Handle t(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose);
      int8_t f = 0, tr = 1;
      H5Tenum_insert(t.get(), "FALSE", &f);
      H5Tenum_insert(t.get(), "TRUE", &tr);
      return t;
    }
    case DataType::kComplex64: {  // h5py's complex: compound {r, i}
      h5::Handle t(H5Tcreate(H5T_COMPOUND, sizeof(complex64)), H5Tclose);
      H5Tinsert(t.get(), "r", 0, H5T_NATIVE_FLOAT);
      H5Tinsert(t.get(), "i", sizeof(float), H5T_NATIVE_FLOAT);
      return t;
    }
    default:
      return InvalidArgument("dtype ", DataTypeString(dt), " cannot be stored in a checkpoint");
  }
}

std::string Where(const std::string& name) { return "variable '" + name + "': "; }

Status ValidateNames(const std::string& path, const std::vector<std::string>& names,
                     const std::vector<Tensor>& tensors) {
  if (names.size() != tensors.size())
    return InvalidArgument(path, ": ", names.size(), " tensor names for ", tensors.size(),
                           " tensors");
  std::set<std::string> seen;
  for (const std::string& n : names) {
    if (n.empty() || n.front() == '/' || n.back() == '/' || n.find("//") != std::string::npos)
      return InvalidArgument(path, ": bad tensor name '", n,
                             "' (must be non-empty, with no leading, trailing or double '/')");
    if (!seen.insert(n).second) return InvalidArgument(path, ": tensor name '", n, "' repeated");
  }
  return Status::OK();
}

// Chunks no larger than kMaxChunkBytes, halving the outer dimensions first.
std::vector<hsize_t> ChunkDims(std::vector<hsize_t> c, size_t elem_bytes) {
  auto bytes = [&] {
    hsize_t b = elem_bytes;
    for (hsize_t d : c) b *= d;
    return b;
  };
  for (size_t i = 0; i < c.size(); ++i)
    while (c[i] > 1 && bytes() > kMaxChunkBytes) c[i] = (c[i] + 1) / 2;
  return c;
}

Status WriteTensor(hid_t file, const std::string& name, const Tensor& t, const std::string& path) {
  auto type = StorageType(t.dtype());
  if (!type.ok()) return type.status().WithPrefix(path + ": " + Where(name));
  std::vector<hsize_t> dims(t.shape().dim_sizes().begin(), t.shape().dim_sizes().end());
  h5::Handle space(dims.empty() ? H5Screate(H5S_SCALAR)
                                : H5Screate_simple(static_cast<int>(dims.size()), dims.data(),
                                                   nullptr),
                   H5Sclose);
  h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!dims.empty() && t.NumElements() > 0) {
    std::vector<hsize_t> chunk = ChunkDims(dims, H5Tget_size(type->get()));
    H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data());
    H5Pset_fletcher32(dcpl.get());
  }
  h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  h5::Handle ds(H5Dcreate2(file, name.c_str(), type->get(), space.get(), lcpl.get(), dcpl.get(),
                           H5P_DEFAULT),
                H5Dclose);
  if (!ds.valid()) return h5::Error(Code::kInternal, path, Where(name) + "cannot create dataset");
  if (t.NumElements() > 0 &&
      H5Dwrite(ds.get(), type->get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data()) < 0)
    return h5::Error(Code::kInternal, path, Where(name) + "cannot write data");
  // Fixed-length (format 2): a variable-length string would live in HDF5's global heap, whose
  // corrupt references crash libhdf5.
  RETURN_IF_ERROR(
      h5::WriteFixedStringAttr(ds.get(), "dtype", std::string(DataTypeString(t.dtype())), path));
  const uint32_t crc =
      CheckpointTensorCrc32(name, t.dtype(), t.shape(), t.raw_data(), t.ByteSize());
  return h5::WriteAttr(ds.get(), kCrcAttr, static_cast<int64_t>(crc), path);
}

// Writes the whole checkpoint to `tmp`; messages name the final `path`.
Status WriteFile(const std::string& tmp, const std::string& path,
                 const std::vector<std::string>& names, const std::vector<Tensor>& tensors) {
  h5::Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);  // checksummed metadata
  h5::Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
  if (!file.valid())
    return h5::Error(Code::kInternal, path, "cannot create temporary checkpoint file " + tmp);
  RETURN_IF_ERROR(h5::WriteAttr(file.get(), "format_version", kCheckpointFormatVersion, path));
  for (size_t i = 0; i < names.size(); ++i) {
    RETURN_IF_ERROR(WriteTensor(file.get(), names[i], tensors[i], path));
    if (names[i] == kGlobalStepName && tensors[i].dtype() == DataType::kInt64 &&
        tensors[i].NumElements() == 1)
      RETURN_IF_ERROR(h5::WriteAttr(file.get(), "global_step", tensors[i].data<int64_t>()[0], path));
  }
  if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0 || !file.Reset())
    return h5::Error(Code::kInternal, path, "cannot flush and close " + tmp);
  return Status::OK();
}

std::string DirectoryOf(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

Status WriteCheckpoint(const std::string& path, const std::vector<std::string>& names,
                       const std::vector<Tensor>& tensors) {
  RETURN_IF_ERROR(ValidateNames(path, names, tensors));
  h5::Hdf5Guard guard;
  const std::string tmp = TemporaryCheckpointPath(path);
  InFlightWrite in_flight(tmp);
  Status s = WriteFile(tmp, path, names, tensors);
  if (s.ok()) s = h5::FsyncPath(tmp);
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0)
    s = Internal(path, ": cannot rename ", tmp, " to it: ", std::strerror(errno));
  if (!s.ok()) {
    std::remove(tmp.c_str());
    return s;
  }
  return h5::FsyncPath(DirectoryOf(path));
}

uint32_t CheckpointTensorCrc32(const std::string& name, DataType dtype, const TensorShape& shape,
                               const void* data, size_t data_bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const std::string dtype_name = DataTypeString(dtype);
  crc = Crc32Bytes(crc, name.c_str(), name.size() + 1);  // with the NUL
  crc = Crc32Bytes(crc, dtype_name.c_str(), dtype_name.size() + 1);
  for (int64_t d : shape.dim_sizes()) {
    unsigned char le[8];
    for (int i = 0; i < 8; ++i)
      le[i] = static_cast<unsigned char>(static_cast<uint64_t>(d) >> (8 * i));
    crc = Crc32Bytes(crc, le, sizeof le);
  }
  if (data_bytes > 0) crc = Crc32Bytes(crc, data, data_bytes);
  return static_cast<uint32_t>(crc);
}

std::string TemporaryCheckpointPath(const std::string& path) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::string h(host);
  for (char& c : h)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  if (h.empty()) h = "localhost";
  return path + ".tmp-" + h + "-" + std::to_string(getpid());
}

bool IsTemporaryCheckpointInUse(const std::string& tmp_path) {
  // By file name: the same directory may be spelled differently ("d" and "./d").
  const std::filesystem::path name = std::filesystem::path(tmp_path).filename();
  std::lock_guard<std::mutex> lock(InFlightMutex());
  for (const std::string& p : InFlight())
    if (std::filesystem::path(p).filename() == name) return true;
  return false;
}

namespace {

struct OpenFile {
  h5::Handle file;
  int64_t version = 0;
  h5::FileBounds bounds;
};

StatusOr<OpenFile> OpenCheckpoint(const std::string& path) {
  ASSIGN_OR_RETURN(h5::Handle file, h5::OpenFileForRead(path, "checkpoint"));
  ASSIGN_OR_RETURN(h5::FileBounds bounds, h5::GetFileBounds(path, "checkpoint"));
  auto version = h5::ReadIntAttr(file.get(), "format_version", path);
  if (!version.ok())
    return FailedPrecondition(path, ": not a flowbench checkpoint (",
                              version.status().message(), ")");
  if (*version < kOldestCheckpointFormatVersion || *version > kCheckpointFormatVersion)
    return FailedPrecondition(path, ": checkpoint format_version is ", *version,
                              ", this flowbench reads versions ", kOldestCheckpointFormatVersion,
                              " to ", kCheckpointFormatVersion);
  return OpenFile{std::move(file), *version, bounds};
}

// The dtype attribute: a fixed-length string in format 2. Format 1 wrote it variable-length;
// libhdf5 follows such a string's global-heap reference unchecked (a corrupt one crashed or hung
// it under fuzzing), so a variable-length one is read in a child process (RunIsolated).
StatusOr<std::string> ReadDtypeAttr(hid_t ds, const OpenFile& f, const std::string& path) {
  constexpr size_t kMaxDtypeBytes = 32;
  ASSIGN_OR_RETURN(h5::Handle attr, h5::OpenCheckedAttr(ds, "dtype", f.bounds));
  h5::Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (f.version < 2 && H5Tget_class(type.get()) == H5T_STRING &&
      H5Tis_variable_str(type.get()) > 0) {
    IsolatedCallOptions options;
    options.path = path;
    options.what = "reading a format-1 dtype attribute";
    options.timeout_s = 3;  // a dtype name takes milliseconds; within the fuzzers' 10 s too
    return RunIsolated([&] { return h5::ReadStringAttr(ds, "dtype", path); }, options);
  }
  return h5::ReadCheckedFixedStringAttr(ds, "dtype", kMaxDtypeBytes, f.bounds);
}
// The dtype attribute and the shape of an open dataset.
StatusOr<CheckpointEntry> Describe(hid_t ds, const OpenFile& f, const std::string& name,
                                   const std::string& path) {
  CheckpointEntry e;
  e.name = name;
  auto dtype_name = ReadDtypeAttr(ds, f, path);
  if (!dtype_name.ok())
    return DataLoss(path, ": ", Where(name), "corrupt checkpoint: ", dtype_name.status().message());
  auto dtype = DataTypeFromString(*dtype_name);
  if (!dtype.ok()) return DataLoss(path, ": ", Where(name), dtype.status().message());
  e.dtype = *dtype;
  h5::Handle space(H5Dget_space(ds), H5Sclose);
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) return h5::Error(Code::kDataLoss, path, Where(name) + "cannot read the shape");
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  for (hsize_t d : dims) e.shape.AddDim(static_cast<int64_t>(d));
  return e;
}

bool ShapeMatches(const TensorShape& actual, const TensorShape& expected) {
  if (IsUnknownRank(expected)) return true;
  if (actual.rank() != expected.rank()) return false;
  for (int i = 0; i < actual.rank(); ++i)
    if (expected.dim_size(i) >= 0 && expected.dim_size(i) != actual.dim_size(i)) return false;
  return true;
}

struct LinkScan {
  std::vector<std::string> datasets;
  std::vector<std::string> broken;  // links that cannot be opened by their own name
};

herr_t CollectDataset(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  auto* scan = static_cast<LinkScan*>(data);
  if (info != nullptr && info->type != H5L_TYPE_HARD) return 0;
  h5::Handle obj(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
  if (!obj.valid()) scan->broken.push_back(name);
  else if (H5Iget_type(obj.get()) == H5I_DATASET) scan->datasets.push_back(name);
  return 0;
}

// The datasets of the file, sorted. A link that cannot be opened by its name, or a repeated
// name, is a corrupt name in the link storage (HDF5 checksums the link records in object
// headers, not in the fractal heap of a group with many links): DataLoss naming it.
StatusOr<std::vector<std::string>> DatasetNames(hid_t file, const std::string& path) {
  LinkScan scan;
  // Native order: HDF5 1.10 frees invalid pointers building the sorted link table of a group
  // with a corrupt name; we sort ourselves.
  if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, CollectDataset, &scan) < 0)
    return h5::Error(Code::kDataLoss, path, "cannot list the checkpoint's variables");
  H5Eclear2(H5E_DEFAULT);  // the errors of unopenable links
  if (!scan.broken.empty())
    return DataLoss(path, ": corrupt checkpoint: link '", scan.broken.front(),
                    "' cannot be opened by its name (a corrupt variable name?)");
  std::vector<std::string>& names = scan.datasets;
  std::sort(names.begin(), names.end());
  auto dup = std::adjacent_find(names.begin(), names.end());
  if (dup != names.end())
    return DataLoss(path, ": corrupt checkpoint: variable name '", *dup,
                    "' stored twice (a corrupt variable name?)");
  return names;
}

std::string NamesForMessage(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 8; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 8) s += ", ...";
  return s.empty() ? "none" : s;
}

// Reads the data of dataset `e` (already opened as `ds`) as `e.dtype`; checks its crc32 in a
// version-2 file.
StatusOr<Tensor> ReadData(hid_t ds, const CheckpointEntry& e, int64_t version,
                          const std::string& path, Allocator* allocator) {
  ASSIGN_OR_RETURN(h5::Handle type, StorageType(e.dtype));
  Tensor t(e.dtype, e.shape, allocator);
  if (t.NumElements() > 0 &&
      H5Dread(ds, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data()) < 0)
    return h5::Error(Code::kDataLoss, path,
                     Where(e.name) + "cannot read data (corrupt checkpoint)");
  if (version < 2) return t;
  auto stored = h5::ReadIntAttr(ds, kCrcAttr, path);
  if (!stored.ok())
    return DataLoss(path, ": ", Where(e.name), "corrupt checkpoint: ", stored.status().message());
  const uint32_t crc = CheckpointTensorCrc32(e.name, e.dtype, e.shape, t.raw_data(), t.ByteSize());
  if (*stored != static_cast<int64_t>(crc))
    return DataLoss(path, ": ", Where(e.name), "corrupt checkpoint: crc32 checksum mismatch ",
                    "(stored ", *stored, ", computed ", crc, ")");
  return t;
}

// The root attribute global_step, when present, must equal the global_step dataset `step`.
Status CheckGlobalStepAttr(hid_t file, const Tensor& step, const std::string& path) {
  if (H5Aexists(file, kGlobalStepName) <= 0) return Status::OK();
  ASSIGN_OR_RETURN(int64_t attr, h5::ReadIntAttr(file, kGlobalStepName, path));
  if (step.dtype() != DataType::kInt64 || step.NumElements() != 1 ||
      step.data<int64_t>()[0] != attr)
    return DataLoss(path, ": corrupt checkpoint: root attribute global_step is ", attr,
                    ", the global_step dataset holds ", step.DebugString());
  return Status::OK();
}

// Opens dataset `name` and reads its description and data.
StatusOr<Tensor> ReadVerified(const OpenFile& f, const std::string& name, const std::string& path,
                              CheckpointEntry* entry, Allocator* allocator) {
  h5::Handle ds(H5Dopen2(f.file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) return h5::Error(Code::kDataLoss, path, Where(name) + "cannot open dataset");
  ASSIGN_OR_RETURN(*entry, Describe(ds.get(), f, name, path));
  ASSIGN_OR_RETURN(Tensor t, ReadData(ds.get(), *entry, f.version, path, allocator));
  if (name == kGlobalStepName && f.version >= 2)
    RETURN_IF_ERROR(CheckGlobalStepAttr(f.file.get(), t, path));
  return t;
}

}  // namespace

StatusOr<Tensor> ReadCheckpointTensor(const std::string& path, const std::string& name,
                                      DataType dtype, const TensorShape& expected_shape,
                                      Allocator* allocator) {
  h5::Hdf5Guard guard;
  ASSIGN_OR_RETURN(OpenFile f, OpenCheckpoint(path));
  if (name.empty() || name.front() == '/' || !h5::Exists(f.file.get(), name)) {
    // A corrupt name in the file is DataLoss, not a missing variable.
    ASSIGN_OR_RETURN(std::vector<std::string> names, DatasetNames(f.file.get(), path));
    return NotFound(path, ": no variable '", name, "' in checkpoint (it holds: ",
                    NamesForMessage(names), ")");
  }
  h5::Handle ds(H5Dopen2(f.file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) return h5::Error(Code::kDataLoss, path, Where(name) + "cannot open dataset");
  ASSIGN_OR_RETURN(CheckpointEntry e, Describe(ds.get(), f, name, path));
  if (e.dtype != dtype)
    return InvalidArgument(path, ": ", Where(name), "checkpoint holds ", DataTypeString(e.dtype),
                           ", expected ", DataTypeString(dtype));
  if (!ShapeMatches(e.shape, expected_shape))
    return InvalidArgument(path, ": ", Where(name), "checkpoint holds shape ",
                           e.shape.DebugString(), ", expected ", expected_shape.DebugString());
  ds.Reset();
  return ReadVerified(f, name, path, &e, allocator);
}

StatusOr<std::vector<CheckpointEntry>> ListCheckpoint(const std::string& path) {
  h5::Hdf5Guard guard;
  ASSIGN_OR_RETURN(OpenFile f, OpenCheckpoint(path));
  ASSIGN_OR_RETURN(std::vector<std::string> names, DatasetNames(f.file.get(), path));
  std::vector<CheckpointEntry> entries;
  for (const std::string& name : names) {
    h5::Handle ds(H5Dopen2(f.file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) return h5::Error(Code::kDataLoss, path, Where(name) + "cannot open dataset");
    ASSIGN_OR_RETURN(CheckpointEntry e, Describe(ds.get(), f, name, path));
    entries.push_back(std::move(e));
  }
  return entries;
}

Status VerifyCheckpoint(const std::string& path) {
  h5::Hdf5Guard guard;
  ASSIGN_OR_RETURN(OpenFile f, OpenCheckpoint(path));
  ASSIGN_OR_RETURN(std::vector<std::string> names, DatasetNames(f.file.get(), path));
  for (const std::string& name : names) {
    CheckpointEntry e;
    RETURN_IF_ERROR(ReadVerified(f, name, path, &e, nullptr).status());
  }
  return Status::OK();
}

}  // namespace fb
