#pragma once
// MpiTransport: moves tensors between ranks for remote Send/Recv (whitepaper 3.3) over Open MPI
// nonblocking point-to-point. One progress thread per process makes every MPI call of the
// transport, so executor threads never block on MPI (5.3).
//
// Wire protocol, per tensor (documented in docs/mpi.md):
//  1. a header message, tag kHeaderTag (1), MPI_BYTE: step id, dtype, is_dead, rank and dims,
//     payload tag, payload bytes, chunk count, and the rendezvous key string
//     ("src_device;dst_device;tensor_name;frame:iter");
//  2. the payload in chunks of at most `chunk_bytes` (default 64 MiB), all with the payload tag,
//     which the sender draws from a per-destination counter in [kFirstPayloadTag, MPI_TAG_UB).
//     MPI's non-overtaking rule keeps the chunks in order. The payload is the tensor's buffer
//     itself (no copy); strings are length-prefixed.
// The receiver's progress thread matches headers from any source (MPI_Improbe/MPI_Mrecv),
// allocates the tensor, posts MPI_Irecv for its chunks, and on completion hands it to the
// step's sink (registered by that step's MpiRendezvous), buffering arrivals for steps not yet
// registered. Thread-safe.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/framework/tensor.h"

namespace fb::mpi {

class MpiTransport {
 public:
  using SendDone = std::function<void(const Status&)>;
  using Sink = std::function<void(const std::string& key, const Tensor& value, bool is_dead)>;
  static constexpr int kHeaderTag = 1;
  static constexpr int kFirstPayloadTag = 16;

  // The process-wide transport; starts its progress thread on first use. MPI must be initialized
  // with MPI_THREAD_MULTIPLE (see MpiEnvironment).
  static MpiTransport* Get();
  ~MpiTransport();

  // Queues `value` for rank `dst`; `done` runs on the progress thread when the buffer may be
  // reused, with an error if MPI failed (naming the peer rank).
  void Send(int dst, int64_t step_id, const std::string& key, const Tensor& value, bool is_dead,
            SendDone done);
  // Arrivals for `step_id` go to `sink` (buffered ones at once, on the caller's thread).
  void RegisterStep(int64_t step_id, Sink sink);
  void UnregisterStep(int64_t step_id);
  // Stops the progress thread after outstanding sends complete (call before MPI_Finalize).
  void Shutdown();

  void set_chunk_bytes(int64_t bytes);
  int64_t bytes_sent() const;
  int64_t bytes_received() const;

  struct Impl;

 private:
  MpiTransport();
  std::unique_ptr<Impl> impl_;
};

// Byte form of a string tensor (length-prefixed) and back; exposed for tests.
std::string SerializeStrings(const Tensor& t);
Status DeserializeStrings(const std::string& bytes, Tensor* t);

}  // namespace fb::mpi
