#pragma once
// Little-endian host-layout byte packing for the MPI wire formats (wire_format.h,
// control_message.h): both ends of an mpirun job are the same binary on the same kind of machine.
#include <cstddef>
#include <cstring>
#include <string>

namespace fb::mpi {

inline void PutBytes(std::string* out, const void* p, size_t n) {
  out->append(static_cast<const char*>(p), n);
}
template <typename T>
void Put(std::string* out, T v) {
  PutBytes(out, &v, sizeof(T));
}
// Reads a T at *pos and advances it; false (nothing read) if the bytes end first.
template <typename T>
bool Get(const std::string& in, size_t* pos, T* v) {
  if (*pos + sizeof(T) > in.size()) return false;
  std::memcpy(v, in.data() + *pos, sizeof(T));
  *pos += sizeof(T);
  return true;
}

}  // namespace fb::mpi
