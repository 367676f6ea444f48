#pragma once
// Rendezvous: where a Send node leaves a tensor and the matching Recv node picks it up
// (whitepaper 3.2.2). Keys name (source device, destination device, tensor name, frame and
// iteration); a Rendezvous object serves one step, so the step id is implicit in the object (the
// remote implementation puts it on the wire). Implementations: in-process (engine/runtime) and
// over MPI (mpi/). RecvAsync never blocks a thread (whitepaper 5.3).
#include <functional>
#include <string>

#include "engine/framework/tensor.h"

namespace fb {

struct FrameAndIter {
  int64_t frame_id = 0;  // 0 is the root frame
  int64_t iter_id = 0;
  bool operator==(const FrameAndIter& o) const { return frame_id == o.frame_id && iter_id == o.iter_id; }
};

class Rendezvous {
 public:
  struct ParsedKey {
    std::string src_device;
    std::string dst_device;
    std::string edge_name;  // the tensor name, e.g. "conv1/weights:0"
    FrameAndIter frame_iter;
    // "src;dst;edge;frame:iter" — the canonical string form, unique per transfer in a step.
    std::string FullKey() const;
    // FullKey() computed once by whoever built the key (the _Send and _Recv kernels, for the root
    // frame: formatting it was a third of a small Send's cost), or empty. Whoever changes a field
    // must clear it. Rendezvous implementations read the key through FullKeyRef.
    std::string full_key;
    const std::string& FullKeyRef(std::string* scratch) const {
      if (!full_key.empty()) return full_key;
      *scratch = FullKey();
      return *scratch;
    }
  };
  using DoneCallback = std::function<void(const Status& status, const Tensor& value, bool is_dead)>;

  virtual ~Rendezvous() = default;
  // Never blocks. Returns an error if the rendezvous was aborted or the key was already sent.
  virtual Status Send(const ParsedKey& key, const Tensor& value, bool is_dead) = 0;
  // Calls `done` when the tensor arrives (possibly inline), or with the abort status.
  virtual void RecvAsync(const ParsedKey& key, DoneCallback done) = 0;
  // Fails every pending and future Recv with `status`.
  virtual void StartAbort(const Status& status) = 0;
};

}  // namespace fb
