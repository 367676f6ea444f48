#pragma once
// Helpers of the MPI tests that drive a Master from rank 0 (tests/mpi/*_test.cc).
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "engine/client/scope.h"
#include "mpi/master.h"

namespace fb::mpi {

// A master of `cluster` running `root`'s graph, after the target `init` (the Variables'
// initializers) has run. Fails the test case on any error.
inline std::unique_ptr<Master> StartTestMaster(const ClusterSpec& cluster, const Scope& root,
                                               const std::string& init) {
  REQUIRE(root.ok());
  auto master = Master::Create(cluster);
  REQUIRE(master.ok());
  REQUIRE((*master)->Extend(root.ToGraphDef()).ok());
  std::vector<Tensor> out;
  REQUIRE((*master)->Run({}, {}, {init}, &out).ok());
  return std::move(*master);
}

}  // namespace fb::mpi
