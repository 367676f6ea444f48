#include "sim/program.h"

#include <algorithm>
#include <unordered_map>

#include "engine/framework/device_name.h"

namespace fb::sim {

int64_t SimProgram::num_nodes() const {
  int64_t n = 0;
  for (const SimPartition& p : partitions) n += static_cast<int64_t>(p.nodes.size());
  return n;
}

namespace {

std::string AttrString(const NodeDef& d, const std::string& name) {
  auto it = d.attrs.find(name);
  if (it == d.attrs.end() || !it->second.holds<std::string>()) return "";
  return it->second.get<std::string>();
}

struct SendRecvIds {
  std::map<std::string, std::pair<int32_t, int32_t>> sends, recvs;  // key -> (partition, node)
};

// The transfer key of a _Send/_Recv: tensor name and both devices.
std::string TransferKey(const NodeDef& d) {
  return AttrString(d, "tensor_name") + "|" + AttrString(d, "send_device") + "|" +
         AttrString(d, "recv_device");
}

// Whether two device names are devices of one process (the same job, replica and task); false
// when either does not parse.
bool SameProcess(const std::string& a, const std::string& b) {
  StatusOr<ParsedDeviceName> x = ParseDeviceName(a), y = ParseDeviceName(b);
  return x.ok() && y.ok() && x->job == y->job && x->replica == y->replica && x->task == y->task;
}

class Compiler {
 public:
  Compiler(const Graph& g, const DeviceSet& devices, const SimCosts& costs)
      : g_(g), devices_(devices), costs_(costs) {}

  StatusOr<SimProgram> Run(const std::map<std::string, GraphDef>& parts) {
    for (const auto& [device, def] : parts) RETURN_IF_ERROR(AddPartition(device, def));
    RETURN_IF_ERROR(PairTransfers());
    program_.compress_s_per_byte = std::max(0.0, costs_.compress_s_per_byte);
    program_.decompress_s_per_byte = std::max(0.0, costs_.decompress_s_per_byte);
    program_.compress_curve_s = costs_.compress_curve_s;
    program_.decompress_curve_s = costs_.decompress_curve_s;
    return std::move(program_);
  }

 private:
  Status AddPartition(const std::string& device, const GraphDef& def) {
    SimPartition p;
    p.device = device;
    p.device_index = -1;
    for (size_t i = 0; i < devices_.size(); ++i)
      if (devices_[i].name == device) p.device_index = static_cast<int>(i);
    if (p.device_index < 0) return InvalidArgument("partition device '", device, "' is not in the device set");
    if (costs_.dispatch_s) p.dispatch_s = std::max(0.0, costs_.dispatch_s(device));
    if (costs_.completion_s) p.completion_s = std::max(0.0, costs_.completion_s(device));
    const int32_t pi = static_cast<int32_t>(program_.partitions.size());
    std::unordered_map<std::string, int32_t> index;
    for (const NodeDef& d : def.nodes) {
      index[d.name] = static_cast<int32_t>(p.nodes.size());
      p.nodes.push_back(MakeNode(d, devices_[p.device_index]));
      if (d.op == "_Send") ids_.sends[TransferKey(d)] = {pi, index[d.name]};
      if (d.op == "_Recv") ids_.recvs[TransferKey(d)] = {pi, index[d.name]};
    }
    for (const NodeDef& d : def.nodes) {
      const int32_t dst = index[d.name];
      for (const std::string& in : d.inputs) {
        if (in.empty()) continue;
        ASSIGN_OR_RETURN(TensorId id, ParseTensorId(in));
        auto it = index.find(id.node);
        if (it == index.end())
          return InvalidArgument("node '", d.name, "' on ", device, ": input '", in,
                                 "' names no node of its partition");
        p.nodes[it->second].succs.push_back(dst);
        ++p.nodes[dst].num_preds;
      }
    }
    program_.partitions.push_back(std::move(p));
    return Status::OK();
  }

  SimNode MakeNode(const NodeDef& d, const DeviceDesc& device) {
    SimNode n;
    n.name = d.name;
    n.op = d.op;
    n.kind = d.op == "_Send" ? SimNodeKind::kSend
             : d.op == "_Recv" ? SimNodeKind::kRecv
                               : SimNodeKind::kCompute;
    if (n.kind == SimNodeKind::kRecv &&
        (costs_.in_process_transfer_s > 0 || costs_.in_process_transfer_s_per_byte > 0) &&
        SameProcess(AttrString(d, "send_device"), AttrString(d, "recv_device")))
      n.compute_s = costs_.in_process_transfer_s;  // the per-byte part: PairTransfers
    const Node* gn = g_.FindNode(d.name);
    if (gn == nullptr || n.kind != SimNodeKind::kCompute) return n;
    n.compute_s = costs_.compute_s(*gn, device);
    for (int port = 0; port < gn->num_outputs(); ++port)
      n.output_bytes += std::max<int64_t>(0, costs_.output_bytes(*gn, port));
    return n;
  }

  // Bytes of the tensor "node:port" a transfer carries (0 for control transfers).
  StatusOr<std::pair<int64_t, bool>> TensorBytes(const std::string& tensor_name,
                                                 const std::string& where) {
    ASSIGN_OR_RETURN(TensorId id, ParseTensorId(tensor_name));
    const Node* src = g_.FindNode(id.node);
    if (src == nullptr || id.index < 0 || id.index >= src->num_outputs()) return std::pair<int64_t, bool>{0, false};
    const bool f32 = src->output_type(id.index) == DataType::kFloat;
    return std::pair<int64_t, bool>{std::max<int64_t>(0, costs_.output_bytes(*src, id.index)), f32};
  }

  Status PairTransfers() {
    for (const auto& [key, recv] : ids_.recvs) {
      auto s = ids_.sends.find(key);
      const SimNode& rn = program_.partitions[recv.first].nodes[recv.second];
      if (s == ids_.sends.end())
        return InvalidArgument("_Recv '", rn.name, "' has no matching _Send (", key, ")");
      SimTransfer t;
      t.src_partition = s->second.first;
      t.src_node = s->second.second;
      t.dst_partition = recv.first;
      t.dst_node = recv.second;
      const std::string tensor = key.substr(0, key.find('|'));
      ASSIGN_OR_RETURN(auto bytes, TensorBytes(tensor, rn.name));
      t.bytes = bytes.first;
      t.is_float32 = bytes.second;
      AddPerByteCost(program_.partitions[recv.first].nodes[recv.second], recv.first,
                     s->second.first, t.bytes);
      AddCurveCost(program_.partitions[recv.first].nodes[recv.second], recv.first,
                   s->second.first, &t);
      const SimNode& sn = program_.partitions[t.src_partition].nodes[t.src_node];
      if (costs_.transfer_s) t.measured_s = costs_.transfer_s(sn.name);
      const int32_t ti = static_cast<int32_t>(program_.transfers.size());
      program_.partitions[t.src_partition].nodes[t.src_node].transfer = ti;
      program_.partitions[t.dst_partition].nodes[t.dst_node].transfer = ti;
      program_.transfers.push_back(t);
    }
    return Status::OK();
  }

  // A _Recv from a device of its own process: the per-byte part of the in-process transfer cost
  // (its fixed part was set by MakeNode).
  void AddPerByteCost(SimNode& recv, int32_t dst_partition, int32_t src_partition, int64_t bytes) {
    if (costs_.in_process_transfer_s_per_byte <= 0) return;
    if (!SameProcess(program_.partitions[dst_partition].device,
                     program_.partitions[src_partition].device))
      return;
    const int64_t beyond = bytes - std::max<int64_t>(0, costs_.in_process_transfer_free_bytes);
    if (beyond > 0)
      recv.compute_s += costs_.in_process_transfer_s_per_byte * static_cast<double>(beyond);
  }

  // A _Recv from a device of its own process, with SimCosts::in_process_transfer_curve_s: the
  // curve at the tensor's bytes, and what --compression changes (half the bytes).
  void AddCurveCost(SimNode& recv, int32_t dst_partition, int32_t src_partition, SimTransfer* t) {
    const ByteCostCurve& curve = costs_.in_process_transfer_curve_s;
    if (curve.empty() || !SameProcess(program_.partitions[dst_partition].device,
                                      program_.partitions[src_partition].device))
      return;
    const double bytes = static_cast<double>(t->bytes);
    recv.compute_s += curve.At(bytes);
    t->compressed_recv_delta_s = curve.At(bytes / 2) - curve.At(bytes);
  }

  const Graph& g_;
  const DeviceSet& devices_;
  const SimCosts& costs_;
  SimProgram program_;
  SendRecvIds ids_;
};

}  // namespace

StatusOr<SimProgram> CompileProgram(const Graph& g, const std::map<std::string, GraphDef>& parts,
                                    const DeviceSet& devices, const SimCosts& costs) {
  Compiler c(g, devices, costs);
  return c.Run(parts);
}

}  // namespace fb::sim
