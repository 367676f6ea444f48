#include "engine/trace/trace_serialization.h"

#include <cstring>
#include <type_traits>

namespace fb {
namespace {

class Writer {
 public:
  void Int(int64_t v) { Raw(&v, sizeof v); }
  void Str(const std::string& s) {
    Int(static_cast<int64_t>(s.size()));
    out_.append(s);
  }
  template <typename T>
  void Vec(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    Int(static_cast<int64_t>(v.size()));
    if (!v.empty()) Raw(v.data(), v.size() * sizeof(T));
  }
  std::string Take() { return std::move(out_); }

 private:
  void Raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  bool Int(int64_t* v) { return Raw(v, sizeof *v); }
  bool Str(std::string* s) {
    int64_t n = 0;
    if (!Int(&n) || n < 0 || static_cast<uint64_t>(n) > in_.size() - pos_) return false;
    s->assign(in_, pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }
  template <typename T>
  bool Vec(std::vector<T>* v) {
    int64_t n = 0;
    if (!Int(&n) || n < 0 || static_cast<uint64_t>(n) > (in_.size() - pos_) / sizeof(T))
      return false;
    v->resize(static_cast<size_t>(n));
    return n == 0 || Raw(v->data(), static_cast<size_t>(n) * sizeof(T));
  }
  bool AtEnd() const { return pos_ == in_.size(); }

 private:
  bool Raw(void* p, size_t n) {
    if (n > in_.size() - pos_) return false;
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  const std::string& in_;
  size_t pos_ = 0;
};

}  // namespace

std::string SerializeTrace(const Trace& t) {
  Writer w;
  w.Int(t.schema_version);
  w.Str(t.clock);
  w.Int(static_cast<int64_t>(t.metadata.mode));
  w.Int(t.metadata.seed);
  w.Str(t.metadata.git_revision);
  w.Str(t.metadata.command_line);
  w.Str(t.metadata.host);
  w.Str(t.metadata.config_json);
  w.Int(static_cast<int64_t>(t.strings.size()));
  for (const std::string& s : t.strings) w.Str(s);
  w.Vec(t.devices);
  w.Vec(t.ops);
  w.Vec(t.edges);
  w.Vec(t.events);
  w.Vec(t.steps);
  w.Vec(t.memory);
  w.Vec(t.metrics);
  return w.Take();
}

Status DeserializeTrace(const std::string& bytes, Trace* t) {
  Reader r(bytes);
  int64_t mode = 0, num_strings = 0;
  bool ok = r.Int(&t->schema_version) && r.Str(&t->clock) && r.Int(&mode) &&
            r.Int(&t->metadata.seed) && r.Str(&t->metadata.git_revision) &&
            r.Str(&t->metadata.command_line) && r.Str(&t->metadata.host) &&
            r.Str(&t->metadata.config_json) && r.Int(&num_strings) && num_strings >= 0 &&
            static_cast<uint64_t>(num_strings) <= bytes.size() / sizeof(int64_t);
  t->metadata.mode = mode == static_cast<int64_t>(TraceMode::kSim) ? TraceMode::kSim
                                                                    : TraceMode::kReal;
  if (ok) t->strings.resize(static_cast<size_t>(num_strings));
  for (int64_t i = 0; ok && i < num_strings; ++i) ok = r.Str(&t->strings[static_cast<size_t>(i)]);
  ok = ok && r.Vec(&t->devices) && r.Vec(&t->ops) && r.Vec(&t->edges) && r.Vec(&t->events) &&
       r.Vec(&t->steps) && r.Vec(&t->memory) && r.Vec(&t->metrics) && r.AtEnd();
  if (!ok)
    return DataLoss(t->path, ": the trace read in the child process came back incomplete (",
                    bytes.size(), " bytes)");
  return Status::OK();
}

}  // namespace fb
