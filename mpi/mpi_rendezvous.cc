#include "mpi/mpi_rendezvous.h"

namespace fb::mpi {

MpiRendezvous::MpiRendezvous(const ClusterSpec& cluster, int my_rank, int64_t step_id,
                             MpiTransport* transport)
    : cluster_(cluster),
      my_rank_(my_rank),
      step_id_(step_id),
      transport_(transport),
      local_(std::make_shared<LocalRendezvous>()) {
  std::weak_ptr<LocalRendezvous> weak = local_;
  transport_->RegisterStep(step_id_, [weak](const std::string& key, const Tensor& v, bool dead) {
    if (auto local = weak.lock()) {
      Status s = local->SendByKey(key, v, dead);
      if (!s.ok()) local->StartAbort(s);
    }
  });
}

MpiRendezvous::~MpiRendezvous() { transport_->UnregisterStep(step_id_); }

Status MpiRendezvous::Send(const ParsedKey& key, const Tensor& value, bool is_dead) {
  int dst = cluster_.RankForDevice(key.dst_device);
  if (dst < 0)
    return InvalidArgument("send of '", key.edge_name, "' to device '", key.dst_device,
                           "' that no rank of cluster '", cluster_.ToString(), "' hosts");
  if (dst == my_rank_) return local_->Send(key, value, is_dead);
  std::weak_ptr<LocalRendezvous> weak = local_;
  std::string scratch;
  const std::string& full_key = key.FullKeyRef(&scratch);
  transport_->Send(dst, step_id_, full_key, value, is_dead, [weak, dst](const Status& s) {
    if (s.ok()) return;
    if (auto local = weak.lock()) local->StartAbort(s.WithPrefix("send to rank " + std::to_string(dst) + ": "));
  });
  return Status::OK();
}

void MpiRendezvous::RecvAsync(const ParsedKey& key, DoneCallback done) {
  local_->RecvAsync(key, std::move(done));
}

void MpiRendezvous::StartAbort(const Status& status) { local_->StartAbort(status); }

}  // namespace fb::mpi
