#pragma once
// The trace and checkpoint readers parse format-1 files in forked children (RunIsolated,
// engine/trace/isolated_call.h): a crash there, inside libhdf5, becomes a DataLoss Status of the
// fuzzed process, which is the behaviour under test. But a child inherits libFuzzer's death
// callback, so an error that AddressSanitizer reports in the child (libhdf5's memcpy through the
// interceptor) would write a crash-* artifact as if the fuzzed process had crashed. Children
// forked after QuietForkedChildren() die without that callback; the parent keeps it.
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>

namespace fb::fuzz {

inline void QuietForkedChildren() {
  pthread_atfork(nullptr, nullptr, [] { __sanitizer_set_death_callback(nullptr); });
}

}  // namespace fb::fuzz
