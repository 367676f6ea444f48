// The collective of allreduce data parallelism in the replay (sim/allreduce_model.h for the
// algorithms, sim/allreduce_program.h for where it sits in the step): the rounds of this
// replica's schedule as S4U Comms between the replicas' actors, over the platform's routes, and
// the reductions as Execs of bytes / memory bandwidth seconds on the replica's device.
#include <string>

#include "sim/replay_state.h"

namespace sg4 = simgrid::s4u;

namespace fb::sim {
namespace {

// One mailbox per ordered pair of ranks, so that messages match in order per pair.
sg4::Mailbox* PairMailbox(int from, int to) {
  return sg4::Mailbox::by_name("flowbench/allreduce/" + std::to_string(from) + ">" +
                               std::to_string(to));
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
  static int payload = 0;  // the data itself is not simulated, only its size
  for (const AllreduceRound& round : AllreduceSchedule(algo, rank, ranks, node.collective_bytes)) {
    std::vector<sg4::CommPtr> comms;
    std::vector<int*> received(round.recvs.size(), nullptr);
    for (const auto& [peer, bytes] : round.sends) {
      comms.push_back(PairMailbox(rank, peer)->put_async(&payload, static_cast<uint64_t>(bytes)));
      const ActorSlot& dst = st->slots[st->Slot(slot.partition, peer)];
      for (sg4::Link* l : st->Route(me.host, (*st->devices)[dst.device].host))
        st->link_bytes[l] += bytes;
      ++st->result->transfers;
      st->result->wire_bytes += bytes;
    }
    for (size_t k = 0; k < round.recvs.size(); ++k)
      comms.push_back(PairMailbox(round.recvs[k].first, rank)->get_async<int>(&received[k]));
    sg4::Comm::wait_all(comms);
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
