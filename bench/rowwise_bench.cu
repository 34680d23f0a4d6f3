// rowwise-bench: bandwidth of rowwise::softmax / log_softmax, against device-to-device copy.
//
// Each case (op, dtype, rows, cols) is timed as the median of --iters launches, each between its own
// pair of events, after 3 warm-up launches. Bytes moved count x read once and y written once. Data
// smaller than 4x the L2 cache rotates over several x/y buffer pairs so that launches do not find their
// data in L2. A sample of rows is checked against a float64 CPU reference.
//
// Exit status: 0 all cases ok, 1 a check failed (or a CUDA or usage error), 2 no CUDA device.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <rowwise/rowwise.cuh>

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
constexpr int64_t kMemoryCap = 8 * kGiB;  // device memory one case may hold (x and y, all pairs)
constexpr int64_t kPairAlign = 256;       // equal alignment of every pair, hence equal pack widths
constexpr int kWarmups = 3;
constexpr int kMinCopyIters = 20;
constexpr int kL2Multiple = 4;  // bytes touched between two uses of a buffer pair, in L2 sizes

// ---------------------------------------------------------------------------------------------------
// Cases and configuration

enum class Op { kSoftmax, kLogSoftmax };
enum class DType { kFp32, kFp64, kFp16, kBf16 };

const char* op_name(Op op) { return op == Op::kSoftmax ? "softmax" : "log_softmax"; }

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
  int64_t moved_bytes() const { return 2 * input_bytes(); }
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
  int pairs = 1;  // buffer pairs the launches rotate over
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
               "  --sweep NAME       all (seed, then cols; default), seed, cols, quick\n"
               "  --ops LIST         softmax,log_softmax (replaces the sweep's ops)\n"
               "  --dtypes LIST      fp32,bf16,fp16,fp64 (replaces the sweep's dtypes)\n"
               "  --cols LIST        column counts (replaces the sweep's; filters the seed shapes)\n"
               "  --rows N           fixed rows for every case (no sizing)\n"
               "  --strategy S       auto, warp, block, block_smem, two_pass (cases it does not fit: n/a)\n"
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
  if (s == "softmax") return Op::kSoftmax;
  if (s == "log_softmax") return Op::kLogSoftmax;
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
  for (Strategy st : {Strategy::kAuto, Strategy::kWarp, Strategy::kBlock, Strategy::kBlockSmem, Strategy::kTwoPass}) {
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
      if (cfg.sweep != "all" && cfg.sweep != "seed" && cfg.sweep != "cols" && cfg.sweep != "quick")
        usage_error("unknown sweep '" + cfg.sweep + "'");
    } else if (flag == "--ops") {
      cfg.ops = parse_list<Op>(value(), parse_op);
    } else if (flag == "--dtypes") {
      cfg.dtypes = parse_list<DType>(value(), parse_dtype);
    } else if (flag == "--cols") {
      cfg.cols = parse_list<int64_t>(value(), [](const std::string& s) {
        const int64_t cols = parse_positive("--cols", s, false);
        if (cols > kMemoryCap / 16) usage_error("--cols: " + s + " is too large for one fp64 row pair");
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

// The case with rows cut so that its x and y stay under the memory cap.
Case capped(Case c) {
  const int64_t max_rows = kMemoryCap / (2 * c.cols * dtype_bytes(c.dtype));
  if (c.rows > max_rows) {
    std::fprintf(stderr, "note: %s %s cols %lld: rows %lld -> %lld to stay under %lld GiB\n", op_name(c.op),
                 dtype_name(c.dtype), static_cast<long long>(c.cols), static_cast<long long>(c.rows),
                 static_cast<long long>(max_rows), static_cast<long long>(kMemoryCap / kGiB));
    c.rows = max_rows;
  }
  return c;
}

// Shapes from real models, rows exactly as given.
std::vector<Case> seed_sweep(const Config& cfg) {
  std::vector<std::pair<int64_t, int64_t>> shapes{{442368, 128}};
  for (int64_t s : {16, 32, 64, 128, 512}) shapes.emplace_back(32 * 64 * s, s);
  std::vector<Case> cases;
  for (Op op : axis(cfg.ops, {Op::kSoftmax})) {
    for (DType d : axis(cfg.dtypes, {DType::kFp32, DType::kFp16})) {
      for (const auto& [rows, cols] : shapes) {
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
        const int64_t row_bytes = cols * dtype_bytes(d);
        const int64_t rows = cfg.rows > 0 ? cfg.rows : std::max<int64_t>(1, (target_bytes + row_bytes - 1) / row_bytes);
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
  return sized_sweep(cfg, {Op::kSoftmax, Op::kLogSoftmax}, dtypes, cols, cfg.sweep_bytes);
}

std::vector<Case> quick_sweep(const Config& cfg) {
  return sized_sweep(cfg, {Op::kSoftmax}, {DType::kFp32, DType::kBf16}, {32, 1024, 4096, 16384}, cfg.min_bytes);
}

std::vector<Case> build_cases(const Config& cfg) {
  if (cfg.sweep == "seed") return seed_sweep(cfg);
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

// Median in ms of `iters` calls of enqueue(i), each between its own pair of events.
template <class Enqueue> double median_event_ms(int iters, Enqueue&& enqueue) {
  std::vector<cudaEvent_t> start(iters), stop(iters);
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventCreate(&start[i]));
    CUDA_CHECK(cudaEventCreate(&stop[i]));
  }
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

// x and y of `pairs` copies of one case, each copy at the same alignment.
template <class T> struct PairBuffers {
  int pairs = 1;
  int64_t stride = 0;  // elements from one pair's start to the next
  DeviceBytes x, y;

  PairBuffers(int64_t elems, int64_t l2_bytes) {
    const int64_t bytes = (elems * int64_t{sizeof(T)} + kPairAlign - 1) / kPairAlign * kPairAlign;
    const int64_t span = kL2Multiple * l2_bytes;
    pairs = 2 * bytes > span ? 1 : static_cast<int>(span / (2 * bytes) + 1);
    stride = bytes / int64_t{sizeof(T)};
    x = device_alloc(pairs * bytes);
    y = device_alloc(pairs * bytes);
  }
  T* x_at(int pair) const { return static_cast<T*>(x.get()) + pair * stride; }
  T* y_at(int pair) const { return static_cast<T*>(y.get()) + pair * stride; }
  int64_t x_elems() const { return pairs * stride; }
};

template <class T> cudaError_t launch_op(Op op, const T* x, T* y, int64_t rows, int64_t cols, rowwise::Strategy s) {
  const rowwise::Options options{s};
  return op == Op::kSoftmax ? rowwise::softmax(x, y, rows, cols, cols, cols, nullptr, options)
                            : rowwise::log_softmax(x, y, rows, cols, cols, cols, nullptr, options);
}

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

double to_double(float v) { return v; }
double to_double(double v) { return v; }
double to_double(__half v) { return __half2float(v); }
double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

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

// First, middle and last row.
std::vector<int64_t> sample_rows(int64_t rows) {
  std::vector<int64_t> sample{0, rows / 2, rows - 1};
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  return sample;
}

// Compares sampled rows of y with the reference computed from x; reports the first mismatch.
template <class T> bool check_rows(const Case& c, const T* x, const T* y) {
  const Tolerance tol = tolerance<T>();
  for (int64_t row : sample_rows(c.rows)) {
    const std::vector<double> ref = reference_row(c.op, row_to_host(x, row, c.cols));
    const std::vector<double> got = row_to_host(y, row, c.cols);
    for (int64_t col = 0; col < c.cols; ++col) {
      const double limit = tol.atol + tol.rtol * std::fabs(ref[col]);
      if (!(std::fabs(got[col] - ref[col]) <= limit)) {  // negated so NaN fails
        std::fprintf(stderr, "FAIL %s %s %lldx%lld: row %lld col %lld got %.17g ref %.17g (tolerance %.3g)\n",
                     op_name(c.op), dtype_name(c.dtype), static_cast<long long>(c.rows),
                     static_cast<long long>(c.cols), static_cast<long long>(row), static_cast<long long>(col),
                     got[col], ref[col], limit);
        return false;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Running a case

template <class T> Result run_case(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  Result r;
  r.c = c;
  const PairBuffers<T> buf(c.rows * c.cols, dev.l2_bytes);
  r.pairs = buf.pairs;
  fill_normal(buf.x_at(0), buf.x_elems(), seed, dev.sm_count);
  // Launch i uses pair i % pairs, so consecutive launches never share data.
  auto launch = [&](int i) {
    const int pair = i % buf.pairs;
    return launch_op<T>(c.op, buf.x_at(pair), buf.y_at(pair), c.rows, c.cols, cfg.strategy);
  };
  // A forced strategy the row does not fit is refused with cudaErrorInvalidValue before any launch.
  const cudaError_t first = launch(0);
  if (first == cudaErrorInvalidValue && cfg.strategy != rowwise::Strategy::kAuto) return r;
  CUDA_CHECK(first);
  for (int i = 1; i < kWarmups; ++i) CUDA_CHECK(launch(i));
  const double ms = median_event_ms(cfg.iters, [&](int i) { CUDA_CHECK(launch(kWarmups + i)); });
  r.time_us = ms * 1e3;
  r.gbps = gbps(c.moved_bytes(), ms);
  r.pct_copy = 100.0 * r.gbps / dev.copy_gbps;
  // Every launch on a pair writes the same y, and launch 0 used pair 0.
  r.check = check_rows(c, buf.x_at(0), buf.y_at(0)) ? Check::kOk : Check::kFail;
  return r;
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
  std::printf("%-11s %-5s %10s %7s %-10s %9s %10s %8s %6s %-5s %s\n", "op", "dtype", "rows", "cols", "strategy", "MiB",
              "time_us", "GB/s", "%copy", "check", "note");
}

void print_row(const Result& r, const char* strategy) {
  std::printf("%-11s %-5s %10lld %7lld %-10s %9.1f ", op_name(r.c.op), dtype_name(r.c.dtype),
              static_cast<long long>(r.c.rows), static_cast<long long>(r.c.cols), strategy, mib(r.c.input_bytes()));
  if (r.check == Check::kNotApplicable) {
    std::printf("%10s %8s %6s %-5s", "-", "-", "-", check_name(r.check));
  } else {
    std::printf("%10.1f %8.1f %6.1f %-5s", r.time_us, r.gbps, r.pct_copy, check_name(r.check));
  }
  if (r.pairs > 1) std::printf(" rotated x%d", r.pairs);
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
                 static_cast<long long>(r.c.cols), rowwise::strategy_name(cfg.strategy), mib(r.c.input_bytes()),
                 r.pairs, r.pairs > 1 ? "true" : "false");
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
                 rowwise::strategy_name(cfg.strategy), mib(r.c.input_bytes()), r.pairs);
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
    std::printf("  %-11s %-5s ", op_name(key.first), dtype_name(key.second));
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
  const char* strategy = rowwise::strategy_name(cfg.strategy);
  std::vector<Result> results;
  for (const Case& c : build_cases(cfg)) {
    const uint64_t seed = 0x5EED0000u + results.size();
    results.push_back(visit_dtype(c.dtype, [&](auto tag) {
      return run_case<typename decltype(tag)::type>(c, cfg, dev, seed);
    }));
    print_row(results.back(), strategy);
  }
  print_summary(results);
  if (!cfg.json_path.empty()) write_json(cfg.json_path, dev, cfg, results);
  if (!cfg.csv_path.empty()) write_csv(cfg.csv_path, cfg, results);

  const bool failed = std::any_of(results.begin(), results.end(), [](const Result& r) { return r.check == Check::kFail; });
  return failed ? 1 : 0;
}
