#pragma once
// The executor's fixed costs on this host (issue 17), measured by `flowbench profile` on small
// synthetic graphs in a real Session and stored in the profile's /executor table
// (sim/profile.h). What a step spends outside its kernels' traced durations, which dominates
// steps under about a millisecond:
//
//   per_step_ns, per_node_inline_ns, per_node_pool_ns   (schema 1) null graphs of NoOps, no feed
//       and no fetch: the median Run of one NoOp; per NoOp of a chain; per NoOp of a fan-out.
//   run_ns          (schema 2) a Run shaped like a model's step, outside its traced kernel time
//                   and per-node gaps: x (float [16]) and y (float [65536]) fed, Neg of each
//                   fetched. The caller runs the cheap nodes, the expensive Neg is handed to the
//                   inter-op pool and its completion wakes the caller blocked in Run: the Run's
//                   setup, feeds and fetches, and the two thread switches every model step makes
//                   (in a traced MLP step, its first MatMul started 6.6 us after the caller's last
//                   node, on the pool thread, and the caller ran nothing more).
//   node_gap_ns     (schema 2) per node of a chain of 100 Neg kernels on 16 floats, the time
//                   outside the node's traced duration: the executor's bookkeeping between two
//                   kernels run inline (inputs, output allocation, the ready queue, frees).
//   handoff_ns      (schema 2) the latency of handing an expensive node to another thread: a chain
//                   of 20 diamonds (two Neg of 65536 floats read the stage's input, an Add joins
//                   them) makes two expensive kernels ready at once; one stays on the thread and
//                   the other is handed to the pool. Median over the traced stages of (start of
//                   the Neg that ran on another thread - end of the stage before it).
//   transfer_points (schema 5), and the schema-4 summary transfer_ns, transfer_ns_per_byte,
//                   compress_ns_per_byte, decompress_ns_per_byte: per transfer between CPU
//                   devices of one process and per lossy 16-bit conversion (whitepaper 5.5), at
//                   tensor sizes from 1 KiB to 4 MiB, on 4 devices passing a chain of kernels
//                   round and round as a placed step does (sim/transfer_cost_probe.h). Until
//                   session 20 a chain alternating between two devices with 256 KiB and 4 MiB
//                   tensors measured them, and the conversions on a fed 1-D tensor alone: 7-72 us
//                   per transfer across runs on an idle machine, and conversions 2.3x cheaper
//                   than a placed LeNet's 4-D tensors paid (the kernels called NumElements() per
//                   element, which a 4-D shape made slower; fixed).
// Time outside kernels is measured as (median untraced Run) - (median sum of the kernels'
// traced durations), because the profile's kernel points are traced durations: the gaps are
// what a replay must add to them.
#include "sim/profile.h"

namespace fb::sim {

// Measures every field of ProfileExecutor with `threads` inter-op threads (threads_per_cpu; per
// device for transfer_ns), medians over `runs` runs of each graph after 10 warm-up runs (about
// 0.2 s per 100 runs on this machine). Errors: those of the Session (graph building, a failed Run); InvalidArgument for
// threads or runs < 1.
StatusOr<ProfileExecutor> MeasureExecutorCosts(int threads, int runs = 200);

}  // namespace fb::sim
