#pragma once
// One check every reader of a user-named input file runs before opening it, so that a directory
// or a missing path gets a message naming the flag's file instead of a parser's confusing
// complaint about its content (a directory reads as an empty file with std::ifstream, and
// nlohmann-json and yaml-cpp then report a syntax error or throw std::ios_base::failure).
#include <string>

#include "engine/framework/status.h"

namespace fb {

// OK when `path` exists and is not a directory (regular files, and also FIFOs and character
// devices such as /dev/stdin, which readers may stream). Otherwise NotFound
// "<what> '<path>' does not exist" or InvalidArgument "<what> '<path>' is a directory, expected a
// file" (`what` names the kind of file, e.g. "graph file", "sweep spec"); the path is quoted
// through EchoInput. Thread-safe.
Status CheckInputFile(const std::string& path, const std::string& what);

}  // namespace fb
