// Which row strategy runs a shape, as data: a table of rules read top to bottom, each with the
// measurement that put its threshold where it is (docs/perf.md has the tables); each strategy's plan
// (its block, packs a thread, ...) comes from its planner (warp_plan.cuh, block_plan.cuh, tile_plan.cuh,
// split_plan.cuh). Pure host code, so the CPU tests check every choice.
#pragma once
#include <cstdint>

#include "block_plan.cuh"
#include "out_packs.cuh"
#include "plan.cuh"
#include "split_plan.cuh"
#include "tile_plan.cuh"
#include "warp_plan.cuh"

namespace rowwise {

// Which rows a rule takes by their ends (RowShape::ragged).
enum class RowEnds { kAny, kRagged };

// What else a rule may ask of a row and its op (StrategyRule::needs, flags).
enum RuleNeeds : unsigned {
  kAnyRow = 0,
  kOutLikeInput = 1,     // an output of the last input's element size and offset from 16 bytes
                         // (RowShape::out_like_last_input: a tile may stage it over that input)
  kNoExpPerElement = 2,  // an op that takes no exp an element (RowShape::exp_per_element)
  kNoTermsInMap = 4,     // an op whose map takes no term of the reduction again (RowShape::map_takes_terms)
  kSmsKeepUp = 8,        // a device whose SMs keep up with its memory (not memory_outpaces_sms: the H100)
  kOutOffInput = 16,     // an output not like the last input (not RowShape::out_like_last_input)
  kStreamedGradient = 32,  // a gradient row block_smem would stream much of (streamed_gradient_row)
  kClusterSmemRow = 64,    // a row cluster_smem runs faster than register clusters (cluster_smem_row)
};

struct StrategyRule {
  Strategy strategy;
  int64_t max_row_value_bytes;  // rows with more on-chip bytes go further down the table
  bool only_few_rows;           // only while there are fewer rows than SMs
  int min_inputs;               // only for ops reading at least this many operands per element
  RowEnds ends;                 // only for ragged rows
  int64_t max_cols;             // only for rows of at most this many columns
  int max_elem_bytes;           // only for elements of at most this many bytes (one operand's, in memory)
  int max_value_bytes;          // only for elements of at most this many bytes on chip (all operands)
  int elem_out_bytes;           // only for rows whose element (one operand's) and output take this many
                                // bytes in memory (0: any; an unknown output, a functor's, takes none)
  unsigned needs;               // only for rows and ops with these RuleNeeds (flags)
  const char* evidence;
};

inline constexpr int64_t kUnbounded = INT64_MAX;

inline constexpr int kAnyElement = 8;       // max_elem_bytes of any element (fp64)
inline constexpr int kAnyValue = INT32_MAX;  // max_value_bytes of any row (fp64 gradients take 16)

// 16-bit rows (one operand) longer than this go to block rows: a row of up to 2048 columns is then a
// one-warp block bounded to 64 registers, where warp lanes of 6-8 packs took 72-96 (5-7 blocks of 4
// warps an SM). Rows of whole packs: bf16 softmax 1344 / 1600 / 2040 columns 80 / 81 / 83 -> 86 /
// 93 / 94 % (64-bit warp rows); 1024 77 against 85 % (blocks of 4 packs a thread). Ragged rows, once
// block rows took their edge apart (block_rows_take_edge), against 32-bit warp rows: bf16 softmax
// 1289 / 1559 / 1851 84 / 85 / 87 -> 87 / 93 / 94 %, but 1013 / 1103 90 / 83 -> 75 / 77 %.
inline constexpr int64_t kWarp16BitRowBytes = 2560;

// fp32 rows (one operand) mapped to fp32 longer than this go to block rows up to 4 KB: one warp of 8
// packs a thread, one row a warp, where warp rows took half-warps of 7-8 packs (or whole warps of 5-8).
// H200, A/B same job, softmax 480 / 509 / 512 / 1000 / 1024 columns 97.2 / 96.0 / 97.1 / 97.0 / 97.2 ->
// 100.1 / 98.5 / 99.9 / 98.4 / 99.1 %, log_softmax alike, absmax_scale +0.8-2.4. Shorter ragged rows
// lost (softmax 449 / 457 / 465 -2.3 / -2.0 / -1.2; 384 columns -1.4 to -2.7 forced); the gradients
// measured the same either way; int8 / fp8 outputs of fp32 lost 3-25 in blocks up to 576 columns, so
// the rule takes 4-byte outputs only (docs/perf.md "fp32 rows of 469-1024 columns in one-warp blocks").
inline constexpr int64_t kWarpFp32RowBytes = 1872;

// Rows (fp32, 16-bit) too long for block_smem go to clusters of 16 CTAs rather than split while they
// hold at most what a cluster holds (16 slices of up to 64 KB), however many rows: read once, merged at a cluster
// barrier. H200, 256 MiB, split -> cluster (clusters then spread), % of copy: fp32 softmax 98304 /
// 131072 75 / 73 -> 79 / 80, bf16 196608 / 262144 67 / 67 -> 73 / 75, int8 outputs of fp32 131072 66 ->
// 75, fp32 softmax_backward 40000 / 65536 81 / 81 -> 90 / 89, bf16 80000 / 131072 77 / 78 -> 87 / 84;
// H100 +3-16. Rows of 512 KB-1 MB (slices of 48-64 KB) were mixed then (fp32 softmax 262144 73 -> 71);
// with clusters scheduled load-balancing (launch.cuh), H200, 1 GiB / 256 MiB, split -> cluster: fp32
// softmax 262144 79.7 / 74.3 -> 83.5 / 79.7, log_softmax 82.1 / 76.2 -> 83.8 / 79.7, int8 outputs 68.4 /
// 62.0 -> 77.2 / 71.6, fp32 softmax_backward 131072 86.6 / 84.2 -> 92.4 / 89.5, bf16 262144 83.3 / 80.8 ->
// 86.6 / 84.1, bf16 int8 outputs 524288 69.7 / 64.5 -> 75.5 / 70.8; bf16 softmax / log_softmax 524288 -1.7
// / -2.3 at 1 GiB but +0.7 / +1.6 at 256 MiB, ragged bf16 gradients of 200003 columns (800 KB) -4.1 /
// -2.0 (docs/perf.md "Clusters scheduled load-balancing").
inline constexpr int64_t kManyRowsClusterBytes = kMaxClusterCtas * kClusterSliceBytes;  // all a cluster holds: 1 MB
// Past that, up to 2 MB, many rows of 4-byte elements and the gradients take tail slices where memory
// outpaces the SMs (their registers' 1 MB and up to 1 MB more in shared memory; block_plan.cuh:
// plan_tail_cluster); the others go on to split. Measured to 2 MB (fp32 gradients of 262144 columns).
inline constexpr int64_t kManyRowsTailClusterBytes = 2 * kManyRowsClusterBytes;

// Rows holding more than this on chip go to two_launch rather than split: split's CTAs hold ~28 MB
// (4 an SM, H100 and H200) and stream the rest of a row twice anyway, each CTA a slice of its own.
// One row, split -> two_launch, % of copy (softmax / softmax_backward / int8 outputs): 1 GiB fp32 H200
// 53.1 / 50.0 / 46.6 -> 63.4 / 60.8 / 56.6, H100 56.9 / 52.6 / 48.3 -> 65.1 / 59.6 / 55.9 (bf16 alike);
// 256 MB fp32 (H200) 60.1 / 57.3 / 51.1 -> 60.2 / 59.1 / 53.3; 64 MB fp32 mixed: H200 51.0 / 51.5 /
// 43.4 -> 51.9 / 52.6 / 42.6, H100 57.2 / 55.3 / 50.0 -> 56.3 / 55.4 / 46.4.
inline constexpr int64_t kTwoLaunchRowBytes = int64_t{128} << 20;

// Gradient rows (two operands) that block_smem would stream more than 1 / kGradientBlockSmemBufferShare
// of its buffer of go to clusters where memory outpaces the SMs: each streamed pack reads both operands
// again. H200, one build, two rounds, 256 MiB / 1 GiB, block_smem forced against clusters (docs/perf.md
// "Streamed gradient rows over clusters"): softmax_backward / log_softmax_backward of fp32 / bf16 / fp16
// rows of 288 KB on chip (36864 / 73728 columns) +0.5 to +7.2 / -3.4 to +4.3 (fp32 softmax_backward
// 87.5 -> 92.6 %), of 301 KB (38568 / 77136) +9.6 to +14.6 / +7.3 to +14.7 (bf16 log_softmax_backward 74.9
// -> 89.5, 77.9 -> 92.6); rows of 258-273 KB (fp32 33064 / 35001, 16-bit 66128 / 70001) lost -10.4 to
// +1.9. The one-operand ops lost on clusters at 1 GiB (fp32 softmax of 65536 / 73728 columns 93.3 / 90.6
// -> 88.4 / 84.2 %) and stream up to a third.
inline constexpr int64_t kGradientBlockSmemBufferShare = 4;
inline bool streamed_gradient_row(const RowShape& shape, const DeviceInfo& dev) {
  return shape.inputs == 2 && memory_outpaces_sms(dev) &&
         block_smem_streams_past(shape, dev, kGradientBlockSmemBufferShare);
}

// Many ragged rows of one operand from kClusterSmemMinRowBytes on chip go to clusters whose slices lie
// in shared memory (cluster_smem), not registers, where memory outpaces the SMs: register slices load the
// row's partial packs in line, ahead of the thread's other loads. H200, 256 MiB, % of copy, register
// clusters -> cluster_smem (softmax / log_softmax / absmax_scale): fp32 of 100003 columns 77.9 / 78.6 /
// 81.7 -> 81.0 / 81.3 / 83.3, of 150001 +1.5 to +2.5, of 200003 74.7 / 74.8 / 77.7 -> 80.0 / 80.6 / 81.4;
// bf16 of 200003 68.9 / 71.6 / 79.2 -> 78.5 / 78.0 / 83.3, of 300007 +3.1 to +5.1, of 400009 +6.0 to +8.2
// (1 GiB: +1.4 to +13.5); rows of 1 MB -1.3 to +2.7 (fp32 250001, bf16 500001). Not so for shorter rows
// (313 KB, fp32 80001 / bf16 160001: -2.8 to +0.1), int8 outputs (-11.1 to +4.5), rows of whole packs
// (fp32 131072 / 262144 -0.9 to -1.9 at their best cluster size) nor the gradients (-12 to -24: slices of
// two operands); the H100 was not measured (docs/perf.md "Cluster slices in shared memory for ragged rows").
inline constexpr int64_t kClusterSmemMinRowBytes = 384 * 1024;
// So do many 16-bit softmax and log_softmax rows of one operand past block_smem, but those whose register
// slices every thread fills (rows of 262144 columns). H200, 256 MiB, two rounds, register clusters ->
// cluster_smem, softmax / log_softmax, % of copy: bf16 of 168000 columns 71.8 / 71.2 -> 80.3 / 79.5, 200000
// 70.2 / 72.3 -> 77.9 / 76.5, 336000 62.4 / 66.6 -> 75.6 / 75.7, 400000 65.7 / 68.1 -> 73.9 / 75.8, fp16
// alike (+0.4 to +13.1), 184000-464000 +0.3 to +4.1 otherwise; but log_softmax of 248000 -0.3 / -0.9 (bf16 /
// fp16), bf16 of 160000 +2.8 / -0.9 and 480000 -0.9 / -0.7, and rows whose register slices are full lost
// more: bf16 of 262144 -2.3 / -7.4, bf16 / fp16 of 524288 -1.3 / -5.1 and -0.5 / -4.2. fp32 rows lost 5-11
// (whole-row register slices that loop), absmax_scale 2-11 (docs/perf.md "16-bit softmax rows on cluster
// slices in shared memory").
inline bool full_register_slices(const RowShape& shape, const DeviceInfo& dev) {
  Plan registers;
  if (!plan_cluster(shape, dev, &registers)) return false;
  const int64_t slice = (shape.max_packs + registers.cluster_size - 1) / registers.cluster_size;
  return slice == int64_t{registers.threads} * registers.packs_per_thread;
}
inline bool cluster_smem_row(const RowShape& shape, const DeviceInfo& dev) {
  const bool ragged_row = shape.ragged() && shape.row_value_bytes() >= kClusterSmemMinRowBytes;
  const bool softmax_16bit_row =
      shape.elem_bytes() == 2 && shape.exp_per_element && !full_register_slices(shape, dev);
  return shape.inputs == 1 && !shape.narrows_output && memory_outpaces_sms(dev) && (ragged_row || softmax_16bit_row);
}

inline constexpr StrategyRule kStrategyRules[] = {
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTileThreadRowCols, 4, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: contiguous ragged rows up to 64 columns staged in tiles (not doubles)"},
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTile16BitGradientRowCols, 2, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: ragged 16-bit rows up to 72 columns, a thread each"},
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTile16BitRowCols, 2, 2, 0, kOutLikeInput,
     "docs/perf.md#dispatch: ragged 16-bit rows of one operand up to 149 columns, over the input, a thread each"},
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTile16BitPairRowCols, 2, 2, 0,
     kOutLikeInput | kNoExpPerElement,
     "docs/perf.md#dispatch: ragged 16-bit rows of one operand over the input up to 298 columns, a pair of threads "
     "each (ops without exps)"},
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTile16BitPairRowCols, 2, 2, 0,
     kOutLikeInput | kSmsKeepUp,
     "docs/perf.md#dispatch: the same for every op where the SMs keep up with memory (H100)"},
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTile16BitExpPairRowCols, 2, 2, 0,
     kOutLikeInput | kNoTermsInMap,
     "docs/perf.md#dispatch: the same up to 195 columns for ops with exps in the reduction only (log_softmax)"},
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTile16BitTermsPairRowCols, 2, 2, 0, kOutLikeInput,
     "docs/perf.md#dispatch: the same up to 167 columns for ops with exps in the map too (softmax)"},
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTile16BitOwnPlaneRowCols, 2, 2, 0, kAnyRow,
     "docs/perf.md#dispatch: other ragged 16-bit rows of one operand up to 131 columns, a thread each"},
    {Strategy::kTile, kUnbounded, false, 1, RowEnds::kRagged, kTile16BitPairRowCols, 2, 2, 2, kOutOffInput,
     "docs/perf.md#dispatch: 16-bit outputs off the input's offset from 16 bytes up to 298 columns, own plane"},
    {Strategy::kWarp, kWarp16BitRowBytes, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, 2, 0, kAnyRow,
     "docs/perf.md#dispatch: 16-bit rows in warps up to 1280 columns"},
    {Strategy::kBlock, 4096, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, 2, 0, kAnyRow,
     "docs/perf.md#dispatch: 16-bit rows of 1281-2048 columns: one-warp blocks"},
    {Strategy::kWarp, kWarpFp32RowBytes, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: warp rows up to 1872 bytes (468 fp32)"},
    {Strategy::kBlock, 4096, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, 4, 4, kAnyRow,
     "docs/perf.md#dispatch: fp32 rows to fp32 of 469-1024 columns: one-warp blocks"},
    {Strategy::kWarp, 4096, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: warp rows up to 4 KB (1024 fp32, 2048 bf16)"},
    {Strategy::kCluster, kUnbounded, true, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: fewer rows than SMs spread over clusters (rows up to 1 MB on chip)"},
    {Strategy::kBlock, 65536, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: block rows up to 64 KB (16384 fp32, 32768 bf16)"},
    {Strategy::kSplit, kTwoLaunchRowBytes, true, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: fewer rows than SMs, longer than a cluster holds"},
    {Strategy::kCluster, kManyRowsClusterBytes, false, 2, RowEnds::kAny, kUnbounded, 4, kAnyValue, 0, kStreamedGradient,
     "docs/perf.md#dispatch: many gradient rows block_smem would stream a quarter of, over clusters (H200)"},
    {Strategy::kBlockSmem, kUnbounded, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: block_smem while the row fits shared memory, or 4/3 of it (the rest streamed)"},
    {Strategy::kClusterSmem, kManyRowsClusterBytes, false, 1, RowEnds::kAny, kUnbounded, 4, kAnyValue, 0,
     kClusterSmemRow,
     "docs/perf.md#dispatch: many ragged rows of one operand of 384 KB-1 MB, and 16-bit softmax / log_softmax rows "
     "up to 1 MB, cluster slices in shared memory (H200)"},
    {Strategy::kCluster, kManyRowsTailClusterBytes, false, 1, RowEnds::kAny, kUnbounded, 4, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: many rows of up to 1 MB over clusters of 16 CTAs (not doubles); up to 2 MB with tail "
     "slices (4-byte elements and gradients, H200)"},
    {Strategy::kSplit, kTwoLaunchRowBytes, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: rows longer than one SM holds"},
    {Strategy::kTwoLaunch, kUnbounded, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: rows far longer than the GPU holds, streamed twice"},
};

// Configures `s` for the shape; false if the row does not fit the strategy.
inline bool plan_for(Strategy s, const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  *plan = Plan{};
  plan->strategy = s;
  switch (s) {
    case Strategy::kWarp: return plan_warp(shape, dev, plan);
    case Strategy::kBlock: return plan_block(shape, dev, plan);
    case Strategy::kCluster: return plan_cluster(shape, dev, plan);
    case Strategy::kClusterSmem: return plan_cluster_smem(shape, dev, plan);
    case Strategy::kBlockSmem: return plan_block_smem(shape, dev, plan);
    case Strategy::kSplit: return plan_split(shape, dev, plan);
    case Strategy::kTwoLaunch: return plan_two_launch(shape, dev, plan);
    case Strategy::kTwoPass: return plan_two_pass(shape, plan);
    case Strategy::kTile: return plan_tile(shape, dev, plan);
    case Strategy::kAuto: break;
  }
  return false;
}

// The first rule of the table that takes the row and fits it; or the forced strategy if it fits.
inline bool choose_plan(const RowShape& shape, const DeviceInfo& dev, Strategy forced, Plan* plan) {
  if (forced != Strategy::kAuto) return plan_for(forced, shape, dev, plan);
  for (const StrategyRule& rule : kStrategyRules) {
    if ((rule.only_few_rows && shape.rows >= dev.sm_count) || shape.inputs < rule.min_inputs) continue;
    if (rule.ends == RowEnds::kRagged && !shape.ragged()) continue;
    if (shape.cols > rule.max_cols || shape.elem_bytes() > rule.max_elem_bytes || shape.value_bytes > rule.max_value_bytes)
      continue;
    if (rule.elem_out_bytes != 0 && (shape.elem_bytes() != rule.elem_out_bytes || shape.out_bytes != rule.elem_out_bytes))
      continue;
    if ((rule.needs & kOutLikeInput) && !shape.out_like_last_input) continue;
    if ((rule.needs & kNoExpPerElement) && shape.exp_per_element) continue;
    if ((rule.needs & kNoTermsInMap) && shape.map_takes_terms) continue;
    if ((rule.needs & kSmsKeepUp) && memory_outpaces_sms(dev)) continue;
    if ((rule.needs & kOutOffInput) && shape.out_like_last_input) continue;
    if ((rule.needs & kStreamedGradient) && !streamed_gradient_row(shape, dev)) continue;
    if ((rule.needs & kClusterSmemRow) && !cluster_smem_row(shape, dev)) continue;
    if (shape.row_value_bytes() <= rule.max_row_value_bytes && plan_for(rule.strategy, shape, dev, plan)) return true;
  }
  return false;
}

}  // namespace rowwise
