#pragma once
// Progress threads: threads that move data for everyone else (the MPI transport's progress
// thread, a client thread driving MPI progress while it waits) mark themselves for their
// lifetime or a scope. Callbacks that run on such a thread keep to small work and hand bulk work
// (a copy of a large received tensor) to a pool, so that other transfers keep moving
// (whitepaper 5.3: no thread blocks for long on behalf of a single transfer).

namespace fb {

namespace internal {
inline thread_local int progress_thread_depth = 0;
}  // namespace internal

// Whether the calling thread is inside a ProgressThreadScope.
inline bool IsProgressThread() { return internal::progress_thread_depth > 0; }

// Marks the calling thread as a progress thread while alive (nestable).
class ProgressThreadScope {
 public:
  ProgressThreadScope() { ++internal::progress_thread_depth; }
  ~ProgressThreadScope() { --internal::progress_thread_depth; }
  ProgressThreadScope(const ProgressThreadScope&) = delete;
  ProgressThreadScope& operator=(const ProgressThreadScope&) = delete;
};

}  // namespace fb
