#pragma once
// Progress threads: threads that move data for everyone else (the MPI transport's progress
// thread, a client thread driving MPI progress while it waits) mark themselves for their
// lifetime or a scope. Callbacks that run on such a thread keep to small work and hand bulk work
// (a copy of a large received tensor) to a pool, so that other transfers keep moving
// (whitepaper 5.3: no thread blocks for long on behalf of a single transfer).

#include <cstdint>

namespace fb {

namespace internal {
inline thread_local int progress_thread_depth = 0;
inline thread_local uint64_t progress_thread_handoffs = 0;
}  // namespace internal

// Whether the calling thread is inside a ProgressThreadScope.
inline bool IsProgressThread() { return internal::progress_thread_depth > 0; }

// How many closures the calling thread has handed to thread pools while it was a progress thread
// (ThreadPool::Schedule counts them). A polling progress thread yields its core when this grows,
// so that the pool thread it woke, which may share its core, starts at once.
inline uint64_t ProgressThreadHandoffs() { return internal::progress_thread_handoffs; }

// Marks the calling thread as a progress thread while alive (nestable).
class ProgressThreadScope {
 public:
  ProgressThreadScope() { ++internal::progress_thread_depth; }
  ~ProgressThreadScope() { --internal::progress_thread_depth; }
  ProgressThreadScope(const ProgressThreadScope&) = delete;
  ProgressThreadScope& operator=(const ProgressThreadScope&) = delete;
};

}  // namespace fb
