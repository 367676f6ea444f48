#include "mpi/mpi_transport.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "mpi/mpi_status.h"

namespace fb::mpi {

namespace {

constexpr int64_t kDefaultChunkBytes = 64ll << 20;

// Little byte writer/reader for headers.
void Put(std::string* out, const void* p, size_t n) { out->append(static_cast<const char*>(p), n); }
template <typename T>
void Put(std::string* out, T v) { Put(out, &v, sizeof(T)); }
template <typename T>
bool Get(const std::string& in, size_t* pos, T* v) {
  if (*pos + sizeof(T) > in.size()) return false;
  std::memcpy(v, in.data() + *pos, sizeof(T));
  *pos += sizeof(T);
  return true;
}

struct Header {
  int64_t step_id = 0;
  int32_t dtype = 0;
  int32_t is_dead = 0;
  int32_t payload_tag = 0;
  int64_t payload_bytes = 0;
  int64_t num_chunks = 0;
  int64_t chunk_bytes = 0;
  std::vector<int64_t> dims;
  std::string key;
};

std::string EncodeHeader(const Header& h) {
  std::string out;
  Put(&out, h.step_id);
  Put(&out, h.dtype);
  Put(&out, h.is_dead);
  Put(&out, h.payload_tag);
  Put(&out, h.payload_bytes);
  Put(&out, h.num_chunks);
  Put(&out, h.chunk_bytes);
  Put(&out, static_cast<int32_t>(h.dims.size()));
  for (int64_t d : h.dims) Put(&out, d);
  Put(&out, static_cast<int32_t>(h.key.size()));
  out += h.key;
  return out;
}

bool DecodeHeader(const std::string& in, Header* h) {
  size_t pos = 0;
  int32_t rank = 0, key_len = 0;
  if (!Get(in, &pos, &h->step_id) || !Get(in, &pos, &h->dtype) || !Get(in, &pos, &h->is_dead) ||
      !Get(in, &pos, &h->payload_tag) || !Get(in, &pos, &h->payload_bytes) ||
      !Get(in, &pos, &h->num_chunks) || !Get(in, &pos, &h->chunk_bytes) ||
      !Get(in, &pos, &rank) || rank < 0 || rank > 64 || h->chunk_bytes <= 0)
    return false;
  h->dims.resize(rank);
  for (auto& d : h->dims)
    if (!Get(in, &pos, &d) || d < 0) return false;
  if (!Get(in, &pos, &key_len) || key_len < 0 || pos + key_len != in.size()) return false;
  h->key = in.substr(pos, key_len);
  return true;
}

}  // namespace

std::string SerializeStrings(const Tensor& t) {
  std::string out;
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    Put(&out, static_cast<uint64_t>(s[i].size()));
    out += s[i];
  }
  return out;
}

Status DeserializeStrings(const std::string& bytes, Tensor* t) {
  size_t pos = 0;
  std::string* s = t->data<std::string>();
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    uint64_t len = 0;
    if (!Get(bytes, &pos, &len) || pos + len > bytes.size())
      return DataLoss("string tensor payload is truncated at element ", i);
    s[i] = bytes.substr(pos, len);
    pos += len;
  }
  return Status::OK();
}

struct MpiTransport::Impl {
  struct Op {  // one message in flight, send or receive
    std::vector<MPI_Request> requests;
    std::string header, strings;  // buffers that must outlive the requests
    Tensor tensor;
    SendDone done;             // sends
    bool is_recv = false;      // receives:
    int64_t step_id = 0;
    std::string key;
    bool is_dead = false;
  };
  struct PendingSend {
    int dst;
    int64_t step_id;
    std::string key;
    Tensor tensor;
    bool is_dead;
    SendDone done;
  };
  struct Arrival {
    std::string key;
    Tensor value;
    bool is_dead;
  };

  std::mutex mu;
  std::deque<PendingSend> queue;
  std::map<int64_t, Sink> sinks;
  std::map<int64_t, std::vector<Arrival>> buffered;
  std::vector<std::unique_ptr<Op>> ops;  // progress thread only
  std::map<int, int> next_tag;            // progress thread only
  int tag_ub = 32767;
  std::atomic<int64_t> chunk_bytes{kDefaultChunkBytes};
  std::atomic<int64_t> bytes_sent{0}, bytes_received{0};
  std::atomic<bool> stop{false};
  std::thread thread;

  int NextTag(int dst) {
    int& t = next_tag[dst];
    if (t < kFirstPayloadTag || t >= tag_ub) t = kFirstPayloadTag;
    return t++;
  }

  void PostChunks(Op* op, char* data, int64_t bytes, int64_t chunk, int peer, int tag, bool send) {
    for (int64_t off = 0; off < bytes; off += chunk) {
      int n = static_cast<int>(std::min(chunk, bytes - off));
      MPI_Request r;
      int rc = send ? MPI_Isend(data + off, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r)
                    : MPI_Irecv(data + off, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
      if (rc != MPI_SUCCESS) {
        spdlog::error("flowbench mpi: {}", MpiStatus(rc, send ? "MPI_Isend" : "MPI_Irecv").ToString());
        continue;
      }
      op->requests.push_back(r);
    }
  }

  void StartSend(PendingSend p) {
    auto op = std::make_unique<Op>();
    op->tensor = p.tensor;
    op->done = std::move(p.done);
    Header h;
    h.step_id = p.step_id;
    h.is_dead = p.is_dead;
    h.key = p.key;
    char* data = nullptr;
    if (!p.is_dead && p.tensor.IsInitialized()) {
      h.dtype = static_cast<int32_t>(p.tensor.dtype());
      h.dims = p.tensor.shape().dim_sizes();
      if (p.tensor.dtype() == DataType::kString) {
        op->strings = SerializeStrings(p.tensor);
        data = op->strings.data();
        h.payload_bytes = op->strings.size();
      } else {
        data = static_cast<char*>(p.tensor.raw_data());
        h.payload_bytes = p.tensor.ByteSize();
      }
    }
    int64_t chunk = chunk_bytes.load();
    h.chunk_bytes = chunk;
    h.num_chunks = (h.payload_bytes + chunk - 1) / chunk;
    h.payload_tag = NextTag(p.dst);
    op->header = EncodeHeader(h);
    MPI_Request r;
    int rc = MPI_Isend(op->header.data(), static_cast<int>(op->header.size()), MPI_BYTE, p.dst,
                       kHeaderTag, MPI_COMM_WORLD, &r);
    if (rc != MPI_SUCCESS) {
      op->done(MpiStatus(rc, "MPI_Isend (header)").WithPrefix("send to rank " + std::to_string(p.dst) + ": "));
      return;
    }
    op->requests.push_back(r);
    PostChunks(op.get(), data, h.payload_bytes, chunk, p.dst, h.payload_tag, true);
    bytes_sent += h.payload_bytes;
    ops.push_back(std::move(op));
  }

  bool ProbeHeader() {
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    if (MPI_Improbe(MPI_ANY_SOURCE, kHeaderTag, MPI_COMM_WORLD, &flag, &msg, &st) != MPI_SUCCESS ||
        !flag)
      return false;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    std::string buf(count, '\0');
    MPI_Mrecv(buf.data(), count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    Header h;
    if (!DecodeHeader(buf, &h)) {
      spdlog::error("flowbench mpi: malformed header from rank {}", st.MPI_SOURCE);
      return true;
    }
    auto op = std::make_unique<Op>();
    op->is_recv = true;
    op->step_id = h.step_id;
    op->key = h.key;
    op->is_dead = h.is_dead;
    char* data = nullptr;
    if (!h.is_dead) {
      DataType dt = static_cast<DataType>(h.dtype);
      op->tensor = Tensor(dt, TensorShape(h.dims));
      if (dt == DataType::kString) {
        op->strings.resize(h.payload_bytes);
        data = op->strings.data();
      } else {
        data = static_cast<char*>(op->tensor.raw_data());
      }
    }
    PostChunks(op.get(), data, h.payload_bytes, h.chunk_bytes, st.MPI_SOURCE, h.payload_tag, false);
    bytes_received += h.payload_bytes;
    ops.push_back(std::move(op));
    return true;
  }

  void Deliver(Op* op) {
    if (!op->is_dead && op->tensor.dtype() == DataType::kString) {
      Status s = DeserializeStrings(op->strings, &op->tensor);
      if (!s.ok()) spdlog::error("flowbench mpi: key {}: {}", op->key, s.ToString());
    }
    Sink sink;
    {
      std::lock_guard<std::mutex> l(mu);
      auto it = sinks.find(op->step_id);
      if (it == sinks.end()) {
        buffered[op->step_id].push_back({op->key, op->tensor, op->is_dead});
        return;
      }
      sink = it->second;
    }
    sink(op->key, op->tensor, op->is_dead);
  }

  bool TestOps() {
    bool progress = false;
    for (size_t i = 0; i < ops.size();) {
      Op* op = ops[i].get();
      int flag = 1;
      if (!op->requests.empty())
        MPI_Testall(static_cast<int>(op->requests.size()), op->requests.data(), &flag,
                    MPI_STATUSES_IGNORE);
      if (!flag) {
        ++i;
        continue;
      }
      progress = true;
      if (op->is_recv) Deliver(op); else op->done(Status::OK());
      ops[i] = std::move(ops.back());
      ops.pop_back();
    }
    return progress;
  }

  void Loop() {
    int idle = 0;
    for (;;) {
      std::deque<PendingSend> sends;
      {
        std::lock_guard<std::mutex> l(mu);
        sends.swap(queue);
      }
      bool progress = !sends.empty();
      for (auto& p : sends) StartSend(std::move(p));
      while (ProbeHeader()) progress = true;
      progress = TestOps() || progress;
      if (stop.load() && ops.empty()) {
        std::lock_guard<std::mutex> l(mu);
        if (queue.empty()) return;
      }
      if (progress) {
        idle = 0;
      } else if (++idle > 200) {
        std::this_thread::sleep_for(std::chrono::microseconds(idle > 5000 ? 200 : 20));
      }
    }
  }
};

MpiTransport::MpiTransport() : impl_(std::make_unique<Impl>()) {
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && ub) impl_->tag_ub = *ub;
  impl_->thread = std::thread([this] { impl_->Loop(); });
}

MpiTransport::~MpiTransport() { Shutdown(); }

MpiTransport* MpiTransport::Get() {
  static MpiTransport* t = new MpiTransport;
  return t;
}

void MpiTransport::Send(int dst, int64_t step_id, const std::string& key, const Tensor& value,
                        bool is_dead, SendDone done) {
  std::lock_guard<std::mutex> l(impl_->mu);
  impl_->queue.push_back({dst, step_id, key, value, is_dead, std::move(done)});
}

void MpiTransport::RegisterStep(int64_t step_id, Sink sink) {
  std::vector<Impl::Arrival> early;
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    impl_->sinks[step_id] = sink;
    auto it = impl_->buffered.find(step_id);
    if (it != impl_->buffered.end()) {
      early = std::move(it->second);
      impl_->buffered.erase(it);
    }
  }
  for (auto& a : early) sink(a.key, a.value, a.is_dead);
}

void MpiTransport::UnregisterStep(int64_t step_id) {
  std::lock_guard<std::mutex> l(impl_->mu);
  impl_->sinks.erase(step_id);
}

void MpiTransport::Shutdown() {
  if (!impl_->thread.joinable()) return;
  impl_->stop = true;
  impl_->thread.join();
}

void MpiTransport::set_chunk_bytes(int64_t bytes) { impl_->chunk_bytes = std::max<int64_t>(1, bytes); }
int64_t MpiTransport::bytes_sent() const { return impl_->bytes_sent.load(); }
int64_t MpiTransport::bytes_received() const { return impl_->bytes_received.load(); }

}  // namespace fb::mpi
