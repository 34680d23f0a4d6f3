// Which row strategy runs a shape, as data: a table of rules read top to bottom, each with the
// measurement that put its threshold where it is (docs/perf.md has the tables). Pure host code, so
// the CPU tests check every choice.
#pragma once
#include <algorithm>
#include <iterator>
#include <cstdint>

#include "../kernels/block_rows.cuh"
#include "../kernels/block_smem_rows.cuh"
#include "../kernels/split_rows.cuh"
#include "../kernels/tile_rows.cuh"
#include "../kernels/two_launch_rows.cuh"
#include "../kernels/two_pass_rows.cuh"
#include "../kernels/warp_rows.cuh"
#include "device_info.cuh"

namespace rowwise {

enum class Strategy { kAuto, kWarp, kBlock, kCluster, kBlockSmem, kSplit, kTwoLaunch, kTwoPass, kTile };

// Whether a strategy's kernels wait for the grid before them (primitives/grid_dependence.cuh), so that
// they may launch programmatically (Options::programmatic_launch): the long-row strategies, whose decode
// shapes gained 0.3 us a launch so. Warp, tile and block rows do not: the wait and trigger, though they
// return at once in a grid launched without the attribute, took int8 outputs of bf16 rows of 1288-1297
// columns (block rows of 32 threads) from 93-96 to 73 % of copy (H200, 256 MiB; docs/perf.md
// "Programmatic launches").
inline bool waits_for_prior_grid(Strategy s) {
  return s == Strategy::kCluster || s == Strategy::kBlockSmem || s == Strategy::kSplit || s == Strategy::kTwoLaunch ||
         s == Strategy::kTwoPass;
}

// Every value, for what walks them all (argument parsing, test sweeps).
inline constexpr Strategy kStrategies[] = {Strategy::kAuto,  Strategy::kWarp,      Strategy::kBlock,
                                           Strategy::kCluster, Strategy::kBlockSmem, Strategy::kSplit,
                                           Strategy::kTwoLaunch, Strategy::kTwoPass, Strategy::kTile};

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

// kStoredBytesPerThread (kernels/row_common.cuh): bytes of row one thread keeps in registers for a
// register-resident row. More per thread means fewer threads per row, so fewer shuffle steps and
// barriers per element, and more rows per SM in flight (docs/perf.md#dispatch).

// Register-resident warp rows: K packs per lane, R rows per group at once (tiny rows keep R*K packs
// in flight per lane). A group spans at least kMinGroupBytes per load instruction (or its whole row,
// or min_group_bytes): narrower groups touch each cache line in two instructions, which measured 47 %
// of copy for fp32 128-col rows against 55 % with one pack per lane (docs/perf.md#dispatch). 64
// rather than 128 bytes: rows of 5-7 packs took 8 lanes of one pack, 3-1 of them idle; 4 lanes of 2
// packs: H200 bf16 softmax 40 / 48 / 56 columns 57 / 67 / 77 -> 71 / 83 / 87 %, fp32 24 81 -> 97 %
// ("Warp groups of 64 bytes").
// Groups whose lanes take the edge (edge_lanes) give the row's partial first and last packs to their
// lanes, one element each, and hold its whole packs only; other groups of several rows move partial
// packs in the lane that holds them, element by element.
enum class PackEnds { kAny, kWhole, kPartial };  // the rows a configuration takes (RowShape::partial_packs)
struct WarpConfig {
  int packs_per_lane;
  int rows_per_group;
  PackEnds ends;
  bool edge_lanes;
  bool op_opt_in = false;  // planned only for ops that ask (warp_config_offered)
  int lanes = 0;           // > 0: groups of exactly this many lanes (else a power of two)
  int value_bytes = 0;     // > 0: only rows of values of this many bytes on chip
  bool narrowing_only = false;  // only rows quantized to a narrower output (RowShape::narrows_output)
};
// Every K up to 8, so that a row fills its lanes: with K in {1, 2, 4, 8} a row of 129-192 packs took
// 256 slots and ran at the share it filled (fp32 553 columns 81 %, bf16 1500 columns 74 %). At 2 packs
// a lane, rows of whole packs go two a group and rows with partial packs with their edge:
// ragged bf16 softmax of 65-121 columns (two a group, partial packs in the lane) 33-55 -> 47-72 %,
// 129 / 135 (8 lanes of 3 packs, a third empty) 64 / 66 -> 75 / 80 %. Rows with partial packs of
// kMinTwoEdgeRowBytes or more and 2-4 packs a lane go two a group with their edges, where both rows fit
// kStoredBytesPerThread (16-bit and fp32 gradients: at 2 packs a lane only): one a group kept
// half the bytes a warp in flight, latency-bound (H100, ragged 16-bit rows of 129-255 columns: softmax
// 90-94 -> 93-97 %, log_softmax 89-94 -> 96-97, int8 outputs +4-7). Shorter rows lost so (bf16 65
// columns: softmax 77 -> 72 %, softmax_backward 97 -> 86; docs/perf.md "two ragged rows a warp group").
// On the H200 softmax and log_softmax take such rows one a group from 3 packs a lane
// (kFastMemoryGbpsPerSm), and 16-bit rows of 17-32 whole packs (136-256 columns but 144) of one operand
// go one a group of 8 lanes without the edge code, which the edge-taking lanes ran for rows that have no
// edge: H200, A/B same job, log_softmax 136 / 160 / 200 columns 80-89 -> 86-93 % (+0.8 to +5.5),
// softmax 136 +1.5 (its exps kept there too), the rest -0.9 to +0.7; such rows two a group lost 3-19
// points in softmax and 0.4-9 in int8 outputs; on the H100 the rule gained nothing (-0.6 to +0.2;
// docs/perf.md "Whole 16-bit rows without the edge"). The abs-max ops lost so (absmax_scale 0 to -2.8,
// int8 outputs -1.9 to +3.7) until whole rows dropped their phase and bounds tests (warp_rows.cuh
// WholeRows); since, H200: int8 / fp8 outputs of 136-200 columns +2.2 to +7.4 (bf16 to int8 of 136 / 160:
// 78.3 / 87.4 -> 85.0 / 94.8 %), absmax_scale +0.2 to +3.7, 248-256 -0.4 to +0.7 (docs/perf.md
// "Whole 16-bit abs-max rows without the edge").
// Rows of 9-12 whole packs (bf16 72-96 columns, fp32 36-48) fill 4 lanes of 3 packs, two a group, where
// 8 lanes of 2 left 4-7 of 16 slots empty; only ops whose every element costs an exp ask for them
// (kOpExpPerElement). H200, A/B same job: bf16 softmax 72 / 80 / 96 columns 64 / 70 / 81 -> 81 /
// 89 / 94 %, log_softmax +9-14, fp32 softmax and log_softmax 36 / 40 +3-6; but fp32 rows of 12 packs
// -1 (those keep 8 lanes of 2), absmax_scale -1.5 to -5.5 and the gradients -4 to +6 ("Three packs a
// lane for two rows").
// Groups of exactly `lanes` lanes (any count; any_width_allreduce) take rows of whole 16-byte packs of
// 2- or 4-byte values that fill their every slot, where a power of two left many empty (the warp's
// last 32 % lanes lanes idle). Rows of 3 or 5 packs (bf16 24 / 40 columns, fp32 12 / 20), a quarter or 3 of
// 8 slots empty before, take 3 or 5 lanes of one pack; 16-bit rows of 18 packs (144 columns), 8 lanes of
// 3 before, 6 lanes of 3. H200, A/B same job: bf16 / fp16 24 columns softmax 69 / 72 -> 87 / 88 %,
// log_softmax +13-14, int8 outputs +13-15; 40 columns softmax +14-15 (86-88 %), log_softmax +6-7,
// absmax_scale +5, int8 +5-6; fp32 12 / 20 +2-14 (softmax 84 / 85 -> 95 / 96 %); 144 columns +1-9
// (softmax 88 -> 92 %, log_softmax 84-86 -> 93-94); absmax_scale of 24 / 12 columns -0.5 to -1.3.
// H100: 24 / 40 columns +0.4-4.9, fp32 12 / 20 -0.9 to +6.1, 144 columns -2.4 to +0.4. Lost, so not
// configured: rows of 6 or 7 packs in as many lanes (H200, bf16 56 columns log_softmax 89.5 -> 79.6 %,
// int8 outputs of fp32 28 88 -> 73; at two rows a group as well), 16-bit rows of 17 packs in 6 lanes of
// 3 (136 columns: H200 -2 to +7, H100 -0.6 to -4.1), 16-bit rows of 25 packs in 5 lanes of 5 (200
// columns -3.5 to -7.3), fp32 rows of 17-18 packs in 6 lanes of 3 (-0.6 to -2.9; int8 outputs +3-5)
// ("Warp groups of any width").
// Rows of 9 or 10 packs quantized to int8 / fp8 (16-bit 72 / 80 columns, fp32 36 / 40), in 8 lanes of 2
// (9-10 of 16 slots) before, take 3 lanes of 3 packs or 5 of 2, two rows a group. H200, A/B same job,
// int8 outputs: 16-bit 72 / 80 columns 61-72 -> 74-85 % (+8.5 to +17.5), fp32 36 / 40 68 / 74 -> 76 /
// 86 %; fp8 outputs +3.4 to +13.7. H100: 80 columns +0.6 to +5.3, fp32 36 / 40 -0.2 to +1.9, but 16-bit
// 72 columns -3.1 to -7.1 (fp16 to fp8 90 -> 83 %; bf16 to int8 +0.4): kept for the H200. The other ops
// lost so (absmax_scale -4.6 to -12.6, softmax -0.4 to -2.7), and so did rows of 6 packs in 3 lanes of
// 2 (int8 outputs of 16-bit 48 columns -2.3 / -5.9; absmax_scale -12 to -13).
// Ragged rows of 17-18 whole packs (16-bit 137-151 columns, fp32 69-75), whose 8 lanes of 3 packs left
// a quarter of the slots empty, take 6 lanes of 3 with the edge (its slots sized for 6 lanes) in ops of
// an exp an element, where memory outpaces the SMs: fp32 rows two a group, 16-bit rows one (as 8 lanes
// there). H200, A/B same job, 256 MiB: fp32 softmax / log_softmax of 70 / 75 columns 81-84 -> 91-92 %,
// bf16 softmax 137 / 150 +2.8 / +1.5, log_softmax +7.1 / +3.4 (137: 77 -> 84 %); the abs-max ops lost
// so (absmax_scale -0.3 to -3.5, 16-bit int8 / fp8 outputs -1.8 to -4.5), and the H100 too (16-bit
// log_softmax two a group -9 to -12, fp32 -1.3; docs/perf.md "Six-lane groups with the edge").
// Rows of 2 whole 16-byte packs (16-bit 16 columns, fp32 8) take 2 lanes of a compile-time width
// where they took the same 2 lanes at run time: the shuffles and lane indices fold to constants,
// 56 -> 48 registers, instructions -8 % (ncu, bf16 softmax of 16 columns); H200, one kernel timed alone,
// 256 MiB 3792 -> 3908 GB/s, 1 GiB 4036 -> 4144 (docs/perf.md "Warp groups of two lanes").
// One configuration a line (WarpConfig's fields): K packs a lane, R rows a group, the pack ends of the
// rows it takes, whether its lanes take the row's edge, whether only ops that ask get it, its exact
// lanes (0: a power of two), the only value bytes it takes (0: any), whether only quantized rows do.
inline constexpr WarpConfig kWarpConfigs[] = {
    // K, R, ends, edge, opt-in, lanes, values, narrowing
    {1, 4, PackEnds::kAny,     false, false, 0, 0, false},  // tiny rows, several a group
    {2, 2, PackEnds::kWhole,   false, false, 0, 0, false},  // two rows of whole packs
    {2, 2, PackEnds::kPartial, true,  false, 0, 0, false},  // two ragged rows with their edges
    {2, 1, PackEnds::kPartial, true,  false, 0, 0, false},  // a ragged row with its edge
    {3, 2, PackEnds::kPartial, true,  false, 0, 0, false},
    {3, 1, PackEnds::kWhole,   false, false, 0, 2, false},  // whole 16-bit rows without the edge (H200)
    {3, 1, PackEnds::kAny,     true,  false, 0, 0, false},
    {3, 2, PackEnds::kWhole,   false, true,  0, 0, false},  // exp ops' rows of 9-12 whole packs, two a group
    {4, 2, PackEnds::kPartial, true,  false, 0, 0, false},
    {4, 1, PackEnds::kWhole,   false, false, 0, 2, false},  // whole 16-bit rows without the edge (H200)
    {4, 1, PackEnds::kAny,     true,  false, 0, 0, false},
    {5, 1, PackEnds::kAny,     true,  false, 0, 0, false},
    {6, 1, PackEnds::kAny,     true,  false, 0, 0, false},
    {7, 1, PackEnds::kAny,     true,  false, 0, 0, false},
    {8, 1, PackEnds::kAny,     true,  false, 0, 0, false},
    {1, 4, PackEnds::kWhole,   false, false, 2, 0, false},  // rows of 2 whole packs in 2 lanes
    {1, 4, PackEnds::kWhole,   false, false, 3, 0, false},  // rows of 3 whole packs in 3 lanes
    {1, 4, PackEnds::kWhole,   false, false, 5, 0, false},  // rows of 5 whole packs in 5 lanes
    {3, 1, PackEnds::kWhole,   false, false, 6, 2, false},  // 16-bit rows of 18 whole packs in 6 lanes
    {3, 2, PackEnds::kWhole,   false, false, 3, 0, true },  // quantized rows of 9 whole packs in 3 lanes
    {2, 2, PackEnds::kWhole,   false, false, 5, 0, true },  // quantized rows of 10 whole packs in 5 lanes
    {3, 2, PackEnds::kPartial, true,  true,  6, 4, false},  // exp ops' ragged fp32 rows of 17-18 whole packs (H200)
    {3, 1, PackEnds::kPartial, true,  true,  6, 2, false},  // exp ops' ragged 16-bit rows of 17-18 whole packs (H200)
};
inline constexpr int64_t kMinTwoEdgeRowBytes = 256;
// But on a device whose DRAM moves more than kFastMemoryGbpsPerSm an SM (H200: 4.8 TB/s over 132 SMs,
// 36; H100 SXM: 25), where 16-bit warp rows seem bound by the SMs (not profiled), an op of an exp
// an element (kOpExpPerElement) takes ragged 16-bit rows of 3-4 packs a lane (137-263 columns) one a
// group. H200, A/B same job, 256 MiB: bf16 / fp16 softmax of 150 / 211 / 230 / 255 columns 72-83 ->
// 86-89 %, 167 / 197 +2-8; log_softmax +2-10. Not so for rows of 2 packs a lane (129-135: -2 to -4),
// the abs-max ops (absmax_scale -0.6 to -3.7, int8 outputs -2.7 to +5.5) nor on the H100 (softmax 0
// to -3.9, log_softmax -1.1 to -5; docs/perf.md "One ragged row a group where memory outpaces the SMs").
inline constexpr int kFastMemoryGbpsPerSm = 30;
inline bool memory_outpaces_sms(const DeviceInfo& dev) {
  return dev.sm_count > 0 && dev.memory_gbps > int64_t{kFastMemoryGbpsPerSm} * dev.sm_count;
}
// Rows of 4-byte values longer than this many packs keep 8 lanes of 2 packs (fp32 48 columns: kWarpConfigs).
inline constexpr int64_t kMaxThreePackPairs4ByteRowPacks = 11;
inline constexpr int kMinGroupBytes = 64;
// But whole rows of 4 packs, and of 6 in 16-bit one-operand rows, take groups of 2 lanes (32 bytes a
// load), 2 / 3 packs a lane, which they fill: a shuffle step and half the rows' states fewer than 4
// lanes. ncu of bf16 softmax of 32 columns (H200, 256 MiB): rowwise's lanes issued more instructions an
// element than torch.compile's with fewer warps (docs/perf.md "Warp groups of two lanes"). H200, A/B same
// job, 256 MiB: bf16 softmax / log_softmax of 32 columns 89.2 / 91.1 -> 95.0 / 96.0 %, of 48 +7.4 / +2.8
// (fp16 +1.4 to +4.8), absmax_scale +1.0-1.7, gradients +0.7-0.8; fp32 rows of 16 columns +0.9-1.2, int8
// outputs +3.5; H100 +0.1 to +1.4. Two lanes for every row lost on rows of 3 packs (a slot idle either
// way: 16-bit gradients of 24 columns -7.4 / -8.0, fp32 of 12 -6.6 / -6.8), fp32 rows of 6 (softmax /
// log_softmax of 24 columns -5.8 / -5.3) and 16-bit rows to int8 (32 columns -4.7).
inline constexpr int kTwoLaneGroupBytes = 32;
inline int min_group_bytes(const RowShape& shape) {
  if (shape.partial_packs() || shape.elem_bytes() > 4) return kMinGroupBytes;  // doubles: not measured
  const bool four_packs = shape.max_packs == 4 && !(shape.narrows_output && shape.elem_bytes() == 2);
  const bool six_16bit_packs = shape.max_packs == 6 && shape.value_bytes == 2;
  return four_packs || six_16bit_packs ? kTwoLaneGroupBytes : kMinGroupBytes;
}

// Whether configuration c takes rows with (partial) or without partial packs (RowShape::partial_packs).
constexpr bool warp_config_ends(const WarpConfig& c, bool partial) {
  return c.ends == PackEnds::kAny || (c.ends == PackEnds::kPartial) == partial;
}

// Whether a lane of configuration c holds its packs (`pack` elements, pack_value_bytes on chip): K
// packs, or both edge-taking rows' packs, within kStoredBytesPerThread (one pack at least); rows of
// one-element packs never end inside one. The planner and launch_warp share it, so no kernel is built
// for a configuration never planned.
constexpr bool warp_config_fits(const WarpConfig& c, int pack, int pack_value_bytes) {
  if (pack == 1 && c.ends == PackEnds::kPartial) return false;
  const int held_packs = c.packs_per_lane * (c.edge_lanes ? c.rows_per_group : 1);
  return held_packs <= std::max(kStoredBytesPerThread / pack_value_bytes, 1);
}

// Whether configuration c may be planned for an op (exp_op: kOpExpPerElement) and rows
// (narrows_output: kNarrowsOutput) with packs of `pack` values of value_bytes on chip: opt-in,
// exact-width and value-size configurations take 16-byte packs of 2- and 4-byte values only, the rows
// measured, one of given value_bytes those values only, and a narrowing-only one quantized rows only.
constexpr bool warp_config_offered(const WarpConfig& c, bool exp_op, bool narrows_output, int pack,
                                   int value_bytes) {
  const bool measured_packs = pack * value_bytes == kMaxPackBytes && (value_bytes == 2 || value_bytes == 4);
  if ((c.lanes > 0 || c.value_bytes > 0) && !measured_packs) return false;
  if (c.value_bytes > 0 && c.value_bytes != value_bytes) return false;
  if (c.narrowing_only && !narrows_output) return false;
  return !c.op_opt_in || (exp_op && measured_packs);
}

// Whether launch_warp builds configuration c's kernel for such an op and rows (the planner offers no
// other): its lanes hold the packs, and the configuration is offered.
constexpr bool warp_config_built(const WarpConfig& c, bool exp_op, bool narrows_output, int pack, int value_bytes) {
  return warp_config_fits(c, pack, pack * value_bytes) &&
         warp_config_offered(c, exp_op, narrows_output, pack, value_bytes);
}

// Whether configuration c launches a plan of `width` lanes a group planned on configurations of `lanes`
// exact lanes (Plan::lanes; 0: a power of two): c's exact lanes, or a power of two at run time.
constexpr bool warp_config_width(const WarpConfig& c, int width, int lanes) {
  return c.lanes == lanes && (c.lanes > 0 ? width == c.lanes : (width & (width - 1)) == 0);
}

// Whether configuration c, at `width` lanes a group (a power of two, or c's exact lanes), takes a row it
// holds: the limits measured for particular configurations and devices (kWarpConfigs' comment).
inline bool warp_config_takes(const WarpConfig& c, int width, const RowShape& shape, const DeviceInfo& dev) {
  if (c.edge_lanes && c.lanes == 0 && width < kMinEdgeThreads) return false;  // the edge's slots
  if (c.edge_lanes && c.lanes > 0 && !memory_outpaces_sms(dev)) return false;  // exact lanes with the edge
  if (c.op_opt_in && !c.edge_lanes && shape.value_bytes == 4 && shape.max_packs > kMaxThreePackPairs4ByteRowPacks)
    return false;
  // Lanes of one whole 16-bit row without the edge code: rows of 17-32 packs, on the H200.
  if (!c.edge_lanes && c.rows_per_group == 1 && c.lanes == 0 && c.value_bytes == 2) {
    return width >= kMinEdgeThreads && memory_outpaces_sms(dev);
  }
  if (c.edge_lanes && c.rows_per_group > 1) {
    // Two edge-taking rows a group: rows of kMinTwoEdgeRowBytes or more, but one a group for exp ops'
    // 16-bit rows of 3-4 packs a lane where memory outpaces the SMs (kFastMemoryGbpsPerSm).
    if (shape.cols * shape.elem_bytes() < kMinTwoEdgeRowBytes) return false;
    return !(c.packs_per_lane >= 3 && shape.exp_per_element && shape.value_bytes == 2 && memory_outpaces_sms(dev));
  }
  return true;
}

// Edge-taking lanes (of a power-of-two width) hold K whole packs each; a row with more whole packs
// than that may give the rest to the edge where the edge's slots (kEdgeSlots: the 2 (N - 1) elements of
// partial packs over kMinEdgeThreads lanes, rounded up) leave room (kernels/row_common.cuh row_edge).
// The planner then takes the fewest packs a lane at the width and rows a group it chose, where memory
// outpaces the SMs and the lanes may (warp_lanes_may_overflow in kernels/warp_rows.cuh): ops of an exp an
// element over 2- and 4-byte values at up to 5 packs a lane, int8 / fp8 outputs of 16-bit rows at 2.
// H200, 256 MiB, two rounds, against 82d2057 in one job (docs/perf.md "Whole packs with the edge"): int8
// / fp8 outputs of 16-bit rows of 137-143 columns 70.3-81.6 -> 80.6-82.2 % (bf16 to int8 of 137: 70.3 ->
// 80.6); bf16 softmax / log_softmax of 201 / 265 / 333 / 521 / 1041 columns +1.0 / +5.2, +8.4 / +6.5,
// +4.4 / +2.7, +11.0 / +8.7, +14.7 / +8.9 (265: 82.1 / 83.9 -> 90.5 / 90.4 %); fp32 softmax / log_softmax
// of 101 columns +4.3 / +2.6, other fp32 rows +-0.5. Probed with every configuration that fit, lost: lanes
// of 6 packs (16-bit softmax and log_softmax of 785 columns -1.7 to -6.1; 777 -1.6 to +3.1), int8 / fp8
// outputs at 3-5 packs a lane (16-bit 201, 333 columns -0.4 to -1.8), bf16 absmax_scale of 333 -1.1, fp32
// int8 outputs -1.5 to -3.4 (their lanes start on lines: kWarpLanesOnLines), and overflows into another
// width or rows a group (fp32 softmax of 265 columns -5.8, bf16 log_softmax and softmax_backward of 281 -6).
//
// Rows of whole packs (aligned rows) give the edge their last whole packs only for one 16-bit input, and
// below a whole warp's width at most one element a lane. H200, 256 MiB, three rounds, A/B same job
// (docs/perf.md "Aligned rows' last packs to the edge"): 16-bit softmax / log_softmax of 264 / 328 / 520 /
// 528 / 648 / 656 / 1032-1088 columns +0.2 to +9.9 (bf16 log_softmax of 1032: 85.2 -> 95.1 %). Lost with
// every aligned row: fp32 (100-336 columns -0.1 to -1.1), and two elements a lane in 8 / 16 lanes (16-bit
// softmax of 272 / 336 -0.5 to -1.1, log_softmax of 544 -1.2 / -3.0). Two inputs were not measured.
inline bool edge_takes_overflow(const RowShape& shape, const DeviceInfo& dev, const WarpConfig& c, int width) {
  const int operand_bytes = shape.value_bytes / shape.inputs;  // one operand's, as the kernels count
  if (!memory_outpaces_sms(dev) || c.lanes > 0 ||
      !warp_lanes_may_overflow(shape.pack, c.packs_per_lane, shape.exp_per_element, shape.narrows_output,
                               operand_bytes))
    return false;
  const int64_t overflow = shape.cols - int64_t(shape.pack) * c.packs_per_lane * width;  // elements
  if (overflow > int64_t(edge_slots(shape.pack, kMinEdgeThreads)) * width) return false;
  const bool one_16bit_input = shape.inputs == 1 && operand_bytes == 2;
  return shape.partial_packs() || (one_16bit_input && (width == kWarpSize || overflow <= width));
}

// Input bytes one warp-strategy block (kWarpBlockThreads) moves, looping over its rows. Blocks of
// 128 threads and 8 / 32 KB (fp32 rows / the others) ran slower than torch.compile's one-pass programs
// of 64 threads and 2-4 KB on short rows (docs/perf.md "Warp blocks of 64 threads"). H200, 1 GiB, A/B
// same job, 64 threads: fp32 rows (in and out) of 16-128 columns in 4 KB +1.4 to +2.6 points (2 KB
// the same; softmax 97.9 -> 100.0 % at 16 columns); gradients and abs-max of 16-bit rows to 16-bit in
// 4 KB +1.5 to +5.2 (bf16 absmax_scale 200 columns 90.5 -> 95.6 %). But 4 KB lost where softmax's exps
// or a narrower output weigh (16-bit softmax / log_softmax of 16-32 columns -4.5 to -5.0, int8 / fp8
// outputs of 16-64 columns -6.5 to -7.5) and on ragged 16-bit gradients (129 columns -3.9 / -4.9):
// those take 16 KB, where they moved -0.6 to +1.6 (but see warp_block_takes_least).
inline constexpr int64_t kSmallWarpBlockBytes = 4 * 1024;
inline constexpr int64_t kLargeWarpBlockBytes = 16 * 1024;
inline int64_t warp_block_bytes(const RowShape& shape) {
  if (shape.elem_bytes() == 4 && shape.out_bytes == 4) return kSmallWarpBlockBytes;
  const bool small_blocks = !shape.exp_per_element && !shape.narrows_output && !(shape.inputs == 2 && shape.ragged());
  return small_blocks ? kSmallWarpBlockBytes : kLargeWarpBlockBytes;
}

// One-input rows of the 16 KB blocks (softmax / log_softmax of 16-bit rows, int8 / fp8 outputs) of
// kShortWarpRowBytes or more take the fewest iterations that move kLeastWarpBlockBytes instead: H200,
// A/B same job, 256 MiB, bf16 softmax / log_softmax / int8 outputs of 64-512 columns +0.7 to +2.7
// (1 GiB: 96-256 columns +0.9 to +1.4), but int8 outputs of 96 columns -0.9 (1 GiB -2.4) and softmax /
// log_softmax of ragged 129 columns -0.6 / -0.7 (docs/perf.md "Warp blocks of at least 6 KB"). 8 KB at
// most lost 2.4-3.4 where it left a block one iteration of 4-5 KB (129, 1280 columns), and on shorter
// rows (16-32 columns: 1 GiB -1.5 to -3.0, 256 MiB -0.4 to -0.9); ragged 16-bit gradients of 129
// columns lost 2.9 in 6 KB, so they keep 16 KB.
inline constexpr int64_t kShortWarpRowBytes = 128;
inline constexpr int64_t kLeastWarpBlockBytes = 6 * 1024;
inline bool warp_block_takes_least(const RowShape& shape) {
  return warp_block_bytes(shape) == kLargeWarpBlockBytes && shape.inputs == 1 &&
         shape.cols * shape.elem_bytes() >= kShortWarpRowBytes;
}

// Iterations of a warp block over `work_blocks` blocks' worth of rows of `bytes_per_iteration` each:
// enough to move warp_block_bytes (or kLeastWarpBlockBytes), but no more than leaves kMinWarpBlocksPerSm
// blocks (1024 threads) an SM. Blocks of warp_block_bytes left most SMs idle on small tensors (H100, bf16
// softmax of 32768 x 16 columns, 1 MiB: 32 blocks, 12.4 us, where PyTorch takes 6.0). Counted in
// threads: 8 blocks of 64 threads lost 3-5 points on 16-bit softmax of 131072 x 64 columns (16 MiB,
// H200) against 8 of 128.
inline constexpr int64_t kMinWarpBlocksPerSm = 1024 / kWarpBlockThreads;
inline int64_t warp_block_iterations(const RowShape& shape, int64_t work_blocks, int64_t bytes_per_iteration,
                                     int sm_count) {
  const int64_t by_bytes = warp_block_takes_least(shape)
                               ? (kLeastWarpBlockBytes + bytes_per_iteration - 1) / bytes_per_iteration
                               : std::max<int64_t>(1, warp_block_bytes(shape) / bytes_per_iteration);
  const int64_t by_sms = std::max<int64_t>(1, work_blocks / (int64_t(sm_count) * kMinWarpBlocksPerSm));
  return std::min(by_bytes, by_sms);
}

// Register-resident block rows: K packs per thread (instantiated for these); the largest block and
// the registers for each are block_budget of K and its stored bytes (kernels/block_rows.cuh).
inline constexpr int kBlockPacksPerThread[] = {
    4, kGradBlockPacks, kNarrowBlockPacks, 8, kMinWideBlockPacks, kMinWideBlockPacks + 1, kWideBlockPacks};
// 16-bit rows with partial packs in block rows: the block's first threads take the row's edge (its
// partial first and last packs, one element a thread) and the block holds whole packs only (cols / 8
// of them), where the thread owning a partial pack moved it element by element while its block
// waited. H200: bf16 softmax 3689 / 7349 / 13435 columns 87 / 85 / 86 -> 93 / 94 / 93 %, absmax_scale
// 2199 80 -> 94 %, int8 outputs +5-11. Rows of whole packs keep the kernel without edge code (with
// it, bf16 int8 outputs of 13440 columns 96 -> 90 %), and so do fp32 rows (fp8 outputs of 12345
// columns 94 -> 88 %). Gradient ops take the edge in every block row (kOpTakesEdgeInBlockRows).
inline bool block_rows_take_edge(const RowShape& shape) {
  return shape.partial_packs() && shape.elem_bytes() == 2 && shape.pack_bytes == kMaxPackBytes;
}

// Cluster slices of such rows of the gradient ops (which take the edge in every block row) give the
// edge to rank 0's first threads too: H200, same job, bf16 softmax_backward / log_softmax_backward of
// 100003 and 200003 columns +2.1 to +6.5 (100003: 82.2 -> 88.7 %, 1 GiB); aligned rows lost 1-2 and fp32
// ragged rows 1.5 with the edge code in every row (docs/perf.md "Gradient edges in cluster rows").
inline bool cluster_rows_take_edge(const RowShape& shape) { return shape.inputs == 2 && block_rows_take_edge(shape); }

// Outputs off their inputs' packs (another offset from 16 bytes, another stride residue) left every
// operand an element an access (pack.cuh: common_pack_width). Where only the output is, in rows longer
// than warp rows hold in one-element packs (32 lanes of 8), the packs keep their width (pack.cuh:
// OutPacks): fp32 inputs keep their packs and split each output pack into the widest accesses its address
// allows; 16-bit inputs (one, or a gradient's y and dy) put the packs on the output and read each input
// pack as the two aligned pieces of memory that hold it. H200, 256 MiB, `--out-offset 1`, element by
// element -> split / funneled (docs/perf.md "Outputs off their input's packs"): fp32 softmax 280-16384
// columns 61.8-84.6 -> 83.2-92.8 / 57-76 %, 131072 35.7 -> 73.7 / 50.8, fp32 to int8 / fp8 44-64 -> 86-96 /
// 39-66; bf16 softmax 301-131072 32.5-46.1 -> 33-49 / 57.9-68.0, 262144 13.7 -> 47.2 (funneled),
// absmax_scale bf16 35-52 -> 66-75 (funneled), bf16 to int8 33-58 -> 37-57 / 50-66, bf16 softmax_backward
// 301-16384 52-66 -> 62-67 (funneled; 131072 27.7 -> 54.7). Split into 2-byte pieces, a 16-bit pack writes
// its sectors twice and partly; funneled, an fp32 pack's two reads and shifts cost more than split
// stores. Warp rows of up to 256 one-element packs ran fp32 rows at 88-94 %, which split stores lost
// (softmax 160-256 columns 71-87 %). Outputs whose packs were 2 or 4 elements wide keep them (bf16 4
// elements off: 86-94 % up to 4096 columns, split 60-70, funneled 58-68).
inline constexpr int64_t kMinOffOutputPackCols = 257;
inline OutPacks out_packs_for(int common_pack, int inputs_pack, int max_pack, int64_t cols, int input_elem_bytes) {
  if (common_pack != 1 || inputs_pack != max_pack || max_pack == 1 || cols < kMinOffOutputPackCols) {
    return OutPacks::kShared;
  }
  if (input_elem_bytes == 4) return OutPacks::kSplitStores;
  return input_elem_bytes == 2 ? OutPacks::kOnOutput : OutPacks::kShared;
}

// block_smem and two_pass: as many threads as the batch each thread holds allows (a backward batch of
// fp32 spilled at 1024 threads).
inline int stream_block_threads(const RowShape& shape, int batch) {
  return block_max_threads(batch * shape.pack * shape.value_bytes);
}

// Cluster rows: each CTA holds a block-sized slice (at most kClusterSliceBytes); cluster sizes above 8
// are Hopper's non-portable ones, checked against the device when launched.
inline constexpr int kMaxClusterSize = 16;
inline constexpr int64_t kClusterSliceBytes = 65536;
// Clusters grow (up to kMaxClusterSize) while their slices are larger than this: more, smaller CTAs
// an SM overlap their phases. H200, 16-64 rows, µs: bf16 softmax_backward 64 x 131072 26.9 -> 22.5,
// log_softmax 19.2 -> 17.6, 16 x 262144 softmax 13.8 -> 12.8 (slices of 64 KB -> 32 KB).
inline constexpr int64_t kClusterGrowSliceBytes = 32768;

// Tile rows: a block of kTileThreads stages about kTileBytes of input a tile, in whole groups of rows
// (rounded down where more than one; one row at least).
// 16-bit rows take the nearest whole number of groups, one group at least (a row for every thread of
// thread rows), and no more rows than kTileMaxSmemBytes of shared memory hold: their thread rows are
// bound by instructions, and a tile's staging costs each thread the same whatever its rows, so tiles
// of fewer rows than threads, or of one row a thread of a few columns, paid it for little data. H200,
// bf16 softmax 17 / 47 / 63 columns (256 -> 512 rows, 174 / 130 -> 256) 67 / 79 / 76 -> 74 / 87 / 85 %,
// bf16 softmax_backward 23-33 78-80 -> 96 % (docs/perf.md, "Thread rows' fixed work and tile sizes").
// Where that is one group (16-bit rows of 22+ columns), two while they keep four blocks an SM
// (kTileTwoRowsMaxSmemBytes, 56 KB of 228): bf16 softmax 23 / 27 columns 77 / 78 -> 81 / 82 %, int8
// outputs of 23 82 -> 88 %, of 31 -1 (16-bit gradients never fit two).
// 4-byte rows, bound by memory, moved by -5 to +11 under the 16-bit rule (fp32 softmax_backward
// 23 / 47 / 63 columns -5, int8 outputs of 9 +11), so they keep theirs. Larger tiles of short rows
// (1-15 columns, already 2+ rows a thread) ran slower (24 KB: -1 to -8).
// Every tile holds whole 16-byte accesses of each operand (rows rounded down to make it so): a tile
// ending inside a 16-byte piece left that piece to two blocks, each moving its part element by
// element, and shifted every later tile off the tensor's alignment. bf16 softmax_backward 55 / 63
// columns (198 / 173 -> 192 / 168 rows) 83 / 81 -> 94 / 91 %, fp32 softmax_backward of 19-31 and 47
// columns 94 -> 101 %, int8 outputs of fp32 rows of 19-63 columns 89-91 -> 97 % ("Tiles of whole
// 16-byte accesses").
inline constexpr int64_t kTileBytes = 16384;
inline constexpr int64_t kTileMaxSmemBytes = 65536;
inline constexpr int64_t kTileTwoRowsMaxSmemBytes = 57344;
// Ragged rows up to this long go a thread each: tiles of them ran at 1.3-4x the warp rows
// (docs/perf.md#dispatch).
inline constexpr int64_t kTileThreadRowCols = 64;
// Ragged 16-bit rows go a thread each up to these lengths too: a warp group's row of 65-149 columns
// pays its edge, shuffles and address math for 8-16 values a lane, at ~25-32 instructions a value on
// an H200 bound by issue. H200, 256 MiB, bf16, warp rows -> thread rows, the output over the input's
// plane (below), same job (docs/perf.md "Ragged 16-bit rows of 65-127 columns a thread each", "Thread
// rows of 129-149 columns"):
// - rows of one operand whose output lies over the input up to 149 columns: softmax 65-127 57.5-88.0 ->
//   90.4-92.6 %, 129-149 +3.2 to +6.6 (to 89.2-89.9; fp16 89.8-90.6) but 135 -0.3, log_softmax 54.8-87.5
//   -> 91.1-92.5 and 129-149 +1.8 to +7.2, absmax_scale 77.5-88.4 -> 92.2-93.7 and 129-149 +0.7 to +7.9.
//   Past 149 a tile of 256 rows over the input leaves two blocks an SM, not three: softmax 150-263 -5.0
//   to -16.5.
// - other rows of one operand (a plane of their own) up to 131: int8 / fp8 outputs 99-127 +0.3 to +19.9,
//   129 / 131 +0.2 to +7.0; 133 / 135 -0.3 to -8.0 where warp rows of 17 packs run at 84-88 %, 137-149
//   -2.3 to +11.6. 16-bit outputs off the input's offset from 16 bytes go on to 298 columns (below).
// - the gradients up to 72: 65 +8.6 to +9.9, 79 -0.2 / +1.1, 97-127 -4.5 to +0.6.
inline constexpr int64_t kTile16BitRowCols = 149;
inline constexpr int64_t kTile16BitOwnPlaneRowCols = 131;
inline constexpr int64_t kTile16BitGradientRowCols = 72;
// Longer ragged 16-bit rows of one operand whose output lies over the input go a pair of threads each
// (pair_rows in kernels/tile_rows.cuh), 128 rows a tile (74.3 KB at 297 columns: three blocks an SM), up
// to a bound by the op's exps: every element's in the reduction and the map again (softmax), in the
// reduction only (log_softmax), none (absmax_scale). H200, 256 MiB, against warp rows, same build:
// - absmax_scale 151-297: +0.1 to +6.5 (bf16 / fp16), every length at 90.0-93.7 %;
// - log_softmax 151-195 +1.2 to +9.1, 90.6-93.5 %; 199 -0.5 / +0.2, 223 +0.7, 239 -4.4 / -0.9, 255-263
//   -1.5 to -6.1 where warp rows run at 91-93 %;
// - softmax 151-167: bf16 -0.2 to +5.0, fp16 +2.4 to +8.4; 171-199 bf16 -0.5 to -4.7 (each exp twice).
// The H100, whose SMs keep up with its memory, takes them for every op up to 298: 151-297 columns, pairs
// against warp rows, +0.0 to +5.5 (94.6-97.0 %; warp rows 91.2-96.1).
// The gradients' tiles hold two operands: their rows stay warp rows past 72 columns.
// 16-bit outputs off the input's offset from 16 bytes (a plane of their own) take tiles up to 298 columns
// too, a thread each up to 149 and a pair past it: warp rows move such rows an element an access. H200,
// bf16, outputs an element off their buffers' alignment (rowwise-bench --out-offset 1), 256 MiB, against
// what dispatch took before (warp rows): softmax, log_softmax, absmax_scale 133-199 columns 44-58 ->
// 65-92 %, 263 / 297 31-39 -> 69-85 %; 301-1000 columns, tiles of groups 28-54 against 34-51.
inline constexpr int64_t kTile16BitPairRowCols = 298;
inline constexpr int64_t kTile16BitExpPairRowCols = 195;
inline constexpr int64_t kTile16BitTermsPairRowCols = 167;

// Where the odd lane of a pair row starts (pair_rows): the even element nearest c / 2 at which a warp's
// 16 rows, two parts each, read their 32-bit shared words from no more banks at once than 2 (what
// thread rows of odd length meet), looked for up to 16 elements either way, else the nearest with the
// fewest. The tile's plane starts at either half of a word (the tensor's offset from 16 bytes), so both
// count. Why: split at whole runs near the middle, 251 / 263 columns put both parts of a row on one
// bank (4 / 3 words a bank), and log_softmax ran at 72 / 81 % against 90-92 at lengths around them.
// Splits of 2 to c - 2 give the 32 lanes 32 different words (rows lie c / 2 words apart), so counting
// lanes a bank counts words: 0.1-1.8 us a plan (host), where checking for repeated words took 0.8-14.
inline int tile_pair_split(int64_t cols) {
  const int64_t middle = (cols + 1) / 4 * 2;  // the even element nearest c / 2
  if (cols < 4) return static_cast<int>(middle);
  const auto words_a_bank = [cols](int64_t split) {
    int most = 0;
    for (int start = 0; start < 2; ++start) {
      int in_bank[kWarpSize] = {};
      for (int lane = 0; lane < kWarpSize; ++lane) {
        const int64_t word = (start + lane / 2 * cols) / 2 + (lane % 2 ? split / 2 : 0);
        most = std::max(most, ++in_bank[word % kWarpSize]);
      }
    }
    return most;
  };
  int64_t best = middle;
  int best_words = words_a_bank(middle);
  for (int64_t d = 2; d <= 16 && best_words > 2; d += 2) {
    for (const int64_t split : {middle - d, middle + d}) {
      if (split < 2 || split > cols - 2) continue;  // short rows (a forced tile of groups of 2)
      const int words = words_a_bank(split);
      if (words < best_words) best = split, best_words = words;
    }
  }
  return static_cast<int>(best);
}

// Thread rows longer than kTileThreadRowCols take tiles of up to a third of an SM's shared memory, so
// that three blocks of them fit. Their output lies over the last input's plane where it has that
// input's element size and offset from 16 bytes (RowShape::out_like_last_input): a one-operand row then
// takes half the shared memory, and tiles of 256 rows fit 3-6 blocks an SM where their own output
// planes left 1-3 (H200 bf16 softmax of 79-103 columns 75.3-80.4 % so, 91.7-92.6 over the input).
// Rows in their own planes (int8 / fp8 outputs) of 101-131 columns, against tiles of up to 112 KB (2
// blocks an SM): +0.6 to +9.8; 99 columns take 256 rows either way.
inline constexpr int kTileLongThreadRowsBlocksPerSm = 3;

// block_smem rows may be longer than what shared memory holds by 1 / kBlockSmemBufferShare of it (the
// rest streamed twice). H200, against split, % of copy: fp32 softmax 65536 / 73728 / 81920 columns
// (1.13 / 1.27 / 1.41 times the buffer) 75 / 78 / 78 -> 86 / 82 / 77, fp32 softmax_backward 32768 /
// 40960 80 / 79 -> 96 / 88, bf16 softmax 131072 / 147456 / 163840 69 / 67 / 69 -> 77 / 73 / 68.
inline constexpr int64_t kBlockSmemBufferShare = 3;

// Shared memory every block keeps for itself (reduction slots), besides the row buffer.
inline constexpr int kStaticSmemReserve = 1024;
// What the hardware reserves of an SM's shared memory for each resident block (sm_80, sm_90).
inline constexpr int kSystemSmemPerBlock = 1024;

// Dynamic shared memory a block may take while `blocks` of them share an SM, each with `static_bytes`
// of static shared memory besides.
inline int64_t smem_per_block(const DeviceInfo& dev, int blocks, int static_bytes) {
  return std::min<int64_t>(dev.smem_per_sm / blocks - kSystemSmemPerBlock, dev.max_smem_optin) - static_bytes;
}

// Split rows: slices no smaller than this, unless the row is: a CTA's wait and merge cost about as
// much as streaming this many bytes.
inline constexpr int64_t kMinSplitSliceBytes = 16384;
// Packs of kMinSplitSliceBytes (one at least), for split's and two_launch's CTAs a row.
inline int64_t min_split_slice_packs(const RowShape& shape) {
  return std::max<int64_t>(1, kMinSplitSliceBytes / (int64_t(shape.pack) * shape.value_bytes));
}

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
inline constexpr int64_t kManyRowsClusterBytes = kMaxClusterSize * kClusterSliceBytes;  // all a cluster holds: 1 MB

// Rows holding more than this on chip go to two_launch rather than split: split's CTAs hold ~28 MB
// (4 an SM, H100 and H200) and stream the rest of a row twice anyway, each CTA a slice of its own.
// One row, split -> two_launch, % of copy (softmax / softmax_backward / int8 outputs): 1 GiB fp32 H200
// 53.1 / 50.0 / 46.6 -> 63.4 / 60.8 / 56.6, H100 56.9 / 52.6 / 48.3 -> 65.1 / 59.6 / 55.9 (bf16 alike);
// 256 MB fp32 (H200) 60.1 / 57.3 / 51.1 -> 60.2 / 59.1 / 53.3; 64 MB fp32 mixed: H200 51.0 / 51.5 /
// 43.4 -> 51.9 / 52.6 / 42.6, H100 57.2 / 55.3 / 50.0 -> 56.3 / 55.4 / 46.4.
inline constexpr int64_t kTwoLaunchRowBytes = int64_t{128} << 20;

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
    {Strategy::kBlockSmem, kUnbounded, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: block_smem while the row fits shared memory, or 4/3 of it (the rest streamed)"},
    {Strategy::kCluster, kManyRowsClusterBytes, false, 1, RowEnds::kAny, kUnbounded, 4, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: many rows of up to 1 MB over clusters of 16 CTAs (not doubles)"},
    {Strategy::kSplit, kTwoLaunchRowBytes, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: rows longer than one SM holds"},
    {Strategy::kTwoLaunch, kUnbounded, false, 1, RowEnds::kAny, kUnbounded, kAnyElement, kAnyValue, 0, kAnyRow,
     "docs/perf.md#dispatch: rows far longer than the GPU holds, streamed twice"},
};

// Many 16-bit gradient rows of whole packs holding more than this on chip (16 slices of over 32 KB) run
// on a grid of the clusters the device holds at once, each looping over rows, where memory outpaces the
// SMs; other rows take a cluster a row, which the hardware starts as one drains. H200, same build, the
// grid alone changed, two rounds, 1 GiB / 256 MiB, % of copy: bf16 softmax_backward of 262144 columns
// (1 MB) 87.0 / 84.5 -> 90.2 / 86.4, log_softmax_backward 87.9 / 85.0 -> 90.8 / 88.2. Not so elsewhere:
// bf16 gradients of 131072 columns (512 KB) -1.0 to +1.8, ragged ones of 100003 / 200003 -8.3 to 0, fp32
// rows -2 to -11, bf16 softmax 262144 +1.9 / +0.7, 64 rows of 262144 (bf16 softmax_backward) -4
// (docs/perf.md "Clusters that loop over rows"). Rows between 512 KB and 1 MB were not measured: they
// take 1 MB's rule.
inline constexpr int64_t kLoopingClusterMinRowBytes = 512 * 1024;
inline bool clusters_loop_over_rows(const RowShape& shape, const DeviceInfo& dev) {
  return shape.inputs == 2 && shape.elem_bytes() == 2 && !shape.partial_packs() &&
         shape.row_value_bytes() > kLoopingClusterMinRowBytes && shape.rows >= 2 * int64_t{dev.sm_count} &&
         memory_outpaces_sms(dev);
}

// Few long rows spread over bigger clusters while the GPU has SMs to spare, down to slices this small.
inline constexpr int64_t kMinClusterSliceBytes = 4096;

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
  int cluster_size = 0;     // cluster: CTAs per row
  bool clusters_loop = false;  // cluster: a grid of the clusters held at once, each looping over rows
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

// Rows a warp-strategy block takes at once.
inline int64_t warp_rows_per_block(const Plan& plan) {
  return int64_t(plan.threads / kWarpSize) * (kWarpSize / plan.width) * plan.rows_per_group;
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

// A register-resident slice of `packs` packs for one block. Block rows take the K that keeps the most
// rows resident on an SM (more bytes in flight); among equals the fewest threads a row, and the most
// packs a thread unless, where `spare_idle_slots`, that leaves kFewerPacksIdlePercent of the block's
// slots empty or more. Cluster slices, and rows of doubles (whose kernels take registers unbounded),
// take the most packs per thread, the narrow K aside.
// Why the fewer packs where memory outpaces the SMs (the planner's `spare_idle_slots`): a block's
// threads past the row's packs still issue every instruction of its K, and short one-warp block rows
// are bound by issue on an H200 (a row of 161 packs at 8 a thread pays for 256); the H100 was not
// measured. Where the slots are fuller the wider K ran faster: the 16-bit kernels of 7 packs a thread,
// bounded to 56 registers for multi-warp rows, spill 4-12 bytes. H200, 256 MiB, 8 -> 7 packs a thread:
// 16-bit rows of 1274-1423 columns (159-177 whole packs) bf16 softmax +2.3 to +4.4 (84.3-90.0 -> 87.2-93.5
// %), fp16 +0.8 to +2.9, log_softmax bf16 0 to +1.3, fp16 -0.8 to +0.9, int8 / fp8 outputs -0.2 to +2.2;
// 1450-1799 columns bf16 softmax up to +1.8 but fp16 softmax and log_softmax down to -2.7. fp32 rows of
// 466-509 columns at 4 packs a thread, not 8: softmax +0.7 to +2.6 (92.4-94.3 -> 94.7-95.3 %), log_softmax
// +0.4 to +1.9, absmax_scale and int8 outputs within 0.3 (docs/perf.md "One-warp block rows of fewer packs").
inline constexpr int kFewerPacksIdlePercent = 30;
// The one-warp K of 16-bit rows of one operand that spill nothing (6, 9, 10: kernels/block_rows.cuh),
// taken wherever they hold the row, whatever the slots the wider K would leave empty. H200, 256 MiB:
// rows of 1274-1543 columns (up to 192 whole packs), 7 or 8 -> 6: bf16 softmax -0.4 to +3.9 (1297 87.0 ->
// 90.8 %), log_softmax +0.1 to +4.7, int8 outputs 0 to +1.9, but fp16 softmax -2.8 to +0.6 (to 90.3-93.5
// %; cause not found); rows of 2056-2567 columns, 11 -> 9 or 10: softmax +0.4 to +6.1 (bf16 2100 87.4 ->
// 93.4 %), log_softmax -0.4 to +2.7, abs-max ops -0.8 to +4.6, all at 93.2 % or more (docs/perf.md
// "One-warp block rows of 6, 9 and 10 packs").
inline bool one_warp_trim_packs(int packs_per_thread, const RowShape& shape) {
  return shape.inputs == 1 && (packs_per_thread == kGradBlockPacks ||
                               (wide_block_packs(packs_per_thread) && packs_per_thread < kWideBlockPacks));
}
inline bool plan_block_slice(int64_t packs, const RowShape& shape, bool most_resident, bool spare_idle_slots,
                             Plan* plan) {
  const bool by_residency = most_resident && shape.value_bytes / shape.inputs <= 4;
  int best_resident = 0;
  for (int i = static_cast<int>(std::size(kBlockPacksPerThread)) - 1; i >= 0; --i) {
    const int k = kBlockPacksPerThread[i];
    const int stored = k * shape.pack * shape.value_bytes;
    const BlockBudget budget = block_budget(k, stored);
    const int64_t threads = (packs + k - 1) / k;
    if (stored > budget.max_stored_bytes || threads > budget.max_threads) continue;
    if (!by_residency && residency_only_packs(k)) continue;
    if (wide_block_packs(k) && (shape.value_bytes != 2 || shape.pack_bytes != kMaxPackBytes)) continue;
    if (k == kGradBlockPacks && (shape.value_bytes != 2 * shape.inputs || shape.pack_bytes != kMaxPackBytes))
      continue;
    if (one_warp_trim_packs(k, shape) && !spare_idle_slots) continue;
    const int block = static_cast<int>((threads + 31) / 32 * 32);
    const int resident = resident_blocks(block, budget.registers);
    // As resident and as wide a block as the K before, which would leave too many of its slots empty
    // (or any, for the trim K).
    const bool fewer_packs = spare_idle_slots && resident == best_resident && block == plan->threads &&
                             (packs * 100 <= int64_t(100 - kFewerPacksIdlePercent) * block * plan->packs_per_thread ||
                              one_warp_trim_packs(k, shape));
    if (best_resident > 0 && (!by_residency || (resident <= best_resident && !fewer_packs))) continue;
    best_resident = resident;
    plan->packs_per_thread = k;
    plan->threads = block;
  }
  return best_resident > 0;
}

// CTAs of the split strategy resident on the device at once: the most slices a row may have.
inline int64_t split_resident_ctas(const DeviceInfo& dev) { return int64_t(dev.sm_count) * kSplitBlocksPerSm; }

// Packs a split CTA can hold in shared memory while kSplitBlocksPerSm of them share an SM (and its
// threads copy, kSplitHeldPerThread each), in whole pieces.
inline int64_t split_held_capacity(const RowShape& shape, const DeviceInfo& dev) {
  const int64_t bytes = smem_per_block(dev, kSplitBlocksPerSm, kStaticSmemReserve);
  const int64_t packs = std::min<int64_t>(bytes / (int64_t(shape.pack) * shape.value_bytes),
                                          int64_t(kSplitThreads) * kSplitHeldPerThread);
  const int64_t piece = split_piece_packs(shape.pack * shape.value_bytes);
  return packs / piece * piece;
}

// Rows of several MB in split: while the resident CTAs hold fewer than this many whole rows, a round
// takes one row more where they hold at least half of it, each row streaming twice what its CTAs
// cannot hold. Why: a round's round trips cost the same however many bytes it moves. H100, 256 MiB,
// % of copy, rows held whole -> one more a round: 16 MB rows (1 -> 2) bf16 softmax 55.5 -> 68.0,
// absmax_scale 69.1 -> 76.8, fp32 softmax 61.2 -> 69.2; 8 MB rows (3 -> 4) fp32 softmax_backward 64.6
// -> 74.5, bf16 60.8 -> 72.0, fp32 softmax 73.3 -> 75.2. Rows of 0.75-2 MB (13-38 a round) lost 4-7
// (fp32 softmax 342 x 196608 86.0 -> 80.0).
inline constexpr int64_t kSplitRoundUpBelowRows = 4;

// CTAs of a split row: as few as hold the row on chip, rounded so that whole rows fill the resident
// CTAs (with 264 resident CTAs, 147 slices a row left 117 idle: 48 % of copy), or fewer for one row
// more a round (kSplitRoundUpBelowRows); spread wider when few rows leave CTAs idle (down to
// kMinSplitSliceBytes); never more than the resident CTAs, so a row longer than everything on chip
// holds streams the rest twice; none without a held piece. `capacity`: packs a CTA holds.
inline SplitLayout split_layout(const RowShape& shape, int64_t capacity, int64_t ctas) {
  const int64_t packs = shape.max_packs;
  const int64_t needed = (packs + capacity - 1) / capacity;
  int64_t chunks = ctas;
  if (needed < ctas) {
    const int64_t held_rows = ctas / needed;
    const int64_t round_rows =
        held_rows < kSplitRoundUpBelowRows ? (2 * ctas + needed) / (2 * needed) : held_rows;  // nearest
    const int64_t rows_per_round = std::min(round_rows, shape.rows);
    const int64_t min_slice = min_split_slice_packs(shape);
    chunks = std::min(ctas / rows_per_round, (packs + min_slice - 1) / min_slice);
    if (rows_per_round <= held_rows) chunks = std::max(needed, chunks);
  }
  const int64_t piece = split_piece_packs(shape.pack * shape.value_bytes);
  const int64_t pieces = (packs + piece - 1) / piece;
  chunks = std::min(chunks, pieces);
  const int64_t held = std::min(capacity, (pieces + chunks - 1) / chunks * piece);
  const int64_t streamed = std::max<int64_t>(0, packs - chunks * held);
  return {chunks, held, (streamed + chunks - 1) / chunks};
}

// CTAs of a two_launch row: the resident CTAs spread over the rows (one a row once rows outnumber
// them), none taking less than kMinSplitSliceBytes unless the row is that short. At most
// split_resident_ctas a row, so a whole tensor's states fit tensor_softmax_workspace_bytes.
inline int64_t two_launch_row_ctas(const RowShape& shape, int64_t ctas) {
  const int64_t min_slice = min_split_slice_packs(shape);
  return std::max<int64_t>(1, std::min(ctas / shape.rows, (shape.max_packs + min_slice - 1) / min_slice));
}

inline bool plan_split(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  const int64_t capacity = split_held_capacity(shape, dev);
  const int64_t ctas = split_resident_ctas(dev);
  if (capacity < 1 || ctas < 1) return false;
  plan->split = split_layout(shape, capacity, ctas);
  plan->threads = kSplitThreads;
  plan->smem_bytes = plan->split.held_packs * int64_t(shape.pack) * shape.value_bytes;
  return true;
}

// Whether configuration c, in groups twice as wide at the same slots, takes the row from the plan's lanes:
// lanes of 16-bit softmax rows that keep no exps (a full budget: 8 packs a lane), where c's keep them
// (warp_lanes_keep_terms), so the map takes no exp twice where issue bounds short 16-bit rows (memory
// outpaces the SMs). H200, A/B same job, 256 MiB, 2 rounds (docs/perf.md "Wider groups that keep
// softmax's exps"): bf16 / fp16 softmax of 456-519 columns (16 lanes of 4 packs, not 8 of 8) +1.0 to
// +6.0 (bf16 456: 89.1 -> 95.1 %), of 904-1031 (32 of 4, not 16 of 8) +0.2 to +5.6 (bf16 904: 89.8 ->
// 95.4 %). Not measured on the H100.
inline bool wider_lanes_keep_terms(const RowShape& shape, const DeviceInfo& dev, const Plan& plan,
                                   const WarpConfig& c) {
  if (!shape.map_takes_terms || shape.value_bytes != 2 || !memory_outpaces_sms(dev)) return false;
  const int stored = shape.pack * shape.value_bytes;
  return !warp_lanes_keep_terms(plan.packs_per_lane, plan.rows_per_group, plan.edge, 2, stored) &&
         warp_lanes_keep_terms(c.packs_per_lane, c.rows_per_group, c.edge_lanes, 2, stored);
}

// Configures `s` for the shape; false if the row does not fit the strategy.
inline bool plan_for(Strategy s, const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  *plan = Plan{};
  plan->strategy = s;
  switch (s) {
    case Strategy::kWarp: {
      // The group width and K whose slots (width * K) the row fills best; the narrowest among equals but
      // where a wider one keeps softmax's exps (wider_lanes_keep_terms).
      const int64_t min_width = std::min<int64_t>({shape.max_packs, min_group_bytes(shape) / shape.pack_bytes, 32});
      // Groups whose lanes take the edge hold whole packs only (warp_rows.cuh).
      const int64_t whole_packs = std::max<int64_t>(1, shape.cols / shape.pack);
      int64_t best_slots = 0;
      // The configurations that may hold this row at all.
      const auto holds = [&](const WarpConfig& c) {
        return warp_config_built(c, shape.exp_per_element, shape.narrows_output, shape.pack, shape.value_bytes) &&
               warp_config_ends(c, shape.partial_packs());
      };
      const auto take = [&](const WarpConfig& c, int width, int64_t slots) {
        best_slots = slots;
        plan->width = width;
        plan->lanes = c.lanes;
        plan->packs_per_lane = c.packs_per_lane;
        plan->rows_per_group = c.rows_per_group;
        plan->edge = c.edge_lanes;
        plan->threads = kWarpBlockThreads;
      };
      for (int width = lanes_for(std::max<int64_t>(min_width, 1)); width <= 32; width *= 2) {
        for (const WarpConfig& c : kWarpConfigs) {
          if (c.lanes > 0) continue;
          const int64_t slots = int64_t(c.packs_per_lane) * width;
          const int64_t held = c.edge_lanes ? whole_packs : shape.max_packs;
          if (slots < held || !holds(c) || !warp_config_takes(c, width, shape, dev)) continue;
          const bool keeps_terms = slots == best_slots && wider_lanes_keep_terms(shape, dev, *plan, c);
          if (best_slots == 0 || slots < best_slots || keeps_terms) take(c, width, slots);
          break;
        }
      }
      // Groups of exactly c.lanes lanes: rows of whole packs filling their slots (edge-taking groups: the
      // row's whole packs reach each lane's last slot), where the power of two left more empty or is the
      // same width (then compiled in).
      for (const WarpConfig& c : kWarpConfigs) {
        const int64_t slots = int64_t(c.lanes) * c.packs_per_lane;
        const bool fills = c.edge_lanes ? whole_packs <= slots && whole_packs > slots - c.packs_per_lane
                                        : shape.max_packs == slots;
        const bool preferred =
            best_slots == 0 || slots < best_slots || (slots == best_slots && c.lanes == plan->width);
        if (c.lanes == 0 || !fills || !preferred || !holds(c) || !warp_config_takes(c, c.lanes, shape, dev))
          continue;
        take(c, c.lanes, slots);
        break;
      }
      if (best_slots == 0) return false;
      // Fewer packs a lane at the same width and rows a group, the row's last whole packs with its edge.
      if (plan->edge && plan->lanes == 0) {
        for (const WarpConfig& c : kWarpConfigs) {
          if (!c.edge_lanes || c.rows_per_group != plan->rows_per_group || c.packs_per_lane >= plan->packs_per_lane ||
              !edge_takes_overflow(shape, dev, c, plan->width) || !holds(c) ||
              !warp_config_takes(c, plan->width, shape, dev))
            continue;
          take(c, plan->width, int64_t(c.packs_per_lane) * plan->width);
          break;
        }
      }
      const int64_t rows_per_block = warp_rows_per_block(*plan);
      plan->block_iterations =
          warp_block_iterations(shape, (shape.rows + rows_per_block - 1) / rows_per_block,
                                rows_per_block * shape.cols * shape.pack_bytes / shape.pack, dev.sm_count);
      return true;
    }
    case Strategy::kBlock:
      plan->edge = block_rows_take_edge(shape);
      return plan_block_slice(plan->edge ? std::max<int64_t>(1, shape.cols / shape.pack) : shape.max_packs, shape,
                              true, memory_outpaces_sms(dev), plan);
    case Strategy::kCluster: {
      if (dev.cc_major < 9) return false;
      const int64_t pack_bytes = int64_t(shape.pack) * shape.value_bytes;
      for (int c = 2; c <= kMaxClusterSize; c *= 2) {
        int64_t slice = (shape.max_packs + c - 1) / c;
        if (slice * pack_bytes > kClusterSliceBytes || !plan_block_slice(slice, shape, false, false, plan)) continue;
        // The smallest cluster that holds the row, grown while its slices are large or few rows leave
        // SMs idle.
        while (c < kMaxClusterSize &&
               (slice * pack_bytes > kClusterGrowSliceBytes ||
                (shape.rows * c * 2 <= dev.sm_count &&
                 (shape.max_packs + 2 * c - 1) / (2 * c) * pack_bytes >= kMinClusterSliceBytes))) {
          c *= 2;
          slice = (shape.max_packs + c - 1) / c;
        }
        plan_block_slice(slice, shape, false, false, plan);
        plan->cluster_size = c;
        plan->edge = cluster_rows_take_edge(shape);
        plan->clusters_loop = clusters_loop_over_rows(shape, dev);
        return true;
      }
      return false;
    }
    case Strategy::kBlockSmem: {
      // The whole row while it fits, else what fits (the rest streamed twice: kernels/block_smem_rows.cuh).
      const int64_t pack_bytes = int64_t(shape.pack) * shape.value_bytes;
      const int64_t fits = (dev.max_smem_optin - kStaticSmemReserve) / pack_bytes * pack_bytes;
      const int64_t row = shape.row_value_bytes();
      plan->smem_bytes = std::min(row, fits);
      plan->threads = stream_block_threads(shape, kSmemBatch);
      plan->fills_sm = row > fits || 2 * (plan->smem_bytes + kStaticSmemReserve + kSystemSmemPerBlock) > dev.smem_per_sm;
      return fits > 0 && row * kBlockSmemBufferShare <= fits * (kBlockSmemBufferShare + 1) &&
             shape.max_packs * shape.pack <= INT32_MAX;
    }
    case Strategy::kSplit:
      return plan_split(shape, dev, plan);
    case Strategy::kTwoLaunch:
      plan->row_ctas = two_launch_row_ctas(shape, split_resident_ctas(dev));
      plan->threads = kSplitThreads;
      return true;
    case Strategy::kTwoPass:
      plan->threads = stream_block_threads(shape, kTwoPassBatch);
      return true;
    case Strategy::kTile: {
      if (!shape.staged) return false;
      // Short ragged rows a thread each (no shuffles; their odd strides spread a warp over the
      // banks), else groups with kTileChunk elements a thread per step, filling the block.
      // Longer ragged 16-bit rows a pair of threads each (pair_rows, as any groups of 2 in the kernel that
      // keeps no runs).
      const int64_t thread_row_cols = shape.elem_bytes() == 2 ? kTile16BitRowCols : kTileThreadRowCols;
      const bool pairs = shape.ragged() && shape.elem_bytes() == 2 && shape.cols <= kTile16BitPairRowCols;
      const int64_t chunks = (shape.cols + kTileChunk - 1) / kTileChunk;
      int width = lanes_for(std::min<int64_t>(kTileThreads, chunks));
      if (shape.ragged() && shape.cols <= thread_row_cols) width = 1;
      else if (pairs) width = 2;
      const int64_t groups = kTileThreads / width;
      const int64_t per_tile = std::max<int64_t>(1, kTileBytes / (shape.cols * shape.value_bytes));
      int64_t rows = per_tile > groups ? per_tile / groups * groups : per_tile;
      const bool long_thread_rows = width <= 2 && shape.cols > kTileThreadRowCols;  // thread or pair rows
      const bool in_place = long_thread_rows && shape.out_like_last_input;
      const int64_t row_smem = shape.cols * (shape.value_bytes + (in_place ? 0 : shape.out_bytes));
      if (shape.elem_bytes() == 2) {
        int64_t want = std::max((per_tile + groups / 2) / groups * groups, groups);
        if (want == groups && 2 * groups * row_smem <= kTileTwoRowsMaxSmemBytes) want = 2 * groups;
        const int64_t smem = long_thread_rows
                                 ? smem_per_block(dev, kTileLongThreadRowsBlocksPerSm, kTileStaticSmemBytes)
                                 : kTileMaxSmemBytes;
        rows = std::min(want, std::max<int64_t>(smem / row_smem, 1));
      }
      const int in_bytes = shape.value_bytes / shape.inputs;
      const int64_t whole = tile_rows_of_whole_accesses(shape.cols, std::min(in_bytes, shape.out_bytes));
      if (rows > whole) rows = rows / whole * whole;
      rows = std::min(rows, shape.rows);
      plan->threads = kTileThreads;
      plan->width = width;
      plan->pair_split = width == 2 ? tile_pair_split(shape.cols) : 0;
      plan->rows_per_tile = static_cast<int>(rows);
      plan->out_in_input_plane = in_place;
      plan->smem_bytes = shape.inputs * tile_plane_bytes(rows * shape.cols, in_bytes) +
                         (in_place ? 0 : tile_plane_bytes(rows * shape.cols, shape.out_bytes));
      return plan->smem_bytes + kStaticSmemReserve <= dev.max_smem_optin;
    }
    case Strategy::kAuto:
      break;
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
    if (shape.row_value_bytes() <= rule.max_row_value_bytes && plan_for(rule.strategy, shape, dev, plan)) return true;
  }
  return false;
}

inline const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kAuto: return "auto";
    case Strategy::kWarp: return "warp";
    case Strategy::kBlock: return "block";
    case Strategy::kCluster: return "cluster";
    case Strategy::kBlockSmem: return "block_smem";
    case Strategy::kSplit: return "split";
    case Strategy::kTwoLaunch: return "two_launch";
    case Strategy::kTwoPass: return "two_pass";
    case Strategy::kTile: return "tile";
  }
  return "?";
}

}  // namespace rowwise
