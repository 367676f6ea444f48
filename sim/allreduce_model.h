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
// Every message of a round goes by MPI's point-to-point protocols (Open MPI ob1 over the TCP
// BTL): up to the eager limit (btl_tcp_eager_limit, 64 KiB) in one transfer; above it by
// rendezvous: the first eager_limit bytes with the match header, then, once the receiver has
// matched them and its acknowledgement is back (ob1's ACK, or the PUT request of its RDMA
// pipeline), the rest. A large message thus costs one more round trip between the pair than
// one transfer of its bytes: 3 alpha + n/B instead of alpha + n/B (alpha the one-way route
// latency), during which the sender's link idles. On 1 ms emulated links (4.1 ms round trip) that is 16 ms of a binomial allreduce
// on 4 ranks and 25 ms on 8 (docs/cluster.md, "Allreduce: the rendezvous round trip").
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

namespace fb::sim {

enum class AllreduceAlgorithm { kRing, kRecursiveDoubling, kBinomial };
enum class AllreduceRule { kLibnbc, kTuned, kForced };

// Open MPI 4.1's btl_tcp_eager_limit (ompi_info --all): the largest message sent in one piece.
inline constexpr int64_t kOpenMpiTcpEagerLimit = 65536;
// Largest accepted --mpi-eager-limit (1 TiB).
inline constexpr int64_t kMaxEagerLimitBytes = int64_t{1} << 40;

struct AllreduceChoice {
  AllreduceRule rule = AllreduceRule::kLibnbc;
  AllreduceAlgorithm forced = AllreduceAlgorithm::kRing;  // when rule == kForced
  bool in_place = true;  // the runtime's MPI_Iallreduce is MPI_IN_PLACE
  // Messages of more bytes go by rendezvous (above); 0: every message in one transfer.
  // `flowbench sim --mpi-eager-limit`; AssignRoles (sim/workload.h) refuses a value outside
  // [0, kMaxEagerLimitBytes].
  int64_t eager_limit_bytes = kOpenMpiTcpEagerLimit;
};

// How a message of `bytes` bytes crosses the network under MPI's protocols: `first` bytes
// (all of them when `bytes` <= `eager_limit`, or `eager_limit` is 0), then, when `rest` > 0,
// an acknowledgement from the receiver and the remaining `rest` bytes. `bytes` < 0 counts as 0.
struct MessagePhases {
  int64_t first = 0;
  int64_t rest = 0;
  bool rendezvous() const { return rest > 0; }
};
MessagePhases SplitMessage(int64_t bytes, int64_t eager_limit);

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
