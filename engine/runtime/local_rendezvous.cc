#include "engine/runtime/local_rendezvous.h"

namespace fb {

std::string Rendezvous::ParsedKey::FullKey() const {
  return src_device + ";" + dst_device + ";" + edge_name + ";" +
         std::to_string(frame_iter.frame_id) + ":" + std::to_string(frame_iter.iter_id);
}

LocalRendezvous::~LocalRendezvous() {
  std::map<std::string, Item> table;
  {
    std::lock_guard<std::mutex> l(mu_);
    table.swap(table_);
  }
  for (auto& [key, item] : table)
    if (item.waiter) item.waiter(Cancelled("rendezvous destroyed before '", key, "' arrived"), Tensor(), false);
}

Status LocalRendezvous::Send(const ParsedKey& key, const Tensor& value, bool is_dead) {
  std::string scratch;
  return SendByKey(key.FullKeyRef(&scratch), value, is_dead);
}

void LocalRendezvous::RecvAsync(const ParsedKey& key, DoneCallback done) {
  std::string scratch;
  RecvAsyncByKey(key.FullKeyRef(&scratch), std::move(done));
}

Status LocalRendezvous::SendByKey(const std::string& k, const Tensor& value, bool is_dead) {
  DoneCallback waiter;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!status_.ok()) return status_;
    Item& item = table_[k];
    if (item.has_value) return Internal("rendezvous key '", k, "' sent twice");
    if (!is_dead && value.IsInitialized()) bytes_sent_ += value.TotalBytes();
    if (item.waiter) {
      waiter = std::move(item.waiter);
      table_.erase(k);
    } else {
      item.has_value = true;
      item.value = value;
      item.is_dead = is_dead;
    }
  }
  if (waiter) waiter(Status::OK(), value, is_dead);
  return Status::OK();
}

void LocalRendezvous::RecvAsyncByKey(const std::string& k, DoneCallback done) {
  Tensor value;
  bool is_dead = false;
  Status error;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = table_.find(k);
    if (!status_.ok()) {
      error = status_;
    } else if (it == table_.end() || !it->second.has_value) {
      Item& item = table_[k];
      if (!item.waiter) {
        item.waiter = std::move(done);
        return;
      }
      error = Internal("rendezvous key '", k, "' received twice");
    } else {
      value = std::move(it->second.value);
      is_dead = it->second.is_dead;
      table_.erase(it);
    }
  }
  done(error, value, is_dead);
}

void LocalRendezvous::StartAbort(const Status& status) {
  std::map<std::string, Item> table;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!status_.ok()) return;
    status_ = status;
    table.swap(table_);
  }
  for (auto& [key, item] : table)
    if (item.waiter) item.waiter(status, Tensor(), false);
}

int64_t LocalRendezvous::bytes_sent() const {
  std::lock_guard<std::mutex> l(mu_);
  return bytes_sent_;
}

}  // namespace fb
