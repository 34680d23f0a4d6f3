// rowwise-bench's output: the table on stdout as cases run, the seed baselines beside rowwise, a summary,
// and the results as JSON or CSV.
#pragma once
#include <string>
#include <vector>

#include "bench_cases.h"

namespace rowwise_bench {

void print_header(const Device& dev, const Config& cfg);
void print_row(const Result& r, rowwise::Strategy strategy);
// Each measured seed baseline beside its rowwise peer (the seeds' tables).
void print_seed_comparison(const std::vector<Result>& results);
// Case counts, min / median %copy per (op, dtype) in order of appearance, and the failed cases.
void print_summary(const std::vector<Result>& results);
void write_json(const std::string& path, const Device& dev, const Config& cfg, const std::vector<Result>& results);
void write_csv(const std::string& path, const Config& cfg, const std::vector<Result>& results);

}  // namespace rowwise_bench
