// GPU Gather, GatherV2, OneHot and UnsortedSegmentSum (kernels/cuda/gather_ops.cc: the word
// language models' embedding lookup, its gradient and labels) against the CPU kernels, and their
// index errors with the CPU kernels' messages.
#include <catch2/catch.hpp>

#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::ExpectGpuMatchesCpu;
using test::Node;
using test::Random;

constexpr DataType kF = DataType::kFloat;

template <typename Index>
Tensor Indices(const std::vector<int64_t>& v, const TensorShape& shape) {
  return Tensor::FromVector<Index>(std::vector<Index>(v.begin(), v.end()), shape);
}

// Outputs must be bit-identical (pure data movement).
void ExpectGpuEqualsCpu(const NodeDef& n, const std::vector<Tensor>& inputs) {
  auto cpu = test::Run(test::Cpu(), n, inputs);
  auto gpu = test::Run(test::Gpu(), n, inputs);
  REQUIRE(cpu.size() == gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) CHECK(TensorsEqual(gpu[i], cpu[i]));
}

TEST_CASE("GPU Gather and GatherV2 match the CPU", "[gpu][gather]") {
  Tensor params = Random(kF, {50, 16}, -1, 1, 1);
  const std::vector<int64_t> ids = {3, 0, 49, 3, 17, 8};
  ExpectGpuEqualsCpu(Node("Gather", 2, {{"Tparams", kF}, {"Tindices", DataType::kInt32}}),
                     {params, Indices<int32_t>(ids, {2, 3})});
  ExpectGpuEqualsCpu(Node("Gather", 2, {{"Tparams", kF}, {"Tindices", DataType::kInt64}}),
                     {params, Indices<int64_t>(ids, {6})});
  // Doubles and int64 params move by their size; axis 1 of a 3-D tensor through GatherV2.
  Tensor cube = Random(DataType::kDouble, {3, 7, 5}, -1, 1, 2);
  ExpectGpuEqualsCpu(
      Node("GatherV2", 3,
           {{"Tparams", DataType::kDouble}, {"Tindices", DataType::kInt32},
            {"Taxis", DataType::kInt32}}),
      {cube, Indices<int32_t>({6, 0, 2, 2}, {2, 2}), Tensor::Scalar<int32_t>(1)});
  Tensor ints = Indices<int64_t>({10, 11, 12, 13, 14, 15}, {3, 2});
  ExpectGpuEqualsCpu(
      Node("Gather", 2, {{"Tparams", DataType::kInt64}, {"Tindices", DataType::kInt32}}),
      {ints, Indices<int32_t>({2, 2, 0}, {3})});
  // No indices: an empty output.
  ExpectGpuEqualsCpu(Node("Gather", 2, {{"Tparams", kF}, {"Tindices", DataType::kInt32}}),
                     {params, Indices<int32_t>({}, {0})});
}

TEST_CASE("GPU Gather names an out-of-range index as the CPU does", "[gpu][gather]") {
  NodeDef n = Node("Gather", 2, {{"Tparams", kF}, {"Tindices", DataType::kInt32}});
  Tensor params = Random(kF, {5, 4});
  for (int64_t bad : {7, -1}) {
    Tensor idx = Indices<int32_t>({0, 1, 2, bad}, {2, 2});
    auto gpu = test::TryRun(test::Gpu(), n, {params, idx});
    auto cpu = test::TryRun(test::Cpu(), n, {params, idx});
    REQUIRE(!gpu.ok());
    REQUIRE(!cpu.ok());
    CHECK(gpu.status().message() == cpu.status().message());
    CHECK_THAT(gpu.status().message(),
               Catch::Contains("indices[1,1] = " + std::to_string(bad) + " is not in [0, 5)"));
  }
}

TEST_CASE("GPU OneHot matches the CPU", "[gpu][gather]") {
  for (int64_t axis : {-1, 0}) {
    INFO("axis " << axis);
    AttrMap attrs = {{"T", kF}, {"TI", DataType::kInt64}, {"axis", axis}};
    // 9 is past depth and -1 below it: rows of off_value.
    ExpectGpuEqualsCpu(Node("OneHot", 4, attrs),
                       {Indices<int64_t>({0, 3, 9, -1, 4, 4}, {2, 3}), Tensor::Scalar<int32_t>(5),
                        Tensor::Scalar<float>(1.0f), Tensor::Scalar<float>(-0.5f)});
  }
  ExpectGpuEqualsCpu(Node("OneHot", 4, {{"T", DataType::kInt32}, {"TI", DataType::kInt32}}),
                     {Indices<int32_t>({1, 0, 2}, {3}), Tensor::Scalar<int32_t>(3),
                      Tensor::Scalar<int32_t>(7), Tensor::Scalar<int32_t>(0)});
  auto bad = test::TryRun(test::Gpu(), Node("OneHot", 4, {{"T", kF}, {"TI", DataType::kInt32}}),
                          {Indices<int32_t>({1}, {1}), Tensor::FromVector<int32_t>({3, 3}, {2}),
                           Tensor::Scalar<float>(1.0f), Tensor::Scalar<float>(0.0f)});
  REQUIRE(!bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("depth must be a scalar, got shape [2]"));
}

TEST_CASE("GPU UnsortedSegmentSum matches the CPU", "[gpu][gather]") {
  // The gradient of an embedding lookup: rows of data added into their ids' rows; -1 drops a row.
  Tensor data = Random(kF, {2, 4, 8}, -1, 1, 3);
  Tensor ids = Indices<int32_t>({3, 0, 3, 9, -1, 3, 0, 1}, {2, 4});
  NodeDef n = Node("UnsortedSegmentSum", 3, {{"T", kF}, {"Tindices", DataType::kInt32}});
  ExpectGpuMatchesCpu(n, {data, ids, Tensor::Scalar<int32_t>(10)}, 1e-6, 1e-6);
  NodeDef n64 = Node("UnsortedSegmentSum", 3,
                     {{"T", DataType::kDouble}, {"Tindices", DataType::kInt64}});
  ExpectGpuMatchesCpu(n64,
                      {Random(DataType::kDouble, {6, 3}, -1, 1, 4),
                       Indices<int64_t>({0, 1, 0, 1, 0, 1}, {6}), Tensor::Scalar<int32_t>(2)},
                      1e-12, 1e-12);
  auto bad = test::TryRun(test::Gpu(), n, {data, ids, Tensor::Scalar<int32_t>(5)});
  REQUIRE(!bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("segment_ids[0,3] = 9 is not in [0, 5)"));
}

}  // namespace
}  // namespace fb::gpu
