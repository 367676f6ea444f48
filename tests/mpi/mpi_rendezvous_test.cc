#include "mpi/mpi_rendezvous.h"

#include <condition_variable>

#include <catch2/catch.hpp>

#include "mpi/mpi_status.h"

namespace fb::mpi {
namespace {

// Receives key on this rank and waits for it.
Status RecvBlocking(Rendezvous* r, const Rendezvous::ParsedKey& key, Tensor* out, bool* dead) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status result;
  r->RecvAsync(key, [&](const Status& s, const Tensor& v, bool is_dead) {
    std::lock_guard<std::mutex> l(mu);
    result = s, *out = v, *dead = is_dead, done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, [&] { return done; });
  return result;
}

Tensor Pattern(DataType dt, int64_t n) {
  Tensor t(dt, TensorShape{n});
  VisitDataType(dt, [&](auto zero) {
    using T = decltype(zero);
    T* d = t.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, std::string>) d[i] = std::string(i % 7, 'a' + i % 26);
      else if constexpr (std::is_same_v<T, bool>) d[i] = i % 3 == 0;
      else if constexpr (std::is_same_v<T, complex64>) d[i] = complex64(i % 100, -(i % 13));
      else d[i] = T(static_cast<float>(i % 100));
    }
    return 0;
  });
  return t;
}

TEST_CASE("Remote Send/Recv carries every dtype between rank 0 and every other rank", "[mpi]") {
  ClusterSpec cluster = ClusterSpec::AllWorkers(WorldSize());
  int rank = WorldRank();
  int64_t step = 100;
  for (DataType dt : AllDataTypes()) {
    MpiRendezvous rdv(cluster, rank, ++step);
    for (int peer = 1; peer < WorldSize(); ++peer) {
      Rendezvous::ParsedKey key{cluster.DeviceName(0), cluster.DeviceName(peer),
                                std::string("t_") + DataTypeString(dt), {}};
      Tensor expected = Pattern(dt, 1000 + peer);
      if (rank == 0) {
        REQUIRE(rdv.Send(key, expected, false).ok());
      } else if (rank == peer) {
        Tensor got;
        bool dead = true;
        REQUIRE(RecvBlocking(&rdv, key, &got, &dead).ok());
        CHECK_FALSE(dead);
        INFO(DataTypeString(dt));
        CHECK(TensorsEqual(got, expected));
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST_CASE("Remote Send/Recv handles sizes from 0 bytes to 64 MiB, chunked", "[mpi]") {
  ClusterSpec cluster = ClusterSpec::AllWorkers(WorldSize());
  int rank = WorldRank();
  int last = WorldSize() - 1;
  MpiTransport::Get()->set_chunk_bytes(4 << 20);  // force several chunks for the large tensors
  int64_t step = 1000;
  for (int64_t bytes : {0ll, 4ll, 4096ll, 1ll << 20, 64ll << 20}) {
    MpiRendezvous rdv(cluster, rank, ++step);
    Rendezvous::ParsedKey key{cluster.DeviceName(last), cluster.DeviceName(0), "big", {}};
    Tensor expected = Pattern(DataType::kUInt8, bytes);
    if (rank == last) REQUIRE(rdv.Send(key, expected, false).ok());
    if (rank == 0) {
      Tensor got;
      bool dead = true;
      REQUIRE(RecvBlocking(&rdv, key, &got, &dead).ok());
      CHECK(got.NumElements() == bytes);
      CHECK(TensorsEqual(got, expected));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MpiTransport::Get()->set_chunk_bytes(256 << 20);  // the default
}

TEST_CASE("Dead values and unknown destinations", "[mpi]") {
  ClusterSpec cluster = ClusterSpec::AllWorkers(WorldSize());
  int rank = WorldRank();
  MpiRendezvous rdv(cluster, rank, 5000);
  Rendezvous::ParsedKey key{cluster.DeviceName(0), cluster.DeviceName(1), "dead", {}};
  if (rank == 0) REQUIRE(rdv.Send(key, Tensor(), true).ok());
  if (rank == 1) {
    Tensor got;
    bool dead = false;
    REQUIRE(RecvBlocking(&rdv, key, &got, &dead).ok());
    CHECK(dead);
  }
  Rendezvous::ParsedKey bad{cluster.DeviceName(0), "/job:ghost/replica:0/task:9/device:CPU:0", "x", {}};
  Status s = rdv.Send(bad, Tensor::Scalar<float>(1.f), false);
  CHECK_THAT(s.message(), Catch::Contains("no rank of cluster"));
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("ClusterSpec maps ranks to tasks and rejects bad specs", "[mpi][cluster]") {
  auto c = ClusterSpec::Parse("ps=1,worker=3");
  REQUIRE(c.ok());
  CHECK(c->TaskForRank(0).job == "ps");
  CHECK(c->TaskForRank(3).task == 2);
  CHECK(c->RankForDevice("/job:worker/replica:0/task:1/device:CPU:0") == 2);
  CHECK(c->CheckWorldSize(3).message().find("has 4 tasks but mpirun started 3 ranks") != std::string::npos);
  CHECK_THAT(ClusterSpec::Parse("ps=x").status().message(), Catch::Contains("not a number"));
  CHECK_THAT(ClusterSpec::Parse("ps=1,ps=2").status().message(), Catch::Contains("twice"));
}

}  // namespace
}  // namespace fb::mpi
