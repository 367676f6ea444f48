#pragma once
// BfcAllocator: a pooling allocator in the spirit of TensorFlow's "best-fit with coalescing"
// allocator (tensorflow/core/common_runtime/bfc_allocator.h). It takes large regions from a
// SubAllocator (cudaMalloc on a GPU, cudaHostAlloc for pinned staging buffers, aligned host
// memory in tests), cuts them into chunks, hands out the smallest free chunk that fits (ties: the
// lowest address), splits off the rest, and on free merges a chunk with its free neighbours.
// Regions grow by doubling (starting at `initial_region_bytes`) up to `memory_limit_bytes`;
// they are returned to the SubAllocator only when the allocator is destroyed, so steady-state
// training steps never call cudaMalloc/cudaFree (which synchronise the whole device).
//
// Sizes are rounded up to multiples of kMinAllocationBytes (256, cudaMalloc's alignment), so every
// pointer is 256-byte aligned. Stats (Allocator::GetStats) count requested bytes; PoolBytes()
// counts the regions held. AllocateRaw returns nullptr once the limit is reached (the caller turns
// that into ResourceExhausted, see Tensor::Allocate). Thread-safe (one mutex).
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/framework/allocator.h"

namespace fb {

// Where a BfcAllocator's regions come from.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // A region of `bytes` aligned to at least 256 bytes, or nullptr when out of memory.
  virtual void* Alloc(size_t bytes) = 0;
  virtual void Free(void* ptr, size_t bytes) = 0;
  virtual bool IsHostMemory() const = 0;
};

class BfcAllocator : public Allocator {
 public:
  static constexpr size_t kMinAllocationBytes = 256;

  BfcAllocator(std::unique_ptr<SubAllocator> sub, size_t memory_limit_bytes, std::string name,
               size_t initial_region_bytes = size_t{2} << 20);
  ~BfcAllocator() override;

  std::string Name() const override { return name_; }
  void* AllocateRaw(size_t alignment, size_t bytes) override;
  void DeallocateRaw(void* ptr, size_t bytes) override;
  bool IsHostMemory() const override { return sub_->IsHostMemory(); }
  bool IsPooled() const override { return true; }

  size_t memory_limit_bytes() const { return memory_limit_bytes_; }
  // Bytes of all regions taken from the SubAllocator.
  size_t PoolBytes() const;
  // Number of chunks (used and free) over all regions: 1 per region when everything is free
  // and coalesced.
  size_t NumChunks() const;

 private:
  struct Chunk {
    size_t size = 0;
    bool in_use = false;
    char* region_end = nullptr;  // neighbours are only merged within a region
  };
  using ChunkMap = std::map<char*, Chunk>;

  ChunkMap::iterator FindFreeChunk(size_t rounded);  // requires mu_
  bool Extend(size_t rounded);                       // requires mu_
  void Split(ChunkMap::iterator it, size_t rounded);  // requires mu_
  void Merge(ChunkMap::iterator it);                 // requires mu_
  void InsertFree(ChunkMap::iterator it) { free_.insert({it->second.size, it->first}); }
  void EraseFree(ChunkMap::iterator it) { free_.erase({it->second.size, it->first}); }

  std::unique_ptr<SubAllocator> sub_;
  const size_t memory_limit_bytes_;
  const std::string name_;
  mutable std::mutex mu_;
  size_t next_region_bytes_;
  size_t pool_bytes_ = 0;
  std::vector<std::pair<char*, size_t>> regions_;
  ChunkMap chunks_;                          // every chunk, by address
  std::set<std::pair<size_t, char*>> free_;  // free chunks by (size, address): best fit
};

// Aligned host memory from operator new (for tests and host staging without CUDA).
class HostSubAllocator : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override;
  void Free(void* ptr, size_t bytes) override;
  bool IsHostMemory() const override { return true; }
};

}  // namespace fb
