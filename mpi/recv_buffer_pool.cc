#include "mpi/recv_buffer_pool.h"

#include <algorithm>
#include <cstdlib>

namespace fb::mpi {

namespace {
size_t Rounded(size_t bytes) {
  size_t a = Allocator::kAlignment;
  return bytes == 0 ? a : (bytes + a - 1) / a * a;
}
}  // namespace

RecvBufferPool::RecvBufferPool(int64_t min_cached_bytes, int64_t max_cached_bytes)
    : min_cached_bytes_(min_cached_bytes), max_cached_bytes_(max_cached_bytes) {}

RecvBufferPool::~RecvBufferPool() {
  std::lock_guard<std::mutex> l(mu_);
  ReleaseLocked(0);
}

void* RecvBufferPool::AllocateRaw(size_t alignment, size_t bytes) {
  size_t size = Rounded(bytes);
  RecordAlloc(bytes);
  if (static_cast<int64_t>(size) >= min_cached_bytes_) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      order_.erase(std::find(order_.begin(), order_.end(), std::make_pair(size, p)));
      cached_bytes_ -= size;
      ++hits_;
      return p;
    }
  }
  return std::aligned_alloc(std::max(alignment, kAlignment), size);
}

void RecvBufferPool::DeallocateRaw(void* ptr, size_t bytes) {
  RecordFree(bytes);
  size_t size = Rounded(bytes);
  if (static_cast<int64_t>(size) < min_cached_bytes_ || static_cast<int64_t>(size) > max_cached_bytes_) {
    std::free(ptr);
    return;
  }
  std::lock_guard<std::mutex> l(mu_);
  ReleaseLocked(max_cached_bytes_ - static_cast<int64_t>(size));
  free_[size].push_back(ptr);
  order_.emplace_back(size, ptr);
  cached_bytes_ += size;
}

void RecvBufferPool::ReleaseLocked(int64_t keep_bytes) {
  while (cached_bytes_ > keep_bytes && !order_.empty()) {
    auto [size, p] = order_.front();
    order_.pop_front();
    auto& v = free_[size];
    v.erase(std::find(v.begin(), v.end(), p));
    cached_bytes_ -= size;
    std::free(p);
  }
}

int64_t RecvBufferPool::cached_bytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return cached_bytes_;
}

int64_t RecvBufferPool::hits() const {
  std::lock_guard<std::mutex> l(mu_);
  return hits_;
}

}  // namespace fb::mpi
