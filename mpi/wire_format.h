#pragma once
// Byte layouts of the MPI transport's messages (mpi_transport.h, docs/mpi.md): the tensor header
// and the payload form of string tensors. Little-endian host layout; both ends are the same
// binary on the same kind of machine (an mpirun job).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/tensor.h"

namespace fb::mpi {

// The header sent (tag kHeaderTag) before each tensor's payload. Small payloads travel inside
// the header message itself (payload_tag == kInlinePayload, the bytes after the key): one
// message per tensor instead of two.
inline constexpr int32_t kInlinePayload = -1;
struct TensorHeader {
  int64_t step_id = 0;
  int32_t dtype = 0;
  int32_t is_dead = 0;
  int32_t payload_tag = 0;
  int64_t payload_bytes = 0;
  int64_t chunk_bytes = 1;
  std::vector<int64_t> dims;
  std::string key;             // the rendezvous key, ParsedKey::FullKey()
  std::string inline_payload;  // payload_tag == kInlinePayload: the payload_bytes themselves
};

std::string EncodeHeader(const TensorHeader& h);
// DataLoss naming the field when the bytes are truncated or hold impossible values.
Status DecodeHeader(const std::string& bytes, TensorHeader* h);

// Byte form of a string tensor (each element: uint64 length, then the bytes) and back.
std::string SerializeStrings(const Tensor& t);
// DataLoss naming the element when the payload is truncated.
Status DeserializeStrings(const std::string& bytes, Tensor* t);

}  // namespace fb::mpi
