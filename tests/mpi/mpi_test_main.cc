// Main of the MPI tests: every rank runs the same Catch2 session inside MPI_Init/MPI_Finalize,
// in its own temporary folder. CTest launches it under `mpirun --oversubscribe -np N`.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "mpi/mpi_status.h"
#include "mpi/mpi_transport.h"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "MPI does not provide MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = fb::mpi::WorldRank();
  auto dir = std::filesystem::temp_directory_path() /
             ("flowbench_mpi_" + std::to_string(getppid()) + "_rank" + std::to_string(rank));
  std::filesystem::create_directories(dir);
  std::filesystem::current_path(dir);
  Catch::Session session;
  int rc = session.applyCommandLine(argc, argv);
  if (rc == 0) rc = session.run();
  fb::mpi::MpiTransport::Get()->Shutdown();
  int global = 0;
  MPI_Allreduce(&rc, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  std::filesystem::remove_all(dir);
  return global;
}
