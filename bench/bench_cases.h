// What rowwise-bench measures: its ops (rowwise's and the seeds' baselines), dtypes, cases (op, dtype,
// rows, cols) and the bytes each moves, the command line's configuration, the device and the results.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <rowwise/rowwise.cuh>

namespace rowwise_bench {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kMemoryCap = 8 * kGiB;  // device memory one case may hold (every operand, all copies)

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

inline const OpInfo& op_info(Op op) { return kOpInfo[static_cast<int>(op)]; }
inline const char* op_name(Op op) { return op_info(op).name; }
inline bool is_tensor_op(Op op) { return op == Op::kTensorSoftmax || op == Op::kTensorLogSoftmax; }

// What --strategy means for a case: baselines have none.
inline const char* strategy_label(Op op, rowwise::Strategy s) {
  return op_info(op).baseline ? "baseline" : rowwise::strategy_name(s);
}

inline const char* dtype_name(DType d) {
  switch (d) {
    case DType::kFp32: return "fp32";
    case DType::kFp64: return "fp64";
    case DType::kFp16: return "fp16";
    case DType::kBf16: return "bf16";
  }
  return "?";
}

inline int64_t dtype_bytes(DType d) {
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
  // Outputs start this many elements past their buffers' alignment, inputs on it: a 16-bit output then
  // sits off its input's offset from 16 bytes, as a view's may.
  int out_offset = 0;
  // Each timed sample: one launch between its own pair of events, or a CUDA graph of a case's launches
  // (graph_launches in device_timing.cuh) replayed between one pair and divided by them: how a decode
  // loop captured in a graph runs, without the ~3 us that an event pair adds to a launch of a few.
  bool graph_timing = false;
  // rowwise's launches programmatic (rowwise::Options::programmatic_launch): each may start while the
  // launch before it still runs, as in a decode graph of kernels that allow it.
  bool programmatic_launch = false;
  std::string json_path;
  std::string csv_path;
};

// The device and its copy bandwidth: a D2D copy of kCopyBytes, bytes read + written.
constexpr int64_t kCopyBytes = kGiB;
struct Device {
  std::string name;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  double copy_gbps = 0;
};

enum class Check { kOk, kFail, kNotApplicable };

inline const char* check_name(Check c) {
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

// The forward op whose output a backward op takes as y.
inline Op forward_of(Op backward) { return backward == Op::kSoftmaxBackward ? Op::kSoftmax : Op::kLogSoftmax; }

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace rowwise_bench
