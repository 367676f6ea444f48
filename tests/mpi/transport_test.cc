// Caller-driven progress (MpiTransport::DriveUntil, DrivingScope): a thread that waits for
// messages runs the progress engine itself, so control handlers run on it and the progress
// thread stays idle; deadlines and Wake() end the wait. Every rank runs each TEST_CASE.
#include "mpi/mpi_transport.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "mpi/mpi_status.h"

namespace fb::mpi {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kHello[] = "transport-test-hello";

TEST_CASE("DriveUntil handles messages on the calling thread", "[mpi][transport]") {
  MpiTransport* t = MpiTransport::Get();
  if (WorldRank() != 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    t->SendControl(0, kHello);
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  std::mutex mu;
  std::set<int> senders;
  std::set<std::thread::id> handled_on;
  t->SetControlHandler([&](int src, const std::string& bytes) {
    if (bytes != kHello) return;  // late messages of earlier tests
    std::lock_guard<std::mutex> l(mu);
    senders.insert(src);
    handled_on.insert(std::this_thread::get_id());
  });
  {
    MpiTransport::DrivingScope driving(t);
    // The progress thread finishes the pass it may be in, then leaves progress to this thread.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    MPI_Barrier(MPI_COMM_WORLD);
    bool all = t->DriveUntil([&] {
      std::lock_guard<std::mutex> l(mu);
      return static_cast<int>(senders.size()) == WorldSize() - 1;
    }, Clock::now() + std::chrono::seconds(60));
    CHECK(all);
  }
  t->SetControlHandler(nullptr);
  CHECK(handled_on == std::set<std::thread::id>{std::this_thread::get_id()});
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("DriveUntil returns false at its deadline and early on Wake", "[mpi][transport]") {
  MpiTransport* t = MpiTransport::Get();
  auto start = Clock::now();
  CHECK_FALSE(t->DriveUntil([] { return false; }, start + std::chrono::milliseconds(20)));
  CHECK(Clock::now() - start >= std::chrono::milliseconds(20));

  std::atomic<bool> flag{false};
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    flag = true;
    t->Wake();
  });
  CHECK(t->DriveUntil([&] { return flag.load(); }, Clock::now() + std::chrono::seconds(60)));
  setter.join();
}

TEST_CASE("Flush starts posted messages on the calling thread while it holds a DrivingScope",
          "[mpi][transport]") {
  // Inside a DrivingScope the progress thread leaves posted work to this thread; here this thread
  // then waits in plain MPI calls, so the messages reach the workers only if Flush started them.
  constexpr char kProbe[] = "transport-test-flush";
  MpiTransport* t = MpiTransport::Get();
  MPI_Comm acks;
  MPI_Comm_dup(MPI_COMM_WORLD, &acks);
  if (WorldRank() != 0) {
    std::atomic<bool> got{false};
    t->SetControlHandler([&](int src, const std::string& bytes) {
      if (bytes != kProbe || got.exchange(true)) return;
      static int one = 1;
      MPI_Request r;  // a handler must not wait: the acknowledgement goes out nonblocking
      MPI_Isend(&one, 1, MPI_INT, src, 0, acks, &r);
      MPI_Request_free(&r);
    });
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);  // rank 0 has its acknowledgements (or gave up)
    CHECK(got.load());
    t->SetControlHandler(nullptr);
  } else {
    {
      MpiTransport::DrivingScope driving(t);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the progress thread steps aside
      MPI_Barrier(MPI_COMM_WORLD);
      for (int r = 1; r < WorldSize(); ++r) t->SendControl(r, kProbe);
      t->Flush();
      std::vector<int> values(WorldSize(), 0);
      std::vector<MPI_Request> reqs(WorldSize() - 1);
      for (int r = 1; r < WorldSize(); ++r) MPI_Irecv(&values[r], 1, MPI_INT, r, 0, acks, &reqs[r - 1]);
      int done = 0;
      auto deadline = Clock::now() + std::chrono::seconds(10);
      while (!done && Clock::now() < deadline)
        MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE);
      CHECK(done);
      if (!done)  // let the driver send them, so that the workers can finish the test
        t->DriveUntil([] { return false; }, Clock::now() + std::chrono::milliseconds(100));
      for (auto& r : reqs)
        if (!done) MPI_Cancel(&r), MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&acks);
}

}  // namespace
}  // namespace fb::mpi
