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
//   transfer_ns, transfer_ns_per_byte   (schema 4) per tensor transfer between two CPU devices
//                   of one process, each with `threads` threads: x (float [65536], fed on CPU:0)
//                   read by two chains of 20 Neg kernels, one on CPU:0 alone, the other
//                   alternating CPU:1 and CPU:0 (20 transfers); (median Run of the second - median
//                   Run of the first) / 20 is transfer_ns (for tensors up to 256 KiB,
//                   kTransferProbeBytes); the same with float [1048576] (runs / 10 runs) gives the
//                   slope beyond, transfer_ns_per_byte (the receiver reads a large tensor from
//                   memory or the other core's cache: 0.03-0.11 ns per byte at load 3-7, 100-430
//                   us per 4 MiB transfer against 7 us per 256 KiB). What
//                   a transfer to an expensive consumer adds: its _Send and _Recv nodes, the
//                   in-process rendezvous and the hand-off to the receiving device's thread pool
//                   (with 16-float kernels, which the receiver runs inline on the sender's
//                   thread, 2-3 us; with these, 7-22 us under load 9 on this 2-core machine,
//                   where LeNet placed round-robin on 4 devices, 190 transfers per step, ran 2 ms
//                   per step slower than on one device and the `process` link charged 1 us).
//   compress_ns_per_byte, decompress_ns_per_byte   (schema 4) the traced kernel times of
//                   _CompressFloat32 and _DecompressFloat32 (whitepaper 5.5) on 4 MiB of float32,
//                   per byte, medians over runs / 10 runs.
//
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
