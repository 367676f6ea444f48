#include "mpi/supervisor.h"

#include <catch2/catch.hpp>

#include "mpi/mpi_status.h"

namespace fb::mpi {
namespace {

TEST_CASE("Supervise relaunches a failed command with the resume flag", "[mpi][supervisor]") {
  if (WorldRank() != 0) return;  // plain processes: once is enough
  // Fails unless its first argument is --resume, as a job that crashed before its checkpoint.
  auto restarts = Supervise({"sh", "-c", "test \"$0\" = --resume"}, {});
  REQUIRE(restarts.ok());
  CHECK(*restarts == 1);
  CHECK(*Supervise({"true"}, {}) == 0);
  SupervisorOptions o;
  o.max_restarts = 2;
  auto failed = Supervise({"sh", "-c", "exit 3"}, o);
  CHECK(failed.status().code() == Code::kAborted);
  CHECK_THAT(failed.status().message(), Catch::Contains("failed 3 times, last with exit status 3"));
  CHECK_THAT(Supervise({"/nonexistent/flowbench"}, o).status().message(), Catch::Contains("cannot run"));
  CHECK_THAT(Supervise({}, o).status().message(), Catch::Contains("no command"));
}

}  // namespace
}  // namespace fb::mpi
