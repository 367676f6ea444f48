#include "engine/framework/echo_input.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace fb {

namespace {

void AppendEscaped(std::string_view s, std::string* out) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      *out += "\\n";
    } else if (c == '\t') {
      *out += "\\t";
    } else if (c == '\r') {
      *out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      *out += buf;
    } else {
      *out += c;
    }
  }
}

bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Escaped size of s[begin, end), stopping once it exceeds `limit`.
size_t EscapedSize(std::string_view s, size_t limit) {
  size_t n = 0;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    n += (c == '\n' || c == '\t' || c == '\r') ? 2 : (u < 0x20 || u == 0x7f) ? 4 : 1;
    if (n > limit) break;
  }
  return n;
}

constexpr int kMaxEchoDepth = 8;

// `s` as a JSON string literal, cut to `budget` bytes first (dumping a 10 MB string would copy
// it whole); invalid UTF-8 is replaced rather than thrown on.
std::string DumpString(const std::string& s, size_t budget) {
  return nlohmann::json(s.size() > budget ? s.substr(0, budget) : s)
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Writes j compactly into *out until out->size() reaches `budget`.
void EchoJsonInto(const nlohmann::json& j, int depth, size_t budget, std::string* out) {
  if (out->size() >= budget) return;
  if (j.is_array() || j.is_object()) {
    bool is_array = j.is_array();
    if (j.empty() || depth >= kMaxEchoDepth) {
      *out += is_array ? (j.empty() ? "[]" : "[...]") : (j.empty() ? "{}" : "{...}");
      return;
    }
    *out += is_array ? '[' : '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (out->size() >= budget) return;
      if (!first) *out += ',';
      first = false;
      if (!is_array) {
        *out += DumpString(it.key(), budget) + ':';
      }
      EchoJsonInto(it.value(), depth + 1, budget, out);
    }
    *out += is_array ? ']' : '}';
    return;
  }
  if (j.is_string()) {
    *out += DumpString(j.get_ref<const std::string&>(), budget);
    return;
  }
  *out += j.dump();
}

}  // namespace

std::string EchoInput(std::string_view s, size_t max_bytes) {
  std::string out;
  if (EscapedSize(s, max_bytes) <= max_bytes) {
    AppendEscaped(s, &out);
    return out;
  }
  // Head and tail of about (max_bytes - 30) / 2 escaped bytes each: the marker takes the rest.
  size_t each = max_bytes > 60 ? (max_bytes - 30) / 2 : std::max<size_t>(max_bytes / 2, 1);
  size_t head_end = 0;
  for (size_t used = 0; head_end < s.size(); ++head_end) {
    used += EscapedSize(s.substr(head_end, 1), 4);
    if (used > each) break;
  }
  while (head_end > 0 && IsUtf8Continuation(s[head_end])) --head_end;
  size_t tail_begin = s.size();
  for (size_t used = 0; tail_begin > head_end; --tail_begin) {
    used += EscapedSize(s.substr(tail_begin - 1, 1), 4);
    if (used > each) break;
  }
  while (tail_begin < s.size() && IsUtf8Continuation(s[tail_begin])) ++tail_begin;
  AppendEscaped(s.substr(0, head_end), &out);
  out += "...(" + std::to_string(s.size()) + " bytes)...";
  AppendEscaped(s.substr(tail_begin), &out);
  return out;
}

std::string EchoJson(const nlohmann::json& j, size_t max_bytes) {
  if (j.is_string()) return "\"" + EchoInput(j.get_ref<const std::string&>(), max_bytes) + "\"";
  std::string out;
  EchoJsonInto(j, 0, max_bytes + 1, &out);
  if (out.size() <= max_bytes) return EchoInput(out, max_bytes);
  // Only a prefix was serialized: its length says nothing about the value's, so no byte count.
  size_t keep = max_bytes > 20 ? max_bytes - 16 : max_bytes;
  while (keep > 0 && IsUtf8Continuation(out[keep])) --keep;
  std::string head;
  AppendEscaped(std::string_view(out).substr(0, keep), &head);
  return head + "...(truncated)";
}

Status CapMessage(const Status& s, size_t max_bytes) {
  if (s.ok() || s.message().size() <= max_bytes) return s;
  return Status(s.code(), EchoInput(s.message(), max_bytes));
}

}  // namespace fb
