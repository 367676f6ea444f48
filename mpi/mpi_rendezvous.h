#pragma once
// MpiRendezvous: the Rendezvous of one step on one rank (whitepaper 3.3, "cross-machine
// communication"). Sends to a device of this rank stay in process; sends to a device of another
// rank go through MpiTransport to the rank that hosts it (ClusterSpec::RankForDevice). Every
// arrival, local or remote, lands in one in-process table, so _Recv kernels wait the same way
// for both (asynchronously, 5.3). A failed MPI transfer aborts the step.
#include <memory>

#include "engine/runtime/local_rendezvous.h"
#include "mpi/cluster_spec.h"
#include "mpi/mpi_transport.h"

namespace fb::mpi {

class MpiRendezvous : public Rendezvous {
 public:
  MpiRendezvous(const ClusterSpec& cluster, int my_rank, int64_t step_id,
                MpiTransport* transport = MpiTransport::Get());
  ~MpiRendezvous() override;
  // InvalidArgument if the destination device belongs to no rank of the cluster.
  Status Send(const ParsedKey& key, const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;
  int64_t step_id() const { return step_id_; }

 private:
  const ClusterSpec& cluster_;
  int my_rank_;
  int64_t step_id_;
  MpiTransport* transport_;
  std::shared_ptr<LocalRendezvous> local_;
};

}  // namespace fb::mpi
