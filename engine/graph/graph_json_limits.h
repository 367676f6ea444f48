#pragma once
// Limits of the GraphDef JSON reader (engine/graph/node_def.h, docs/graph-format.md).

namespace fb {

// Graph files nesting JSON deeper than this many levels are rejected while they are parsed
// (a well-formed graph nests about 8 deep), so nothing recursive (json::dump, the reader's
// own conversions) ever sees a deeper document.
inline constexpr int kMaxGraphJsonDepth = 64;

}  // namespace fb
