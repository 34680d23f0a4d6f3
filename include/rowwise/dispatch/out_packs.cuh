// How outputs off their inputs' packs move (primitives/pack.cuh: OutPacks).
#pragma once
#include <cstdint>

#include "../primitives/pack.cuh"

namespace rowwise {

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

}  // namespace rowwise
