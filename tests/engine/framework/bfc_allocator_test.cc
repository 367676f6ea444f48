// BfcAllocator over host memory: best fit, splitting, coalescing, growth, limits and stats. The
// GPU device uses the same class over cudaMalloc (tests/gpu check it there).
#include "engine/framework/bfc_allocator.h"

#include <catch2/catch.hpp>

#include "engine/framework/tensor_allocate.h"

namespace fb {
namespace {

std::unique_ptr<BfcAllocator> MakeBfc(size_t limit, size_t region = 4096) {
  return std::make_unique<BfcAllocator>(std::make_unique<HostSubAllocator>(), limit, "bfc_test",
                                        region);
}

TEST_CASE("BfcAllocator rounds to 256 bytes and reuses a freed chunk", "[bfc]") {
  auto a = MakeBfc(1 << 20);
  void* p = a->AllocateRaw(64, 100);
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(p) % 256 == 0);
  CHECK(a->PoolBytes() == 4096);
  a->DeallocateRaw(p, 100);
  void* q = a->AllocateRaw(64, 200);  // fits in the same first chunk: same address
  CHECK(q == p);
  a->DeallocateRaw(q, 200);
  CHECK(a->NumChunks() == 1);  // everything coalesced back into the region
}

TEST_CASE("BfcAllocator picks the best-fitting free chunk", "[bfc]") {
  auto a = MakeBfc(1 << 20);
  // Layout in one 4096-byte region: [A 1024][s 256][B 512][s 256][rest 2048].
  void* big = a->AllocateRaw(64, 1024);
  void* sep1 = a->AllocateRaw(64, 256);
  void* small = a->AllocateRaw(64, 512);
  void* sep2 = a->AllocateRaw(64, 256);
  a->DeallocateRaw(big, 1024);
  a->DeallocateRaw(small, 512);
  // Free chunks of 1024, 512 and 2048 bytes: a 300-byte request takes the 512-byte one.
  void* p = a->AllocateRaw(64, 300);
  CHECK(p == small);
  // A 700-byte request takes the 1024-byte chunk, not the larger tail.
  void* q = a->AllocateRaw(64, 700);
  CHECK(q == big);
  for (auto [ptr, n] : {std::pair{sep1, 256}, {sep2, 256}, {p, 300}, {q, 700}})
    a->DeallocateRaw(ptr, n);
  CHECK(a->NumChunks() == 1);
}

TEST_CASE("BfcAllocator coalesces neighbours in any free order", "[bfc]") {
  auto a = MakeBfc(1 << 20);
  std::vector<void*> p;
  for (int i = 0; i < 8; ++i) p.push_back(a->AllocateRaw(64, 256));
  CHECK(a->NumChunks() == 9);  // 8 used + the free tail
  for (int i : {1, 3, 5, 7, 0, 2, 6, 4}) a->DeallocateRaw(p[i], 256);
  CHECK(a->NumChunks() == 1);
}

TEST_CASE("BfcAllocator grows by doubling regions and never merges across regions", "[bfc]") {
  auto a = MakeBfc(1 << 20, 1024);
  void* x = a->AllocateRaw(64, 1024);  // fills region 1 (1024 bytes)
  void* y = a->AllocateRaw(64, 1024);  // region 2 of 2048 bytes
  CHECK(a->PoolBytes() == 1024 + 2048);
  void* z = a->AllocateRaw(64, 3000);  // needs 3072: region 3 of 4096 bytes
  CHECK(a->PoolBytes() == 1024 + 2048 + 4096);
  a->DeallocateRaw(x, 1024);
  a->DeallocateRaw(y, 1024);
  a->DeallocateRaw(z, 3000);
  CHECK(a->NumChunks() == 3);  // one per region
}

TEST_CASE("BfcAllocator tracks bytes in use and the peak", "[bfc]") {
  auto a = MakeBfc(1 << 20);
  void* x = a->AllocateRaw(64, 1000);
  void* y = a->AllocateRaw(64, 3000);
  a->DeallocateRaw(x, 1000);
  AllocatorStats s = a->GetStats();
  CHECK(s.bytes_in_use == 3000);
  CHECK(s.peak_bytes_in_use == 4000);
  CHECK(s.largest_alloc_size == 3000);
  CHECK(s.num_allocs == 2);
  a->DeallocateRaw(y, 3000);
  CHECK(a->GetStats().bytes_in_use == 0);
}

TEST_CASE("BfcAllocator returns nullptr past its limit and AllocateTensor says ResourceExhausted",
          "[bfc]") {
  auto a = MakeBfc(8192, 4096);
  void* x = a->AllocateRaw(64, 4096);
  void* y = a->AllocateRaw(64, 4096);
  REQUIRE(x != nullptr);
  REQUIRE(y != nullptr);
  CHECK(a->AllocateRaw(64, 1) == nullptr);
  auto t = AllocateTensor(DataType::kFloat, TensorShape{1024}, a.get());
  REQUIRE(!t.ok());
  CHECK(t.status().code() == Code::kResourceExhausted);
  CHECK(t.status().message().find("4096 bytes") != std::string::npos);
  CHECK(t.status().message().find("bfc_test") != std::string::npos);
  a->DeallocateRaw(x, 4096);
  auto u = AllocateTensor(DataType::kFloat, TensorShape{1024}, a.get());
  CHECK(u.ok());
  a->DeallocateRaw(y, 4096);
}

TEST_CASE("AllocateTensor's tensors copy with their own allocator and free to the pool", "[bfc]") {
  auto a = MakeBfc(1 << 20);
  {
    auto t = AllocateTensor(DataType::kFloat, TensorShape{100}, a.get());
    REQUIRE(t.ok());
    CHECK(t->allocator()->Name() == "bfc_test");
    CHECK(BaseAllocator(*t) == a.get());
    t->flat<float>().setConstant(2);
    Tensor copy = t->DeepCopy(t->allocator());  // as Var::PrepareForWrite does
    CHECK(TensorsEqual(copy, *t));
    CHECK(a->GetStats().bytes_in_use == 800);
  }
  CHECK(a->GetStats().bytes_in_use == 0);
  CHECK(a->NumChunks() == 1);
}

}  // namespace
}  // namespace fb
