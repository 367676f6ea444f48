#pragma once
// CallFrame: how a Session hands feeds to a step and collects fetches (whitepaper 4.2). The feed
// rewrite replaces each fed tensor by a _Feed node reading args[i]; each fetch gets a _Fetch node
// writing retvals[i]. Thread-safe for distinct indices: the _Fetch kernels of one step run on
// different threads (each where its input arrived, e.g. on the sending device's thread after a
// _Recv), so each index's state is its own memory location (a std::vector<bool> packs the flags
// into shared words, and two concurrent SetRetval calls could lose one flag).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/tensor.h"

namespace fb {

class CallFrame {
 public:
  CallFrame(std::vector<Tensor> args, int num_retvals)
      : args_(std::move(args)), retvals_(num_retvals), set_(num_retvals, 0) {}
  StatusOr<Tensor> GetArg(int i) const {
    if (i < 0 || i >= static_cast<int>(args_.size())) return Internal("feed index ", i, " out of range");
    return args_[i];
  }
  Status SetRetval(int i, const Tensor& t) {
    if (i < 0 || i >= static_cast<int>(retvals_.size())) return Internal("fetch index ", i, " out of range");
    retvals_[i] = t;
    set_[i] = 1;
    return Status::OK();
  }
  bool IsRetvalSet(int i) const { return set_[i] != 0; }
  std::vector<Tensor>& retvals() { return retvals_; }
  // Replaces *outputs with the fetched values, in order. InvalidArgument naming the fetch
  // (`fetch_names[i]`) whose value was never set (it is on an untaken branch of a Cond).
  Status TakeFetches(const std::vector<std::string>& fetch_names, std::vector<Tensor>* outputs) {
    outputs->clear();
    for (size_t i = 0; i < retvals_.size(); ++i) {
      if (!set_[i])
        return InvalidArgument("fetch '", fetch_names[i], "' produced no value (it is on an untaken branch)");
      outputs->push_back(retvals_[i]);
    }
    return Status::OK();
  }

 private:
  std::vector<Tensor> args_;
  std::vector<Tensor> retvals_;
  std::vector<uint8_t> set_;  // one byte per fetch, never std::vector<bool> (see above)
};

}  // namespace fb
