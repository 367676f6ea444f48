// Point-to-point bandwidth of flowbench remote Send/Recv (MpiRendezvous over MpiTransport) next to
// plain MPI_Isend/MPI_Irecv, in the same run, for 4 B to 256 MiB (issue 5, whitepaper 3.3).
// Run: mpirun -np 2 build/flowbench-mpi-bench [--min-bytes N] [--max-bytes N] [--rounds R]
//        [--iters I]   (messages per size and loop; default by size, see ItersFor) [--us]
// --us: the table gives microseconds per message (loop time / iters) instead of MB/s; with
// --iters 1 a flowbench loop is a ping-pong (one message and the acknowledgement, both through
// the transport), so (time - 2 x one-way link latency) / 2 is flowbench's fixed cost per message
// (the simulator's message_overhead_ns, sim/message_cost.h).
// Rank 0 sends `iters` messages of each size to rank 1, which acknowledges the last one;
// bandwidth = iters * bytes / time; the three loops alternate for R rounds (default 3) and each
// reports its median round, so that drifts of a shared machine hit all three alike. Prints a table and the flowbench/MPI ratios per size: against
// the classic loop receiving every message into one buffer, and against plain MPI receiving each
// message into its own buffer (what flowbench does: every arrival is a tensor of its own).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/mpi_rendezvous.h"
#include "mpi/mpi_status.h"

namespace fb::mpi {
namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int ItersFor(int64_t bytes) {
  if (bytes <= 64 * 1024) return 2000;
  if (bytes <= (4 << 20)) return 200;
  return std::max<int64_t>(4, (1ll << 30) / bytes);
}

// On a duplicate of MPI_COMM_WORLD, so its tags never meet the transport's payload tags.
// `own_buffers`: the receiver posts each message into its own buffer (buf holds iters * bytes),
// as an application keeping what it receives must, and as the MPI standard requires of pending
// receives; otherwise every receive targets the same buffer (the classic bandwidth loop, which
// stays in cache and overlaps pending receives' buffers).
double RawMpi(MPI_Comm comm, int64_t bytes, int iters, std::vector<char>* buf, bool own_buffers) {
  int rank = WorldRank();
  MPI_Barrier(comm);
  double t0 = Now();
  std::vector<MPI_Request> reqs(iters);
  for (int i = 0; i < iters; ++i) {
    char* recv = buf->data() + (own_buffers ? static_cast<int64_t>(i) * bytes : 0);
    if (rank == 0) MPI_Isend(buf->data(), static_cast<int>(bytes), MPI_BYTE, 1, 100, comm, &reqs[i]);
    else MPI_Irecv(recv, static_cast<int>(bytes), MPI_BYTE, 0, 100, comm, &reqs[i]);
  }
  MPI_Waitall(iters, reqs.data(), MPI_STATUSES_IGNORE);
  char ack = 0;
  if (rank == 1) MPI_Send(&ack, 1, MPI_BYTE, 0, 101, comm);
  else MPI_Recv(&ack, 1, MPI_BYTE, 1, 101, comm, MPI_STATUS_IGNORE);
  return Now() - t0;
}

double Flowbench(int64_t bytes, int iters, int64_t* step, const ClusterSpec& cluster) {
  int rank = WorldRank();
  Tensor t(DataType::kUInt8, TensorShape{bytes});
  std::memset(t.raw_data(), 1, bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = Now();
  MpiRendezvous rdv(cluster, rank, ++*step);
  std::mutex mu;
  std::condition_variable cv;
  int received = 0;
  for (int i = 0; i < iters; ++i) {
    Rendezvous::ParsedKey key{cluster.DeviceName(0), cluster.DeviceName(1), "m", {0, i}};
    if (rank == 0) {
      (void)rdv.Send(key, t, false);
    } else {
      rdv.RecvAsync(key, [&](const Status&, const Tensor&, bool) {
        std::lock_guard<std::mutex> l(mu);
        ++received;
        cv.notify_all();
      });
    }
  }
  // The acknowledgement travels through the transport too: a thread blocked in MPI_Recv would
  // contend with the progress thread inside Open MPI's progress engine.
  Rendezvous::ParsedKey ack{cluster.DeviceName(1), cluster.DeviceName(0), "ack", {}};
  if (rank == 1) {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return received == iters; });
    (void)rdv.Send(ack, Tensor::Scalar<int32_t>(1), false);
  } else {
    rdv.RecvAsync(ack, [&](const Status&, const Tensor&, bool) {
      std::lock_guard<std::mutex> l(mu);
      received = iters;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return received == iters; });
  }
  return Now() - t0;
}

struct Flags {
  int64_t min_bytes = 4, max_bytes = 256ll << 20;
  int rounds = 3;
  int fixed_iters = 0;  // --iters: the same count for every size (0: ItersFor)
  bool us = false;      // --us: microseconds per message instead of MB/s
};

// The flags (CLI11), checked before MPI starts: exit code 2 and a message naming the flag on bad
// input (a size that does not parse, --min-bytes 0 which would never grow, min above max).
int ParseFlags(int argc, char** argv, Flags* f) {
  CLI::App app{"flowbench-mpi-bench: flowbench Send/Recv bandwidth next to raw MPI (2 ranks)"};
  app.add_option("--min-bytes", f->min_bytes, "Smallest message, bytes (sizes grow x4)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app.add_option("--max-bytes", f->max_bytes, "Largest message, bytes")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  app.add_option("--rounds", f->rounds, "Alternating rounds per size (the median is reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--iters", f->fixed_iters, "Messages per size and loop (default: by size)")
      ->check(CLI::Range(1, 10000000));
  app.add_flag("--us", f->us, "Microseconds per message instead of MB/s");
  try {
    app.parse(argc, argv);
    if (f->min_bytes > f->max_bytes)
      throw CLI::ValidationError("--min-bytes", std::to_string(f->min_bytes) +
                                                    " is above --max-bytes " +
                                                    std::to_string(f->max_bytes));
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? -1 : 2;  // -1: --help, printed
  }
  return 0;
}

int Main(const Flags& f) {
  const int64_t min_bytes = f.min_bytes, max_bytes = f.max_bytes;
  const int rounds = f.rounds, fixed_iters = f.fixed_iters;
  const bool us = f.us;
  if (WorldSize() != 2) {
    if (WorldRank() == 0) std::fprintf(stderr, "flowbench-mpi-bench needs exactly 2 ranks\n");
    return 1;
  }
  ClusterSpec cluster = ClusterSpec::AllWorkers(2);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::vector<char> buf(max_bytes);
  int64_t step = 0;
  if (WorldRank() == 0)
    std::printf("%12s %8s %14s %14s %14s %8s %8s\n", "bytes", "iters",
                us ? "mpi_us" : "mpi_MB/s", us ? "mpi_own_us" : "mpi_own_MB/s",
                us ? "flowbench_us" : "flowbench_MB/s", "ratio", "ratio_own");
  for (int64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    int iters = fixed_iters > 0 ? fixed_iters : ItersFor(bytes);
    // Warm-ups: MPI's buffers and connections; flowbench's receive buffer pool (steady state of a
    // training loop, where every step receives tensors of the same sizes).
    RawMpi(comm, bytes, std::min(iters, 64), &buf, false);
    Flowbench(bytes, std::min(iters, 64), &step, cluster);
    buf.resize(std::max<size_t>(buf.size(), static_cast<size_t>(bytes) * iters), 1);  // touched
    RawMpi(comm, bytes, std::min(iters, 64), &buf, true);
    std::vector<double> raws, owns, ourss;
    for (int r = 0; r < rounds; ++r) {
      raws.push_back(RawMpi(comm, bytes, iters, &buf, false));
      owns.push_back(RawMpi(comm, bytes, iters, &buf, true));
      ourss.push_back(Flowbench(bytes, iters, &step, cluster));
    }
    double raw = Median(raws), own = Median(owns), ours = Median(ourss);
    if (WorldRank() == 0) {
      double mb = static_cast<double>(bytes) * iters / 1e6;
      auto value = [&](double s) { return us ? s / iters * 1e6 : mb / s; };
      std::printf("%12lld %8d %14.1f %14.1f %14.1f %8.2f %8.2f\n", static_cast<long long>(bytes),
                  iters, value(raw), value(own), value(ours), raw / ours, own / ours);
      std::fflush(stdout);
    }
  }
  MPI_Comm_free(&comm);
  return 0;
}

}  // namespace
}  // namespace fb::mpi

int main(int argc, char** argv) {
  fb::mpi::Flags f;
  if (int rc = fb::mpi::ParseFlags(argc, argv, &f); rc != 0) return rc < 0 ? 0 : rc;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rc = fb::mpi::Main(f);
  fb::mpi::MpiTransport::Get()->Shutdown();
  MPI_Finalize();
  return rc;
}
