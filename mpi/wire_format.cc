#include "mpi/wire_format.h"

#include "mpi/byte_io.h"

namespace fb::mpi {

std::string EncodeHeader(const TensorHeader& h) {
  std::string out;
  Put(&out, h.step_id);
  Put(&out, h.dtype);
  Put(&out, h.is_dead);
  Put(&out, h.payload_tag);
  Put(&out, h.payload_bytes);
  Put(&out, h.chunk_bytes);
  Put(&out, static_cast<int32_t>(h.dims.size()));
  for (int64_t d : h.dims) Put(&out, d);
  Put(&out, static_cast<int32_t>(h.key.size()));
  out += h.key;
  if (h.payload_tag == kInlinePayload) out += h.inline_payload;
  return out;
}

Status DecodeHeader(const std::string& in, TensorHeader* h) {
  size_t pos = 0;
  int32_t rank = 0, key_len = 0;
  if (!Get(in, &pos, &h->step_id) || !Get(in, &pos, &h->dtype) || !Get(in, &pos, &h->is_dead) ||
      !Get(in, &pos, &h->payload_tag) || !Get(in, &pos, &h->payload_bytes) ||
      !Get(in, &pos, &h->chunk_bytes) || !Get(in, &pos, &rank))
    return DataLoss("tensor header of ", in.size(), " bytes is truncated");
  if (rank < 0 || rank > 64) return DataLoss("tensor header has rank ", rank);
  if (h->chunk_bytes <= 0 || h->payload_bytes < 0)
    return DataLoss("tensor header has chunk_bytes ", h->chunk_bytes, " and payload_bytes ",
                    h->payload_bytes);
  h->dims.resize(rank);
  for (auto& d : h->dims)
    if (!Get(in, &pos, &d) || d < 0) return DataLoss("tensor header has a bad dimension");
  const bool inline_payload = h->payload_tag == kInlinePayload;
  const int64_t after_key = inline_payload ? h->payload_bytes : 0;
  if (!Get(in, &pos, &key_len) || key_len < 0 ||
      static_cast<int64_t>(pos) + key_len + after_key != static_cast<int64_t>(in.size()))
    return DataLoss("tensor header key length does not match the message size");
  h->key = in.substr(pos, key_len);
  h->inline_payload = inline_payload ? in.substr(pos + key_len) : std::string();
  if (!h->is_dead) {
    int64_t n = 1;
    for (int64_t d : h->dims) n *= d;
    auto dt = static_cast<DataType>(h->dtype);
    bool known = false;
    for (DataType t : AllDataTypes()) known |= t == dt;
    if (!known) return DataLoss("tensor header for '", h->key, "' has unknown dtype ", h->dtype);
    if (dt != DataType::kString && n * static_cast<int64_t>(DataTypeSize(dt)) != h->payload_bytes)
      return DataLoss("tensor header for '", h->key, "': ", n, " elements of ",
                      DataTypeString(dt), " but ", h->payload_bytes, " payload bytes");
  }
  return Status::OK();
}

std::string SerializeStrings(const Tensor& t) {
  std::string out;
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    Put(&out, static_cast<uint64_t>(s[i].size()));
    out += s[i];
  }
  return out;
}

Status DeserializeStrings(const std::string& bytes, Tensor* t) {
  size_t pos = 0;
  std::string* s = t->data<std::string>();
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    uint64_t len = 0;
    if (!Get(bytes, &pos, &len) || pos + len > bytes.size())
      return DataLoss("string tensor payload is truncated at element ", i);
    s[i] = bytes.substr(pos, len);
    pos += len;
  }
  return Status::OK();
}

}  // namespace fb::mpi
