// Tile rows' plans (kernels/tile_rows.cuh): rows a tile, a thread, a pair or a group of threads a row,
// the output in its own plane or over the input's.
#pragma once
#include <algorithm>
#include <cstdint>

#include "../kernels/tile_rows.cuh"
#include "plan.cuh"

namespace rowwise {

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

// Tile rows.
inline bool plan_tile(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
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

}  // namespace rowwise
