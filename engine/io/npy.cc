#include "engine/io/npy.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "engine/framework/tensor_allocate.h"

namespace fb {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct DescrEntry {
  DataType dtype;
  const char* descr;  // little-endian form
};
constexpr DescrEntry kDescrs[] = {
    {DataType::kFloat, "<f4"},   {DataType::kDouble, "<f8"},  {DataType::kHalf, "<f2"},
    {DataType::kInt8, "|i1"},    {DataType::kInt16, "<i2"},   {DataType::kInt32, "<i4"},
    {DataType::kInt64, "<i8"},   {DataType::kUInt8, "|u1"},   {DataType::kUInt16, "<u2"},
    {DataType::kUInt32, "<u4"},  {DataType::kUInt64, "<u8"},  {DataType::kBool, "|b1"},
    {DataType::kComplex64, "<c8"},
};

std::string ShapeTuple(const TensorShape& shape) {
  std::string s = "(";
  for (int i = 0; i < shape.rank(); ++i) s += std::to_string(shape.dim_size(i)) + ", ";
  if (shape.rank() > 1) s.resize(s.size() - 2);
  if (shape.rank() == 1) s.resize(s.size() - 1);
  return s + ")";
}

StatusOr<TensorShape> ParseShapeTuple(const std::string& tuple, const std::string& path) {
  TensorShape shape;
  std::stringstream in(tuple);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \tL") + 1);
    if (item.empty()) continue;
    char* end = nullptr;
    long long d = std::strtoll(item.c_str(), &end, 10);
    if (*end != '\0' || d < 0) return DataLoss(path, ": bad dimension '", item, "' in .npy shape");
    shape.AddDim(d);
  }
  return shape;
}

// Extracts the value of 'key' from the header dict text.
StatusOr<std::string> HeaderField(const std::string& header, const std::string& key,
                                  const std::string& value_re, const std::string& path) {
  std::smatch m;
  std::regex re("['\"]" + key + "['\"]\\s*:\\s*(" + value_re + ")");
  if (!std::regex_search(header, m, re)) {
    return DataLoss(path, ": .npy header has no valid '", key, "' entry: ", header);
  }
  return m[1].str();
}

struct NpyHeader {
  DataType dtype;
  TensorShape shape;
};

StatusOr<NpyHeader> ParseHeader(const std::string& header, const std::string& path) {
  ASSIGN_OR_RETURN(std::string descr, HeaderField(header, "descr", "'[^']*'|\"[^\"]*\"", path));
  ASSIGN_OR_RETURN(std::string fortran, HeaderField(header, "fortran_order", "True|False", path));
  ASSIGN_OR_RETURN(std::string shape, HeaderField(header, "shape", "\\([^)]*\\)", path));
  if (fortran == "True") return Unimplemented(path, ": Fortran-order .npy arrays are not supported");
  auto dtype = DataTypeFromNpyDescr(descr.substr(1, descr.size() - 2));
  if (!dtype.ok()) return dtype.status().WithPrefix(path + ": ");
  ASSIGN_OR_RETURN(TensorShape dims, ParseShapeTuple(shape.substr(1, shape.size() - 2), path));
  return NpyHeader{*dtype, dims};
}

}  // namespace

StatusOr<std::string> NpyDescr(DataType dt) {
  for (const auto& e : kDescrs) {
    if (e.dtype == dt) return std::string(e.descr);
  }
  return Unimplemented("dtype ", DataTypeString(dt), " has no .npy encoding");
}

StatusOr<DataType> DataTypeFromNpyDescr(const std::string& descr) {
  for (const auto& e : kDescrs) {
    std::string want = e.descr;
    if (descr == want) return e.dtype;
    bool one_byte = want[0] == '|';
    if (one_byte && descr.size() == 3 && (descr[0] == '<' || descr[0] == '=') &&
        descr.substr(1) == want.substr(1)) {
      return e.dtype;
    }
  }
  return Unimplemented("unsupported .npy dtype '", descr,
                       "' (little-endian numeric and bool types are supported)");
}

StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return NotFound(path, ": cannot open .npy file");
  // Every size the header declares is checked against the file before anything is allocated.
  const std::streamoff end = in.tellg();
  if (end < 0) return DataLoss(path, ": cannot determine the size of the .npy file");
  const uint64_t file_bytes = static_cast<uint64_t>(end);
  in.seekg(0);
  char prefix[kMagicLen + 2];
  if (!in.read(prefix, sizeof(prefix)) || std::memcmp(prefix, kMagic, kMagicLen) != 0) {
    return DataLoss(path, ": not a .npy file (bad magic)");
  }
  int major = static_cast<unsigned char>(prefix[kMagicLen]);
  if (major < 1 || major > 3) return DataLoss(path, ": unsupported .npy version ", major);
  uint32_t header_len = 0;
  unsigned char len_bytes[4] = {0, 0, 0, 0};
  int len_size = major == 1 ? 2 : 4;
  if (!in.read(reinterpret_cast<char*>(len_bytes), len_size)) {
    return DataLoss(path, ": truncated .npy header");
  }
  for (int i = len_size - 1; i >= 0; --i) header_len = header_len * 256 + len_bytes[i];
  const uint64_t header_start = sizeof(prefix) + len_size;
  if (header_len > file_bytes - header_start) {
    return DataLoss(path, ": truncated .npy header: the header length field says ", header_len,
                    " bytes, found ", file_bytes - header_start, " bytes after it");
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) return DataLoss(path, ": truncated .npy header");
  ASSIGN_OR_RETURN(NpyHeader h, ParseHeader(header, path));
  auto bytes = TensorBytes(h.dtype, h.shape);
  if (!bytes.ok()) return DataLoss(path, ": .npy shape ", h.shape.DebugString(), ": ",
                                   bytes.status().message());
  const uint64_t data_bytes = file_bytes - header_start - header_len;
  if (*bytes > data_bytes) {
    return DataLoss(path, ": truncated .npy data: expected ", *bytes, " bytes for ",
                    DataTypeString(h.dtype), h.shape.DebugString(), ", found ", data_bytes);
  }
  auto t = AllocateTensor(h.dtype, h.shape, nullptr);
  if (!t.ok()) return t.status().WithPrefix(path + ": ");
  if (!in.read(static_cast<char*>(t->raw_data()), static_cast<std::streamsize>(*bytes))) {
    return DataLoss(path, ": truncated .npy data: expected ", *bytes, " bytes for ",
                    t->TypeAndShapeString());
  }
  if (h.dtype == DataType::kBool) {  // NumPy writes 0 or 1; any other byte is not a C++ bool
    const auto* b = static_cast<const uint8_t*>(t->raw_data());
    for (uint64_t i = 0; i < *bytes; ++i)
      if (b[i] > 1)
        return DataLoss(path, ": bool element ", i, " holds byte ", int{b[i]},
                        ", expected 0 or 1");
  }
  return std::move(*t);
}

Status WriteNpy(const Tensor& t, const std::string& path) {
  ASSIGN_OR_RETURN(std::string descr, NpyDescr(t.dtype()));
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " +
                       ShapeTuple(t.shape()) + ", }";
  bool v2 = header.size() + kMagicLen + 2 + 2 + 1 > 65535;
  size_t prefix = kMagicLen + 2 + (v2 ? 4 : 2);
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return NotFound(path, ": cannot create .npy file");
  out.write(kMagic, kMagicLen);
  out.put(static_cast<char>(v2 ? 2 : 1));
  out.put(0);
  uint32_t len = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) out.put(static_cast<char>((len >> (8 * i)) & 0xff));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.ByteSize()));
  if (!out.flush()) return Internal(path, ": write failed");
  return Status::OK();
}

}  // namespace fb
