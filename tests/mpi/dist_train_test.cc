// RunDistTrain's checks of the cluster against the mode, made on every rank alike before any
// rank waits for another (an error on rank 0 alone left the workers serving).
#include "mpi/dist_train.h"

#include <catch2/catch.hpp>

#include "mpi/mpi_status.h"

namespace fb::mpi {
namespace {

TEST_CASE("dist-train refuses as many backups as workers, naming both", "[mpi]") {
  if (WorldSize() < 2) return;  // a ps and a worker
  DistTrainOptions o;
  o.mode = "backup";
  o.steps = 1;
  o.backups = WorldSize() - 1;  // every worker a backup: none left to apply
  Status s = RunDistTrain(o);
  // Was "backup workers: 0 gradients to apply of 1 replicas", from rank 0 only.
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("--backups " + std::to_string(WorldSize() - 1) +
                                          " needs more workers than backups") &&
                              Catch::Contains("has " + std::to_string(WorldSize() - 1)));
}

}  // namespace
}  // namespace fb::mpi
