#pragma once
// Lossy compression of cross-device transfers (whitepaper 5.5: "when sending data between
// devices ... we convert the 32-bit floating point representations into a 16-bit floating
// point representation (not the proposed IEEE 16-bit floating point standard, but rather just a
// 32-bit IEEE 794 float format, but with 16 bits less precision in the mantissa), and then
// convert back to a 32-bit representation on the other side of the communication channel (by
// just filling in zeroes for the lost portion of the mantissa)"). Runs after placement: every
// float32 data edge between two devices gets a _CompressFloat32 on the producer's device (one
// per tensor) and a _DecompressFloat32 on the consumer's device (one per tensor and destination
// device), so the transfer carries half the bytes.
// Registered as "compression" (round to nearest even: relative error <= 2^-8) and
// "compression_truncate" (the paper's truncation: relative error < 2^-7).
#include "engine/passes/graph_pass.h"

namespace fb {

// Rewrites `g` (whose nodes must have assigned devices); the report lists each compressed
// tensor and destination. Edges whose devices lack the conversion kernels are left alone.
StatusOr<PassReport> CompressCrossDeviceTransfers(Graph* g, bool truncate);

}  // namespace fb
