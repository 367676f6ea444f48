// GPU FusedBatchNorm and FusedBatchNormGrad (kernels/cuda/batch_norm_ops.cc) against the CPU
// kernels: training and inference mode, float and double, channel counts below, at and above the
// 32-channel tile, row counts spanning one and many row blocks, data whose mean is far from 0,
// the statistics convention (reserve_space_2 biased, batch_variance Bessel-corrected), empty
// batches and bad inputs with the CPU kernel's messages. Float tolerance rtol 1e-4 / atol 1e-5
// (the GPU sums in double throughout, the CPU in float chunks of 32 rows), double 1e-9 / 1e-11.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/ops/nn_ops_common.h"
#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::ExpectGpuMatchesCpu;
using test::Node;
using test::Random;

constexpr DataType kF = DataType::kFloat;
constexpr DataType kD = DataType::kDouble;

AttrMap BnAttrs(DataType dt, bool training, float epsilon = 1e-3f) {
  return {{"T", dt}, {"is_training", training}, {"epsilon", epsilon}};
}

double Rtol(DataType dt) { return dt == kF ? 1e-4 : 1e-9; }
double Atol(DataType dt) { return dt == kF ? 1e-5 : 1e-11; }

const std::vector<std::vector<int64_t>> kShapes = {
    {2, 5, 7, 16},   // 70 rows, half a channel tile
    {2, 9, 11, 37},  // a partial second tile
    {4, 32, 32, 8},  // 4096 rows: 16 row blocks
    {1, 1, 1, 3},    // one row: no Bessel correction
};

TEST_CASE("GPU FusedBatchNorm in training mode matches the CPU", "[gpu][batch_norm]") {
  for (DataType dt : {kF, kD}) {
    for (const auto& dims : kShapes) {
      INFO(DataTypeString(dt) << " x " << DimsString(dims));
      const int64_t c = dims[3];
      // Data centred at 3 with spread 1: the variance must come out of shifted sums.
      Tensor x = Random(dt, TensorShape(dims), 2, 4, 1);
      Tensor empty(dt, TensorShape({0}));
      Tensor scale = Random(dt, {c}, 0.5, 1.5, 2), offset = Random(dt, {c}, -1, 1, 3);
      ExpectGpuMatchesCpu(Node("FusedBatchNorm", 5, BnAttrs(dt, true)),
                          {x, scale, offset, empty, empty}, Rtol(dt), Atol(dt));
    }
  }
}

TEST_CASE("GPU FusedBatchNorm in inference mode matches the CPU", "[gpu][batch_norm]") {
  for (DataType dt : {kF, kD}) {
    for (const auto& dims : kShapes) {
      INFO(DataTypeString(dt) << " x " << DimsString(dims));
      const int64_t c = dims[3];
      ExpectGpuMatchesCpu(Node("FusedBatchNorm", 5, BnAttrs(dt, false)),
                          {Random(dt, TensorShape(dims), -2, 2, 4), Random(dt, {c}, 0.5, 1.5, 5),
                           Random(dt, {c}, -1, 1, 6), Random(dt, {c}, -0.5, 0.5, 7),
                           Random(dt, {c}, 0.1, 2, 8)},
                          Rtol(dt), Atol(dt));
    }
  }
}

TEST_CASE("GPU FusedBatchNormGrad matches the CPU in both modes", "[gpu][batch_norm]") {
  for (DataType dt : {kF, kD}) {
    for (bool training : {true, false}) {
      for (const auto& dims : kShapes) {
        INFO(DataTypeString(dt) << " training " << training << " x " << DimsString(dims));
        const int64_t c = dims[3];
        Tensor x = Random(dt, TensorShape(dims), 2, 4, 9);
        Tensor scale = Random(dt, {c}, 0.5, 1.5, 10);
        Tensor empty(dt, TensorShape({0}));
        // The reserve spaces of a CPU forward pass, as the gradient graph feeds them.
        auto fwd = test::Run(test::Cpu(), Node("FusedBatchNorm", 5, BnAttrs(dt, true)),
                             {x, scale, Random(dt, {c}, -1, 1, 11), empty, empty});
        ExpectGpuMatchesCpu(Node("FusedBatchNormGrad", 5, BnAttrs(dt, training)),
                            {Random(dt, TensorShape(dims), -1, 1, 12), x, scale, fwd[3], fwd[4]},
                            Rtol(dt), Atol(dt));
      }
    }
  }
}

TEST_CASE("GPU FusedBatchNorm keeps the biased variance and Bessel-corrects batch_variance",
          "[gpu][batch_norm]") {
  // One channel, rows 1, 2, 3, 6: mean 3, biased variance 3.5, unbiased 14 / 3.
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 6}, {1, 2, 2, 1});
  Tensor one = Tensor::FromVector<float>({1}, {1}), zero = Tensor::FromVector<float>({0}, {1});
  Tensor empty(kF, TensorShape({0}));
  auto out = test::Run(test::Gpu(), Node("FusedBatchNorm", 5, BnAttrs(kF, true, 0.0f)),
                       {x, one, zero, empty, empty});
  CHECK(out[1].data<float>()[0] == Approx(3.0));         // batch_mean
  CHECK(out[2].data<float>()[0] == Approx(14.0 / 3.0));  // batch_variance (unbiased)
  CHECK(out[3].data<float>()[0] == Approx(3.0));         // reserve_space_1
  CHECK(out[4].data<float>()[0] == Approx(3.5));         // reserve_space_2 (biased)
  // epsilon 0, which cuDNN would refuse: y = (x - 3) / sqrt(3.5).
  CHECK(out[0].data<float>()[3] == Approx(3.0 / std::sqrt(3.5)));
}

TEST_CASE("GPU FusedBatchNorm of an empty batch gives NaN statistics as the CPU does",
          "[gpu][batch_norm]") {
  Tensor x(kF, TensorShape({0, 3, 3, 4}));
  Tensor empty(kF, TensorShape({0}));
  auto out = test::Run(test::Gpu(), Node("FusedBatchNorm", 5, BnAttrs(kF, true)),
                       {x, Random(kF, {4}), Random(kF, {4}), empty, empty});
  CHECK(out[0].shape() == x.shape());
  for (int i = 1; i < 5; ++i)
    for (int64_t k = 0; k < 4; ++k) CHECK(std::isnan(out[i].data<float>()[k]));
  // Its gradient: zero scale and offset gradients.
  auto grad = test::Run(test::Gpu(), Node("FusedBatchNormGrad", 5, BnAttrs(kF, true)),
                        {x, x, Random(kF, {4}), Random(kF, {4}), Random(kF, {4}, 0.5, 1)});
  CHECK(fb::test::Values<float>(grad[1]) == std::vector<float>(4, 0.0f));
  CHECK(fb::test::Values<float>(grad[2]) == std::vector<float>(4, 0.0f));
}

TEST_CASE("GPU FusedBatchNorm rejects bad inputs with the CPU kernel's messages",
          "[gpu][batch_norm]") {
  Tensor x = Random(kF, {2, 3, 3, 4});
  Tensor c4 = Random(kF, {4}), c3 = Random(kF, {3});
  Tensor empty(kF, TensorShape({0}));
  NodeDef train = Node("FusedBatchNorm", 5, BnAttrs(kF, true));
  auto bad_scale = test::TryRun(test::Gpu(), train, {x, c3, c4, empty, empty});
  REQUIRE(!bad_scale.ok());
  CHECK_THAT(bad_scale.status().message(),
             Catch::Contains("scale must be 1-D with 4 elements (the channels of x), got shape "
                             "[3]"));
  auto bad_x = test::TryRun(test::Gpu(), train, {Random(kF, {6, 4}), c4, c4, empty, empty});
  REQUIRE(!bad_x.ok());
  CHECK_THAT(bad_x.status().message(), Catch::Contains("x must be 4-D NHWC, got shape [6,4]"));
  // Inference needs the mean and variance.
  auto no_mean = test::TryRun(test::Gpu(), Node("FusedBatchNorm", 5, BnAttrs(kF, false)),
                              {x, c4, c4, empty, c4});
  REQUIRE(!no_mean.ok());
  CHECK_THAT(no_mean.status().message(), Catch::Contains("mean must be 1-D with 4 elements"));
  auto bad_grad = test::TryRun(test::Gpu(), Node("FusedBatchNormGrad", 5, BnAttrs(kF, true)),
                               {Random(kF, {2, 3, 3, 5}), x, c4, c4, c4});
  REQUIRE(!bad_grad.ok());
  CHECK_THAT(bad_grad.status().message(),
             Catch::Contains("y_backprop and x must have the same shape, got [2,3,3,5] and "
                             "[2,3,3,4]"));
  auto negative_eps =
      test::TryRun(test::Gpu(), Node("FusedBatchNorm", 5, BnAttrs(kF, true, -1.0f)),
                   {x, c4, c4, empty, empty});
  REQUIRE(!negative_eps.ok());
  CHECK_THAT(negative_eps.status().message(), Catch::Contains("epsilon must be >= 0, got -1"));
}

}  // namespace
}  // namespace fb::gpu
