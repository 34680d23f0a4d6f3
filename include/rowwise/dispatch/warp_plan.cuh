// Warp rows' plans: the configurations their kernels are built for (kernels/warp_rows.cuh), which
// rows each takes, and a plan's group width, packs a lane and block iterations.
#pragma once
#include <algorithm>
#include <cstdint>

#include "../kernels/warp_rows.cuh"
#include "plan.cuh"

namespace rowwise {

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

// Rows a warp-strategy block takes at once.
inline int64_t warp_rows_per_block(const Plan& plan) {
  return int64_t(plan.threads / kWarpSize) * (kWarpSize / plan.width) * plan.rows_per_group;
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

// Warp rows: the group width and K whose slots (width * K) the row fills best; the narrowest among
// equals but where a wider one keeps softmax's exps (wider_lanes_keep_terms).
inline bool plan_warp(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
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

}  // namespace rowwise
