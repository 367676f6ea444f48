#include "sim/mpi_protocol.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace fb::sim {

MessagePhases SplitMessage(int64_t bytes, int64_t eager_limit) {
  MessagePhases m;
  m.first = std::max<int64_t>(0, bytes);
  if (eager_limit <= 0) return m;
  const int64_t eager_bytes = std::max<int64_t>(1, eager_limit - kOb1HeaderBytes);
  if (m.first > eager_bytes) {
    m.rest = m.first - eager_bytes;
    m.first = eager_bytes;
  }
  return m;
}

namespace {

// A whole number of bytes in [0, kMaxEagerLimitBytes], or -1 for anything else.
int64_t ParseBytes(const std::string& text) {
  if (text.empty() || text.size() > 19 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), nullptr, 10);
  return errno == ERANGE || v > kMaxEagerLimitBytes ? -1 : static_cast<int64_t>(v);
}

}  // namespace

Status CheckEagerLimitFlag(int64_t bytes) {
  if (bytes != kEagerLimitFromPlatform && (bytes < 0 || bytes > kMaxEagerLimitBytes))
    return InvalidArgument("--mpi-eager-limit must be 'platform' or 0 to ", kMaxEagerLimitBytes,
                           " bytes (0: no rendezvous), got ", bytes);
  return Status::OK();
}

StatusOr<int64_t> ParseEagerLimitFlag(const std::string& text) {
  if (text == "platform") return kEagerLimitFromPlatform;
  const int64_t v = ParseBytes(text);
  if (v < 0)
    return InvalidArgument("--mpi-eager-limit must be 'platform' or a whole number of bytes from ",
                           "0 (no rendezvous) to ", kMaxEagerLimitBytes, ", got '", text, "'");
  return v;
}

StatusOr<int64_t> ParseLinkEagerLimit(const std::string& link, const char* value) {
  if (value == nullptr) return int64_t{-1};
  const int64_t v = ParseBytes(value);
  if (v < 0)
    return InvalidArgument("link '", link, "': property mpi_eager_limit must be a whole number of ",
                           "bytes from 0 (no rendezvous) to ", kMaxEagerLimitBytes, ", got '",
                           value, "'");
  return v;
}

}  // namespace fb::sim
