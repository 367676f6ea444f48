#pragma once
// A small model for the distributed tests, `flowbench dist-train` and the examples in the README:
// linear regression y = x W + b with mean squared error, on a synthetic data set whose rows are a
// deterministic function of (step, row index): x uniform in [-1, 1) (a hash of the indices),
// y = x w_true + b_true, w_true[k] = (k + 1) / features * (-1)^k, b_true = 0.5. Any split of a
// step's rows into shards therefore sees the same examples as one large batch, which is what the
// synchronous-replication tests compare. Variables: "W" [features, 1] (initialized to 0.1) and
// "b" [1] (0).
#include <utility>
#include <vector>

#include "engine/framework/tensor.h"
#include "mpi/data_parallel.h"

namespace fb::mpi {

struct LinearRegression {
  int features = 8;

  ModelFns Fns() const;
  // Rows [begin, end) of step `step`: x [end - begin, features] and y [end - begin, 1], float.
  std::pair<Tensor, Tensor> Batch(int64_t step, int64_t begin, int64_t end) const;
  // {"<prefix>/x", x}, {"<prefix>/y", y} for replica `replica` (ReplicaPrefix).
  std::vector<std::pair<std::string, Tensor>> Feeds(int replica, const std::pair<Tensor, Tensor>& batch) const;
  // Mean squared error of (W, b) on `batch`, computed directly (for checks).
  double Loss(const Tensor& w, const Tensor& b, const std::pair<Tensor, Tensor>& batch) const;
};

}  // namespace fb::mpi
