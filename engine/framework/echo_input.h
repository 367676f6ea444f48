#pragma once
// Bounded echoes of untrusted input in error messages. A graph file can hold a 10 MB op name or
// a 100,000-level nested attr; messages must still fit on a line. Everything that quotes input
// back to the user (node names, op types, attr names and values, device strings) goes through
// EchoInput / EchoJson, and the graph reader caps the whole message with CapMessage.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "engine/framework/status.h"

namespace fb {

// Default bound (bytes) for one echoed piece of input.
inline constexpr size_t kMaxEchoBytes = 120;
// Default bound (bytes) for a whole Status message built from input.
inline constexpr size_t kMaxMessageBytes = 1024;

// `s` with control characters (bytes < 0x20 and 0x7f) escaped as \n, \t, \r or \xNN; when the
// result would be longer than `max_bytes`, keeps its head and tail and puts
// "...(N bytes)..." in the middle (N: the size of the original input). Never splits a UTF-8
// sequence. The result is at most max_bytes + 40 bytes long.
std::string EchoInput(std::string_view s, size_t max_bytes = kMaxEchoBytes);

// A JSON value serialized for a message: compact, nesting below 8 levels shown as "[...]" or
// "{...}", then bounded as EchoInput. Iterates at most O(max_bytes) elements and never recurses
// deeper than 8, so it is safe on arbitrarily large or deep documents.
std::string EchoJson(const nlohmann::json& j, size_t max_bytes = kMaxEchoBytes);

// `s` with its message bounded as EchoInput(message, max_bytes) (same code); OK stays OK.
// The last line of defence for messages that quote input.
Status CapMessage(const Status& s, size_t max_bytes = kMaxMessageBytes);

}  // namespace fb
