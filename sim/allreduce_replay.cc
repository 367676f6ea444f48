// The collective of allreduce data parallelism in the replay (sim/allreduce_model.h for the
// algorithms, sim/allreduce_program.h for where it sits in the step): the rounds of this
// replica's schedule as S4U Comms between the replicas' actors, over the platform's routes (a
// message above the eager limit as its first part, the receiver's acknowledgement and its rest:
// MPI's rendezvous, sim/allreduce_model.h), and the reductions as Execs of bytes / memory
// bandwidth seconds on the replica's device.
#include <string>
#include <vector>

#include "sim/replay_state.h"

namespace sg4 = simgrid::s4u;

namespace fb::sim {
namespace {

// One mailbox per ordered pair of ranks and kind (data, or the rendezvous acknowledgements), so
// that messages match in order per pair.
sg4::Mailbox* PairMailbox(int from, int to, const char* kind = "") {
  return sg4::Mailbox::by_name("flowbench/allreduce/" + std::string(kind) + std::to_string(from) +
                               ">" + std::to_string(to));
}

int payload = 0;  // the data itself is not simulated, only its size

// The communications of one round, in the phases of MPI's protocols (SplitMessage): every
// message's first part; for the rendezvous messages, the receivers' acknowledgements; then their
// rest. Each phase waits for all of its communications, as a round waits for all its messages.
void RunRound(ReplayState* st, const ActorSlot& slot, int rank, const AllreduceRound& round) {
  const SimDevice& me = (*st->devices)[slot.device];
  auto eager = [&](int peer) {
    const ActorSlot& other = st->slots[st->Slot(slot.partition, peer)];
    return st->EagerLimit(me.host, (*st->devices)[other.device].host, /*collective=*/true);
  };
  std::vector<int*> received(round.recvs.size(), nullptr), acks(round.sends.size(), nullptr);
  for (int phase = 0; phase < 3; ++phase) {
    std::vector<sg4::CommPtr> comms;
    for (size_t k = 0; k < round.sends.size(); ++k) {
      const auto& [peer, bytes] = round.sends[k];
      const MessagePhases m = SplitMessage(bytes, eager(peer));
      if (phase == 0 || (phase == 2 && m.rendezvous())) {
        const int64_t part = phase == 0 ? m.first : m.rest;
        comms.push_back(PairMailbox(rank, peer)->put_async(&payload, static_cast<uint64_t>(part)));
      } else if (phase == 1 && m.rendezvous()) {
        comms.push_back(PairMailbox(peer, rank, "ack/")->get_async<int>(&acks[k]));
      }
    }
    for (size_t k = 0; k < round.recvs.size(); ++k) {
      const auto& [peer, bytes] = round.recvs[k];
      const MessagePhases m = SplitMessage(bytes, eager(peer));
      if (phase == 0 || (phase == 2 && m.rendezvous())) {
        comms.push_back(PairMailbox(peer, rank)->get_async<int>(&received[k]));
      } else if (phase == 1 && m.rendezvous()) {  // a header's worth: latency, no bandwidth
        comms.push_back(PairMailbox(rank, peer, "ack/")->put_async(&payload, 0));
      }
    }
    sg4::Comm::wait_all(comms);
  }
  for (const auto& [peer, bytes] : round.sends) {
    const ActorSlot& dst = st->slots[st->Slot(slot.partition, peer)];
    for (sg4::Link* l : st->Route(me.host, (*st->devices)[dst.device].host))
      st->link_bytes[l] += bytes;
    ++st->result->transfers;
    st->result->wire_bytes += bytes;
  }
}

}  // namespace

void RunAllreduce(ReplayState* st, const ActorSlot& slot, const SimNode& node, int64_t step) {
  (void)step;
  const int ranks = st->num_replicas;
  const int rank = slot.replica;
  const AllreduceAlgorithm algo = SelectAllreduce(st->options.workload.allreduce,
                                                  node.collective_bytes, node.element_bytes, ranks);
  st->result->allreduce_algorithm = AllreduceAlgorithmName(algo);
  const SimDevice& me = (*st->devices)[slot.device];
  for (const AllreduceRound& round : AllreduceSchedule(algo, rank, ranks, node.collective_bytes)) {
    RunRound(st, slot, rank, round);
    if (round.reduce_bytes > 0) {
      const double seconds =
          static_cast<double>(round.reduce_bytes) / me.desc.memory_bandwidth_bytes_per_s;
      const double t0 = sg4::Engine::get_clock();
      ExecuteOnDevice(me, seconds * me.host->get_speed());
      st->result->device_busy_s[slot.device] += sg4::Engine::get_clock() - t0;
    }
  }
}

}  // namespace fb::sim
