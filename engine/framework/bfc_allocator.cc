#include "engine/framework/bfc_allocator.h"

#include <algorithm>
#include <cstdlib>

#include "engine/framework/status.h"

namespace fb {

BfcAllocator::BfcAllocator(std::unique_ptr<SubAllocator> sub, size_t memory_limit_bytes,
                           std::string name, size_t initial_region_bytes)
    : sub_(std::move(sub)),
      memory_limit_bytes_(memory_limit_bytes),
      name_(std::move(name)),
      next_region_bytes_(std::max(initial_region_bytes, kMinAllocationBytes)) {}

BfcAllocator::~BfcAllocator() {
  for (auto& [ptr, bytes] : regions_) sub_->Free(ptr, bytes);
}

size_t BfcAllocator::PoolBytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return pool_bytes_;
}

size_t BfcAllocator::NumChunks() const {
  std::lock_guard<std::mutex> l(mu_);
  return chunks_.size();
}

void* BfcAllocator::AllocateRaw(size_t alignment, size_t bytes) {
  FB_CHECK(alignment <= kMinAllocationBytes) << "BfcAllocator aligns to " << kMinAllocationBytes
                                             << " bytes, asked for " << alignment;
  // Beyond the limit (or half the address space when unlimited) no region can hold it, and the
  // rounding and region doubling below would overflow.
  const size_t max_bytes = memory_limit_bytes_ > 0 ? memory_limit_bytes_ : SIZE_MAX / 4;
  if (bytes > max_bytes) return nullptr;
  const size_t rounded =
      std::max<size_t>(1, (bytes + kMinAllocationBytes - 1) / kMinAllocationBytes) *
      kMinAllocationBytes;
  std::lock_guard<std::mutex> l(mu_);
  auto it = FindFreeChunk(rounded);
  if (it == chunks_.end()) {
    if (!Extend(rounded)) return nullptr;
    it = FindFreeChunk(rounded);
    FB_CHECK(it != chunks_.end()) << "no chunk of " << rounded << " bytes after Extend";
  }
  EraseFree(it);
  Split(it, rounded);
  it->second.in_use = true;
  RecordAlloc(bytes);
  return it->first;
}

void BfcAllocator::DeallocateRaw(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> l(mu_);
  auto it = chunks_.find(static_cast<char*>(ptr));
  FB_CHECK(it != chunks_.end() && it->second.in_use)
      << name_ << ": freeing " << ptr << ", which this allocator did not hand out";
  it->second.in_use = false;
  RecordFree(bytes);
  Merge(it);
}

BfcAllocator::ChunkMap::iterator BfcAllocator::FindFreeChunk(size_t rounded) {
  auto f = free_.lower_bound({rounded, nullptr});
  return f == free_.end() ? chunks_.end() : chunks_.find(f->second);
}

// Takes a new region: the doubling size when the limit allows, else what is left of the limit;
// if the SubAllocator refuses the large size, exactly what this request needs.
bool BfcAllocator::Extend(size_t rounded) {
  const size_t left = memory_limit_bytes_ > pool_bytes_ ? memory_limit_bytes_ - pool_bytes_ : 0;
  if (memory_limit_bytes_ > 0 && rounded > left) return false;
  while (next_region_bytes_ < rounded) next_region_bytes_ *= 2;
  size_t bytes = memory_limit_bytes_ > 0 ? std::min(next_region_bytes_, left) : next_region_bytes_;
  bytes = bytes / kMinAllocationBytes * kMinAllocationBytes;
  void* p = sub_->Alloc(bytes);
  if (p == nullptr && bytes > rounded) {
    bytes = rounded;
    p = sub_->Alloc(bytes);
  }
  if (p == nullptr) return false;
  next_region_bytes_ *= 2;
  char* base = static_cast<char*>(p);
  regions_.push_back({base, bytes});
  pool_bytes_ += bytes;
  auto it = chunks_.emplace(base, Chunk{bytes, false, base + bytes}).first;
  InsertFree(it);
  return true;
}

// Cuts the (not yet listed as free) chunk at `it` to `rounded` bytes; the rest becomes a free
// chunk of its own.
void BfcAllocator::Split(ChunkMap::iterator it, size_t rounded) {
  Chunk& c = it->second;
  if (c.size - rounded < kMinAllocationBytes) return;
  auto rest = chunks_.emplace(it->first + rounded, Chunk{c.size - rounded, false, c.region_end})
                  .first;
  c.size = rounded;
  InsertFree(rest);
}

// Merges the newly freed chunk at `it` with free neighbours of the same region, then lists it.
void BfcAllocator::Merge(ChunkMap::iterator it) {
  auto next = std::next(it);
  if (next != chunks_.end() && !next->second.in_use &&
      next->first == it->first + it->second.size && next->first < it->second.region_end) {
    EraseFree(next);
    it->second.size += next->second.size;
    chunks_.erase(next);
  }
  if (it != chunks_.begin()) {
    auto prev = std::prev(it);
    if (!prev->second.in_use && prev->first + prev->second.size == it->first &&
        prev->second.region_end == it->second.region_end) {
      EraseFree(prev);
      prev->second.size += it->second.size;
      chunks_.erase(it);
      it = prev;
    }
  }
  InsertFree(it);
}

void* HostSubAllocator::Alloc(size_t bytes) {
  return std::aligned_alloc(BfcAllocator::kMinAllocationBytes, bytes);
}

void HostSubAllocator::Free(void* ptr, size_t bytes) { std::free(ptr); }

}  // namespace fb
