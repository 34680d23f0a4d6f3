// Plans of rows spread over many CTAs (split: held in their shared memory, states merged; two_launch:
// reduced, then read again): CTAs a row, what each holds and streams.
#pragma once
#include <algorithm>
#include <cstdint>

#include "../kernels/split_rows.cuh"
#include "../kernels/two_launch_rows.cuh"
#include "plan.cuh"

namespace rowwise {

// Split rows: slices no smaller than this, unless the row is: a CTA's wait and merge cost about as
// much as streaming this many bytes.
inline constexpr int64_t kMinSplitSliceBytes = 16384;
// Packs of kMinSplitSliceBytes (one at least), for split's and two_launch's CTAs a row.
inline int64_t min_split_slice_packs(const RowShape& shape) {
  return std::max<int64_t>(1, kMinSplitSliceBytes / (int64_t(shape.pack) * shape.value_bytes));
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

// two_launch rows: CTAs a row (two_launch_row_ctas).
inline bool plan_two_launch(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  plan->row_ctas = two_launch_row_ctas(shape, split_resident_ctas(dev));
  plan->threads = kSplitThreads;
  return true;
}

}  // namespace rowwise
