// Tensor, dtypes and the allocator's accounting (issue 2, item 2).
#include <catch2/catch.hpp>

#include "engine/framework/allocator.h"
#include "engine/framework/tensor.h"
#include "engine/framework/types.h"

namespace fb {
namespace {

TEST_CASE("Every dtype has its size and a name that parses back", "[framework][tensor]") {
  struct Case {
    DataType dt;
    size_t size;
  };
  const Case cases[] = {
      {DataType::kFloat, 4},  {DataType::kDouble, 8},  {DataType::kHalf, 2},
      {DataType::kBFloat16, 2}, {DataType::kInt8, 1}, {DataType::kInt16, 2},
      {DataType::kInt32, 4},  {DataType::kInt64, 8},   {DataType::kUInt8, 1},
      {DataType::kUInt16, 2}, {DataType::kUInt32, 4},  {DataType::kUInt64, 8},
      {DataType::kBool, 1},   {DataType::kComplex64, 8},
  };
  for (const Case& c : cases) {
    INFO(DataTypeString(c.dt));
    CHECK(DataTypeSize(c.dt) == c.size);
    auto back = DataTypeFromString(DataTypeString(c.dt));
    REQUIRE(back.ok());
    CHECK(*back == c.dt);
    Tensor t(c.dt, TensorShape{3, 2});
    CHECK(t.ByteSize() == 6 * c.size);
  }
  CHECK_FALSE(DataTypeFromString("float33").ok());
}

TEST_CASE("String tensors count their payload in TotalBytes", "[framework][tensor]") {
  Tensor t(DataType::kString, TensorShape{2});
  t.data<std::string>()[0] = "hello";
  t.data<std::string>()[1] = "";
  CHECK(t.ByteSize() == 0);
  CHECK(t.TotalBytes() >= 5);
}

TEST_CASE("Tensors share reference-counted buffers", "[framework][tensor]") {
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = a;
  CHECK(b.SharesBufferWith(a));
  CHECK(a.BufferRefCount() == 2);
  Tensor r = a.Reshaped({3, 2});
  CHECK(r.SharesBufferWith(a));
  CHECK(r.data<float>()[5] == 6);
  Tensor row = a.Slice(1, 2);
  CHECK(row.shape() == TensorShape({1, 3}));
  CHECK(row.data<float>()[0] == 4);
  Tensor copy = a.DeepCopy();
  CHECK_FALSE(copy.SharesBufferWith(a));
  copy.data<float>()[0] = 100;
  CHECK(a.data<float>()[0] == 1);
  CHECK(TensorsEqual(a.Reshaped({6}), Tensor::FromVector<float>({1, 2, 3, 4, 5, 6})));
  CHECK_FALSE(TensorsEqual(a, copy));
}

TEST_CASE("The allocator counts bytes in use and the peak", "[framework][allocator]") {
  CpuAllocator alloc("test");
  {
    Tensor a(DataType::kFloat, TensorShape{256}, &alloc);   // 1024 bytes
    Tensor b(DataType::kDouble, TensorShape{256}, &alloc);  // 2048 bytes
    AllocatorStats s = alloc.GetStats();
    CHECK(s.num_allocs == 2);
    CHECK(s.bytes_in_use == 3072);
    CHECK(s.peak_bytes_in_use == 3072);
    CHECK(s.largest_alloc_size == 2048);
    CHECK(reinterpret_cast<uintptr_t>(a.raw_data()) % Allocator::kAlignment == 0);
  }
  AllocatorStats after = alloc.GetStats();
  CHECK(after.bytes_in_use == 0);
  CHECK(after.peak_bytes_in_use == 3072);
  alloc.ResetPeak();
  CHECK(alloc.GetStats().peak_bytes_in_use == 0);
  Tensor c(DataType::kInt8, TensorShape{10}, &alloc);
  CHECK(alloc.GetStats().peak_bytes_in_use == 10);
}

}  // namespace
}  // namespace fb
