#include "engine/framework/allocator.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace fb {

AllocatorStats Allocator::GetStats() const {
  AllocatorStats s;
  s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_bytes_.load(std::memory_order_relaxed);
  s.largest_alloc_size = largest_alloc_.load(std::memory_order_relaxed);
  return s;
}

void Allocator::ResetPeak() { peak_bytes_.store(bytes_in_use_.load()); }

void Allocator::RecordAlloc(size_t bytes) {
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  int64_t now = bytes_in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now)) {
  }
  int64_t largest = largest_alloc_.load(std::memory_order_relaxed);
  while (static_cast<int64_t>(bytes) > largest &&
         !largest_alloc_.compare_exchange_weak(largest, bytes)) {
  }
}

void Allocator::RecordFree(size_t bytes) {
  bytes_in_use_.fetch_sub(bytes, std::memory_order_relaxed);
}

namespace {

// The machine's physical memory in bytes (SIZE_MAX when unknown). No single host buffer can be
// larger and still be used: with memory overcommit, malloc would succeed and the first write
// would bring the OOM killer instead of an error.
size_t PhysicalMemoryBytes() {
  static const size_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return SIZE_MAX;
    return static_cast<size_t>(pages) * static_cast<size_t>(page);
  }();
  return bytes;
}

}  // namespace

void* CpuAllocator::AllocateRaw(size_t alignment, size_t bytes) {
  if (alignment < kAlignment) alignment = kAlignment;
  if (bytes > PhysicalMemoryBytes() || bytes > SIZE_MAX - alignment) return nullptr;
  // aligned_alloc needs a size that is a multiple of the alignment; free() takes any alignment.
  size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (p) RecordAlloc(bytes);
  return p;
}

void CpuAllocator::DeallocateRaw(void* ptr, size_t bytes) {
  if (!ptr) return;
  std::free(ptr);
  RecordFree(bytes);
}

Allocator* DefaultCpuAllocator() {
  static CpuAllocator* a = new CpuAllocator("cpu_default");
  return a;
}

}  // namespace fb
