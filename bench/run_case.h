// Running one case: its buffers (rotated copies where small), inputs, the timed launches of rowwise's op or
// a seed baseline, and the check of sampled rows against the float64 reference.
#pragma once
#include <cstdint>

#include "bench_cases.h"

namespace rowwise_bench {

// A case's result; check n/a where a forced strategy or a seed baseline does not take the shape.
Result run_case(const Case& c, const Config& cfg, const Device& dev, uint64_t seed);

}  // namespace rowwise_bench
