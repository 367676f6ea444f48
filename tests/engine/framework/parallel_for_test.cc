// ThreadPool::ParallelFor (engine/framework/thread_pool.h): every index exactly once, nested
// calls from pool threads, and completion on the calling thread when no pool thread is free
// (issue 16: on a loaded machine a pool thread may not run for milliseconds).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/framework/thread_pool.h"

namespace fb {
namespace {

TEST_CASE("ParallelFor covers every index exactly once", "[framework][parallel_for]") {
  ThreadPool pool("test_pool", 3);
  for (int64_t total : {1, 7, 100, 4099, 100000}) {
    for (int64_t cost : {0, 1, 50, 100000}) {
      std::vector<std::atomic<int>> seen(total);
      for (auto& s : seen) s = 0;
      std::atomic<int> bad_ranges{0};  // Catch2 assertions are for the test's thread only
      pool.ParallelFor(total, cost, [&](int64_t begin, int64_t end) {
        if (begin < 0 || begin >= end || end > total) return void(++bad_ranges);
        for (int64_t i = begin; i < end; ++i) seen[i]++;
      });
      int wrong = 0;
      for (auto& s : seen) wrong += s != 1;
      INFO("total " << total << " cost " << cost);
      CHECK(bad_ranges == 0);
      CHECK(wrong == 0);
    }
  }
  bool called = false;
  pool.ParallelFor(0, 1000, [&](int64_t, int64_t) { called = true; });
  CHECK_FALSE(called);
}

TEST_CASE("ParallelFor finishes on the calling thread while every pool thread is busy",
          "[framework][parallel_for]") {
  ThreadPool pool("test_pool", 2);
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> blocked{0};
  for (int i = 0; i < pool.NumThreads(); ++i)
    pool.Schedule([&] {
      ++blocked;
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return release; });
    });
  while (blocked < pool.NumThreads()) std::this_thread::yield();
  std::atomic<int64_t> sum{0};
  auto run = std::async(std::launch::async, [&] {
    pool.ParallelFor(1000, 1000, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) sum += i;
    });
  });
  const bool finished = run.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
  }
  cv.notify_all();
  run.wait();
  CHECK(finished);  // it did not wait for the blocked pool threads
  CHECK(sum == 1000 * 999 / 2);
}

TEST_CASE("ParallelFor nested in pool tasks completes", "[framework][parallel_for]") {
  ThreadPool pool("test_pool", 2);
  std::atomic<int64_t> sum{0};
  pool.ParallelFor(8, 100000, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      pool.ParallelFor(500, 100, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) sum += j;
      });
  });
  CHECK(sum == 8 * (500 * 499 / 2));
}

}  // namespace
}  // namespace fb
