// The cases a run measures.
#include "sweeps.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "command_line.h"

namespace rowwise_bench {
namespace {

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

}  // namespace

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

}  // namespace rowwise_bench
