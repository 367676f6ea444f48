// The GPU device itself: registration, host <-> GPU copies through pinned staging, the BFC pool's
// stats, out-of-memory as a Status naming the node and the bytes, and a Session that places
// nodes on the GPU (Send/Recv between host and GPU memory, whitepaper 3.2.2).
#include <catch2/catch.hpp>

#include <cstdlib>

#include "engine/runtime/session.h"
#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::Gpu;

TEST_CASE("GPU devices register through DeviceFactory when a GPU is present", "[gpu]") {
  auto mgr = DeviceMgr::CreateLocal(DeviceOptions());
  REQUIRE(mgr.ok());
  auto gpu = (*mgr)->LookupDevice("/device:GPU:0");
  INFO(gpu.status().ToString());
  REQUIRE(gpu.ok());
  CHECK((*gpu)->device_type() == DEVICE_GPU);
  CHECK((*gpu)->attributes().memory_limit_bytes > 0);
  setenv("FLOWBENCH_NUM_GPUS", "0", 1);
  auto cpu_only = DeviceMgr::CreateLocal(DeviceOptions());
  unsetenv("FLOWBENCH_NUM_GPUS");
  REQUIRE(cpu_only.ok());
  CHECK(!(*cpu_only)->LookupDevice("/device:GPU:0").ok());
}

TEST_CASE("CopyFromHost and CopyToHost round-trip through GPU memory", "[gpu]") {
  Tensor host = test::Random(DataType::kFloat, {1000, 37});
  auto on_gpu = Gpu()->CopyFromHost(host);
  REQUIRE(on_gpu.ok());
  CHECK(!on_gpu->allocator()->IsHostMemory());
  auto back = Gpu()->CopyToHost(*on_gpu);
  REQUIRE(back.ok());
  CHECK(back->allocator()->IsHostMemory());
  CHECK(TensorsEqual(*back, host));
  Tensor s(DataType::kString, TensorShape{1});
  CHECK_THAT(Gpu()->CopyFromHost(s).status().message(), Catch::Contains("string tensors"));
}

TEST_CASE("The GPU BFC pool counts bytes in use and the peak", "[gpu]") {
  BfcAllocator* a = Gpu()->bfc_allocator();
  const int64_t before = a->GetStats().bytes_in_use;
  a->ResetPeak();
  {
    auto t = AllocateTensor(DataType::kFloat, {1 << 20}, a);
    REQUIRE(t.ok());
    CHECK(a->GetStats().bytes_in_use == before + (4 << 20));
  }
  CHECK(a->GetStats().bytes_in_use == before);
  CHECK(a->GetStats().peak_bytes_in_use >= before + (4 << 20));
}

TEST_CASE("GPU out of memory is ResourceExhausted naming the node and the bytes", "[gpu]") {
  // [2^20, 1] x [1, 2^20] floats: a 4 TiB product.
  NodeDef n = test::Node("MatMul", 2, {{"T", DataType::kFloat}});
  auto out = test::TryRun(Gpu(), n,
                          {test::Random(DataType::kFloat, {1 << 20, 1}),
                           test::Random(DataType::kFloat, {1, 1 << 20})});
  REQUIRE(!out.ok());
  CHECK(out.status().code() == Code::kResourceExhausted);
  CHECK_THAT(out.status().message(), Catch::Contains("node 'test_MatMul'") &&
                                         Catch::Contains("4398046511104 bytes") &&
                                         Catch::Contains("gpu_bfc_0"));
  // The device still works afterwards.
  test::ExpectGpuMatchesCpu(n, {test::Random(DataType::kFloat, {4, 3}),
                                test::Random(DataType::kFloat, {3, 5})}, 1e-5, 1e-6);
}

TEST_CASE("A Session runs nodes placed on the GPU and fetches to the host", "[gpu]") {
  GraphDef g = fb::test::ParseGraph(R"({"nodes": [
    {"name": "a", "op": "Placeholder", "attrs": {"dtype": {"type": "float"}}},
    {"name": "b", "op": "Placeholder", "attrs": {"dtype": {"type": "float"}}},
    {"name": "mm", "op": "MatMul", "inputs": ["a", "b"], "device": "/device:GPU:0",
     "attrs": {"T": {"type": "float"}}},
    {"name": "r", "op": "Relu", "inputs": ["mm"], "device": "/device:GPU:0",
     "attrs": {"T": {"type": "float"}}},
    {"name": "s", "op": "Neg", "inputs": ["r"], "device": "/device:CPU:0",
     "attrs": {"T": {"type": "float"}}}]})");
  auto session = fb::test::MakeSession(g);
  Tensor a = Tensor::FromVector<float>({1, -2, 3, 4}, {2, 2});
  Tensor b = Tensor::FromVector<float>({1, 0, 0, 1}, {2, 2});
  auto out = fb::test::RunOk(session.get(), {{"a", a}, {"b", b}}, {"r", "s"});
  CHECK(fb::test::Values<float>(out[0]) == std::vector<float>{1, 0, 3, 4});
  CHECK(fb::test::Values<float>(out[1]) == std::vector<float>{-1, 0, -3, -4});
}

}  // namespace
}  // namespace fb::gpu
