// rowwise-bench: bandwidth of rowwise's ops (softmax, log_softmax, their backward passes, abs-max
// scaling to the input type, int8 and fp8 e4m3) and of the seeds' baseline kernels, against
// device-to-device copy.
//
// Each case (op, dtype, rows, cols) is timed as the median of --iters launches, each between its own
// pair of events, after 3 warm-up launches; the launches are all queued behind a kernel that holds the
// GPU, so the events time the GPU, not the host's launch rate. Bytes moved count every operand once:
// x read and y written (forward), y and dy read and dx written (backward), x read, y written in the
// output type and a float scale a row (abs-max). Data smaller than 4x the L2 cache rotates over several
// copies of its buffers so that launches do not find their data in L2. A sample of rows is checked
// against a float64 CPU reference. The seed sweep prints each seed baseline beside rowwise at the same
// shape.
//
// Exit status: 0 all cases ok, 1 a check failed (or a CUDA or usage error), 2 no CUDA device.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <rowwise/rowwise.cuh>

#include "seed_baselines.cuh"

#define CUDA_CHECK(expr) cuda_check((expr), #expr, __FILE__, __LINE__)

namespace {

void cuda_check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, expr, cudaGetErrorString(e));
  std::exit(1);
}

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kCopyBytes = kGiB;
constexpr int64_t kMemoryCap = 8 * kGiB;  // device memory one case may hold (every operand, all copies)
constexpr int64_t kCopyAlign = 256;       // equal alignment of every buffer copy, hence equal pack widths
constexpr int kWarmups = 3;
constexpr int kMinCopyIters = 20;
constexpr int kL2Multiple = 4;  // bytes touched between two uses of a buffer copy, in L2 sizes
constexpr int kOpWidth = 20;    // printed width of an op name

// ---------------------------------------------------------------------------------------------------
// Cases and configuration

enum class Op {
  kSoftmax,
  kLogSoftmax,
  kSoftmaxBackward,
  kLogSoftmaxBackward,
  kAbsmaxScale,
  kAbsmaxInt8,
  kAbsmaxFp8,
  kTensorSoftmax,     // the whole tensor as one row: rows is 1
  kTensorLogSoftmax,
  kCubAbsmaxScale,  // seed 000's baseline
  kFtSoftmax,       // seed 002's baseline
};
enum class Family { kForward, kBackward, kAbsmax };
enum class DType { kFp32, kFp64, kFp16, kBf16 };

struct OpInfo {
  const char* name;
  Family family;
  Op reference;   // the rowwise op whose result it computes: itself, or a baseline's rowwise peer
  int out_bytes;  // bytes of an output element; 0: the dtype's
  bool baseline;  // a seed's kernel, not rowwise
};

// Indexed by Op.
constexpr OpInfo kOpInfo[] = {
    {"softmax", Family::kForward, Op::kSoftmax, 0, false},
    {"log_softmax", Family::kForward, Op::kLogSoftmax, 0, false},
    {"softmax_backward", Family::kBackward, Op::kSoftmaxBackward, 0, false},
    {"log_softmax_backward", Family::kBackward, Op::kLogSoftmaxBackward, 0, false},
    {"absmax_scale", Family::kAbsmax, Op::kAbsmaxScale, 0, false},
    {"absmax_int8", Family::kAbsmax, Op::kAbsmaxInt8, 1, false},
    {"absmax_fp8", Family::kAbsmax, Op::kAbsmaxFp8, 1, false},
    {"tensor_softmax", Family::kForward, Op::kSoftmax, 0, false},
    {"tensor_log_softmax", Family::kForward, Op::kLogSoftmax, 0, false},
    {"cub_absmax_scale", Family::kAbsmax, Op::kAbsmaxScale, 0, true},
    {"ft_softmax", Family::kForward, Op::kSoftmax, 0, true},
};
static_assert(std::size(kOpInfo) == static_cast<size_t>(Op::kFtSoftmax) + 1, "kOpInfo is indexed by Op");

const OpInfo& op_info(Op op) { return kOpInfo[static_cast<int>(op)]; }
const char* op_name(Op op) { return op_info(op).name; }
bool is_tensor_op(Op op) { return op == Op::kTensorSoftmax || op == Op::kTensorLogSoftmax; }

// What --strategy means for a case: baselines have none.
const char* strategy_label(Op op, rowwise::Strategy s) {
  return op_info(op).baseline ? "baseline" : rowwise::strategy_name(s);
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::kFp32: return "fp32";
    case DType::kFp64: return "fp64";
    case DType::kFp16: return "fp16";
    case DType::kBf16: return "bf16";
  }
  return "?";
}

int64_t dtype_bytes(DType d) {
  switch (d) {
    case DType::kFp32: return 4;
    case DType::kFp64: return 8;
    case DType::kFp16:
    case DType::kBf16: return 2;
  }
  return 0;
}

struct Case {
  Op op;
  DType dtype;
  int64_t rows;
  int64_t cols;
  int64_t input_bytes() const { return rows * cols * dtype_bytes(dtype); }
  // Bytes of one row's operands, each moved once: inputs read, output written, and for abs-max
  // scaling the row's float scale.
  int64_t row_bytes() const {
    const OpInfo& o = op_info(op);
    const int64_t inputs = o.family == Family::kBackward ? 2 : 1;
    const int64_t out_bytes = o.out_bytes != 0 ? o.out_bytes : dtype_bytes(dtype);
    const int64_t scale_bytes = o.family == Family::kAbsmax ? int64_t{sizeof(float)} : 0;
    return cols * (inputs * dtype_bytes(dtype) + out_bytes) + scale_bytes;
  }
  int64_t moved_bytes() const { return rows * row_bytes(); }
};

struct Config {
  std::string sweep = "all";
  std::vector<Op> ops;         // empty: the sweep's own
  std::vector<DType> dtypes;   // empty: the sweep's own
  std::vector<int64_t> cols;   // empty: the sweep's own
  int64_t rows = 0;            // 0: the sweep's own
  rowwise::Strategy strategy = rowwise::Strategy::kAuto;
  int iters = 30;
  int64_t min_bytes = 256 * kMiB;
  int64_t sweep_bytes = kGiB;
  bool fp64 = false;
  std::string json_path;
  std::string csv_path;
};

struct Device {
  std::string name;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  double copy_gbps = 0;
};

enum class Check { kOk, kFail, kNotApplicable };

const char* check_name(Check c) {
  switch (c) {
    case Check::kOk: return "ok";
    case Check::kFail: return "FAIL";
    case Check::kNotApplicable: return "n/a";
  }
  return "?";
}

struct Result {
  Case c;
  int copies = 1;  // copies of the buffers the launches rotate over
  double time_us = 0;
  double gbps = 0;
  double pct_copy = 0;
  Check check = Check::kNotApplicable;
};

// ---------------------------------------------------------------------------------------------------
// Command line

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
               "  --json FILE        write results as JSON\n"
               "  --csv FILE         write results as CSV\n"
               "  --help             this text\n"
               "B takes a K, M or G suffix (binary). Exit: 0 ok, 1 failure, 2 no CUDA device.\n");
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "rowwise-bench: %s (see --help)\n", message.c_str());
  std::exit(1);
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

// ---------------------------------------------------------------------------------------------------
// Sweeps

template <class V> std::vector<V> axis(const std::vector<V>& given, std::vector<V> fallback) {
  return given.empty() ? fallback : given;
}

// The case with rows cut so that its operands stay under the memory cap. A whole-tensor op's case is
// one row of all the elements (its check is a row's reference).
Case capped(Case c) {
  if (is_tensor_op(c.op)) c = {c.op, c.dtype, 1, c.rows * c.cols};
  const int64_t max_rows = kMemoryCap / c.row_bytes();
  if (max_rows < 1) usage_error(std::string(op_name(c.op)) + ": one row of " + std::to_string(c.cols) +
                                " columns is over the memory cap");
  if (c.rows > max_rows) {
    std::fprintf(stderr, "note: %s %s cols %lld: rows %lld -> %lld to stay under %lld GiB\n", op_name(c.op),
                 dtype_name(c.dtype), static_cast<long long>(c.cols), static_cast<long long>(c.rows),
                 static_cast<long long>(max_rows), static_cast<long long>(kMemoryCap / kGiB));
    c.rows = max_rows;
  }
  return c;
}

// The seeds' (rows, cols) for an op's family: seed 000's (442368, 128) for abs-max scaling, seed 002's
// attention scores (batch 32, 64 heads, s queries of s keys) for the softmax family.
std::vector<std::pair<int64_t, int64_t>> seed_shapes(Op op) {
  if (op_info(op).family == Family::kAbsmax) return {{442368, 128}};
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (int64_t s : {16, 32, 64, 128, 512}) shapes.emplace_back(32 * 64 * s, s);
  return shapes;
}

// The seeds' shapes, rows exactly as given; by default each seed baseline and its rowwise peer.
std::vector<Case> seed_sweep(const Config& cfg) {
  std::vector<Case> cases;
  for (Op op : axis(cfg.ops, {Op::kCubAbsmaxScale, Op::kAbsmaxScale, Op::kFtSoftmax, Op::kSoftmax})) {
    for (DType d : axis(cfg.dtypes, {DType::kFp32, DType::kFp16})) {
      for (const auto& [rows, cols] : seed_shapes(op)) {
        if (!cfg.cols.empty() && std::find(cfg.cols.begin(), cfg.cols.end(), cols) == cfg.cols.end()) continue;
        cases.push_back(capped({op, d, cfg.rows > 0 ? cfg.rows : rows, cols}));
      }
    }
  }
  return cases;
}

// Every (op, dtype, cols), with as many rows as make the input `target_bytes` (at least one).
std::vector<Case> sized_sweep(const Config& cfg, const std::vector<Op>& ops, const std::vector<DType>& dtypes,
                              const std::vector<int64_t>& cols_list, int64_t target_bytes) {
  std::vector<Case> cases;
  for (Op op : axis(cfg.ops, ops)) {
    for (DType d : axis(cfg.dtypes, dtypes)) {
      for (int64_t cols : axis(cfg.cols, cols_list)) {
        const int64_t input_row_bytes = cols * dtype_bytes(d);
        const int64_t rows =
            cfg.rows > 0 ? cfg.rows : std::max<int64_t>(1, (target_bytes + input_row_bytes - 1) / input_row_bytes);
        cases.push_back(capped({op, d, rows, cols}));
      }
    }
  }
  return cases;
}

std::vector<Case> cols_sweep(const Config& cfg) {
  std::vector<DType> dtypes{DType::kFp32, DType::kBf16, DType::kFp16};
  if (cfg.fp64) dtypes.push_back(DType::kFp64);
  const std::vector<int64_t> cols{16,   32,   64,    128,   256,   512,   1000,  1024,  2048,   3000,
                                  4096, 5000, 8192,  12345, 16384, 32768, 50257, 65536, 131072, 262144};
  const std::vector<Op> ops{Op::kSoftmax,      Op::kLogSoftmax, Op::kSoftmaxBackward, Op::kLogSoftmaxBackward,
                            Op::kAbsmaxScale, Op::kAbsmaxInt8, Op::kAbsmaxFp8};
  return sized_sweep(cfg, ops, dtypes, cols, cfg.sweep_bytes);
}

std::vector<Case> quick_sweep(const Config& cfg) {
  return sized_sweep(cfg, {Op::kSoftmax}, {DType::kFp32, DType::kBf16}, {32, 1024, 4096, 16384}, cfg.min_bytes);
}

// Rows longer than one CTA holds (issue 5): decode-sized batches of vocabulary rows, a few rows of
// millions of columns (>= 256 MiB), and whole tensors (16 and 32 MiB, which fit on chip, and 1 GiB).
std::vector<Case> long_sweep(const Config& cfg) {
  std::vector<Case> cases;
  std::vector<Op> row_ops{Op::kSoftmax, Op::kLogSoftmax, Op::kSoftmaxBackward, Op::kAbsmaxScale};
  if (!cfg.ops.empty()) {
    row_ops.clear();
    std::copy_if(cfg.ops.begin(), cfg.ops.end(), std::back_inserter(row_ops), [](Op op) { return !is_tensor_op(op); });
  }
  for (Op op : row_ops) {
    for (DType d : axis(cfg.dtypes, {DType::kFp32, DType::kBf16})) {
      for (int64_t rows : {1, 8, 64})
        for (int64_t cols : {131072, 262144}) cases.push_back({op, d, rows, cols});
      for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{64, 2 << 20}, {32, 4 << 20},
                                                                              {16, 8 << 20}, {4, 8 << 20}})
        cases.push_back(capped({op, d, rows, cols}));
    }
  }
  for (Op op : {Op::kTensorSoftmax, Op::kTensorLogSoftmax}) {
    if (!cfg.ops.empty() && std::find(cfg.ops.begin(), cfg.ops.end(), op) == cfg.ops.end()) continue;
    for (DType d : axis(cfg.dtypes, {DType::kFp32, DType::kBf16}))
      for (int64_t mib : {16, 32, 1024}) cases.push_back(capped({op, d, 1, mib * kMiB / dtype_bytes(d)}));
  }
  return cases;
}

std::vector<Case> build_cases(const Config& cfg) {
  if (cfg.sweep == "seed") return seed_sweep(cfg);
  if (cfg.sweep == "long") return long_sweep(cfg);
  if (cfg.sweep == "cols") return cols_sweep(cfg);
  if (cfg.sweep == "quick") return quick_sweep(cfg);
  std::vector<Case> cases = seed_sweep(cfg);
  const std::vector<Case> cols = cols_sweep(cfg);
  cases.insert(cases.end(), cols.begin(), cols.end());
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// Device memory, input data, timing

struct DeviceFree {
  void operator()(void* p) const { cudaFree(p); }
};
using DeviceBytes = std::unique_ptr<void, DeviceFree>;

DeviceBytes device_alloc(int64_t bytes) {
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, static_cast<size_t>(bytes)));
  return DeviceBytes(p);
}

__device__ uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Standard normal values by Box-Muller on a hash of (seed, index): reproducible, no RNG state.
template <class T> __global__ void fill_normal_kernel(T* p, int64_t n, uint64_t seed) {
  const int64_t step = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    const uint64_t h = splitmix64(seed ^ splitmix64(static_cast<uint64_t>(i)));
    const float u1 = static_cast<float>((h >> 40) + 1) * 0x1p-24f;          // (0, 1]: log is finite
    const float u2 = static_cast<float>((h >> 16) & 0xFFFFFF) * 0x1p-24f;  // [0, 1)
    p[i] = static_cast<T>(sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2));
  }
}

template <class T> void fill_normal(T* p, int64_t n, uint64_t seed, int sm_count) {
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{sm_count} * 8);
  fill_normal_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(p, n, seed);
  CUDA_CHECK(cudaPeekAtLastError());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Holds the GPU for `ns` nanoseconds of its global timer.
__global__ void hold_gpu_kernel(uint64_t ns) {
  uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Host time one timed launch may take to enqueue (two events and the call) while the GPU is held.
constexpr uint64_t kEnqueueBudgetNs = 50'000;

// Median in ms of `iters` calls of enqueue(i), each between its own pair of events. The GPU is held
// until every call is queued, so that a pair times the GPU's work (launch included), not the host's
// launch rate: a launch of a few microseconds finishes before the host has queued the next one
// (3-4 us a launch on the H200 machines), and a pair recorded on an idle GPU timed that host time too.
template <class Enqueue> double median_event_ms(int iters, Enqueue&& enqueue) {
  std::vector<cudaEvent_t> start(iters), stop(iters);
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventCreate(&start[i]));
    CUDA_CHECK(cudaEventCreate(&stop[i]));
  }
  hold_gpu_kernel<<<1, 1>>>(kEnqueueBudgetNs * static_cast<uint64_t>(iters + 1));
  CUDA_CHECK(cudaPeekAtLastError());
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventRecord(start[i]));
    enqueue(i);
    CUDA_CHECK(cudaEventRecord(stop[i]));
  }
  CUDA_CHECK(cudaEventSynchronize(stop.back()));
  std::vector<double> ms(iters);
  for (int i = 0; i < iters; ++i) {
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start[i], stop[i]));
    ms[i] = t;
    CUDA_CHECK(cudaEventDestroy(start[i]));
    CUDA_CHECK(cudaEventDestroy(stop[i]));
  }
  return median(ms);
}

double gbps(int64_t bytes, double ms) { return static_cast<double>(bytes) / (ms * 1e6); }

// D2D copy of 1 GiB; bytes read + written.
double measure_copy_gbps(int iters) {
  const DeviceBytes src = device_alloc(kCopyBytes);
  const DeviceBytes dst = device_alloc(kCopyBytes);
  CUDA_CHECK(cudaMemset(src.get(), 0, kCopyBytes));
  auto copy = [&](int) { CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), kCopyBytes, cudaMemcpyDeviceToDevice)); };
  for (int i = 0; i < kWarmups; ++i) copy(i);
  return gbps(2 * kCopyBytes, median_event_ms(std::max(iters, kMinCopyIters), copy));
}

Device query_device(int iters) {
  int id = 0;
  CUDA_CHECK(cudaGetDevice(&id));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, id));
  int l2 = 0;
  Device dev;
  dev.name = prop.name;
  CUDA_CHECK(cudaDeviceGetAttribute(&dev.sm_count, cudaDevAttrMultiProcessorCount, id));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, id));
  dev.l2_bytes = l2;
  dev.copy_gbps = measure_copy_gbps(iters);
  return dev;
}

// `copies` copies of an array of `elems` T, each starting at the same alignment.
template <class T> class Copies {
 public:
  Copies(int64_t elems, int copies)
      : stride_((elems * int64_t{sizeof(T)} + kCopyAlign - 1) / kCopyAlign * kCopyAlign / int64_t{sizeof(T)}),
        copies_(copies),
        mem_(device_alloc(copies * stride_ * int64_t{sizeof(T)})) {}
  T* at(int copy) const { return static_cast<T*>(mem_.get()) + copy * stride_; }
  T* all() const { return at(0); }
  int64_t all_elems() const { return copies_ * stride_; }

 private:
  int64_t stride_;  // elements from one copy's start to the next
  int copies_;
  DeviceBytes mem_;
};

// Copies of a case's buffers: enough that kL2Multiple L2 sizes are touched between two uses of one
// copy (launch i uses copy i % copies). Also where there are fewer launches than copies: the copies
// are filled in order just before the launches, so only then are the first ones out of L2 (capped at
// the launches, all of a decode-sized case sat in L2).
int rotation_copies(const Case& c, const Device& dev) {
  const int64_t span = kL2Multiple * dev.l2_bytes;
  const int64_t bytes = c.moved_bytes();
  return bytes > span ? 1 : static_cast<int>(span / bytes + 1);
}

// The whole-tensor ops' workspace, held by the caller as CUB's users do: allocated and zeroed once.
void* tensor_workspace(size_t* bytes) {
  static size_t size = 0;
  static void* workspace = [] {
    void* p = nullptr;
    CUDA_CHECK(rowwise::tensor_softmax_workspace_bytes<double>(&size));  // the largest state: any T fits
    CUDA_CHECK(cudaMalloc(&p, size));
    CUDA_CHECK(cudaMemset(p, 0, size));
    return p;
  }();
  *bytes = size;
  return workspace;
}

template <class T>
cudaError_t launch_forward(Op op, const T* x, T* y, int64_t rows, int64_t cols, rowwise::Strategy s) {
  const rowwise::Options options{s};
  size_t bytes = 0;
  void* workspace = is_tensor_op(op) ? tensor_workspace(&bytes) : nullptr;
  switch (op) {
    case Op::kTensorSoftmax: return rowwise::tensor_softmax(x, y, rows * cols, workspace, bytes);
    case Op::kTensorLogSoftmax: return rowwise::tensor_log_softmax(x, y, rows * cols, workspace, bytes);
    case Op::kSoftmax: return rowwise::softmax(x, y, rows, cols, cols, cols, nullptr, options);
    case Op::kLogSoftmax: return rowwise::log_softmax(x, y, rows, cols, cols, cols, nullptr, options);
    case Op::kFtSoftmax: return seed_baselines::ft_softmax(x, y, rows, cols, nullptr);
    default: return cudaErrorInvalidValue;  // not a forward op
  }
}

template <class T>
cudaError_t launch_backward(Op op, const T* y, const T* dy, T* dx, int64_t rows, int64_t cols, rowwise::Strategy s) {
  const rowwise::Options options{s};
  return op == Op::kSoftmaxBackward
             ? rowwise::softmax_backward(y, dy, dx, rows, cols, cols, cols, cols, nullptr, options)
             : rowwise::log_softmax_backward(y, dy, dx, rows, cols, cols, cols, cols, nullptr, options);
}

template <class T, class U>
cudaError_t launch_absmax(Op op, const T* x, U* y, float* scale, int64_t rows, int64_t cols, rowwise::Strategy s) {
  if constexpr (std::is_same_v<T, U>) {
    if (op == Op::kCubAbsmaxScale) return seed_baselines::cub_absmax_scale(x, y, scale, rows, cols, nullptr);
  }
  return rowwise::absmax_scale(x, y, scale, rows, cols, cols, cols, nullptr, rowwise::Options{s});
}

// The forward op whose output a backward op takes as y.
Op forward_of(Op backward) { return backward == Op::kSoftmaxBackward ? Op::kSoftmax : Op::kLogSoftmax; }

// ---------------------------------------------------------------------------------------------------
// Correctness

struct Tolerance {
  double atol;
  double rtol;
};

template <class T> Tolerance tolerance() {
  if constexpr (std::is_same_v<T, float>) return {1e-6, 1e-5};
  if constexpr (std::is_same_v<T, double>) return {1e-12, 1e-10};
  if constexpr (std::is_same_v<T, __half>) return {1e-3, 1e-3};
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return {8e-3, 1.6e-2};
}

constexpr double kQuantSlack = 1e-5;  // relative: float rounding of x * qmax / absmax before rounding
constexpr double kScaleRtol = 1e-6;   // row scales are floats: one rounding of a float64 value

// Spacing of fp8 e4m3 values near magnitude a: 3 mantissa bits; subnormals below 2^-6 are 2^-9 apart.
double e4m3_spacing(double a) {
  if (a < 0x1p-6) return 0x1p-9;
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  return std::ldexp(1.0, e - 4);
}

// How far an output of type U may lie from the float64 reference: the dtype's tolerance, or for the
// quantized types half a unit of their grid (round to nearest, so -128 or a wrong rounding fails).
template <class U> double error_limit(double ref) {
  const double a = std::fabs(ref);
  if constexpr (std::is_same_v<U, int8_t>) {
    return 0.5 + kQuantSlack * a;
  } else if constexpr (std::is_same_v<U, __nv_fp8_e4m3>) {
    return 0.5 * e4m3_spacing(a) + kQuantSlack * a;
  } else {
    const Tolerance t = tolerance<U>();
    return t.atol + t.rtol * a;
  }
}

double scale_limit(double ref) { return kScaleRtol * std::fabs(ref); }

template <class U> constexpr double quant_max() {
  if constexpr (std::is_same_v<U, int8_t>) return 127;
  if constexpr (std::is_same_v<U, __nv_fp8_e4m3>) return 448;
  return 1;
}

double to_double(float v) { return v; }
double to_double(double v) { return v; }
double to_double(__half v) { return __half2float(v); }
double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }
double to_double(int8_t v) { return v; }
double to_double(__nv_fp8_e4m3 v) { return static_cast<float>(v); }

template <class T> std::vector<double> row_to_host(const T* base, int64_t row, int64_t cols) {
  std::vector<T> raw(cols);
  CUDA_CHECK(cudaMemcpy(raw.data(), base + row * cols, cols * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<double> values(cols);
  std::transform(raw.begin(), raw.end(), values.begin(), [](T v) { return to_double(v); });
  return values;
}

std::vector<double> reference_row(Op op, const std::vector<double>& x) {
  const double m = *std::max_element(x.begin(), x.end());
  double sum = 0;
  for (double v : x) sum += std::exp(v - m);
  const double log_sum = std::log(sum);
  std::vector<double> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) ref[i] = op == Op::kSoftmax ? std::exp(x[i] - m) / sum : x[i] - m - log_sum;
  return ref;
}

// dx from y (softmax or log_softmax output) and dy.
std::vector<double> reference_grad(Op op, const std::vector<double>& y, const std::vector<double>& dy) {
  double sum = 0;  // sum(y * dy) for softmax, sum(dy) for log_softmax
  for (size_t i = 0; i < y.size(); ++i) sum += op == Op::kSoftmaxBackward ? y[i] * dy[i] : dy[i];
  std::vector<double> dx(y.size());
  for (size_t i = 0; i < y.size(); ++i)
    dx[i] = op == Op::kSoftmaxBackward ? y[i] * (dy[i] - sum) : dy[i] - std::exp(y[i]) * sum;
  return dx;
}

struct AbsmaxReference {
  std::vector<double> y;  // unrounded: x * qmax / absmax
  double scale;           // absmax / qmax
};

AbsmaxReference reference_absmax(const std::vector<double>& x, double qmax) {
  double absmax = 0;
  for (double v : x) absmax = std::max(absmax, std::fabs(v));
  AbsmaxReference ref{std::vector<double>(x.size()), absmax / qmax};
  for (size_t i = 0; i < x.size(); ++i) ref.y[i] = absmax == 0 ? 0 : x[i] * qmax / absmax;
  return ref;
}

// First, middle and last row.
std::vector<int64_t> sample_rows(int64_t rows) {
  std::vector<int64_t> sample{0, rows / 2, rows - 1};
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  return sample;
}

// Whether every got[i] lies within limit(ref[i]) of ref[i]; reports the first that does not.
template <class Limit>
bool matches(const Case& c, const char* what, int64_t row, const std::vector<double>& got,
             const std::vector<double>& ref, Limit limit) {
  for (size_t col = 0; col < ref.size(); ++col) {
    const double allowed = limit(ref[col]);
    if (!(std::fabs(got[col] - ref[col]) <= allowed)) {  // negated so NaN fails
      std::fprintf(stderr, "FAIL %s %s %lldx%lld: %s row %lld col %zu got %.17g ref %.17g (tolerance %.3g)\n",
                   op_name(c.op), dtype_name(c.dtype), static_cast<long long>(c.rows), static_cast<long long>(c.cols),
                   what, static_cast<long long>(row), col, got[col], ref[col], allowed);
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Running a case

// Times launch(i) (warm-ups, then the median of --iters), then checks the sampled rows with
// check_row(row), which reads copy 0: launch 0 wrote it, and every later launch on it writes the same.
template <class Launch, class CheckRow>
Result measure(const Case& c, int copies, const Config& cfg, const Device& dev, Launch launch, CheckRow check_row) {
  Result r;
  r.c = c;
  r.copies = copies;
  // A shape that a forced strategy or a seed baseline does not fit is refused with cudaErrorInvalidValue
  // before any launch.
  const cudaError_t first = launch(0);
  if (first == cudaErrorInvalidValue && (cfg.strategy != rowwise::Strategy::kAuto || op_info(c.op).baseline))
    return r;
  CUDA_CHECK(first);
  for (int i = 1; i < kWarmups; ++i) CUDA_CHECK(launch(i));
  const double ms = median_event_ms(cfg.iters, [&](int i) { CUDA_CHECK(launch(kWarmups + i)); });
  r.time_us = ms * 1e3;
  r.gbps = gbps(c.moved_bytes(), ms);
  r.pct_copy = 100.0 * r.gbps / dev.copy_gbps;
  const std::vector<int64_t> rows = sample_rows(c.rows);
  r.check = std::all_of(rows.begin(), rows.end(), check_row) ? Check::kOk : Check::kFail;
  return r;
}

template <class T> Result run_forward(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  const int copies = rotation_copies(c, dev);
  const Copies<T> x(c.rows * c.cols, copies), y(c.rows * c.cols, copies);
  fill_normal(x.all(), x.all_elems(), seed, dev.sm_count);
  auto launch = [&](int i) {
    const int k = i % copies;
    return launch_forward(c.op, x.at(k), y.at(k), c.rows, c.cols, cfg.strategy);
  };
  auto check_row = [&](int64_t row) {
    const std::vector<double> ref = reference_row(op_info(c.op).reference, row_to_host(x.at(0), row, c.cols));
    return matches(c, "y", row, row_to_host(y.at(0), row, c.cols), ref, error_limit<T>);
  };
  return measure(c, copies, cfg, dev, launch, check_row);
}

template <class T> Result run_backward(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  const int copies = rotation_copies(c, dev);
  const int64_t n = c.rows * c.cols;
  const Copies<T> y(n, copies), dy(n, copies), dx(n, copies);
  // Realistic y: rowwise's forward op of normal rows, whose x sits in dx until the timed launches
  // overwrite it.
  fill_normal(dx.all(), dx.all_elems(), seed, dev.sm_count);
  for (int k = 0; k < copies; ++k)
    CUDA_CHECK(launch_forward(forward_of(c.op), dx.at(k), y.at(k), c.rows, c.cols, rowwise::Strategy::kAuto));
  fill_normal(dy.all(), dy.all_elems(), ~seed, dev.sm_count);
  auto launch = [&](int i) {
    const int k = i % copies;
    return launch_backward(c.op, y.at(k), dy.at(k), dx.at(k), c.rows, c.cols, cfg.strategy);
  };
  auto check_row = [&](int64_t row) {
    const std::vector<double> ref =
        reference_grad(c.op, row_to_host(y.at(0), row, c.cols), row_to_host(dy.at(0), row, c.cols));
    return matches(c, "dx", row, row_to_host(dx.at(0), row, c.cols), ref, error_limit<T>);
  };
  return measure(c, copies, cfg, dev, launch, check_row);
}

// Abs-max scaling of T rows to U (T itself, int8_t or __nv_fp8_e4m3), with a float scale a row.
template <class T, class U>
Result run_absmax(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  const int copies = rotation_copies(c, dev);
  const Copies<T> x(c.rows * c.cols, copies);
  const Copies<U> y(c.rows * c.cols, copies);
  const Copies<float> scale(c.rows, copies);
  fill_normal(x.all(), x.all_elems(), seed, dev.sm_count);
  auto launch = [&](int i) {
    const int k = i % copies;
    return launch_absmax(c.op, x.at(k), y.at(k), scale.at(k), c.rows, c.cols, cfg.strategy);
  };
  auto check_row = [&](int64_t row) {
    const AbsmaxReference ref = reference_absmax(row_to_host(x.at(0), row, c.cols), quant_max<U>());
    return matches(c, "y", row, row_to_host(y.at(0), row, c.cols), ref.y, error_limit<U>) &&
           matches(c, "row_scale", row, row_to_host(scale.at(0), row, 1), {ref.scale}, scale_limit);
  };
  return measure(c, copies, cfg, dev, launch, check_row);
}

template <class T> Result run_case(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  switch (op_info(c.op).family) {
    case Family::kForward: return run_forward<T>(c, cfg, dev, seed);
    case Family::kBackward: return run_backward<T>(c, cfg, dev, seed);
    case Family::kAbsmax: break;
  }
  if (c.op == Op::kAbsmaxInt8) return run_absmax<T, int8_t>(c, cfg, dev, seed);
  if (c.op == Op::kAbsmaxFp8) return run_absmax<T, __nv_fp8_e4m3>(c, cfg, dev, seed);
  return run_absmax<T, T>(c, cfg, dev, seed);
}

template <class T> struct Tag {
  using type = T;
};

template <class F> auto visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::kFp32: return f(Tag<float>{});
    case DType::kFp64: return f(Tag<double>{});
    case DType::kFp16: return f(Tag<__half>{});
    case DType::kBf16: break;
  }
  return f(Tag<__nv_bfloat16>{});
}

// ---------------------------------------------------------------------------------------------------
// Output

double mib(int64_t bytes) { return static_cast<double>(bytes) / kMiB; }

void print_header(const Device& dev, const Config& cfg) {
  std::printf("# %s | %d SMs | L2 %.1f MiB | copy %.1f GB/s (D2D %lld MiB, read + write) | iters %d\n",
              dev.name.c_str(), dev.sm_count, mib(dev.l2_bytes), dev.copy_gbps,
              static_cast<long long>(kCopyBytes / kMiB), cfg.iters);
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

void write_json(const std::string& path, const Device& dev, const Config& cfg, const std::vector<Result>& results) {
  std::FILE* f = open_output(path);
  std::fprintf(f, "{\n  \"device\": %s,\n  \"sm_count\": %d,\n  \"l2_bytes\": %lld,\n  \"copy_gbps\": %.3f,\n",
               json_string(dev.name).c_str(), dev.sm_count, static_cast<long long>(dev.l2_bytes), dev.copy_gbps);
  std::fprintf(f, "  \"iters\": %d,\n  \"results\": [", cfg.iters);
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

// Case counts, min / median %copy per (op, dtype) in order of appearance, and the failed cases.
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

// Each measured seed baseline beside its rowwise peer (the seeds' tables).
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

}  // namespace

int main(int argc, char** argv) {
  const Config cfg = parse_args(argc, argv);

  int device_count = 0;
  const cudaError_t e = cudaGetDeviceCount(&device_count);
  if (e != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "rowwise-bench: no CUDA device (%s)\n",
                 cudaGetErrorString(e != cudaSuccess ? e : cudaErrorNoDevice));
    return 2;
  }

  const Device dev = query_device(cfg.iters);
  print_header(dev, cfg);
  std::vector<Result> results;
  for (const Case& c : build_cases(cfg)) {
    const uint64_t seed = 0x5EED0000u + results.size();
    results.push_back(visit_dtype(c.dtype, [&](auto tag) {
      return run_case<typename decltype(tag)::type>(c, cfg, dev, seed);
    }));
    print_row(results.back(), cfg.strategy);
  }
  print_seed_comparison(results);
  print_summary(results);
  if (!cfg.json_path.empty()) write_json(cfg.json_path, dev, cfg, results);
  if (!cfg.csv_path.empty()) write_csv(cfg.csv_path, cfg, results);

  const bool failed = std::any_of(results.begin(), results.end(), [](const Result& r) { return r.check == Check::kFail; });
  return failed ? 1 : 0;
}
