#include "engine/trace/global_heap_strings.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

namespace fb::h5 {
namespace {

constexpr size_t kHeapIdBytes = 16;      // uint32 length, uint64 collection address, uint32 index
constexpr uint64_t kCollectionHeader = 16;  // "GCOL", version, 3 reserved, uint64 size
constexpr uint64_t kObjectHeader = 16;      // uint16 index, uint16 refs, 4 reserved, uint64 size
constexpr uint64_t kMinCollectionBytes = 4096;

uint64_t Le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

class File {
 public:
  explicit File(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~File() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  bool Read(uint64_t offset, size_t n, std::string* out) const {
    out->assign(n, '\0');
    size_t done = 0;
    while (done < n) {
      ssize_t r = pread(fd_, out->data() + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      done += static_cast<size_t>(r);
    }
    return true;
  }

 private:
  int fd_;
};

// One parsed collection: its bytes and, per object index, the object's (offset, size) there.
struct Collection {
  std::string bytes;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> objects;
};

// Reads and parses the collection at `addr`. `budget` bounds the bytes all collections may
// take (valid collections do not overlap, so together they fit the file).
Status ParseCollection(const File& file, uint64_t addr, const FileBounds& f,
                       const std::string& where, uint64_t* budget, Collection* c) {
  std::string header;
  if (addr > f.file_bytes || kCollectionHeader > f.file_bytes - addr ||
      !file.Read(addr, kCollectionHeader, &header))
    return DataLoss(where, ": global heap collection address ", addr, " is outside the file (",
                    f.file_bytes, " bytes)");
  const auto* h = reinterpret_cast<const unsigned char*>(header.data());
  const uint64_t size = Le(h + 8, 8);
  if (header.compare(0, 4, "GCOL") != 0 || h[4] != 1 || size < kMinCollectionBytes ||
      size > f.file_bytes - addr || size > *budget)
    return DataLoss(where, ": no valid global heap collection at offset ", addr, " (",
                    size, " bytes declared, file of ", f.file_bytes, ")");
  *budget -= size;
  if (!file.Read(addr, size, &c->bytes))
    return DataLoss(where, ": cannot read the global heap collection at offset ", addr);
  const auto* p = reinterpret_cast<const unsigned char*>(c->bytes.data());
  // Each object advances by at least its 16-byte header, so this loop ends within size / 16.
  for (uint64_t pos = kCollectionHeader; pos + kObjectHeader <= size;) {
    const uint64_t index = Le(p + pos, 2), object = Le(p + pos + 8, 8);
    if (index == 0) break;  // the free-space object ends the collection
    const uint64_t begin = pos + kObjectHeader;
    if (object > size - begin || !c->objects.emplace(index, std::make_pair(begin, object)).second)
      return DataLoss(where, ": global heap collection at offset ", addr, ": object ", index,
                      " (", object, " bytes at ", begin, ") is repeated or overruns the ", size,
                      "-byte collection");
    pos = begin + ((object + 7) / 8) * 8;
  }
  return Status::OK();
}

// The string a heap id names.
StatusOr<std::string> Resolve(const File& file, const unsigned char* id, const FileBounds& f,
                              const std::string& where, uint64_t row, uint64_t* budget,
                              std::map<uint64_t, Collection>* collections) {
  const uint64_t length = Le(id, 4), addr = Le(id + 4, 8), index = Le(id + 12, 4);
  if (length == 0) return std::string();
  auto it = collections->find(addr);
  if (it == collections->end()) {
    Collection c;
    RETURN_IF_ERROR(ParseCollection(file, addr, f, where, budget, &c));
    it = collections->emplace(addr, std::move(c)).first;
  }
  auto object = it->second.objects.find(index);
  if (object == it->second.objects.end() || object->second.second < length)
    return DataLoss(where, ": string ", row, " (", length, " bytes) names object ", index,
                    " of the global heap collection at offset ", addr,
                    ", which it does not hold");
  return it->second.bytes.substr(object->second.first, length);
}

Status CheckFileParameters(hid_t dataset, const std::string& where) {
  Handle file(H5Iget_file_id(dataset), H5Fclose);
  Handle fcpl(file.valid() ? H5Fget_create_plist(file.get()) : -1, H5Pclose);
  size_t addr_bytes = 0, size_bytes = 0;
  hsize_t user_block = 0;
  if (!fcpl.valid() || H5Pget_sizes(fcpl.get(), &addr_bytes, &size_bytes) < 0 ||
      H5Pget_userblock(fcpl.get(), &user_block) < 0)
    return Error(Code::kDataLoss, where, "cannot read the file's creation properties");
  if (addr_bytes != 8 || size_bytes != 8 || user_block != 0)
    return InvalidArgument(where, ": variable-length strings are read from files with 8-byte "
                           "addresses and lengths and no user block only, found ", addr_bytes,
                           "-byte addresses, ", size_bytes, "-byte lengths, a ", user_block,
                           "-byte user block");
  return Status::OK();
}

}  // namespace

StatusOr<std::vector<std::string>> ReadVlenStringsFromHeap(hid_t dataset, uint64_t count,
                                                           const std::string& name,
                                                           const FileBounds& f) {
  const std::string where = f.path + ": dataset /" + name;
  std::vector<std::string> out;
  if (count == 0) return out;
  RETURN_IF_ERROR(CheckFileParameters(dataset, where));
  Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
  const haddr_t addr = H5Dget_offset(dataset);
  H5Eclear2(H5E_DEFAULT);
  if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS || addr == HADDR_UNDEF)
    return InvalidArgument(where, ": expected allocated contiguous storage of heap ids");
  if (count > f.file_bytes / kHeapIdBytes || addr > f.file_bytes ||
      count * kHeapIdBytes > f.file_bytes - addr)
    return DataLoss(where, ": ", count, " heap ids at offset ", addr,
                    " do not fit the file (", f.file_bytes, " bytes)");
  File file(f.path);
  std::string ids;
  if (!file.ok() || !file.Read(addr, count * kHeapIdBytes, &ids))
    return DataLoss(where, ": cannot read its heap ids: ", std::strerror(errno));
  std::map<uint64_t, Collection> collections;
  uint64_t budget = f.file_bytes;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const auto* id = reinterpret_cast<const unsigned char*>(ids.data()) + i * kHeapIdBytes;
    ASSIGN_OR_RETURN(std::string s, Resolve(file, id, f, where, i, &budget, &collections));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace fb::h5
