#pragma once
// LocalRendezvous: the in-process Rendezvous (whitepaper 3.2.2) shared by the partitions of one
// step. Send never blocks; RecvAsync calls back when the value arrives (inline if it is already
// there). StartAbort fails every waiting and future Recv. Thread-safe.
#include <map>
#include <mutex>

#include "engine/framework/rendezvous.h"

namespace fb {

class LocalRendezvous : public Rendezvous {
 public:
  ~LocalRendezvous() override;
  Status Send(const ParsedKey& key, const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;
  // The same keyed by the canonical string ParsedKey::FullKey(), for transports that carry the
  // key over the wire (mpi/).
  Status SendByKey(const std::string& key, const Tensor& value, bool is_dead);
  void RecvAsyncByKey(const std::string& key, DoneCallback done);
  // Bytes handed over so far (for traces and tests).
  int64_t bytes_sent() const;

 private:
  struct Item {
    bool has_value = false;
    Tensor value;
    bool is_dead = false;
    DoneCallback waiter;
  };
  mutable std::mutex mu_;
  std::map<std::string, Item> table_;
  Status status_;
  int64_t bytes_sent_ = 0;
};

}  // namespace fb
