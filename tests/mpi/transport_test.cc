// Caller-driven progress (MpiTransport::DriveUntil, DrivingScope): a thread that waits for
// messages runs the progress engine itself, so control handlers run on it and the progress
// thread stays idle; deadlines and Wake() end the wait. Every rank runs each TEST_CASE.
#include "mpi/mpi_transport.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

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

}  // namespace
}  // namespace fb::mpi
