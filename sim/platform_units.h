#pragma once
// SimGrid's quantities with units, as its XML parser reads them (SimGrid 3.32,
// xbt_parse_get_{speed,bandwidth,time,size}), so that flowbench can check a platform's values
// before SimGrid sees them (a zero bandwidth aborts inside SimGrid; sim/platform_validation.h).
//
//   speed      f (FLOP/s) with k M G T P E Z Y prefixes; flops with kilo mega giga ...
//   bandwidth  Bps (bytes/s) or bps (bits/s), with k M G ... (x1000) or Ki Mi Gi ... (x1024)
//   time       w d h m s ms us ns ps
//   size       B (bytes) or b (bits), prefixes as for bandwidth
//
// A value without unit is read in the base unit (f, Bps, s, B), as SimGrid does.
#include <string>
#include <string_view>

#include "engine/framework/status.h"

namespace fb::sim {

enum class Quantity { kSpeed, kBandwidth, kTime, kSize };

// The value of `text` in base units (FLOP/s, bytes/s, seconds, bytes). InvalidArgument (saying
// what was expected, not naming a file: callers add where the text came from) for an empty
// text, no number, an unknown unit, or a non-finite result (nan, inf, overflow).
StatusOr<double> ParseQuantity(std::string_view text, Quantity kind);

// The quantity's name in messages ("speed", "bandwidth", "time", "size").
const char* QuantityName(Quantity kind);

}  // namespace fb::sim
