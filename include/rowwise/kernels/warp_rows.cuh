// Strategy `warp`: a row lives in the registers of a group of `width` lanes (a power of two, 1..32, or
// a constant Lanes of any count), each lane holding K packs; a warp owns 32/width groups and each group
// R rows at a time, so tiny rows still put R*K packs per lane in flight. Rows of up to 32*K packs. With
// EdgeLanes, the lanes hold a row's whole packs and take its partial first and last packs apart
// (below).
#pragma once
#include "../primitives/warp_reduce.cuh"
#include "row_common.cuh"

namespace rowwise {

inline constexpr int kWarpBlockThreads = 64;  // dispatch/warp_plan.cuh warp_block_bytes

// The bytes a value of one operand takes on chip (4: fp32, 2: 16-bit; the rules below).
template <int N, class Io> inline constexpr int kWarpValueBytes = kPackStoredBytes<N, Io> / (N * Io::kInputs);

// Lanes of edge-taking fp32 rows quantized to a narrower output (int8 / fp8) start a row's whole
// packs at a 128-byte line where their slots allow it: a group of 8 lanes of 16-byte packs then loads
// one line an instruction where a row off the line grid spans two. H200, int8 outputs of fp32 rows of
// 136-255 columns +0.6-4.4 points (150 / 197 / 200: 85.2 / 86.2 / 88.8 -> 88.2 / 90.6 / 92.9 %), 456
// -1.6; fp32 softmax and abs-max to fp32 moved -0.9 to +2.1 and 16-bit rows -1 to -3.5, so they keep
// their lanes (docs/perf.md "line-aligned warp lanes").
template <int N, class Io, class = void> inline constexpr bool kWarpLanesOnLines = false;
template <int N, class Io>
inline constexpr bool
    kWarpLanesOnLines<N, Io, std::void_t<decltype(std::declval<const typename Io::Row&>().template first_piece<N>())>> =
        Io::kInputs == 1 && kWarpValueBytes<N, Io> == 4 && kNarrowsOutput<typename Io::Row>;

// The packs by which such a row's whole packs start before lane 0's first slot.
template <int N, int K, class RowIo>
__device__ inline int line_shift(const RowIo& io, int first_whole, int whole_packs, int width) {
  constexpr int kLinePacks = 128 / (N * sizeof(typename RowIo::Stored));
  static_assert(kLinePacks > 0, "packs of at most a line");
  const int line_packs = width < kLinePacks ? width : kLinePacks;  // both powers of two
  const int offset = static_cast<int>((io.template first_piece<N>() + first_whole) & (line_packs - 1));
  return offset + whole_packs <= K * width ? offset : 0;
}

// Whether edge-taking lanes of K packs of N elements (a power of two a group) may hold fewer whole packs
// than the row has, the rest going with the row's edge (row_edge): ops of an exp an element over 2- and
// 4-byte values at up to kMaxOverflowLanePacks packs a lane, int8 / fp8 outputs of 16-bit rows at 2
// (dispatch/warp_plan.cuh edge_takes_overflow has the measurements; doubles were not measured). The
// planner and the kernels share it.
inline constexpr int kMaxOverflowLanePacks = 5;
__host__ __device__ constexpr bool warp_lanes_may_overflow(int n, int k, bool exp_op, bool narrows_output,
                                                           int value_bytes) {
  if (n == 1) return false;
  if (exp_op) return (value_bytes == 2 || value_bytes == 4) && k <= kMaxOverflowLanePacks;
  return narrows_output && value_bytes == 2 && k == 2;
}

// Whether lanes of k packs (pack_stored_bytes each on chip), r rows a group, hold half their budget of
// row or less (warp_rows' kFewPacks says why that matters).
__host__ __device__ constexpr bool warp_lanes_hold_few_packs(int k, int r, int pack_stored_bytes) {
  return r * k * pack_stored_bytes <= kStoredBytesPerThread / 2;
}

// Whether lanes of k packs (pack_stored_bytes each on chip, values of value_bytes), r rows a group, keep
// an op's terms of the reduction for its map (kOpKeepsTerms ops; warp_rows' kKeepTerms says which and
// why). The planner asks it too (dispatch/warp_plan.cuh wider_lanes_keep_terms).
__host__ __device__ constexpr bool warp_lanes_keep_terms(int k, int r, bool edge_lanes, int value_bytes,
                                                         int pack_stored_bytes) {
  if (warp_lanes_hold_few_packs(k, r, pack_stored_bytes)) return edge_lanes || r == 1;
  return r == 1 && value_bytes == 2 && k * pack_stored_bytes < kStoredBytesPerThread;
}

// Lanes > 0: groups of exactly Lanes lanes, any count, for rows that fill their slots where a power
// of two would leave many empty (dispatch/warp_plan.cuh); the warp's last 32 % Lanes lanes hold no row.
// WholeRows: every row starts on a pack and is a whole number of them (the plan knows: configurations
// of PackEnds::kWhole), so no lane computes a phase, and each pack below the row's end moves by one
// access, untested, without the element-by-element fallback (load_whole_rows). H200, A/B same job, 256
// MiB: 16-bit softmax / log_softmax of 24-200 columns +0.6 to +7.9 points (bf16 softmax of 24 / 136:
// 87.2 / 86.5 -> 93.0 / 90.9 %), int8 outputs of rows of 16-144 columns +0.8 to +12.2, bf16
// absmax_scale of 48 / 96 +2.0 / +2.9, the rest -0.5 to +1.3; H100 -0.3 to +1.3 (docs/perf.md "Whole
// rows without phase or bounds").
template <class Op, int N, int K, int R, bool EdgeLanes, int Lanes, bool WholeRows, class Io>
__device__ __forceinline__ void warp_rows(const Io& io, int64_t rows, int64_t cols, int runtime_width) {
  using RowIo = typename Io::Row;
  const int width = Lanes > 0 ? Lanes : runtime_width;
  const int lane = threadIdx.x % kWarpSize;
  const int group_lane = Lanes > 0 ? lane % Lanes : lane & (width - 1);
  const int groups = kWarpSize / width;
  const int group = Lanes > 0 && lane >= groups * Lanes ? -1 : lane / width;  // -1: a lane of no group
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  // The loop is uniform over the warp (shuffles need every lane); rows past the end only pad.
  // Within one load instruction the groups read consecutive rows, so the warp reads one span.
  // EdgeLanes groups take their rows' edges; the planner gives them 8 lanes or more (kMinEdgeThreads),
  // which launch_warp checks, or exactly Lanes, whose edge slots are sized for them. Such groups hold
  // the row's whole packs only (at most cols / N, where a ragged row spans up to two more), lane l from
  // the first whole pack on (or from a line's start before it: kWarpLanesOnLines): packs [first, end)
  // of a row of the given phase.
  // Lanes holding half their budget of row or less (kernels/row_common.cuh): 16-bit rows of up to a
  // few hundred columns, whose time follows their instructions (docs/perf.md), the row's fixed work
  // (addresses, edge, reduction) a large share of them.
  constexpr bool kFewPacks = warp_lanes_hold_few_packs(K, R, kPackStoredBytes<N, Io>);
  // Such lanes of edge-taking rows or of one row, and 16-bit lanes of one row short of their full budget,
  // keep softmax's exps from the reduction for the map (kOpKeepsTerms): a multiply a value instead of a
  // subtract, an exp and a multiply, and the packs die at the reduction. Lanes of several tiny rows
  // without edges took 7-13 more registers so (fp16 rows of 16-64 columns -1.5 %); lanes of two
  // edge-taking rows took 5 more and ran faster (16-bit 129-135 columns +1.5-2.3: docs/perf.md "two
  // ragged rows a warp group"); 16-bit lanes of one row of 5-7 packs took 70-92 registers against 64-72
  // and ran faster (H200, rows of 273-1273 columns +0.6 to +8: "Softmax's exps kept in lanes of 5-7
  // packs"); lanes of 8 took 128 and lost 3.6-4, fp32 lanes of 5-7 packs lost up to 0.5.
  constexpr bool kKeepTerms =
      kOpKeepsTerms<Op> && warp_lanes_keep_terms(K, R, EdgeLanes, kWarpValueBytes<N, Io>, kPackStoredBytes<N, Io>);
  const int row_cols = static_cast<int>(cols);  // a warp row holds at most 32 * 8 packs: 32-bit indices
  constexpr bool kOnLines = EdgeLanes && Lanes == 0 && kWarpLanesOnLines<N, Io>;  // line_shift: powers of two
  constexpr int kSlots = kEdgeSlots<N, (Lanes > 0 ? Lanes : kMinEdgeThreads)>;
  // Edge-taking lanes of rows quantized to a narrower output (int8 / fp8) load whole packs without the
  // row's bounds tests, as block rows do, where they hold two rows or 4-byte values: H200, int8 / fp8
  // outputs of 16-bit rows of 129-255 columns +0 to +6.7 points (bf16 150: 69.4 -> 75.9 %), fp32 +0-1.7.
  // 16-bit lanes of one row keep them (the H100 lost up to 1.8 at 509 columns), as do the other ops
  // (docs/perf.md "Whole packs stored without bounds tests"): softmax lost 7-10 points so, abs-max to
  // 16-bit -1.1 to +0.8.
  constexpr bool kUntestedLoads = kNarrowsOutput<RowIo> && (R > 1 || kWarpValueBytes<N, Io> == 4);
  static_assert(!(EdgeLanes && WholeRows), "whole rows have no edge");
  constexpr bool kMayOverflow = Lanes == 0 && warp_lanes_may_overflow(N, K, kOpExpPerElement<Op>,
                                                                      kNarrowsOutput<RowIo>, kWarpValueBytes<N, Io>);
  const auto end = [&](int phase) {
    return EdgeLanes || WholeRows ? (row_cols + phase) / N : packs_in_row(row_cols, phase, N);
  };
  for (int64_t base = warp * groups * R; base < rows; base += warps * groups * R) {
    PackedOf<RowIo, N> v[R][K];
    typename Op::In edge_values[R][kSlots];
    RowEdge edge[R];
    int phase[R];
    int first[R];  // this lane's first pack of each row
    // Rows past the end read row 0 and store nothing. The map asks for the same row again (the
    // compiler keeps the one address; RowIo need not be default-constructible for an array). Lanes
    // of few packs, whose fixed work per row dominates, keep the address opaque (pack.cuh); lanes of
    // 8 packs measured 2 % slower so (bf16 softmax of 513 columns).
    // Lanes of no group take a row past the end.
    const auto row_of = [&](int r) { return Lanes > 0 && group < 0 ? rows : base + r * groups + group; };
    const auto row_io = [&](int r) {
      const int64_t row = row_of(r);
      const auto at = io.row(row < rows ? row : 0);
      if constexpr (kFewPacks) return at.opaque();
      else return at;
    };
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t row = row_of(r);
      phase[r] = WholeRows ? 0 : row_io(r).template phase<N>();
      const int row_end = row < rows ? end(phase[r]) : 0;
      if constexpr (EdgeLanes) {
        const int first_whole = phase[r] != 0;
        first[r] = group_lane + first_whole;
        if constexpr (kOnLines) first[r] -= line_shift<N, K>(row_io(r), first_whole, row_end - first_whole, width);
        load_strided_packs<Op, N, K, true, kOnLines, kUntestedLoads>(row_io(r), v[r], first[r], width, row_end,
                                                                       phase[r], row_cols);
        if constexpr (kMayOverflow) edge[r] = row < rows ? row_edge<N>(row_cols, phase[r], K * width) : RowEdge{};
        else edge[r] = row < rows ? row_edge<N>(row_cols, phase[r]) : RowEdge{};
        load_edge<Op, N, kSlots>(row_io(r), edge_values[r], edge[r], group_lane, width, row_cols);
      } else {
        first[r] = group_lane;
        if constexpr (!WholeRows) {
          load_strided_packs<Op, N, K>(row_io(r), v[r], first[r], width, row_end, phase[r], row_cols);
        }
      }
    }
    // Whole rows past the end (and lanes of no group) load row 0 as it is, so that their lanes take the
    // others' path (load_whole_rows), and store nothing.
    if constexpr (WholeRows) load_whole_rows<Op, N, K, R, RowIo>(row_io, v, end(0), group_lane, width);
    // Reduce all R rows before the first shuffle: their chains are independent and interleave.
    typename Op::State state[R];
    typename Op::State packs_state[R];  // what the kept terms are relative to
    typename Op::Acc terms[R][kKeepTerms ? K * N : 1];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if constexpr (kKeepTerms) {
        state[r] = packs_state[r] = reduce_packs_keeping<Op, N, K, RowIo>(v[r], terms[r]);
      } else {
        state[r] = reduce_packs<Op, N, K, RowIo>(v[r]);
      }
      if constexpr (EdgeLanes) state[r] = Op::combine(state[r], Op::template reduce<kSlots>(edge_values[r]));
    }
    // Unrolled in lanes of few packs; in fuller lanes ptxas then kept the row unpacked (warp_reduce.cuh).
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if constexpr (Lanes > 0) state[r] = any_width_allreduce<Lanes>(state[r], CombineOf<Op>{}, group_lane);
      else state[r] = warp_allreduce<kFewPacks>(state[r], CombineOf<Op>{}, width);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t row = row_of(r);
      if (row >= rows) continue;
      const auto fin = Op::finalize(state[r]);
      if constexpr (kKeepTerms) {
        map_and_store_strided_terms<Op, N, K, EdgeLanes || WholeRows>(
            row_io(r), terms[r], Op::kept_scale(packs_state[r], fin), first[r], width, end(phase[r]), phase[r],
            row_cols);
        if constexpr (EdgeLanes) {
          map_and_store_edge<Op, N, kSlots>(row_io(r), edge_values[r], fin, edge[r], group_lane, width, row_cols);
        }
      } else {
        // Only here: softmax's kept-terms map inside with_map_op compiled to other code (cubins differ).
        with_map_op<Op>(fin, [&](auto map_op) {
          using MapOp = decltype(map_op);
          map_and_store_strided_packs<MapOp, N, K, false, EdgeLanes || WholeRows>(
              row_io(r), v[r], fin, first[r], width, end(phase[r]), phase[r], row_cols);
          if constexpr (EdgeLanes) {
            map_and_store_edge<MapOp, N, kSlots>(row_io(r), edge_values[r], fin, edge[r], group_lane, width, row_cols);
          }
        });
      }
      if (group_lane == 0) Op::emit(io, row, fin);
    }
  }
}

// The registers a lane's kernel is bounded to (__launch_bounds__; 0: unbounded). Lanes holding a
// full kStoredBytesPerThread of 4-byte values (fp32 rows of 8 packs, fp32 gradients) took 92-123
// registers unbounded, so they are bounded to 80 (at 64 they spilled 60-90 bytes). Lanes of two
// edge-taking rows of 16-bit values (one operand) took, at 2 / 4 packs (ragged rows of 129-135 /
// 192-255 columns), 77 / 96 registers in softmax and log_softmax (6 / 5 blocks an SM), 72 / 83 in
// abs-max to int8 / fp8 (7 / 5): bounded where ptxas does not spill, to 72 / - and 64 / 80, for
// the blocks an SM that the H200 needs for bytes in flight (softmax +3-5 points, int8 / fp8 outputs
// +2-4; the H100 lost 1-2.5: docs/perf.md "two-edge-row lanes bounded"). The int8 / fp8 lanes of 2
// packs were bounded to 56 until their two maps (with_map_op) spilled there; 64 measured +0-1.5 on
// the H200 and +1-3 on the H100 (docs/perf.md "int8 / fp8 two-row lanes at 64"). Abs-max to 16-bit lost 1-3
// so, as other lanes did, which took 30-80 unbounded and grew to the bound (bf16 lanes of 4 packs: 56
// -> 64 registers, 16-column bf16 rows 93 -> 85 % of copy).
template <class Op, int N, int K, int R, bool EdgeLanes, class Io>
inline constexpr int kWarpLaneRegisters = [] {
  constexpr int held = R * K * kPackStoredBytes<N, Io>;
  constexpr int value_bytes = kWarpValueBytes<N, Io>;
  if (value_bytes == 4) return held > kStoredBytesPerThread / 2 ? 80 : 0;
  if (value_bytes != 2 || Io::kInputs != 1 || !EdgeLanes || R == 1) return 0;
  constexpr bool one_value_state = sizeof(typename Op::State) == sizeof(typename Op::Acc);  // abs-max
  constexpr bool quantizing = kNarrowsOutput<typename Io::Row>;
  if (held == kStoredBytesPerThread / 2) return one_value_state ? (quantizing ? 64 : 0) : 72;
  if (held == kStoredBytesPerThread) return one_value_state && quantizing ? 80 : 0;
  return 0;
}();

template <class Op, int N, int K, int R, bool EdgeLanes, int Lanes, bool WholeRows, class Io>
__global__ void warp_rows_kernel(Io io, int64_t rows, int64_t cols, int width) {
  warp_rows<Op, N, K, R, EdgeLanes, Lanes, WholeRows>(io, rows, cols, width);
}
template <class Op, int N, int K, int R, bool EdgeLanes, int Lanes, bool WholeRows, class Io>
__global__ void __launch_bounds__(kWarpBlockThreads,
                                  min_blocks_per_sm<Op>(kWarpBlockThreads, R * K * kPackStoredBytes<N, Io>,
                                                        kWarpLaneRegisters<Op, N, K, R, EdgeLanes, Io>))
    warp_rows_bounded_kernel(Io io, int64_t rows, int64_t cols, int width) {
  warp_rows<Op, N, K, R, EdgeLanes, Lanes, WholeRows>(io, rows, cols, width);
}

template <class Op, int N, int K, int R, bool EdgeLanes, int Lanes, bool WholeRows, class Io>
constexpr auto warp_rows_kernel_for() {
  if constexpr (kWarpLaneRegisters<Op, N, K, R, EdgeLanes, Io> > 0) {
    return warp_rows_bounded_kernel<Op, N, K, R, EdgeLanes, Lanes, WholeRows, Io>;
  } else {
    return warp_rows_kernel<Op, N, K, R, EdgeLanes, Lanes, WholeRows, Io>;
  }
}

}  // namespace rowwise
