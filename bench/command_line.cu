// rowwise-bench's command line.
#include "command_line.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

namespace rowwise_bench {
namespace {

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: rowwise-bench [flags]\n"
               "  --sweep NAME       all (seed, then cols; default), seed (seed baselines beside rowwise),\n"
               "                     cols (every rowwise op), quick (softmax), long (rows longer than a CTA\n"
               "                     holds: decode batches, millions of columns, whole tensors)\n"
               "  --ops LIST         replaces the sweep's ops: softmax, log_softmax, softmax_backward,\n"
               "                     log_softmax_backward, absmax_scale, absmax_int8, absmax_fp8,\n"
               "                     tensor_softmax, tensor_log_softmax (long sweep), and the\n"
               "                     seed baselines cub_absmax_scale, ft_softmax (cols <= 1024)\n"
               "  --dtypes LIST      fp32,bf16,fp16,fp64 (replaces the sweep's dtypes)\n"
               "  --cols LIST        column counts (replaces the sweep's; filters the seed shapes)\n"
               "  --rows N           fixed rows for every case (no sizing)\n"
               "  --strategy S       auto, warp, block, cluster, block_smem, split, two_launch, two_pass,\n"
               "                     tile (cases it does not fit: n/a)\n"
               "  --iters N          timed launches per case, median reported (default 30)\n"
               "  --min-bytes B      input bytes of a quick-sweep case (default 256M)\n"
               "  --sweep-bytes B    input bytes of a cols-sweep case (default 1G)\n"
               "  --fp64             add fp64 to the cols sweep's dtypes\n"
               "  --out-offset E     outputs start E elements (1-15) past their buffers' alignment, inputs\n"
               "                     on it (the seed baselines: n/a)\n"
               "  --timing T         events (default: each launch between its own pair of events) or\n"
               "                     graph (the case's launches captured in a CUDA graph, a replay timed\n"
               "                     and divided by its launches)\n"
               "  --pdl              launch rowwise's long-row kernels programmatically (each may start\n"
               "                     while the one before it runs; most useful with --timing graph)\n"
               "  --json FILE        write results as JSON\n"
               "  --csv FILE         write results as CSV\n"
               "  --help             this text\n"
               "B takes a K, M or G suffix (binary). Exit: 0 ok, 1 failure, 2 no CUDA device.\n");
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t end; (end = s.find(sep, begin)) != std::string::npos; begin = end + 1) parts.push_back(s.substr(begin, end - begin));
  parts.push_back(s.substr(begin));
  return parts;
}

// A positive integer; with allow_size_suffix, optionally followed by K, M or G (KiB, MiB, GiB).
int64_t parse_positive(const std::string& flag, const std::string& text, bool allow_size_suffix) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  int64_t scale = 1;
  const std::string suffix(end);
  if (allow_size_suffix && !suffix.empty()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    const std::string rest = suffix.substr(1);
    const int shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : -1;
    if (shift < 0 || !(rest.empty() || rest == "iB" || rest == "B")) usage_error(flag + ": bad size '" + text + "'");
    scale = int64_t{1} << shift;
  } else if (!suffix.empty()) {
    usage_error(flag + ": bad number '" + text + "'");
  }
  if (end == text.c_str() || errno != 0 || v <= 0 || v > INT64_MAX / scale) usage_error(flag + ": bad value '" + text + "'");
  return v * scale;
}

Op parse_op(const std::string& s) {
  for (size_t i = 0; i < std::size(kOpInfo); ++i) {
    if (s == kOpInfo[i].name) return static_cast<Op>(i);
  }
  usage_error("unknown op '" + s + "'");
}

DType parse_dtype(const std::string& s) {
  for (DType d : {DType::kFp32, DType::kFp64, DType::kFp16, DType::kBf16}) {
    if (s == dtype_name(d)) return d;
  }
  usage_error("unknown dtype '" + s + "'");
}

rowwise::Strategy parse_strategy(const std::string& s) {
  using rowwise::Strategy;
  for (Strategy st : rowwise::kStrategies) {
    if (s == rowwise::strategy_name(st)) return st;
  }
  usage_error("unknown strategy '" + s + "'");
}

template <class T, class Parse> std::vector<T> parse_list(const std::string& text, Parse parse) {
  std::vector<T> values;
  for (const std::string& item : split(text, ',')) values.push_back(parse(item));
  return values;
}

}  // namespace

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "rowwise-bench: %s (see --help)\n", message.c_str());
  std::exit(1);
}

Config parse_args(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::string inline_value;
    const size_t eq = flag.find('=');
    const bool has_inline = flag.rfind("--", 0) == 0 && eq != std::string::npos;
    if (has_inline) {
      inline_value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    auto value = [&]() -> std::string {
      if (has_inline) return inline_value;
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h") {
      print_usage(stdout);
      std::exit(0);
    } else if (flag == "--sweep") {
      cfg.sweep = value();
      if (cfg.sweep != "all" && cfg.sweep != "seed" && cfg.sweep != "cols" && cfg.sweep != "quick" &&
          cfg.sweep != "long")
        usage_error("unknown sweep '" + cfg.sweep + "'");
    } else if (flag == "--ops") {
      cfg.ops = parse_list<Op>(value(), parse_op);
    } else if (flag == "--dtypes") {
      cfg.dtypes = parse_list<DType>(value(), parse_dtype);
    } else if (flag == "--cols") {
      cfg.cols = parse_list<int64_t>(value(), [](const std::string& s) {
        const int64_t cols = parse_positive("--cols", s, false);
        // The widest row: fp64 backward, y, dy and dx.
        if (cols > kMemoryCap / 24) usage_error("--cols: " + s + " is too large for one fp64 backward row");
        return cols;
      });
    } else if (flag == "--rows") {
      cfg.rows = parse_positive(flag, value(), false);
    } else if (flag == "--strategy") {
      cfg.strategy = parse_strategy(value());
    } else if (flag == "--iters") {
      const int64_t iters = parse_positive(flag, value(), false);
      if (iters > 1000000) usage_error("--iters: at most 1000000");
      cfg.iters = static_cast<int>(iters);
    } else if (flag == "--min-bytes") {
      cfg.min_bytes = parse_positive(flag, value(), true);
    } else if (flag == "--sweep-bytes") {
      cfg.sweep_bytes = parse_positive(flag, value(), true);
    } else if (flag == "--fp64") {
      cfg.fp64 = true;
    } else if (flag == "--out-offset") {
      const int64_t offset = parse_positive(flag, value(), false);
      if (offset > 15) usage_error("--out-offset: at most 15");
      cfg.out_offset = static_cast<int>(offset);
    } else if (flag == "--timing") {
      const std::string timing = value();
      if (timing != "events" && timing != "graph") usage_error("--timing: events or graph, not '" + timing + "'");
      cfg.graph_timing = timing == "graph";
    } else if (flag == "--pdl") {
      cfg.programmatic_launch = true;
    } else if (flag == "--json") {
      cfg.json_path = value();
    } else if (flag == "--csv") {
      cfg.csv_path = value();
    } else {
      usage_error("unknown flag '" + flag + "'");
    }
  }
  return cfg;
}

}  // namespace rowwise_bench
