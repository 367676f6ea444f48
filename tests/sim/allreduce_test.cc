// Allreduce data parallelism (sim/allreduce_model.h, sim/allreduce_program.h): Open MPI's
// algorithm choice, the rounds of each algorithm, and replayed steps on the 4-host star against
// hand-computed times; heterogeneous replicas wait for the slowest.
#include "sim/allreduce_model.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::PlatformPath;
using test::TableCosts;

TEST_CASE("Allreduce algorithm selection follows Open MPI's libnbc and tuned rules", "[sim][allreduce]") {
  AllreduceChoice libnbc;  // in place, as dist-train's MPI_Iallreduce
  CHECK(SelectAllreduce(libnbc, 1 << 20, 4, 8) == AllreduceAlgorithm::kBinomial);
  libnbc.in_place = false;
  CHECK(SelectAllreduce(libnbc, 1 << 20, 4, 8) == AllreduceAlgorithm::kRing);
  CHECK(SelectAllreduce(libnbc, 1 << 20, 4, 3) == AllreduceAlgorithm::kBinomial);  // p < 4
  CHECK(SelectAllreduce(libnbc, 65535, 1, 8) == AllreduceAlgorithm::kBinomial);    // < 64 KiB
  AllreduceChoice tuned;
  REQUIRE(ParseAllreduceAlgorithm("tuned", &tuned).ok());
  CHECK(SelectAllreduce(tuned, 9999, 1, 4) == AllreduceAlgorithm::kRecursiveDoubling);
  CHECK(SelectAllreduce(tuned, 10000, 4, 4) == AllreduceAlgorithm::kRing);
  CHECK(SelectAllreduce(tuned, 12, 4, 4) == AllreduceAlgorithm::kRecursiveDoubling);
  CHECK(SelectAllreduce(tuned, 40000, 10000, 8) == AllreduceAlgorithm::kBinomial);  // count <= p
  AllreduceChoice forced;
  REQUIRE(ParseAllreduceAlgorithm("recursive-doubling", &forced).ok());
  CHECK(SelectAllreduce(forced, 1 << 30, 4, 64) == AllreduceAlgorithm::kRecursiveDoubling);
  Status bad = ParseAllreduceAlgorithm("butterfly", &forced);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.message(), Catch::Contains("--allreduce-algorithm"));
  CHECK_THAT(bad.message(), Catch::Contains("butterfly"));
}

TEST_CASE("Allreduce schedules pair every send with a receive and move the textbook volume", "[sim][allreduce]") {
  for (AllreduceAlgorithm a : {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
                               AllreduceAlgorithm::kBinomial}) {
    for (int p = 2; p <= 9; ++p) {
      INFO(AllreduceAlgorithmName(a) << " p=" << p);
      const int64_t n = 1000 * p + 7;
      // (from, to) -> byte counts in order, as sent and as received.
      std::map<std::pair<int, int>, std::vector<int64_t>> sent, received;
      int64_t ring_bytes = 0;
      for (int r = 0; r < p; ++r)
        for (const AllreduceRound& round : AllreduceSchedule(a, r, p, n)) {
          for (auto [peer, b] : round.sends) {
            sent[{r, peer}].push_back(b);
            if (r == 0) ring_bytes += b;
          }
          for (auto [peer, b] : round.recvs) received[{peer, r}].push_back(b);
        }
      CHECK(sent == received);
      if (a == AllreduceAlgorithm::kRing) {
        CHECK(AllreduceSchedule(a, 0, p, n).size() == static_cast<size_t>(2 * (p - 1)));
        CHECK(std::abs(ring_bytes - 2 * (p - 1) * n / p) <= 2 * (p - 1));
      }
    }
  }
  CHECK(AllreduceSchedule(AllreduceAlgorithm::kRing, 0, 1, 100).empty());
}

// One replica's step: w, a gradient g of 4,000,000 bytes (no compute), w -= lr * g.
const char* kToyModel = R"({"nodes": [
  {"name": "w", "op": "Variable", "attrs": {"shape": {"shape": [1000000]}, "dtype": {"type": "float"}}},
  {"name": "lr", "op": "Const", "attrs": {"value": {"tensor": {"dtype": "float", "shape": [], "values": [0.1]}}, "dtype": {"type": "float"}}},
  {"name": "read", "op": "Identity", "inputs": ["w"], "attrs": {"T": {"type": "float"}}},
  {"name": "g", "op": "Identity", "inputs": ["read"], "attrs": {"T": {"type": "float"}}},
  {"name": "apply", "op": "ApplyGradientDescent", "inputs": ["w", "lr", "g"], "attrs": {"T": {"type": "float"}}}
]})";

// Median step of an allreduce run of `ranks` replicas with `algorithm`, in a child process.
// `eager_limit`: MPI's eager limit (0, the default here: every message in one transfer, the
// algorithm's textbook time; the simulator's own default is Open MPI's 64 KiB).
double AllreduceStep(const std::string& platform, int ranks, const std::string& algorithm,
                     double g_seconds = 0, int64_t* transfers = nullptr,
                     int64_t eager_limit = 0) {
  auto r = test::RunSimInChild([&]() -> StatusOr<SimResult> {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(kToyModel));
    if (!g.ok()) return g.status();
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(platform));
    SimRunOptions o;
    o.workload.replicas = ranks;
    o.workload.mode = SyncMode::kAllreduce;
    o.workload.steps = 2;
    RETURN_IF_ERROR(ParseAllreduceAlgorithm(algorithm, &o.workload.allreduce));
    o.workload.mpi_eager_limit_bytes = eager_limit;
    return sim.Run(**g, TableCosts({{"g", g_seconds}}, {{"w", 4000000}, {"g", 4000000}}), o);
  });
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  if (transfers) *transfers = r->transfers;
  REQUIRE(r->step_times_s.size() == static_cast<size_t>(2 * ranks));
  return r->MedianStepTime();
}

TEST_CASE("Allreduce step on the 4-host star matches the hand-computed ring time", "[sim][allreduce]") {
  // star_4: routes of 2 ms and 100 MB/s (each host's full-duplex link), reduce at 1 GB/s.
  // ring, p ranks, n = 4e6 bytes: 2(p-1) rounds of (2 ms + n/p / 1e8) plus p-1 reductions of
  // n/p / 1e9, i.e. 2(p-1)/p n/B + 2(p-1) alpha + (p-1)/p n gamma.
  const std::string star = PlatformPath("star_4.xml");
  int64_t transfers = 0;
  CHECK(AllreduceStep(star, 4, "ring", 0, &transfers) ==
        Approx(6 * (0.002 + 0.01) + 3 * 0.001).epsilon(1e-6));  // 0.075 s
  CHECK(transfers == 2 * 4 * 6);  // 2 steps x 4 ranks x 2(p-1) messages
  CHECK(AllreduceStep(star, 2, "ring") == Approx(2 * (0.002 + 0.02) + 0.002).epsilon(1e-6));
}

TEST_CASE("Allreduce step on the 4-host star: recursive doubling and binomial by hand", "[sim][allreduce]") {
  const std::string star = PlatformPath("star_4.xml");
  // recursive doubling, p = 2^k: log2(p) rounds of (alpha + n/B + n gamma) = 0.046 s each.
  CHECK(AllreduceStep(star, 4, "recursive-doubling") == Approx(2 * 0.046).epsilon(1e-6));
  CHECK(AllreduceStep(star, 2, "recursive-doubling") == Approx(0.046).epsilon(1e-6));
  // p = 3: rank 0 folds into rank 1 (0.042 + 0.004), ranks 1 and 2 exchange (0.046), rank 1
  // returns the result to rank 0 (0.042): ranks 0 and 1 end at 0.134, rank 2 at 0.092.
  CHECK(AllreduceStep(star, 3, "recursive-doubling") == Approx(0.134).epsilon(1e-6));
  // binomial (libnbc's choice for the runtime's in-place MPI_Iallreduce), p = 2: reduce to
  // rank 0 (0.042 + 0.004), broadcast back (0.042).
  CHECK(AllreduceStep(star, 2, "libnbc") == Approx(0.088).epsilon(1e-6));
  CHECK(AllreduceStep(star, 2, "binomial") == Approx(0.088).epsilon(1e-6));
}

TEST_CASE("MPI messages above the eager limit split into a first part and the rest", "[sim][allreduce]") {
  CHECK(kOpenMpiTcpEagerLimit == 65536);  // Open MPI 4.1's btl_tcp_eager_limit
  CHECK(WorkloadOptions{}.mpi_eager_limit_bytes == kEagerLimitFromPlatform);
  // The limit counts ob1's 56-byte header: 65,480 bytes of payload at most go eagerly.
  MessagePhases m = SplitMessage(4000000, 65536);
  CHECK(m.first == 65480);
  CHECK(m.rest == 4000000 - 65480);
  CHECK(m.rendezvous());
  m = SplitMessage(65480, 65536);  // at the limit: eager, one transfer
  CHECK(m.first == 65480);
  CHECK_FALSE(m.rendezvous());
  m = SplitMessage(65536, 65536);  // a 64 KiB payload: rendezvous
  CHECK(m.rest == 56);
  m = SplitMessage(100, 10);  // a limit below the header's size: 1 byte eagerly
  CHECK(m.first == 1);
  CHECK(m.rest == 99);
  m = SplitMessage(4000000, 0);  // no rendezvous at all
  CHECK(m.first == 4000000);
  CHECK_FALSE(m.rendezvous());
  m = SplitMessage(-5, 65536);
  CHECK(m.first == 0);
  CHECK_FALSE(m.rendezvous());
}

TEST_CASE("Allreduce step with MPI's rendezvous pays one round trip per large message", "[sim][allreduce]") {
  // star_4: 2 ms and 100 MB/s per route, reduce at 1 GB/s; n = 4e6 bytes, eager limit e = 65536.
  // A rendezvous message: its first e bytes (0.002 + e/B), the receiver's acknowledgement
  // (0.002, no payload), the rest (0.002 + (n - e)/B): n/B + 3 x 0.002, one round trip (4 ms)
  // more than one transfer.
  const std::string star = PlatformPath("star_4.xml");
  const int64_t e = 65536;
  // binomial on 2 ranks: reduce to rank 0 (0.046 + 0.004 of reduction), broadcast back (0.046).
  CHECK(AllreduceStep(star, 2, "binomial", 0, nullptr, e) == Approx(0.096).epsilon(1e-6));
  CHECK(AllreduceStep(star, 2, "libnbc", 0, nullptr, e) == Approx(0.096).epsilon(1e-6));
  // ring on 4 ranks: 6 rounds of 1e6-byte messages (0.006 + 0.01 each), 3 reductions of 1e6
  // bytes (0.001 each): 0.099 s instead of the textbook 0.075.
  int64_t transfers = 0;
  CHECK(AllreduceStep(star, 4, "ring", 0, &transfers, e) == Approx(0.099).epsilon(1e-6));
  CHECK(transfers == 2 * 4 * 6);  // a message counts once, however many parts it travels in
  // messages at or below the eager limit go in one transfer: the textbook times.
  // (the limit includes ob1's 56-byte header, SplitMessage).
  CHECK(AllreduceStep(star, 2, "binomial", 0, nullptr, 4000056) == Approx(0.088).epsilon(1e-6));
  CHECK(AllreduceStep(star, 4, "ring", 0, nullptr, 1000056) ==
        Approx(0.075).epsilon(1e-6));
}

// Hosts ps (1 GFLOP/s), fast (`fast_speed`) and slow (0.25 GFLOP/s), a private 100 MB/s, 1 ms
// link per direction between every two.
std::string HeterogeneousPlatform(const std::string& fast_speed) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("fb_hetero_" + std::to_string(getpid()) + fast_speed + ".xml");
  std::ofstream(path) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a_ps" speed="1Gf"><prop id="memory_bandwidth_bytes_per_s" value="1e9"/></host>
    <host id="b_fast" speed=")" + fast_speed + R"("><prop id="memory_bandwidth_bytes_per_s" value="1e9"/></host>
    <host id="c_slow" speed="0.25Gf"><prop id="memory_bandwidth_bytes_per_s" value="1e9"/></host>
    <link id="l1" bandwidth="100MBps" latency="1ms"/>
    <link id="l2" bandwidth="100MBps" latency="1ms"/>
    <link id="l3" bandwidth="100MBps" latency="1ms"/>
    <link id="l4" bandwidth="100MBps" latency="1ms"/>
    <link id="l5" bandwidth="100MBps" latency="1ms"/>
    <link id="l6" bandwidth="100MBps" latency="1ms"/>
    <route src="a_ps" dst="b_fast" symmetrical="NO"><link_ctn id="l1"/></route>
    <route src="b_fast" dst="a_ps" symmetrical="NO"><link_ctn id="l2"/></route>
    <route src="a_ps" dst="c_slow" symmetrical="NO"><link_ctn id="l3"/></route>
    <route src="c_slow" dst="a_ps" symmetrical="NO"><link_ctn id="l4"/></route>
    <route src="b_fast" dst="c_slow" symmetrical="NO"><link_ctn id="l5"/></route>
    <route src="c_slow" dst="b_fast" symmetrical="NO"><link_ctn id="l6"/></route>
  </zone>
</platform>
)";
  return path;
}

TEST_CASE("Heterogeneous replicas: a synchronous step waits for the slowest device", "[sim][allreduce]") {
  const std::string same = HeterogeneousPlatform("1Gf");
  // Allreduce over hosts a_ps and b_fast (both 1 GFLOP/s): g takes 1 s on both, then the ring
  // of 4e6 bytes over private 1 ms links: 2 x (0.001 + 0.02) + 0.002 = 0.044 s.
  CHECK(AllreduceStep(same, 2, "ring", 1.0) == Approx(1.044).epsilon(1e-6));
  std::remove(same.c_str());
  // b_fast at 0.5 GFLOP/s: g takes 2 s there, and rank 0's first message waits for rank 1's
  // receive: both ranks finish at 2.044.
  const std::string half = HeterogeneousPlatform("0.5Gf");
  CHECK(AllreduceStep(half, 2, "ring", 1.0) == Approx(2.044).epsilon(1e-6));
  std::remove(half.c_str());
  const std::string platform = HeterogeneousPlatform("1Gf");
  // Parameter server on a_ps, replicas on b_fast and c_slow (4x slower): g costs 1 s on replica
  // 0's device and 4 s on c_slow. w to both workers 0.001 + 0.04, g on c_slow ends at 4.041, its
  // gradient reaches the ps at 4.082, the sum of 2 gradients 0.004, apply 0.1: 4.186 per step.
  auto sync = test::RunSimInChild([&]() -> StatusOr<SimResult> {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(kToyModel));
    if (!g.ok()) return g.status();
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(platform));
    SimRunOptions o;
    o.workload.replicas = 2;
    o.workload.ps = 1;
    o.workload.steps = 2;
    return sim.Run(**g, TableCosts({{"g", 1.0}, {"apply", 0.1}}, {{"w", 4000000}, {"read", 4000000}, {"g", 4000000}}), o);
  });
  std::remove(platform.c_str());
  INFO(sync.status().ToString());
  REQUIRE(sync.ok());
  REQUIRE(sync->step_times_s.size() == 2);
  for (double t : sync->step_times_s) CHECK(t == Approx(4.186).epsilon(1e-6));
}

TEST_CASE("Allreduce mode refuses parameter servers, concurrent steps and a negative eager limit", "[sim][allreduce]") {
  std::vector<SimDevice> four(4);
  WorkloadOptions w;
  w.mode = SyncMode::kAllreduce;
  w.replicas = 2;
  w.ps = 1;
  auto r = AssignRoles(four, w);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("--ps must be 0"));
  w.ps = 0;
  w.concurrent_steps = 2;
  r = AssignRoles(four, w);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("--concurrent-steps"));
  w.concurrent_steps = 1;
  w.mpi_eager_limit_bytes = -2;
  r = AssignRoles(four, w);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("--mpi-eager-limit"));
  CHECK_THAT(r.status().message(), Catch::Contains("got -2"));
  w.mpi_eager_limit_bytes = 0;
  r = AssignRoles(four, w);
  REQUIRE(r.ok());
  CHECK(r->replica_platform.size() == 2);
  CHECK(r->replica_platform[1] == std::vector<int>{1});
}

}  // namespace
}  // namespace fb::sim
