// Which row strategy runs a shape, as data: a table of rules read top to bottom, each with the
// measurement that put its threshold where it is (docs/perf.md has the tables). Pure host code, so
// the CPU tests check every choice.
#pragma once
#include <cstdint>

#include "device_info.cuh"

namespace rowwise {

enum class Strategy { kAuto, kWarp, kBlock, kBlockSmem, kTwoPass };

// The shape of one launch as dispatch sees it.
struct RowShape {
  int64_t rows = 0;
  int64_t cols = 0;
  int pack = 1;           // elements per vector access
  int64_t max_packs = 0;  // packs the longest row spans (phase included)
  int value_bytes = 4;    // bytes one element takes on chip (sizeof(Op::In))
  int64_t row_value_bytes() const { return max_packs * pack * value_bytes; }
};

// Register-resident warp rows: K packs per lane, R rows per group at once. Smaller K first.
struct WarpConfig {
  int packs_per_lane;
  int rows_per_group;
};
inline constexpr WarpConfig kWarpConfigs[] = {{1, 4}, {2, 2}, {4, 1}, {8, 1}};
inline constexpr int kWarpBlockThreads = 128;

// Register-resident block rows: packs per thread, and the largest block.
inline constexpr int kBlockPacksPerThread = 4;
inline constexpr int kBlockMaxThreads = 1024;
inline constexpr int kStreamBlockThreads = 1024;  // block_smem and two_pass

// Shared memory every block keeps for itself (reduction slots), besides the row buffer.
inline constexpr int kStaticSmemReserve = 1024;

struct StrategyRule {
  Strategy strategy;
  int64_t max_row_value_bytes;  // rows with more on-chip bytes go further down the table
  const char* evidence;
};

inline constexpr int64_t kUnbounded = INT64_MAX;

inline constexpr StrategyRule kStrategyRules[] = {
    {Strategy::kWarp, 4096, "docs/perf.md#dispatch: warp rows up to 1024 fp32 values"},
    {Strategy::kBlock, 65536, "docs/perf.md#dispatch: block rows up to 16384 fp32 values"},
    {Strategy::kBlockSmem, kUnbounded, "docs/perf.md#dispatch: while the row fits in shared memory"},
    {Strategy::kTwoPass, kUnbounded, "rows that fit nowhere on chip"},
};

// A launch: the strategy and its configuration.
struct Plan {
  Strategy strategy = Strategy::kAuto;
  int threads = 0;          // block size
  int width = 0;            // warp: lanes per row
  int packs_per_lane = 0;   // warp: K
  int rows_per_group = 0;   // warp: R
  int64_t smem_bytes = 0;   // dynamic shared memory
};

// Smallest power of two >= n, for n in 1..32.
inline int lanes_for(int64_t n) {
  int w = 1;
  while (w < n) w *= 2;
  return w;
}

// Configures `s` for the shape; false if the row does not fit the strategy.
inline bool plan_for(Strategy s, const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  *plan = Plan{};
  plan->strategy = s;
  switch (s) {
    case Strategy::kWarp:
      for (const WarpConfig& c : kWarpConfigs) {
        const int64_t lanes_needed = (shape.max_packs + c.packs_per_lane - 1) / c.packs_per_lane;
        if (lanes_needed > 32) continue;
        plan->width = lanes_for(lanes_needed);
        plan->packs_per_lane = c.packs_per_lane;
        plan->rows_per_group = c.rows_per_group;
        plan->threads = kWarpBlockThreads;
        return true;
      }
      return false;
    case Strategy::kBlock: {
      const int64_t threads = (shape.max_packs + kBlockPacksPerThread - 1) / kBlockPacksPerThread;
      if (threads > kBlockMaxThreads) return false;
      plan->threads = static_cast<int>((threads + 31) / 32 * 32);
      return true;
    }
    case Strategy::kBlockSmem:
      plan->smem_bytes = shape.row_value_bytes();
      plan->threads = kStreamBlockThreads;
      return plan->smem_bytes + kStaticSmemReserve <= dev.max_smem_optin;
    case Strategy::kTwoPass:
      plan->threads = kStreamBlockThreads;
      return true;
    case Strategy::kAuto:
      break;
  }
  return false;
}

// The first rule of the table that takes the row and fits it; or the forced strategy if it fits.
inline bool choose_plan(const RowShape& shape, const DeviceInfo& dev, Strategy forced, Plan* plan) {
  if (forced != Strategy::kAuto) return plan_for(forced, shape, dev, plan);
  for (const StrategyRule& rule : kStrategyRules) {
    if (shape.row_value_bytes() <= rule.max_row_value_bytes && plan_for(rule.strategy, shape, dev, plan)) return true;
  }
  return false;
}

inline const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kAuto: return "auto";
    case Strategy::kWarp: return "warp";
    case Strategy::kBlock: return "block";
    case Strategy::kBlockSmem: return "block_smem";
    case Strategy::kTwoPass: return "two_pass";
  }
  return "?";
}

}  // namespace rowwise
