// The GPU array ops' copies over collapsed dimensions (array_ops.cc Collapse: size-1 dims
// dropped, contiguous dims merged unless they wrap): GoogLeNet's channel Slices and ConcatV2 of
// NHWC tensors, a single element, and Tile (whose source wraps) with size-1 dims, exactly equal
// to the CPU.
#include <catch2/catch.hpp>

#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::ExpectGpuMatchesCpu;
using test::Node;
using test::Random;

constexpr DataType kF = DataType::kFloat;
constexpr DataType kI = DataType::kInt32;

Tensor Ints(std::vector<int32_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::FromVector<int32_t>(std::move(v), {n});
}

TEST_CASE("GPU channel Slice ConcatV2 and Tile over collapsed dims copy like the CPU",
          "[gpu][array]") {
  Tensor x = Random(kF, {2, 3, 3, 10}, -1, 1, 51);
  NodeDef slice = Node("Slice", 3, {{"T", kF}, {"Index", kI}});
  ExpectGpuMatchesCpu(slice, {x, Ints({0, 0, 0, 4}), Ints({-1, -1, -1, 3})}, 0, 0);
  ExpectGpuMatchesCpu(slice, {x, Ints({1, 0, 2, 0}), Ints({1, 3, 1, 10})}, 0, 0);
  ExpectGpuMatchesCpu(slice, {x, Ints({1, 2, 2, 9}), Ints({1, 1, 1, 1})}, 0, 0);  // one element
  // By hand: the channel slice [.., 4:7] of x [2, 3, 3, 10] is x's elements 4, 5, 6 of each pixel.
  std::vector<Tensor> channels = test::Run(test::Gpu(), slice,
                                           {x, Ints({0, 0, 0, 4}), Ints({-1, -1, -1, 3})});
  REQUIRE(channels.size() == 1);
  REQUIRE(channels[0].shape() == TensorShape({2, 3, 3, 3}));
  for (int64_t pixel = 0; pixel < 18; ++pixel)
    for (int64_t c = 0; c < 3; ++c)
      CHECK(channels[0].data<float>()[pixel * 3 + c] == x.data<float>()[pixel * 10 + 4 + c]);
  ExpectGpuMatchesCpu(slice, {x, Ints({0, 1, 0, 2}), Ints({2, 2, 3, 5})}, 0, 0);
  Tensor a = Random(kF, {2, 3, 3, 4}, -1, 1, 52), b = Random(kF, {2, 3, 3, 1}, -1, 1, 53);
  ExpectGpuMatchesCpu(Node("ConcatV2", 4, {{"T", kF}, {"N", int64_t{3}}}),
                      {a, b, x, Tensor::Scalar<int32_t>(3)}, 0, 0);
  Tensor t = Random(kF, {1, 3, 1, 2}, -1, 1, 54);
  ExpectGpuMatchesCpu(Node("Tile", 2, {{"T", kF}}), {t, Ints({2, 1, 3, 1})}, 0, 0);
  ExpectGpuMatchesCpu(Node("Tile", 2, {{"T", kF}}), {t, Ints({1, 2, 1, 2})}, 0, 0);
  // By hand: t [1, 3, 1, 2] tiled (1, 1, 1, 2) repeats each pixel's 2 values: a b a b.
  std::vector<Tensor> tiled = test::Run(test::Gpu(), Node("Tile", 2, {{"T", kF}}),
                                        {t, Ints({1, 1, 1, 2})});
  REQUIRE(tiled.size() == 1);
  REQUIRE(tiled[0].shape() == TensorShape({1, 3, 1, 4}));
  for (int64_t pixel = 0; pixel < 3; ++pixel)
    for (int64_t j = 0; j < 4; ++j)
      CHECK(tiled[0].data<float>()[pixel * 4 + j] == t.data<float>()[pixel * 2 + j % 2]);
}

}  // namespace
}  // namespace fb::gpu
