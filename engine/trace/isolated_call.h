#pragma once
// Runs a function that parses untrusted input in a forked child process, so that a crash or an
// endless loop inside a library that is not hardened against corrupt files (libhdf5 follows
// B-tree, heap and object-header addresses it reads from the file) becomes a Status of the
// calling process instead of killing or hanging it. The child sends the bytes the function
// returns (or its Status) back through a pipe; the parent waits at most a deadline.
//
// The child does not take locks: the caller must hold whatever lock serialises the library
// (h5::Hdf5Guard) across the call, so that no other thread is inside the library when the
// process forks. The child restores the default handlers of the fatal signals (test frameworks
// catch SIGSEGV), disables core files, silences its stdout and stderr and leaves with _exit, so
// it runs no atexit handler and flushes no file the parent has open.
//
// Linux/POSIX only. Not async-signal-safe in the strict sense (the child allocates memory), which
// is fine with glibc, whose fork resets the allocator's locks.
#include <functional>
#include <string>

#include "engine/framework/status.h"

namespace fb {

struct IsolatedCallOptions {
  double timeout_s = 60;  // wall-clock deadline for the child
  std::string path;       // the input the child parses, named in every error
  std::string what = "reading";  // "<path>: <what> crashed ..." / "... did not finish ..."
};

// Runs `fn` in a child process and returns what it returned: its bytes, or its non-OK Status
// (code and message carried over). Errors of the isolation itself, each naming options.path:
// DataLoss when the child dies from a signal (e.g. SIGSEGV inside libhdf5) or exits without
// a complete answer; DataLoss when it runs past the deadline (it is then killed with SIGKILL);
// Internal when pipe() or fork() fails.
StatusOr<std::string> RunIsolated(const std::function<StatusOr<std::string>()>& fn,
                                  const IsolatedCallOptions& options);

}  // namespace fb
