#include "engine/partition/partition.h"

#include <set>

#include "engine/framework/device_name.h"
#include "engine/framework/op_kernel.h"
#include "engine/partition/control_loops.h"

namespace fb {

std::string TransferTensorName(const Node& src, int port) {
  return src.name() + ":" + std::to_string(port);
}

std::vector<RecvGate> RecvGates(const Node& producer) {
  std::vector<std::string> entries;
  std::vector<RecvGate> gates;
  if (!GetNodeAttr(producer.def().attrs, kRecvGatesAttr, &entries).ok()) return gates;
  for (const std::string& s : entries) {
    size_t a = s.find(';'), b = s.rfind(';');
    if (a == std::string::npos || a == b) continue;
    gates.push_back({std::atoi(s.substr(0, a).c_str()), s.substr(a + 1, b - a - 1), s.substr(b + 1)});
  }
  return gates;
}

namespace {

NodeDef MakeSendRecv(const std::string& op, const std::string& name, DataType dt,
                     const std::string& tensor, const std::string& src_dev,
                     const std::string& dst_dev) {
  NodeDef d{name, op, {}, op == "_Send" ? src_dev : dst_dev,
            {{"T", dt}, {"tensor_name", tensor}, {"send_device", src_dev},
             {"recv_device", dst_dev}}};
  return d;
}

class Partitioner {
 public:
  Partitioner(const Graph& g, std::map<std::string, GraphDef>* parts, PartitionStats* stats)
      : g_(g), parts_(parts), stats_(stats) {}

  Status Run() {
    ASSIGN_OR_RETURN(info_, ControlFlowInfo::Build(g_));
    for (Node* n : g_.nodes()) {
      if (n->assigned_device().empty())
        return InvalidArgument("node '", n->name(), "' has no assigned device");
      NodeDef d = n->def();
      d.device = n->assigned_device();
      d.inputs.assign(n->num_inputs(), "");
      index_[n->name()] = Add(d.device, d);
    }
    for (Node* n : g_.nodes())
      for (const Edge* e : n->in_edges()) RETURN_IF_ERROR(WireEdge(e));
    MarkHostMemoryRecvs();
    return AddControlLoops(g_, info_, recv_frames_, parts_);
  }

 private:
  std::pair<std::string, size_t> Add(const std::string& dev, NodeDef d) {
    GraphDef& p = (*parts_)[dev];
    p.nodes.push_back(std::move(d));
    return {dev, p.nodes.size() - 1};
  }
  NodeDef& Def(const std::pair<std::string, size_t>& at) { return (*parts_)[at.first].nodes[at.second]; }

  Status WireEdge(const Edge* e) {
    const std::string& src_dev = e->src->assigned_device();
    const std::string& dst_dev = e->dst->assigned_device();
    NodeDef& dst = Def(index_[e->dst->name()]);
    if (src_dev == dst_dev) {
      if (e->IsControlEdge()) dst.inputs.push_back("^" + e->src->name());
      else dst.inputs[e->dst_input] = TransferTensorName(*e->src, e->src_output);
      return Status::OK();
    }
    if (e->IsControlEdge()) {
      std::string base = "_ctrl/" + e->src->name() + "/" + DeviceSuffix(dst_dev);
      if (!control_recvs_.count(base)) {
        Tensor zero = Tensor::Scalar<float>(0.0f);
        Add(src_dev, NodeDef{base + "/const", "Const", {"^" + e->src->name()}, src_dev,
                             {{"dtype", DataType::kFloat}, {"value", zero}}});
        NodeDef send = MakeSendRecv("_Send", base + "/send", DataType::kFloat, base, src_dev, dst_dev);
        send.inputs = {base + "/const"};
        Add(src_dev, send);
        Add(dst_dev, MakeSendRecv("_Recv", base + "/recv", DataType::kFloat, base, src_dev, dst_dev));
        recv_frames_[dst_dev][base + "/recv"] = info_.frame(e->src);
        control_recvs_.insert(base);
        if (stats_) ++stats_->num_control_transfers;
      }
      Def(index_[e->dst->name()]).inputs.push_back("^" + base + "/recv");
      return Status::OK();
    }
    std::string tensor = TransferTensorName(*e->src, e->src_output);
    std::string key = tensor + "->" + dst_dev;
    ASSIGN_OR_RETURN(bool host_input, IsHostMemoryInput(*e->dst, e->dst_input, dst_dev));
    auto it = recvs_.find(key);
    if (it == recvs_.end()) {
      std::string base = "_xfer/" + e->src->name() + "_" + std::to_string(e->src_output) + "/" +
                         DeviceSuffix(dst_dev);
      DataType dt = e->src->output_type(e->src_output);
      NodeDef send = MakeSendRecv("_Send", base + "/send", dt, tensor, src_dev, dst_dev);
      send.inputs = {tensor};
      Add(src_dev, send);
      NodeDef recv = MakeSendRecv("_Recv", base + "/recv", dt, tensor, src_dev, dst_dev);
      for (const RecvGate& gate : RecvGates(*e->src))
        if (gate.port == e->src_output && gate.dst_device == dst_dev)
          recv.inputs.push_back("^" + gate.gate);
      recv_at_[key] = Add(dst_dev, recv);
      recv_all_host_[key] = true;
      recv_frames_[dst_dev][base + "/recv"] = info_.frame(e->src);
      it = recvs_.emplace(key, base + "/recv").first;
      if (stats_) ++stats_->num_send_recv_pairs;
    }
    recv_all_host_[key] = recv_all_host_[key] && host_input;
    Def(index_[e->dst->name()]).inputs[e->dst_input] = it->second;
    return Status::OK();
  }

  // Whether input `port` of `dst` is HostMemory in its kernel on `device` (never on a CPU:
  // its memory is host memory). Errors only for a kernel declaring an unknown HostMemory arg.
  StatusOr<bool> IsHostMemoryInput(const Node& dst, int port, const std::string& device) {
    auto parsed = ParseDeviceName(device);
    if (!parsed.ok() || !parsed->has_type || parsed->type == DEVICE_CPU) return false;
    std::vector<bool> host_inputs, host_outputs;
    RETURN_IF_ERROR(KernelRegistry::Global()->MemoryTypesForNode(parsed->type, dst.def(),
                                                                 &host_inputs, &host_outputs)
                        .WithPrefix("partitioning node '" + dst.name() + "': "));
    return port < static_cast<int>(host_inputs.size()) && host_inputs[port];
  }

  // A _Recv whose consumers all read it as HostMemory inputs keeps the tensor in host memory
  // (kRecvHostMemoryAttr); with mixed consumers it copies to the device and the executor copies
  // back for the HostMemory ones.
  void MarkHostMemoryRecvs() {
    for (const auto& [key, all_host] : recv_all_host_)
      if (all_host) Def(recv_at_[key]).attrs[kRecvHostMemoryAttr] = true;
  }

  static std::string DeviceSuffix(const std::string& dev) {
    std::string s = dev;
    for (char& c : s)
      if (c == '/' || c == ':') c = '_';
    return s;
  }

  const Graph& g_;
  std::map<std::string, GraphDef>* parts_;
  PartitionStats* stats_;
  std::map<std::string, std::pair<std::string, size_t>> index_;
  std::map<std::string, std::string> recvs_;
  std::map<std::string, std::pair<std::string, size_t>> recv_at_;  // key -> where the _Recv is
  std::map<std::string, bool> recv_all_host_;                     // key -> all consumers host
  std::set<std::string> control_recvs_;
  ControlFlowInfo info_;
  std::map<std::string, std::map<std::string, std::string>> recv_frames_;  // device -> recv -> frame
};

}  // namespace

Status Partition(const Graph& g, std::map<std::string, GraphDef>* partitions,
                 PartitionStats* stats) {
  partitions->clear();
  Partitioner p(g, partitions, stats);
  return p.Run();
}

}  // namespace fb
