#pragma once
// The allreduce collective of `flowbench dist-train --mode allreduce` (mpi/allreduce_op.cc: one
// fused MPI_Iallreduce, sum, MPI_IN_PLACE, of every gradient per step), as the point-to-point
// rounds Open MPI runs for it, so that the simulator can replay them as SimGrid communications
// over the platform's links (sim/allreduce_replay.cc).
//
// Algorithms (Open MPI 4.1 sources, ompi/mca/coll/libnbc/nbc_iallreduce.c and
// ompi/mca/coll/base/coll_base_allreduce.c):
//   ring                p - 1 reduce-scatter rounds (send chunk (r - k) mod p of n/p bytes to
//                       r + 1, receive from r - 1, reduce the received chunk) then p - 1
//                       allgather rounds of n/p bytes: 2(p-1) (alpha + n/(p B)) + (p-1)/p n gamma.
//   recursive-doubling  non-power-of-two ranks fold first (rank 2i sends its n bytes to 2i + 1
//                       for i < p - p'), then log2(p') rounds exchanging the whole n bytes with
//                       rank ^ 2^k, each followed by a reduce of n bytes; the folded ranks get
//                       the result back at the end: log2(p) (alpha + n/B + n gamma) for p = 2^k.
//   binomial            libnbc's "allred_sched_diss": a binomial reduce to rank 0 (rounds of
//                       n bytes, receivers reduce) and a binomial broadcast from rank 0.
// gamma is the reduce cost per byte, 1 / memory bandwidth of the device (one pass).
//
// Every message of a round goes by MPI's point-to-point protocols (sim/mpi_protocol.h: up to the
// route's eager limit in one transfer, above it by rendezvous: first part, the receiver's
// acknowledgement, the rest). On 1 ms emulated links (4.1 ms round trip) the rendezvous is 16 ms
// of a binomial allreduce on 4 ranks and 25 ms on 8 (docs/cluster.md, "Allreduce: the
// rendezvous round trip").
//
// Which algorithm Open MPI picks (AllreduceRule):
//   kLibnbc  (default; what dist-train's MPI_Iallreduce gets: non-blocking collectives are served
//            by coll/libnbc in Open MPI 4.1): binomial when p < 4, n < 65536 bytes, the op is not
//            commutative or the call is in place (MPI_IN_PLACE, as the runtime's is); otherwise
//            Rabenseifner's reduce-scatter/allgather when count >= p' (replayed as ring, which
//            moves the same 2(p-1)/p n bytes per rank), else ring.
//   kTuned   the fixed decision of coll/tuned for a blocking MPI_Allreduce as in Open MPI 1.x to
//            3.x (coll_tuned_decision_fixed.c): recursive doubling below 10,000 bytes, ring when
//            the op is commutative and count > p (segmented ring above p x 1 MiB, replayed as
//            ring), otherwise reduce + broadcast (replayed as binomial). Open MPI 4.x replaced it
//            with measured tables that are not reproduced here.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/status.h"
#include "sim/mpi_protocol.h"

namespace fb::sim {

enum class AllreduceAlgorithm { kRing, kRecursiveDoubling, kBinomial };
enum class AllreduceRule { kLibnbc, kTuned, kForced };

struct AllreduceChoice {
  AllreduceRule rule = AllreduceRule::kLibnbc;
  AllreduceAlgorithm forced = AllreduceAlgorithm::kRing;  // when rule == kForced
  bool in_place = true;  // the runtime's MPI_Iallreduce is MPI_IN_PLACE
};

// Parses --allreduce-algorithm: "libnbc" (default), "tuned", "ring", "recursive-doubling" or
// "binomial". InvalidArgument naming the flag and the value otherwise.
Status ParseAllreduceAlgorithm(const std::string& text, AllreduceChoice* choice);
const char* AllreduceAlgorithmName(AllreduceAlgorithm a);

// The algorithm `choice` selects for `bytes` bytes of `element_bytes`-byte elements (a
// commutative sum) over `ranks` ranks.
AllreduceAlgorithm SelectAllreduce(const AllreduceChoice& choice, int64_t bytes,
                                   int64_t element_bytes, int ranks);

// One round of a rank's schedule: messages sent and received concurrently, then `reduce_bytes`
// bytes reduced (gamma x bytes of compute). Peers are ranks in [0, p).
struct AllreduceRound {
  std::vector<std::pair<int, int64_t>> sends;  // (peer, bytes)
  std::vector<std::pair<int, int64_t>> recvs;  // (peer, bytes)
  int64_t reduce_bytes = 0;
};

// The rounds rank `rank` of `ranks` runs for an allreduce of `bytes` bytes with algorithm `a`.
// Every send of one rank has a matching receive in its peer's schedule, in the same order per
// (sender, receiver) pair. Empty for one rank. Ring chunks split `bytes` as evenly as possible.
std::vector<AllreduceRound> AllreduceSchedule(AllreduceAlgorithm a, int rank, int ranks,
                                              int64_t bytes);

}  // namespace fb::sim
