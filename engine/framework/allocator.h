#pragma once
// Allocator: where a Device's tensor memory comes from. Every allocator counts bytes in use and the
// peak since the last ResetPeak(), which traces record per step (whitepaper section 9) and the
// placer's memory limits are checked against. Thread-safe.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace fb {

struct AllocatorStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
};

// Allocators owned by a shared_ptr (devices' allocators) are kept alive by the buffers they
// allocated (TensorBuffer takes weak_from_this().lock()), so a tensor fetched from a Session may
// outlive the Session and its devices.
class Allocator : public std::enable_shared_from_this<Allocator> {
 public:
  // Alignment of every tensor buffer in bytes (AVX-512 friendly; Eigen's requirement is 16).
  static constexpr size_t kAlignment = 64;
  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;
  // Returns nullptr when out of memory. `bytes` may be 0 (returns a valid unique pointer).
  virtual void* AllocateRaw(size_t alignment, size_t bytes) = 0;
  virtual void DeallocateRaw(void* ptr, size_t bytes) = 0;
  // Whether the memory is host-addressable (CPU, pinned) or device-only (GPU).
  virtual bool IsHostMemory() const { return true; }
  // Whether the allocator pools memory for the whole process (BfcAllocator: GPU memory, pinned
  // staging), so that AllocateTensor may report its out-of-memory errors itself.
  virtual bool IsPooled() const { return false; }
  AllocatorStats GetStats() const;
  void ResetPeak();

 protected:
  void RecordAlloc(size_t bytes);
  void RecordFree(size_t bytes);

 private:
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_{0};
  std::atomic<int64_t> largest_alloc_{0};
};

// Host memory through aligned operator new. One per CPU device, so stats are per device.
// Returns nullptr for a buffer larger than the machine's physical memory.
class CpuAllocator : public Allocator {
 public:
  explicit CpuAllocator(std::string name = "cpu") : name_(std::move(name)) {}
  std::string Name() const override { return name_; }
  void* AllocateRaw(size_t alignment, size_t bytes) override;
  void DeallocateRaw(void* ptr, size_t bytes) override;

 private:
  std::string name_;
};

// A process-wide CPU allocator for tensors made outside any device (feeds, constants in tests).
Allocator* DefaultCpuAllocator();

}  // namespace fb
