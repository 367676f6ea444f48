#pragma once
// RecvBufferPool: the allocator of tensors that arrive over MPI (mpi_transport.cc). Large
// receive buffers are kept on free and handed out again for the next arrival of the same size,
// so a steady stream of equally sized transfers (gradients every step, the p2p benchmark) does
// not pay an mmap, page faults and kernel zeroing per message: at 1 GB/s a fresh 64 MiB buffer
// costs about as much as the transfer itself. Buffers below `min_cached_bytes` go straight to
// the CPU allocator; at most `max_cached_bytes` are kept idle (the oldest sizes are released
// first). Thread-safe: tensors may be freed on any thread.
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "engine/framework/allocator.h"

namespace fb::mpi {

class RecvBufferPool : public Allocator {
 public:
  explicit RecvBufferPool(int64_t min_cached_bytes = 64 << 10, int64_t max_cached_bytes = 1ll << 30);
  ~RecvBufferPool() override;
  std::string Name() const override { return "mpi_recv_pool"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override;
  void DeallocateRaw(void* ptr, size_t bytes) override;
  int64_t cached_bytes() const;
  int64_t hits() const;

 private:
  void ReleaseLocked(int64_t keep_bytes);

  const int64_t min_cached_bytes_, max_cached_bytes_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // bytes -> idle buffers
  std::deque<std::pair<size_t, void*>> order_;  // idle buffers, oldest first
  int64_t cached_bytes_ = 0;
  int64_t hits_ = 0;
};

}  // namespace fb::mpi
