// What a waiting MPI rank costs the ranks that compute beside it on shared cores
// (docs/simulator.md, "Shared cores: waiting ranks"). The first --computing ranks run --chunks
// chunks of a fixed floating-point loop, timing each; the other ranks wait for a message from
// rank 0, sent when the computing ranks are done, in one of three ways (--wait):
//   sleep   MPI_Iprobe every 1 ms with nanosleep in between (a waiter that takes no CPU),
//   mpi     a blocking MPI_Recv (Open MPI's progress loop: sched_yield between passes when
//           the node is oversubscribed, mpi_yield_when_idle),
//   yield   MPI_Iprobe in a loop with sched_yield every 10 us without progress, as
//           flowbench's progress thread polls while a step is in flight
//           (mpi/mpi_transport_progress.cc, Idle).
// Prints the median chunk time of the computing ranks, and each waiting rank's CPU (its
// threads' scheduler runtime over the wall time of its wait): compare --wait mpi or yield
// with --wait sleep at the same --computing on the same machine.
//
//   mpirun --oversubscribe -np 4 build/flowbench-mpi-wait-cpu --computing 2 --wait mpi
#include <mpi.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// The process's CPU time, every thread: CLOCK_PROCESS_CPUTIME_ID is the scheduler's exact
// runtime, where getrusage's tick-sampled times miss a thread that runs microseconds between
// yields (it read ~0 for a rank polling with sched_yield).
double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A chunk of dependent multiply-adds (about 2 ms on one core of the development machine).
double Chunk(long iters) {
  volatile double x = 1.0;
  double a = x;
  for (long i = 0; i < iters; ++i) a = a * 0.999999 + 1e-7;
  x = a;
  return x;
}

void Wait(const std::string& how) {
  int flag = 0;
  MPI_Status st;
  if (how == "mpi") {
    MPI_Recv(nullptr, 0, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st);
    return;
  }
  auto last_yield = Clock::now();
  while (!flag) {
    MPI_Iprobe(0, 7, MPI_COMM_WORLD, &flag, &st);
    if (flag) break;
    if (how == "sleep") {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } else if (Clock::now() - last_yield >= std::chrono::microseconds(10)) {
      sched_yield();
      last_yield = Clock::now();
    }
  }
  MPI_Recv(nullptr, 0, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int computing = 2, chunks = 1000;
  long iters = 2000000;
  std::string wait = "mpi";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--computing") computing = std::atoi(argv[i + 1]);
    else if (flag == "--chunks") chunks = std::atoi(argv[i + 1]);
    else if (flag == "--iters") iters = std::atol(argv[i + 1]);
    else if (flag == "--wait") wait = argv[i + 1];
  }
  if (computing < 1 || computing > size || chunks < 1 || iters < 1 ||
      (wait != "mpi" && wait != "sleep" && wait != "yield")) {
    if (rank == 0)
      std::fprintf(stderr, "wait_cpu_bench: expected --computing in [1, %d], --chunks >= 1, "
                   "--iters >= 1, --wait mpi|sleep|yield; got %d, %d, %ld, '%s'\n",
                   size, computing, chunks, iters, wait.c_str());
    MPI_Finalize();
    return 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = Clock::now();
  const double cpu0 = CpuSeconds();
  double median_chunk_s = 0;
  if (rank < computing) {
    std::vector<double> t(chunks);
    for (int c = 0; c < chunks; ++c) {
      const auto a = Clock::now();
      Chunk(iters);
      t[c] = Seconds(Clock::now() - a);
    }
    std::nth_element(t.begin(), t.begin() + chunks / 2, t.end());
    median_chunk_s = t[chunks / 2];
  }
  if (rank == 0) {
    // Wait for the other computing ranks, then release the waiters.
    for (int r = 1; r < computing; ++r)
      MPI_Recv(nullptr, 0, MPI_BYTE, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int r = computing; r < size; ++r) MPI_Send(nullptr, 0, MPI_BYTE, r, 7, MPI_COMM_WORLD);
  } else if (rank < computing) {
    MPI_Send(nullptr, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
  } else {
    Wait(wait);
  }
  const double wall = Seconds(Clock::now() - start);
  const double cores = (CpuSeconds() - cpu0) / wall;
  std::vector<double> all(2 * size);
  double mine[2] = {median_chunk_s, cores};
  MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("ranks %d computing %d wait %s\n", size, computing, wait.c_str());
    for (int r = 0; r < size; ++r)
      std::printf("rank %d %s: %s%.3f ms, cores taken %.3f\n", r,
                  r < computing ? "computing" : "waiting",
                  r < computing ? "median chunk " : "no chunks ", 1e3 * all[2 * r],
                  all[2 * r + 1]);
  }
  MPI_Finalize();
  return 0;
}
