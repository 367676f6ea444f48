#pragma once
// How one MPI point-to-point message crosses the network in the simulator: Open MPI 4.1's ob1
// protocols, for the messages of every simulated MPI transfer (the _Send/_Recv of the
// parameter-server modes, sim/device_actor.cc, and the rounds of an allreduce,
// sim/allreduce_replay.cc).
//
// The runtime (mpi/mpi_transport_impl.h, StartSend/StartRecv) sends a tensor as a header message
// (tag 1: key, dtype, shape; payloads up to 4 KiB inline) and then its payload as ONE MPI_Isend
// of payload_bytes on its own tag (chunks of at most 256 MiB, FLOWBENCH_MPI_CHUNK_BYTES); the
// receiver posts the payload's MPI_Irecv once its progress thread has matched the header. Open
// MPI sends a message of up to the BTL's eager limit in one piece. Above it, ob1 sends a
// rendezvous header with the first rndv_eager_limit bytes, waits until the receiver has matched
// it (the posted MPI_Irecv) and sent its acknowledgement back, and only then sends the rest (ob1's
// ACK, or the PUT request of its RDMA pipeline): one more round trip per large message, during
// which the sender's link idles. A large message thus costs 3 alpha + n/B instead of alpha + n/B
// (alpha the one-way route latency); the receiver's progress-thread delay before it matches is
// not modelled. Per BTL (`ompi_info --all | grep eager_limit`, Open MPI 4.1.4):
//   tcp    btl_tcp_eager_limit = btl_tcp_rndv_eager_limit = 65536 (kOpenMpiTcpEagerLimit):
//          payloads above 65,480 bytes (kOb1HeaderBytes below) go by the rendezvous above, first
//          part ~64 KiB. Measured on the emulated cluster: docs/cluster.md, "Allreduce: the
//          rendezvous round trip".
//   vader  (shared memory between the ranks of one machine) btl_vader_eager_limit = 4096, with
//          single-copy CMA (btl_vader_single_copy_mechanism = cma, the "get" flag): above 4 KiB
//          ob1 sends an RGET header without data, the receiver reads the sender's buffer itself
//          (process_vm_readv) as soon as it matches, then sends a FIN that only releases the
//          sender. No round trip before the data moves: no rendezvous in the simulator. Platform
//          links of such ranks carry <prop id="mpi_eager_limit" value="0"/> (MpiNodeXml's "shm"
//          links).
//   self / in-process transfers (the same host in the simulator) do not use MPI at all.
// Which limit applies to a route between two hosts (ReplayState::EagerLimit):
//   `flowbench sim --mpi-eager-limit platform` (the default, kEagerLimitFromPlatform): the link
//          property <prop id="mpi_eager_limit" value="BYTES"/> (0 .. kMaxEagerLimitBytes, 0: no
//          rendezvous) of the route's links, the smallest where several have one. A route
//          without it: kOpenMpiTcpEagerLimit for allreduce rounds (a collective is always MPI)
//          and no rendezvous for tensor transfers, which on such platforms stand for TensorFlow's
//          gRPC as well (the osdi2016 experiments). MpiNodeXml's "shm" links carry 0. The
//          emulated cluster's links (sim/emulated_cluster_platform.h) carry none: its recorded
//          parameter-server steps do not show the round trip (docs/cluster.md, "Point-to-point
//          messages: the rendezvous round trip": the messages between two ranks share one TCP
//          connection in order, so the acknowledgement's round trip overlaps the messages behind
//          the first part, which the replay's per-message bandwidth sharing does not represent).
//   `--mpi-eager-limit BYTES`: BYTES on every route between hosts, for both kinds of message,
//          whatever the links say (0: no rendezvous anywhere).
// A transfer within one host never uses MPI (no rendezvous).
#include <cstdint>
#include <string>

#include "engine/framework/status.h"

namespace fb::sim {

// Open MPI 4.1's btl_tcp_eager_limit (ompi_info --all): the largest message sent in one piece.
inline constexpr int64_t kOpenMpiTcpEagerLimit = 65536;
// Largest accepted --mpi-eager-limit and link property mpi_eager_limit (1 TiB).
inline constexpr int64_t kMaxEagerLimitBytes = int64_t{1} << 40;
// WorkloadOptions::mpi_eager_limit_bytes for `--mpi-eager-limit platform` (above).
inline constexpr int64_t kEagerLimitFromPlatform = -1;

// A BTL's eager limit counts ob1's header: a message goes eagerly when its bytes are at most the
// limit less sizeof(mca_pml_ob1_hdr_t) (ompi/mca/pml/ob1/pml_ob1_sendreq.h,
// mca_pml_ob1_send_request_start_btl), a union whose largest member, the 56-byte RDMA header
// (pml_ob1_hdr.h on x86-64), sets its size. So a payload of exactly 64 KiB goes by rendezvous
// over TCP; eagerly up to 65,480 bytes.
inline constexpr int64_t kOb1HeaderBytes = 56;

// How a message of `bytes` bytes crosses the network under MPI's protocols with a BTL eager
// limit of `eager_limit` bytes (header included, 0: no rendezvous): `first` bytes (all of them
// when `bytes` <= `eager_limit` - kOb1HeaderBytes, at least 1), then, when `rest` > 0, an
// acknowledgement from the receiver and the remaining `rest` bytes. `bytes` < 0 counts as 0.
struct MessagePhases {
  int64_t first = 0;
  int64_t rest = 0;
  bool rendezvous() const { return rest > 0; }
};
MessagePhases SplitMessage(int64_t bytes, int64_t eager_limit);

// Validates WorkloadOptions::mpi_eager_limit_bytes: InvalidArgument naming --mpi-eager-limit,
// the range and the value unless it is kEagerLimitFromPlatform or in [0, kMaxEagerLimitBytes].
Status CheckEagerLimitFlag(int64_t bytes);

// Parses the text of --mpi-eager-limit: "platform" (kEagerLimitFromPlatform) or a whole number
// of bytes in [0, kMaxEagerLimitBytes]. InvalidArgument naming the flag and the text otherwise.
StatusOr<int64_t> ParseEagerLimitFlag(const std::string& text);

// Parses the link property mpi_eager_limit of link `link` (`value` nullptr: absent, returns -1).
// InvalidArgument naming the link, the property, the range and the text for anything but a
// whole number of bytes in [0, kMaxEagerLimitBytes].
StatusOr<int64_t> ParseLinkEagerLimit(const std::string& link, const char* value);

// The eager limit of a route from its links' property values (-1: the link has none), given
// `fallback` for a route where no link has one (rule above). Folded over the links: start with
// overridden = false and pass each link's value.
inline int64_t CombineEagerLimit(int64_t route_limit, int64_t link_limit, bool* overridden) {
  if (link_limit < 0) return route_limit;
  if (!*overridden) {
    *overridden = true;
    return link_limit;
  }
  return link_limit < route_limit ? link_limit : route_limit;
}

}  // namespace fb::sim
