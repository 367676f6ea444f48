// WriteResultsTable and ReadResultsTable: the HDF5 side of sweep_results.h.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "engine/trace/hdf5_checked.h"
#include "engine/trace/hdf5_file_kind.h"
#include "engine/trace/hdf5_util.h"
#include "sweep/sweep_results.h"

namespace fb::sweep {

namespace {

using h5::Handle;

constexpr size_t kMaxCellBytes = 4096;       // a string cell on disk (longer ones are cut)
constexpr size_t kMaxRecordBytes = 1 << 20;  // a record, when reading
constexpr size_t kMaxNameBytes = 1024;       // a column name or root attribute, when reading

Handle FixedString(size_t bytes) {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t.get(), std::max<size_t>(1, bytes));
  H5Tset_strpad(t.get(), H5T_STR_NULLPAD);
  H5Tset_cset(t.get(), H5T_CSET_UTF8);
  return t;
}

// Column c's on-disk member type and size.
struct Member {
  Handle type;
  size_t bytes = 0, offset = 0;
};

std::vector<Member> Members(const std::vector<ResultsColumn>& cols, size_t* record_bytes) {
  std::vector<Member> m;
  size_t offset = 0;
  for (const ResultsColumn& c : cols) {
    Member x;
    if (c.is_string) {
      size_t longest = 1;
      for (const std::string& s : c.strings)
        longest = std::max(longest, std::min(s.size(), kMaxCellBytes));
      x.type = FixedString(longest);
      x.bytes = longest;
    } else {
      x.type = Handle(H5Tcopy(c.is_integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE), H5Tclose);
      x.bytes = 8;
    }
    x.offset = offset;
    offset += x.bytes;
    m.push_back(std::move(x));
  }
  *record_bytes = std::max<size_t>(offset, 1);
  return m;
}

// `cols` as a compound table `name` under `file`.
Status WriteCompound(hid_t file, const std::string& name, const std::vector<ResultsColumn>& cols,
                     size_t rows, const std::string& path) {
  size_t record = 0;
  std::vector<Member> members = Members(cols, &record);
  Handle type(H5Tcreate(H5T_COMPOUND, record), H5Tclose);
  for (size_t c = 0; c < cols.size(); ++c)
    if (H5Tinsert(type.get(), cols[c].name.c_str(), members[c].offset, members[c].type.get()) < 0)
      return h5::Error(Code::kInternal, path, "cannot add column '" + cols[c].name + "'");
  std::vector<char> buf(record * rows, '\0');
  for (size_t r = 0; r < rows; ++r) {
    char* rec = buf.data() + r * record;
    for (size_t c = 0; c < cols.size(); ++c) {
      char* at = rec + members[c].offset;
      if (cols[c].is_string) {
        const std::string& s = cols[c].strings[r];
        std::memcpy(at, s.data(), std::min(s.size(), members[c].bytes));
      } else if (cols[c].is_integer) {
        const int64_t v = static_cast<int64_t>(cols[c].numbers[r]);
        std::memcpy(at, &v, 8);
      } else {
        std::memcpy(at, &cols[c].numbers[r], 8);
      }
    }
  }
  const size_t chunk = std::clamp<size_t>((1 << 20) / record, 1, 4096);
  ASSIGN_OR_RETURN(h5::AppendTable table,
                   h5::AppendTable::Create(file, name, type.get(), chunk, path));
  return rows ? table.Append(buf.data(), rows) : Status::OK();
}

Status WriteBytes(hid_t file, const std::string& name, const std::string& bytes,
                  const std::string& path) {
  const hsize_t n = bytes.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Handle ds(H5Dcreate2(file, name.c_str(), H5T_NATIVE_UINT8, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT),
            H5Dclose);
  if (!ds.valid() ||
      (n && H5Dwrite(ds.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0))
    return h5::Error(Code::kInternal, path, "cannot write /" + name);
  return Status::OK();
}

Status WriteFile(const ResultsTable& t, const std::string& path) {
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) return h5::Error(Code::kInternal, path, "cannot create results file");
  const hid_t f = file.get();
  RETURN_IF_ERROR(h5::WriteFixedStringAttr(f, "schema", "flowbench-sweep", path));
  RETURN_IF_ERROR(h5::WriteAttr(f, "schema_version", t.schema_version, path));
  RETURN_IF_ERROR(h5::WriteFixedStringAttr(f, "name", t.name, path));
  RETURN_IF_ERROR(h5::WriteFixedStringAttr(f, "spec_path", t.spec_path, path));
  RETURN_IF_ERROR(h5::WriteFixedStringAttr(f, "commit", t.commit, path));
  RETURN_IF_ERROR(WriteBytes(f, "spec", t.spec_text, path));
  RETURN_IF_ERROR(WriteCompound(f, "results", t.columns, t.rows(), path));
  ResultsColumn names, kinds;
  names.name = "name";
  kinds.name = "kind";
  names.is_string = kinds.is_string = true;
  for (const ResultsColumn& c : t.columns) {
    names.strings.push_back(c.name);
    kinds.strings.push_back(c.kind);
  }
  RETURN_IF_ERROR(WriteCompound(f, "columns", {names, kinds}, t.columns.size(), path));
  if (!file.Reset()) return h5::Error(Code::kInternal, path, "cannot close results file");
  return Status::OK();
}

}  // namespace

Status WriteResultsTable(const ResultsTable& t, const std::string& path) {
  h5::Hdf5Guard guard;
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  Status s = WriteFile(t, tmp);
  if (s.ok()) s = h5::FsyncPath(tmp);
  std::error_code ec;
  if (s.ok()) {
    std::filesystem::rename(tmp, path, ec);
    if (ec) s = Internal("cannot rename '", tmp, "' to '", path, "': ", ec.message());
  }
  if (!s.ok()) std::filesystem::remove(tmp, ec);
  return s;
}

namespace {

// Member `i` of the checked compound dataset `d` (table `name`), read whole.
StatusOr<ResultsColumn> ReadColumn(const h5::CheckedDataset& d, unsigned i, const std::string& name,
                                   const h5::FileBounds& f) {
  char* raw = H5Tget_member_name(d.file_type.get(), i);
  ResultsColumn c;
  c.name = raw ? raw : "";
  H5free_memory(raw);
  Handle mt(H5Tget_member_type(d.file_type.get(), i), H5Tclose);
  const H5T_class_t cls = H5Tget_class(mt.get());
  const size_t bytes = H5Tget_size(mt.get());
  Handle mem;
  if (cls == H5T_STRING && H5Tis_variable_str(mt.get()) <= 0 && bytes <= kMaxRecordBytes) {
    c.is_string = true;
    mem = FixedString(bytes);
  } else if ((cls == H5T_INTEGER || cls == H5T_FLOAT) && bytes == 8) {
    c.is_integer = cls == H5T_INTEGER;
    mem = Handle(H5Tcopy(c.is_integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE), H5Tclose);
  } else {
    return InvalidArgument(f.path, ": /", name, " column '", c.name,
                           "' must be int64, float64 or a fixed-length string");
  }
  Handle one(H5Tcreate(H5T_COMPOUND, bytes), H5Tclose);
  H5Tinsert(one.get(), c.name.c_str(), 0, mem.get());
  std::vector<char> buf(bytes * d.count + 1);
  if (d.count && H5Dread(d.dataset.get(), one.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
    return h5::Error(Code::kDataLoss, f.path, "cannot read /" + name + " column '" + c.name + "'");
  for (uint64_t r = 0; r < d.count; ++r) {
    const char* at = buf.data() + r * bytes;
    if (c.is_string) {
      c.strings.emplace_back(at, strnlen(at, bytes));
    } else if (c.is_integer) {
      int64_t v;
      std::memcpy(&v, at, 8);
      c.numbers.push_back(static_cast<double>(v));
    } else {
      double v;
      std::memcpy(&v, at, 8);
      c.numbers.push_back(v);
    }
  }
  return c;
}

// Every member of compound table `name`: int64 and float64 numbers, fixed-length strings.
StatusOr<std::vector<ResultsColumn>> ReadCompound(hid_t file, const std::string& name,
                                                  const h5::FileBounds& f) {
  if (!h5::Exists(file, name))
    return InvalidArgument(f.path, ": no /", name, " table (not a sweep results file)");
  size_t record = 0;
  {
    Handle ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
    Handle type(ds.valid() ? H5Dget_type(ds.get()) : -1, H5Tclose);
    if (!type.valid()) return h5::Error(Code::kDataLoss, f.path, "cannot open /" + name);
    record = H5Tget_size(type.get());
  }
  if (record == 0 || record > kMaxRecordBytes)
    return InvalidArgument(f.path, ": /", name, " records of ", record, " bytes (at most ",
                           kMaxRecordBytes, ")");
  ASSIGN_OR_RETURN(h5::CheckedDataset d,
                   h5::OpenChecked(file, name, H5T_COMPOUND, record,
                                   h5::FileBounds::kMaxDeclaredBytes / record, f));
  const int n = H5Tget_nmembers(d.file_type.get());
  std::vector<ResultsColumn> cols;
  for (int i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(ResultsColumn c, ReadColumn(d, static_cast<unsigned>(i), name, f));
    cols.push_back(std::move(c));
  }
  return cols;
}

}  // namespace

StatusOr<ResultsTable> ReadResultsTable(const std::string& path) {
  h5::Hdf5Guard guard;
  ASSIGN_OR_RETURN(Handle file, h5::OpenFileForRead(path, "sweep results"));
  ASSIGN_OR_RETURN(h5::FileBounds f, h5::GetFileBounds(path, "sweep results"));
  RETURN_IF_ERROR(h5::CheckFlowbenchFileKind(file.get(), path, "sweep results table"));
  ResultsTable t;
  ASSIGN_OR_RETURN(std::string schema,
                   h5::ReadCheckedFixedStringAttr(file.get(), "schema", kMaxNameBytes, f));
  if (schema != "flowbench-sweep")
    return InvalidArgument(path, ": schema attribute is '", schema,
                           "', expected 'flowbench-sweep'");
  ASSIGN_OR_RETURN(t.schema_version, h5::ReadCheckedIntAttr(file.get(), "schema_version", f));
  if (t.schema_version != kSweepSchemaVersion)
    return InvalidArgument(path, ": sweep schema_version ", t.schema_version, ", this build reads ",
                           kSweepSchemaVersion);
  ASSIGN_OR_RETURN(t.name, h5::ReadCheckedFixedStringAttr(file.get(), "name", kMaxNameBytes, f));
  ASSIGN_OR_RETURN(t.spec_path,
                   h5::ReadCheckedFixedStringAttr(file.get(), "spec_path", kMaxNameBytes * 4, f));
  ASSIGN_OR_RETURN(t.commit,
                   h5::ReadCheckedFixedStringAttr(file.get(), "commit", kMaxNameBytes, f));
  ASSIGN_OR_RETURN(std::vector<uint8_t> spec, h5::ReadCheckedBytes(file.get(), "spec", f));
  t.spec_text.assign(spec.begin(), spec.end());
  ASSIGN_OR_RETURN(t.columns, ReadCompound(file.get(), "results", f));
  ASSIGN_OR_RETURN(std::vector<ResultsColumn> meta, ReadCompound(file.get(), "columns", f));
  if (meta.size() == 2 && meta[0].is_string && meta[1].is_string)
    for (size_t i = 0; i < meta[0].strings.size(); ++i)
      for (ResultsColumn& c : t.columns)
        if (c.name == meta[0].strings[i]) c.kind = meta[1].strings[i];
  return t;
}

}  // namespace fb::sweep
