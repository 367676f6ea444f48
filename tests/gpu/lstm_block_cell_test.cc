// GPU LSTMBlockCell and LSTMBlockCellGrad (kernels/cuda/lstm_ops.cc) against the CPU kernels:
// float and double, with and without peepholes and the cell clip, input width different from the
// hidden width (a projected LSTM), batch and cell counts that leave partial blocks, an empty
// batch, and a bad shape with the CPU kernel's message. Tolerance rtol 1e-4 / atol 1e-5 in float
// (cuBLAS sums in another order; TF32 is off in the tests), 1e-9 / 1e-11 in double.
#include <catch2/catch.hpp>

#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

constexpr DataType kF = DataType::kFloat, kD = DataType::kDouble;
using test::Random;

struct Sizes {
  int64_t batch, input, hidden, cells;
};
const Sizes kSizes[] = {{3, 5, 4, 7}, {64, 512, 512, 512}, {0, 3, 2, 2}};

// x, cs_prev, h_prev, w, wci, wcf, wco, b.
std::vector<Tensor> CellInputs(DataType dt, const Sizes& s) {
  const int64_t B = s.batch, C = s.cells;
  return {
      Random(dt, {B, s.input}, -1, 1, 1),  Random(dt, {B, C}, -2, 2, 2),
      Random(dt, {B, s.hidden}, -1, 1, 3), Random(dt, {s.input + s.hidden, 4 * C}, -0.3, 0.3, 4),
      Random(dt, {C}, -0.5, 0.5, 5),       Random(dt, {C}, -0.5, 0.5, 6),
      Random(dt, {C}, -0.5, 0.5, 7),       Random(dt, {4 * C}, -0.5, 0.5, 8)};
}

double Rtol(DataType dt) { return dt == kF ? 1e-4 : 1e-9; }
double Atol(DataType dt) { return dt == kF ? 1e-5 : 1e-11; }

TEST_CASE("GPU LSTMBlockCell matches the CPU", "[gpu][lstm]") {
  for (DataType dt : {kF, kD}) {
    for (const Sizes& s : kSizes) {
      for (bool peephole : {false, true}) {
        INFO(DataTypeString(dt) << " B " << s.batch << " C " << s.cells << " peephole "
                                << peephole);
        AttrMap attrs = {{"T", dt},
                         {"use_peephole", peephole},
                         {"cell_clip", peephole ? 1.0f : -1.0f},
                         {"forget_bias", 0.75f}};
        test::ExpectGpuMatchesCpu(test::Node("LSTMBlockCell", 8, attrs), CellInputs(dt, s),
                                  Rtol(dt), Atol(dt));
      }
    }
  }
}

TEST_CASE("GPU LSTMBlockCellGrad matches the CPU", "[gpu][lstm]") {
  for (DataType dt : {kF, kD}) {
    for (const Sizes& s : kSizes) {
      for (bool peephole : {false, true}) {
        INFO(DataTypeString(dt) << " B " << s.batch << " C " << s.cells << " peephole "
                                << peephole);
        std::vector<Tensor> in = CellInputs(dt, s);
        // The forward's outputs, from the CPU kernel, then the gradients of cs and h.
        std::vector<Tensor> fwd =
            test::Run(test::Cpu(),
                      test::Node("LSTMBlockCell", 8, {{"T", dt}, {"use_peephole", peephole}}), in);
        in.insert(in.end(), fwd.begin(), fwd.begin() + 6);
        in.push_back(Random(dt, {s.batch, s.cells}, -1, 1, 9));
        in.push_back(Random(dt, {s.batch, s.cells}, -1, 1, 10));
        test::ExpectGpuMatchesCpu(
            test::Node("LSTMBlockCellGrad", 16, {{"T", dt}, {"use_peephole", peephole}}), in,
            Rtol(dt), Atol(dt) * (s.batch > 8 ? 10 : 1));
      }
    }
  }
}

TEST_CASE("GPU LSTMBlockCell names a bad shape as the CPU does", "[gpu][lstm][errors]") {
  std::vector<Tensor> in = CellInputs(kF, kSizes[0]);
  in[3] = Random(kF, {8, 28});  // w needs 5 + 4 rows
  NodeDef node = test::Node("LSTMBlockCell", 8, {{"T", kF}});
  auto gpu = test::TryRun(test::Gpu(), node, in);
  auto cpu = test::TryRun(test::Cpu(), node, in);
  REQUIRE_FALSE(gpu.ok());
  REQUIRE_FALSE(cpu.ok());
  CHECK_THAT(gpu.status().message(), Catch::Contains("w must have shape [9,28], got [8,28]"));
  CHECK(gpu.status().message() == cpu.status().message());
}

}  // namespace
}  // namespace fb::gpu
