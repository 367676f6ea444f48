#pragma once
// Size-dependent kernel efficiency of the analytic cost model (issue 17 item 3): the rate an op
// type's kernels reach as a function of the work of one execution. On this machine a 3 MFLOP
// Conv2D runs at 31 GFLOP/s and a 10 GFLOP one at 350 GFLOP/s (oneDNN's blocking and threading
// overheads amortised), a 30 kB Relu at 10 GB/s and a 3 MB one at 25 GB/s; one rate per op type
// fitted on LeNet's small kernels over-predicted the convnets by up to 7.5x.
//
// A curve is a list of knots (work, rate) with work strictly increasing, written in a platform
// host property as "W1:R1 W2:R2 ..." (e.g. <prop id="op_flops_per_s:Conv2D"
// value="3e+06:3.1e+10 1e+08:1.8e+11 1e+10:3.5e+11"/>): work in FLOPs (op_flops_per_s:OP) or
// bytes accessed (op_bytes_per_s:OP) per execution, rate in FLOP/s or bytes/s. Between knots the
// rate is interpolated linearly in log(work)-log(rate); outside, it is the nearest knot's (a
// saturating efficiency: no extrapolated gains beyond what was measured).
#include <string>
#include <utility>
#include <vector>

#include "engine/framework/status.h"

namespace fb::sim {

struct OpRateCurve {
  std::vector<std::pair<double, double>> knots;  // (work, rate), work increasing

  // The rate at `work` (> 0) as above; 0 for an empty curve.
  double RateAt(double work) const;
};

// Parses "W1:R1 W2:R2 ..." (knots separated by spaces). InvalidArgument naming `host` and
// `property` when a knot is not two finite numbers > 0 separated by ':', the work does not
// increase strictly, or there is no knot.
StatusOr<OpRateCurve> ParseOpRateCurve(const std::string& value, const std::string& host,
                                       const std::string& property);

// The property value ParseOpRateCurve reads (4 significant digits).
std::string FormatOpRateCurve(const OpRateCurve& c);

}  // namespace fb::sim
