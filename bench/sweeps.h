// The cases a run measures: the seed shapes, the cols sweep, the quick sweep and the long-row sweep,
// narrowed or replaced by the command line's --ops, --dtypes, --cols and --rows.
#pragma once
#include <vector>

#include "bench_cases.h"

namespace rowwise_bench {

std::vector<Case> build_cases(const Config& cfg);

}  // namespace rowwise_bench
