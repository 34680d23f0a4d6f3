// rowwise-bench's output.
#include "report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace rowwise_bench {
namespace {

constexpr int kOpWidth = 20;    // printed width of an op name

double mib(int64_t bytes) { return static_cast<double>(bytes) / kMiB; }

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::FILE* open_output(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "rowwise-bench: cannot write %s\n", path.c_str());
    std::exit(1);
  }
  return f;
}

bool measured(const Result& r) { return r.check != Check::kNotApplicable; }

// The rowwise result at a baseline's shape, computing what the baseline computes; null if none.
const Result* rowwise_peer(const Result& baseline, const std::vector<Result>& results) {
  const Case& b = baseline.c;
  for (const Result& r : results) {
    if (r.c.op == op_info(b.op).reference && r.c.dtype == b.dtype && r.c.rows == b.rows && r.c.cols == b.cols &&
        measured(r))
      return &r;
  }
  return nullptr;
}

}  // namespace

void print_header(const Device& dev, const Config& cfg) {
  std::printf("# %s | %d SMs | L2 %.1f MiB | copy %.1f GB/s (D2D %lld MiB, read + write) | iters %d",
              dev.name.c_str(), dev.sm_count, mib(dev.l2_bytes), dev.copy_gbps,
              static_cast<long long>(kCopyBytes / kMiB), cfg.iters);
  if (cfg.out_offset != 0) std::printf(" | outputs %d elements off", cfg.out_offset);
  if (cfg.graph_timing) std::printf(" | timed in CUDA graphs");
  if (cfg.programmatic_launch) std::printf(" | programmatic launches");
  std::printf("\n");
  std::printf("%-*s %-5s %10s %7s %-10s %9s %10s %8s %6s %-5s %s\n", kOpWidth, "op", "dtype", "rows", "cols",
              "strategy", "MiB", "time_us", "GB/s", "%copy", "check", "note");
}

void print_row(const Result& r, rowwise::Strategy strategy) {
  std::printf("%-*s %-5s %10lld %7lld %-10s %9.1f ", kOpWidth, op_name(r.c.op), dtype_name(r.c.dtype),
              static_cast<long long>(r.c.rows), static_cast<long long>(r.c.cols), strategy_label(r.c.op, strategy),
              mib(r.c.input_bytes()));
  if (r.check == Check::kNotApplicable) {
    std::printf("%10s %8s %6s %-5s", "-", "-", "-", check_name(r.check));
  } else {
    std::printf("%10.1f %8.1f %6.1f %-5s", r.time_us, r.gbps, r.pct_copy, check_name(r.check));
  }
  if (r.copies > 1) std::printf(" rotated x%d", r.copies);
  std::printf("\n");
  std::fflush(stdout);
}

void write_json(const std::string& path, const Device& dev, const Config& cfg, const std::vector<Result>& results) {
  std::FILE* f = open_output(path);
  std::fprintf(f, "{\n  \"device\": %s,\n  \"sm_count\": %d,\n  \"l2_bytes\": %lld,\n  \"copy_gbps\": %.3f,\n",
               json_string(dev.name).c_str(), dev.sm_count, static_cast<long long>(dev.l2_bytes), dev.copy_gbps);
  std::fprintf(f, "  \"iters\": %d,\n  \"out_offset\": %d,\n  \"timing\": \"%s\",\n  \"programmatic_launch\": %s,\n",
               cfg.iters, cfg.out_offset, cfg.graph_timing ? "graph" : "events", cfg.programmatic_launch ? "true" : "false");
  std::fprintf(f, "  \"results\": [");
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    const bool measured = r.check != Check::kNotApplicable;
    std::fprintf(f,
                 "%s\n    {\"op\": \"%s\", \"dtype\": \"%s\", \"rows\": %lld, \"cols\": %lld, \"strategy\": \"%s\", "
                 "\"mib\": %.3f, \"buffers\": %d, \"rotated\": %s, ",
                 i == 0 ? "" : ",", op_name(r.c.op), dtype_name(r.c.dtype), static_cast<long long>(r.c.rows),
                 static_cast<long long>(r.c.cols), strategy_label(r.c.op, cfg.strategy), mib(r.c.input_bytes()),
                 r.copies, r.copies > 1 ? "true" : "false");
    if (measured) {
      std::fprintf(f, "\"time_us\": %.3f, \"gbps\": %.3f, \"pct_copy\": %.3f, ", r.time_us, r.gbps, r.pct_copy);
    } else {
      std::fprintf(f, "\"time_us\": null, \"gbps\": null, \"pct_copy\": null, ");
    }
    std::fprintf(f, "\"check\": \"%s\"}", check_name(r.check));
  }
  std::fprintf(f, "\n  ]\n}\n");
  std::fclose(f);
}

void write_csv(const std::string& path, const Config& cfg, const std::vector<Result>& results) {
  std::FILE* f = open_output(path);
  std::fprintf(f, "op,dtype,rows,cols,strategy,mib,buffers,time_us,gbps,pct_copy,check\n");
  for (const Result& r : results) {
    std::fprintf(f, "%s,%s,%lld,%lld,%s,%.3f,%d,", op_name(r.c.op), dtype_name(r.c.dtype),
                 static_cast<long long>(r.c.rows), static_cast<long long>(r.c.cols),
                 strategy_label(r.c.op, cfg.strategy), mib(r.c.input_bytes()), r.copies);
    if (r.check == Check::kNotApplicable) {
      std::fprintf(f, ",,,");
    } else {
      std::fprintf(f, "%.3f,%.3f,%.3f,", r.time_us, r.gbps, r.pct_copy);
    }
    std::fprintf(f, "%s\n", check_name(r.check));
  }
  std::fclose(f);
}

void print_summary(const std::vector<Result>& results) {
  std::vector<std::pair<std::pair<Op, DType>, std::vector<double>>> groups;
  int not_applicable = 0;
  int failures = 0;
  for (const Result& r : results) {
    not_applicable += r.check == Check::kNotApplicable;
    failures += r.check == Check::kFail;
    const std::pair<Op, DType> key{r.c.op, r.c.dtype};
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (group == groups.end()) group = groups.emplace(groups.end(), key, std::vector<double>{});
    if (r.check != Check::kNotApplicable) group->second.push_back(r.pct_copy);
  }
  std::printf("\nsummary: %zu cases (%zu measured, %d n/a), %d failures\n", results.size(),
              results.size() - not_applicable, not_applicable, failures);
  for (const auto& [key, pcts] : groups) {
    std::printf("  %-*s %-5s ", kOpWidth, op_name(key.first), dtype_name(key.second));
    if (pcts.empty()) {
      std::printf("%%copy n/a\n");
    } else {
      std::printf("%%copy min %5.1f  median %5.1f  (%zu cases)\n", *std::min_element(pcts.begin(), pcts.end()),
                  median(pcts), pcts.size());
    }
  }
  for (const Result& r : results) {
    if (r.check == Check::kFail)
      std::printf("  FAIL %s %s %lldx%lld\n", op_name(r.c.op), dtype_name(r.c.dtype), static_cast<long long>(r.c.rows),
                  static_cast<long long>(r.c.cols));
  }
}

void print_seed_comparison(const std::vector<Result>& results) {
  bool header = false;
  for (const Result& b : results) {
    const Result* peer = op_info(b.c.op).baseline && measured(b) ? rowwise_peer(b, results) : nullptr;
    if (peer == nullptr) continue;
    if (!header) {
      std::printf("\nseed baselines vs rowwise (speed-up = baseline time / rowwise time)\n");
      std::printf("  %-16s %-*s %-5s %10s %7s %12s %12s %8s\n", "baseline", kOpWidth, "rowwise", "dtype", "rows",
                  "cols", "baseline_us", "rowwise_us", "speed-up");
      header = true;
    }
    std::printf("  %-16s %-*s %-5s %10lld %7lld %12.1f %12.1f %7.2fx\n", op_name(b.c.op), kOpWidth,
                op_name(peer->c.op), dtype_name(b.c.dtype), static_cast<long long>(b.c.rows),
                static_cast<long long>(b.c.cols), b.time_us, peer->time_us, b.time_us / peer->time_us);
  }
}

}  // namespace rowwise_bench
