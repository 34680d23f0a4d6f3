// What dispatch plans with: the strategies, a launch's shape as dispatch sees it, the plan it makes,
// and the device facts every planner shares. Pure host code.
#pragma once
#include <algorithm>
#include <cstdint>

#include "../kernels/row_common.cuh"
#include "../kernels/split_rows.cuh"
#include "device_info.cuh"

namespace rowwise {

// Where a row lives while it is reduced and mapped (one kernel file each in kernels/); kAuto: dispatch's
// choice (choose_plan in strategy.cuh).
enum class Strategy { kAuto, kWarp, kBlock, kCluster, kClusterSmem, kBlockSmem, kSplit, kTwoLaunch, kTwoPass, kTile };

// Whether a strategy's kernels wait for the grid before them (primitives/grid_dependence.cuh), so that
// they may launch programmatically (Options::programmatic_launch): the long-row strategies, whose decode
// shapes gained 0.3 us a launch so. Warp, tile and block rows do not: the wait and trigger, though they
// return at once in a grid launched without the attribute, took int8 outputs of bf16 rows of 1288-1297
// columns (block rows of 32 threads) from 93-96 to 73 % of copy (H200, 256 MiB; docs/perf.md
// "Programmatic launches").
inline bool waits_for_prior_grid(Strategy s) {
  return s == Strategy::kCluster || s == Strategy::kClusterSmem || s == Strategy::kBlockSmem || s == Strategy::kSplit ||
         s == Strategy::kTwoLaunch || s == Strategy::kTwoPass;
}

// Every value, for what walks them all (argument parsing, test sweeps).
inline constexpr Strategy kStrategies[] = {Strategy::kAuto,      Strategy::kWarp,        Strategy::kBlock,
                                           Strategy::kCluster,   Strategy::kClusterSmem, Strategy::kBlockSmem,
                                           Strategy::kSplit,     Strategy::kTwoLaunch,   Strategy::kTwoPass,
                                           Strategy::kTile};

// The name the benchmark, tests and docs use.
inline const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kAuto: return "auto";
    case Strategy::kWarp: return "warp";
    case Strategy::kBlock: return "block";
    case Strategy::kCluster: return "cluster";
    case Strategy::kClusterSmem: return "cluster_smem";
    case Strategy::kBlockSmem: return "block_smem";
    case Strategy::kSplit: return "split";
    case Strategy::kTwoLaunch: return "two_launch";
    case Strategy::kTwoPass: return "two_pass";
    case Strategy::kTile: return "tile";
  }
  return "?";
}

// The shape of one launch as dispatch sees it.
struct RowShape {
  int64_t rows = 0;
  int64_t cols = 0;
  int pack = 1;           // elements per vector access
  int pack_bytes = 4;     // bytes one pack of one operand moves
  int64_t max_packs = 0;  // packs the longest row spans (phase included)
  int value_bytes = 4;    // bytes one element takes on chip (its storage type), all operands' (inputs)
  int inputs = 1;         // operands read per element (2 for the gradient ops)
  bool staged = false;    // rows contiguous (row stride == cols) and an Io that can stage them (tile)
  int out_bytes = 0;      // bytes of one output element (0: unknown, as for functor stores)
  // Output elements the size of the last input's, at its offset from 16 bytes: a tile may stage the
  // output in that input's plane.
  bool out_like_last_input = false;
  bool exp_per_element = false;  // the op takes an exp for every element (kOpExpPerElement)
  bool map_takes_terms = false;  // its map takes each value's term of the reduction again (softmax's exps,
                                 // kOpKeepsTerms), which rows that keep no runs compute twice
  bool narrows_output = false;    // outputs narrower than the stored inputs (int8 / fp8: kNarrowsOutput)
  int64_t row_value_bytes() const { return max_packs * pack * value_bytes; }
  int elem_bytes() const { return pack_bytes / pack; }  // of one operand's element in memory
  // Rows not a whole number of the widest packs: their starts drift off 16-byte boundaries.
  bool ragged() const { return cols % (kMaxPackBytes / elem_bytes()) != 0; }
  // Rows that start or end inside a pack (ragged, or off their packs' boundaries).
  bool partial_packs() const { return max_packs * pack != cols; }
};

// A launch: the strategy and its configuration.
struct Plan {
  Strategy strategy = Strategy::kAuto;
  int threads = 0;          // block size
  int width = 0;            // warp: lanes per row
  int lanes = 0;            // warp: the configuration's exact lanes (WarpConfig::lanes; 0: width at run time)
  int packs_per_lane = 0;   // warp: K
  int rows_per_group = 0;   // warp: R
  int packs_per_thread = 0; // block, cluster: K
  bool edge = false;        // warp, block, cluster: lanes / first threads take the row's edge, whole packs only
  bool fills_sm = false;    // block_smem: one block an SM (its copies in groups; a longer row streamed)
  bool bulk_copies = false; // block_smem, fills_sm: the held packs copied by bulk copies (sm_90)
  int cluster_size = 0;     // cluster, cluster_smem: CTAs per row
  bool clusters_loop = false;  // cluster: a grid of the clusters held at once, each looping over rows
  bool dense_slices = false;   // cluster: 16-bit gradient slices bounded to 3 CTAs an SM (kDenseSlicePacks)
  bool tail_slices = false;    // cluster: slices go on in smem_bytes of shared memory (plan_tail_cluster)
  int rows_per_tile = 0;    // tile: rows a block stages at once
  int pair_split = 0;       // tile, rows a pair of threads each (width 2): where the odd lane's part starts
  bool out_in_input_plane = false;  // tile: the output staged in the last input's plane, over it
  int64_t smem_bytes = 0;   // dynamic shared memory
  SplitLayout split{};      // split: slices of a row
  int64_t row_ctas = 0;     // two_launch: CTAs a row
  int64_t max_ctas = 0;     // launch: at most this many CTAs (Options::max_ctas; 0: no bound)
  bool programmatic_launch = false;  // launch: programmatic dependent launch (Options::programmatic_launch)
  int64_t block_iterations = 0;  // warp: blocks' worth of rows each block loops over (warp_block_iterations)
};

// Devices whose DRAM moves more than kFastMemoryGbpsPerSm an SM (H200: 4.8 TB/s over 132 SMs, 36; H100
// SXM: 25) take the rules measured where memory outpaces the SMs. The first: there, where 16-bit warp
// rows seem bound by the SMs (not profiled), an op of an exp an element (kOpExpPerElement) takes ragged
// 16-bit rows of 3-4 packs a lane (137-263 columns) one a group (warp_plan.cuh). H200, A/B same job,
// 256 MiB: bf16 / fp16 softmax of 150 / 211 / 230 / 255 columns 72-83 -> 86-89 %, 167 / 197 +2-8;
// log_softmax +2-10. Not so for rows of 2 packs a lane (129-135: -2 to -4), the abs-max ops (absmax_scale
// -0.6 to -3.7, int8 outputs -2.7 to +5.5) nor on the H100 (softmax 0 to -3.9, log_softmax -1.1 to -5;
// docs/perf.md "One ragged row a group where memory outpaces the SMs").
inline constexpr int kFastMemoryGbpsPerSm = 30;
inline bool memory_outpaces_sms(const DeviceInfo& dev) {
  return dev.sm_count > 0 && dev.memory_gbps > int64_t{kFastMemoryGbpsPerSm} * dev.sm_count;
}

// Smallest power of two >= n (n >= 1; at most 2^30).
inline int lanes_for(int64_t n) {
  int w = 1;
  while (w < n) w *= 2;
  return w;
}

// Blocks of `threads` threads at `registers` each that one SM holds (sm_80, sm_90).
inline constexpr int kThreadsPerSm = 2048;
inline constexpr int kBlocksPerSm = 32;
inline int resident_blocks(int threads, int registers) {
  return std::min({kRegistersPerSm / (threads * registers), kThreadsPerSm / threads, kBlocksPerSm});
}

// Shared memory every block keeps for itself (reduction slots), besides the row buffer.
inline constexpr int kStaticSmemReserve = 1024;
// What the hardware reserves of an SM's shared memory for each resident block (sm_80, sm_90).
inline constexpr int kSystemSmemPerBlock = 1024;

// Dynamic shared memory a block may take while `blocks` of them share an SM, each with `static_bytes`
// of static shared memory besides.
inline int64_t smem_per_block(const DeviceInfo& dev, int blocks, int static_bytes) {
  return std::min<int64_t>(dev.smem_per_sm / blocks - kSystemSmemPerBlock, dev.max_smem_optin) - static_bytes;
}

}  // namespace rowwise
