// Strategy choice and launch configuration for representative shapes, on an H200-like device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>

#include <rowwise/dispatch/strategy.cuh>
#include <rowwise/kernels/row_common.cuh>
#include <rowwise/primitives/pack.cuh>

namespace {

using rowwise::Plan;
using rowwise::RowShape;
using rowwise::Strategy;

const rowwise::DeviceInfo kHopper{132, 227 * 1024, 228 * 1024, 9, true, 4800};  // an H200
const rowwise::DeviceInfo kH100{132, 227 * 1024, 228 * 1024, 9, true, 3352};
const rowwise::DeviceInfo kAmpere{108, 163 * 1024, 164 * 1024, 8};  // no thread-block clusters

RowShape aligned_shape(int64_t cols, int elem_bytes, int pack, int64_t rows = 1000) {
  return RowShape{rows, cols, pack, pack * elem_bytes, rowwise::packs_in_row(cols, 0, pack), elem_bytes};
}

// Rows of a contiguous tensor through an Io that can stage them (strategy tile).
RowShape staged_shape(int64_t cols, int elem_bytes, int pack, int64_t rows = 100000) {
  RowShape s = aligned_shape(cols, elem_bytes, pack, rows);
  s.staged = true;
  s.out_bytes = elem_bytes;
  return s;
}

Plan choose(const RowShape& s, Strategy forced = Strategy::kAuto, const rowwise::DeviceInfo& dev = kHopper) {
  Plan p;
  EXPECT_TRUE(rowwise::choose_plan(s, dev, forced, &p)) << "cols " << s.cols;
  return p;
}

TEST(Dispatch, TinyRowsShareAWarp) {
  const Plan p = choose(aligned_shape(16, 2, 8));  // 2 packs of 8 bf16
  EXPECT_EQ(p.strategy, Strategy::kWarp);
  EXPECT_EQ(p.width, 2);
  EXPECT_EQ(p.packs_per_lane, 1);
  EXPECT_EQ(p.rows_per_group, 4);
}

TEST(Dispatch, ShortRowsUseNarrowGroups) {
  const Plan p32 = choose(aligned_shape(32, 4, 4));  // 8 packs: 4 lanes of 2 (groups of 64 bytes)
  EXPECT_EQ(p32.width, 4);
  EXPECT_EQ(p32.packs_per_lane, 2);
  EXPECT_EQ(p32.rows_per_group, 2);
  const Plan p10_fp64 = choose(aligned_shape(10, 8, 2));  // 5 packs: 4 lanes of 2, not 8 lanes of 1
  EXPECT_EQ(p10_fp64.width, 4);
  EXPECT_EQ(p10_fp64.packs_per_lane, 2);
  const Plan p64_bf16 = choose(aligned_shape(128, 2, 8));
  EXPECT_EQ(p64_bf16.width, 8);
  EXPECT_EQ(p64_bf16.packs_per_lane, 2);
  EXPECT_EQ(p64_bf16.rows_per_group, 2);
}

// Rows of 9-12 whole 16-byte packs: 4 lanes of 3 packs, two rows a group, for ops that ask
// (softmax, log_softmax: RowShape::exp_per_element); 8 lanes of 2 for the others and for fp32 rows of
// 12 packs.
TEST(Dispatch, ThreePackLanesPairShortRowsForOpsThatAsk) {
  for (auto [cols, elem_bytes] : {std::pair<int64_t, int>{72, 2}, {96, 2}, {36, 4}, {44, 4}, {48, 4}}) {
    for (bool pairs : {false, true}) {
      RowShape s = aligned_shape(cols, elem_bytes, 16 / elem_bytes);
      s.exp_per_element = pairs;
      const Plan p = choose(s);
      const bool three = pairs && !(elem_bytes == 4 && cols == 48);
      EXPECT_EQ(p.strategy, Strategy::kWarp) << cols;
      EXPECT_EQ(p.width, three ? 4 : 8) << cols << " pairs " << pairs;
      EXPECT_EQ(p.packs_per_lane, three ? 3 : 2) << cols << " pairs " << pairs;
      EXPECT_EQ(p.rows_per_group, 2) << cols;
      EXPECT_FALSE(p.edge) << cols;
    }
  }
}

// Rows of 3 or 5 whole 16-byte packs of 2- or 4-byte values take groups of exactly that many lanes,
// one pack each (a power of two left a quarter or 3 of 8 slots empty), rows of 2 packs 2 lanes compiled
// in, and 16-bit rows of 18 packs 6 lanes of 3; rows of 6, 7 or 17 packs, other values and rows with
// partial packs keep the powers of two.
TEST(Dispatch, RowsFillingExactLaneGroupsTakeThem) {
  for (auto [cols, elem_bytes] : {std::pair<int64_t, int>{24, 2}, {40, 2}, {12, 4}, {20, 4}}) {
    const int pack = 16 / elem_bytes;
    const Plan p = choose(aligned_shape(cols, elem_bytes, pack));
    EXPECT_EQ(p.strategy, Strategy::kWarp) << cols;
    EXPECT_EQ(p.width, cols / pack) << cols;
    EXPECT_EQ(p.packs_per_lane, 1) << cols;
    EXPECT_EQ(p.rows_per_group, 4) << cols;
    const int warps = rowwise::kWarpBlockThreads / 32;
    EXPECT_EQ(rowwise::warp_rows_per_block(p), warps * (32 / p.width) * 4) << cols;
  }
  EXPECT_EQ(choose(aligned_shape(24, 2, 8)).lanes, 3);
  // Rows of 2 packs: the same width, compiled in.
  for (auto [cols, elem_bytes] : {std::pair<int64_t, int>{16, 2}, {8, 4}}) {
    const Plan p = choose(aligned_shape(cols, elem_bytes, 16 / elem_bytes));
    EXPECT_EQ(p.width, 2) << cols;
    EXPECT_EQ(p.lanes, 2) << cols;
    EXPECT_EQ(p.rows_per_group, 4) << cols;
  }
  EXPECT_EQ(choose(aligned_shape(32, 2, 8)).lanes, 0);  // 2 lanes of 2 packs: width at run time
  EXPECT_EQ(choose(aligned_shape(6, 8, 2)).width, 4);  // doubles: 3 packs
  RowShape ragged = aligned_shape(24, 2, 8);
  ragged.max_packs = 4;  // a row starting inside a pack
  EXPECT_EQ(choose(ragged, Strategy::kWarp).width, 4);
  EXPECT_EQ(choose(aligned_shape(32, 2, 8)).width, 2);  // 4 packs: a power of two (kTwoLaneGroupBytes)
  for (int64_t cols : {48, 56}) EXPECT_EQ(choose(aligned_shape(cols, 2, 8)).width, 4) << cols;  // 6 / 7 packs
  const Plan bf16_144 = choose(aligned_shape(144, 2, 8));
  EXPECT_EQ(bf16_144.width, 6);
  EXPECT_EQ(bf16_144.packs_per_lane, 3);
  EXPECT_EQ(bf16_144.rows_per_group, 1);
  for (int64_t cols : {128, 136, 152, 200}) EXPECT_EQ(choose(aligned_shape(cols, 2, 8)).width, 8) << cols;
  EXPECT_EQ(choose(aligned_shape(72, 4, 4)).width, 8);  // fp32 rows of 18 packs
}

// Whole rows of 4 packs of 16-bit or fp32 values, and exp ops' 16-bit rows of 6, take groups of 2 lanes
// (min_group_bytes); rows of 3 packs, fp32 rows of 6, 16-bit rows quantized to int8 / fp8, ragged rows
// and doubles keep groups of 64 bytes.
TEST(Dispatch, WholeRowsFillingTwoLanesTakeThem) {
  const auto plan = [](int64_t cols, int elem_bytes, bool exp, bool narrows = false, int inputs = 1) {
    RowShape s = staged_shape(cols, elem_bytes, 16 / elem_bytes);
    s.exp_per_element = exp;
    s.narrows_output = narrows;
    if (narrows) s.out_bytes = 1;
    s.inputs = inputs;
    s.value_bytes *= inputs;
    const Plan p = choose(s);
    EXPECT_EQ(p.strategy, Strategy::kWarp) << cols;
    return p;
  };
  for (const Plan& p : {plan(32, 2, true), plan(32, 2, false), plan(16, 4, true), plan(16, 4, false, true),
                        plan(32, 2, false, false, 2)}) {
    EXPECT_EQ(p.width, 2);
    EXPECT_EQ(p.packs_per_lane, 2);
    EXPECT_EQ(p.rows_per_group, 2);
  }
  const Plan bf16_48 = plan(48, 2, true);
  EXPECT_EQ(bf16_48.width, 2);
  EXPECT_EQ(bf16_48.packs_per_lane, 3);
  EXPECT_EQ(plan(24, 4, true).width, 4);             // fp32 rows of 6 packs
  EXPECT_EQ(plan(32, 2, false, true).width, 4);      // 16-bit rows to int8
  EXPECT_EQ(plan(24, 2, false, false, 2).width, 4);  // 16-bit gradients of 3 packs
  EXPECT_EQ(choose(aligned_shape(8, 8, 2)).width, 4);  // doubles
  RowShape ragged = aligned_shape(32, 2, 8);
  ragged.max_packs = 4;
  ragged.cols = 31;  // a row ending inside its last pack
  EXPECT_EQ(choose(ragged, Strategy::kWarp).width, 4);
}

// Rows of 9 or 10 whole 16-byte packs quantized to a narrower output (int8 / fp8) take 3 lanes of 3
// packs or 5 of 2, two rows a group; rows not quantized keep 8 lanes of 2 (or 4 lanes of 3 for the ops
// that pair rows of 3-pack lanes).
TEST(Dispatch, QuantizedRowsOfNineOrTenPacksTakeExactLaneGroups) {
  for (auto [cols, elem_bytes] : {std::pair<int64_t, int>{72, 2}, {80, 2}, {36, 4}, {40, 4}}) {
    RowShape s = aligned_shape(cols, elem_bytes, 16 / elem_bytes);
    const int packs = static_cast<int>(s.max_packs);
    EXPECT_EQ(choose(s).width, 8) << cols;
    s.narrows_output = true;
    const Plan p = choose(s);
    EXPECT_EQ(p.strategy, Strategy::kWarp) << cols;
    EXPECT_EQ(p.width, packs == 9 ? 3 : 5) << cols;
    EXPECT_EQ(p.packs_per_lane, packs == 9 ? 3 : 2) << cols;
    EXPECT_EQ(p.rows_per_group, 2) << cols;
  }
  RowShape six_packs = aligned_shape(48, 2, 8);
  six_packs.narrows_output = true;
  EXPECT_EQ(choose(six_packs).width, 4);
}

TEST(Dispatch, OneColumnRowsUseOneLaneEach) {
  const Plan p = choose(aligned_shape(1, 4, 1));
  EXPECT_EQ(p.strategy, Strategy::kWarp);
  EXPECT_EQ(p.width, 1);
}

TEST(Dispatch, WarpRowsUpTo1024Floats) {
  const Plan p128 = choose(aligned_shape(128, 4, 4));
  EXPECT_EQ(p128.strategy, Strategy::kWarp);
  EXPECT_EQ(p128.width, 8);  // 128 bytes per group and instruction: whole cache lines, 3 shuffle steps
  EXPECT_EQ(p128.packs_per_lane, 4);
  const Plan p1024 = choose(aligned_shape(1024, 4, 4));
  EXPECT_EQ(p1024.strategy, Strategy::kWarp);
  EXPECT_EQ(p1024.width, 32);
  EXPECT_EQ(p1024.packs_per_lane, 8);
  const Plan bf16_1024 = choose(aligned_shape(1024, 2, 8));  // kept as bf16 on chip: 64 per lane
  EXPECT_EQ(bf16_1024.strategy, Strategy::kWarp);
  EXPECT_EQ(bf16_1024.width, 16);
  EXPECT_EQ(bf16_1024.packs_per_lane, 8);
  EXPECT_EQ(choose(aligned_shape(1025, 4, 1)).strategy, Strategy::kBlock);
}

// 16-bit rows longer than kWarp16BitRowBytes go to one-warp blocks (64 registers); the gradients'
// 16-bit rows (two operands, 4 bytes an element on chip) and fp32 rows stay on warps up to 4 KB.
TEST(Dispatch, Longer16BitRowsInOneWarpBlocks) {
  EXPECT_EQ(choose(aligned_shape(1280, 2, 8)).strategy, Strategy::kWarp);
  const Plan bf16_2048 = choose(aligned_shape(2048, 2, 8));
  EXPECT_EQ(bf16_2048.strategy, Strategy::kBlock);
  EXPECT_EQ(bf16_2048.threads, 32);
  EXPECT_FALSE(bf16_2048.edge);
  EXPECT_EQ(choose(aligned_shape(1288, 2, 8)).strategy, Strategy::kBlock);
  RowShape gradient = aligned_shape(1024, 2, 8);  // y and dy: 4 bytes an element on chip
  gradient.value_bytes = 4;
  gradient.inputs = 2;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kWarp);
  EXPECT_EQ(choose(aligned_shape(1000, 4, 4)).strategy, Strategy::kWarp);
}

// fp32 rows mapped to fp32 past kWarpFp32RowBytes (468 columns) take one-warp blocks up to 4 KB; rows
// with int8 outputs, the gradients, and rows whose output is unknown (functor stores) stay on warps.
TEST(Dispatch, Fp32RowsOf469To1024ColumnsInOneWarpBlocks) {
  EXPECT_EQ(choose(staged_shape(468, 4, 4)).strategy, Strategy::kWarp);
  const Plan p512 = choose(staged_shape(512, 4, 4));
  EXPECT_EQ(p512.strategy, Strategy::kBlock);
  EXPECT_EQ(p512.threads, 32);
  EXPECT_EQ(p512.packs_per_thread, 4);  // 128 packs in one warp: 8 a thread would leave half idle
  EXPECT_EQ(choose(staged_shape(580, 4, 4)).packs_per_thread, rowwise::kNarrowBlockPacks);
  EXPECT_EQ(choose(staged_shape(800, 4, 4)).packs_per_thread, 8);
  EXPECT_EQ(choose(staged_shape(1024, 4, 4)).strategy, Strategy::kBlock);
  RowShape int8_out = staged_shape(512, 4, 4);
  int8_out.out_bytes = 1;
  EXPECT_EQ(choose(int8_out).strategy, Strategy::kWarp);
  RowShape gradient = staged_shape(512, 4, 4);
  gradient.value_bytes = 8;
  gradient.inputs = 2;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kWarp);
  EXPECT_EQ(choose(aligned_shape(512, 4, 4)).strategy, Strategy::kWarp);  // out_bytes 0: unknown
  EXPECT_EQ(choose(staged_shape(512, 8, 2)).strategy, Strategy::kWarp);   // doubles
}

// 16-bit block rows with partial packs give their edge to the first threads and hold whole packs
// only: a ragged row of 2049 columns (up to 257 packs) fits one warp of 8 packs a thread.
RowShape ragged_shape(int64_t cols, int elem_bytes, int pack) {
  RowShape s = aligned_shape(cols, elem_bytes, pack);
  s.max_packs = rowwise::max_packs_in_row(cols, pack);
  return s;
}
TEST(Dispatch, BlockRowsWithPartialPacksTakeTheEdge) {
  const Plan ragged_1289 = choose(ragged_shape(1289, 2, 8));
  EXPECT_EQ(ragged_1289.strategy, Strategy::kBlock);
  EXPECT_TRUE(ragged_1289.edge);
  const Plan ragged_2049 = choose(ragged_shape(2049, 2, 8));
  EXPECT_EQ(ragged_2049.strategy, Strategy::kBlock);
  EXPECT_TRUE(ragged_2049.edge);
  EXPECT_EQ(ragged_2049.threads, 32);
  EXPECT_EQ(ragged_2049.packs_per_thread, 8);
  RowShape misaligned = aligned_shape(1600, 2, 8);  // every row one element off a 16-byte boundary
  misaligned.max_packs = rowwise::packs_in_row(1600, 1, 8);
  EXPECT_TRUE(choose(misaligned).edge);
  // 257-352 whole packs: one warp of 11 packs a thread (the wide K), not two warps of 8; on the H200
  // the fewest of 9, 10 and 11 that hold the row (one_warp_trim_packs): 2199 columns are 274 whole
  // packs, 2304 are 288, 2312 are 289, 2568 are 321.
  const auto wide = [](int64_t cols, const rowwise::DeviceInfo& dev) {
    const Plan p = choose(cols % 8 == 0 ? aligned_shape(cols, 2, 8) : ragged_shape(cols, 2, 8), Strategy::kAuto, dev);
    EXPECT_EQ(p.strategy, Strategy::kBlock) << cols;
    EXPECT_EQ(p.threads, 32) << cols;
    return p.packs_per_thread;
  };
  for (int64_t cols : {2056, 2199, 2304}) EXPECT_EQ(wide(cols, kHopper), 9) << cols;
  for (int64_t cols : {2312, 2567}) EXPECT_EQ(wide(cols, kHopper), 10) << cols;
  for (int64_t cols : {2568, 2816}) EXPECT_EQ(wide(cols, kHopper), rowwise::kWideBlockPacks) << cols;
  for (int64_t cols : {2199, 2200, 2816}) EXPECT_EQ(wide(cols, kH100), rowwise::kWideBlockPacks) << cols;
  EXPECT_NE(choose(aligned_shape(2200, 4, 4)).packs_per_thread, rowwise::kWideBlockPacks);  // fp32: not measured
  EXPECT_EQ(choose(aligned_shape(2048, 2, 8)).packs_per_thread, 8);
  EXPECT_FALSE(choose(ragged_shape(3001, 4, 4)).edge);  // fp32 rows keep their partial packs
  EXPECT_FALSE(choose(ragged_shape(3001, 2, 4)).edge);  // 8-byte packs: at most 3 elements an end
  const Plan tiny = choose(ragged_shape(7, 2, 8), Strategy::kBlock);  // no whole pack at all
  EXPECT_TRUE(tiny.edge);
  EXPECT_EQ(tiny.threads, 32);
}

// Warp blocks loop over their rows for 4 KB of input where 4-byte inputs (one, or a gradient's two) map
// to a 4-byte output, and where neither an exp an element nor a narrower output (nor a ragged
// gradient) weighs on them; 16 KB otherwise.
TEST(Dispatch, WarpBlockBytesFollowTheOp) {
  RowShape fp32 = staged_shape(128, 4, 4);
  fp32.exp_per_element = true;
  EXPECT_EQ(rowwise::warp_block_bytes(fp32), 4 * 1024);
  RowShape bf16_softmax = staged_shape(128, 2, 8);
  bf16_softmax.exp_per_element = true;
  EXPECT_EQ(rowwise::warp_block_bytes(bf16_softmax), 16 * 1024);
  RowShape bf16_absmax = staged_shape(128, 2, 8);
  EXPECT_EQ(rowwise::warp_block_bytes(bf16_absmax), 4 * 1024);
  RowShape int8_out = staged_shape(128, 4, 4);
  int8_out.out_bytes = 1;
  int8_out.narrows_output = true;
  EXPECT_EQ(rowwise::warp_block_bytes(int8_out), 16 * 1024);
  RowShape bf16_gradient = staged_shape(128, 2, 8);
  bf16_gradient.inputs = 2;
  EXPECT_EQ(rowwise::warp_block_bytes(bf16_gradient), 4 * 1024);
  RowShape ragged_gradient = ragged_shape(129, 2, 8);
  ragged_gradient.inputs = 2;
  EXPECT_EQ(rowwise::warp_block_bytes(ragged_gradient), 16 * 1024);
  RowShape functor = aligned_shape(128, 4, 4);  // output size unknown
  functor.exp_per_element = true;
  EXPECT_EQ(rowwise::warp_block_bytes(functor), 16 * 1024);
}

// One-input rows of the 16 KB blocks of 128 bytes or more loop for at least 6 KB, not up to 16 KB: a
// bf16 softmax row of 64 columns (32 rows, 4 KB an iteration) twice, not 4 times; of 512 columns (8 KB)
// once; of ragged 150 columns (2400 bytes an iteration) 3 times, not 6. Shorter rows and ragged
// gradients keep 16 KB.
TEST(Dispatch, OneInputWarpRowsOf128BytesLoopForAtLeast6Kb) {
  const int64_t rows = int64_t{1} << 22;
  const auto iterations = [&](RowShape s, bool exp, int inputs) {
    s.rows = rows;
    s.exp_per_element = exp;
    s.inputs = inputs;
    if (inputs == 2) s.value_bytes *= 2;  // y and dy on chip
    const Plan p = choose(s);
    EXPECT_EQ(p.strategy, Strategy::kWarp) << s.cols;
    EXPECT_EQ(rowwise::warp_block_takes_least(s), exp && s.cols * 2 >= 128) << s.cols;
    return p.block_iterations;
  };
  EXPECT_EQ(iterations(staged_shape(32, 2, 8), true, 1), 4);    // 64-byte rows: 16 KB
  EXPECT_EQ(iterations(staged_shape(64, 2, 8), true, 1), 2);
  EXPECT_EQ(iterations(staged_shape(512, 2, 8), true, 1), 1);
  RowShape ragged = ragged_shape(150, 2, 8);  // strided (not staged): no tile
  ragged.out_bytes = 2;
  EXPECT_EQ(iterations(ragged, true, 1), 3);
  EXPECT_EQ(iterations(ragged, false, 2), 6);  // a gradient: 16 KB
  RowShape int8_out = staged_shape(64, 2, 8);
  int8_out.out_bytes = 1;
  int8_out.narrows_output = true;
  EXPECT_TRUE(rowwise::warp_block_takes_least(int8_out));
  RowShape fp32 = staged_shape(64, 4, 4);  // fp32 rows to fp32: 4 KB
  fp32.exp_per_element = true;
  EXPECT_FALSE(rowwise::warp_block_takes_least(fp32));
}

// Small tensors keep kMinWarpBlocksPerSm warp blocks an SM: 32768 bf16 softmax rows of 16 columns
// (1 MiB) in blocks of 128 rows (4 KB) iterate once, not 4 times (64 blocks for 132 SMs); 1 GiB
// iterates 4 times (16 KB). kMinWarpBlocksPerSm counts 1024 threads.
TEST(Dispatch, WarpBlocksOfSmallTensorsFillTheSms) {
  RowShape bf16 = staged_shape(16, 2, 8, 32768);
  bf16.exp_per_element = true;
  const int64_t rows_per_block = 128, bytes = rows_per_block * 16 * 2;
  EXPECT_EQ(rowwise::warp_block_iterations(bf16, 32768 / rows_per_block, bytes, 132), 1);
  const int64_t big = (int64_t{1} << 30) / bytes;
  EXPECT_EQ(rowwise::warp_block_iterations(bf16, big, bytes, 132), 4);
  EXPECT_EQ(rowwise::kMinWarpBlocksPerSm * rowwise::kWarpBlockThreads, 1024);
  const int64_t mid = 132 * rowwise::kMinWarpBlocksPerSm * 3;  // three blocks' worth per kept block
  EXPECT_EQ(rowwise::warp_block_iterations(bf16, mid, bytes, 132), 3);
  // The plan carries it: once each for 1 MiB, 4 times for 1 GiB.
  EXPECT_EQ(choose(bf16).block_iterations, 1);
  RowShape bf16_1gib = staged_shape(16, 2, 8, int64_t{1} << 25);
  bf16_1gib.exp_per_element = true;
  EXPECT_EQ(choose(bf16_1gib).block_iterations, 4);
}

// Warp groups that take the row's edge hold its whole packs only: a ragged bf16 row of 129 columns (up
// to 17 packs, 16 whole) fills 8 lanes of 2. Rows of kMinTwoEdgeRowBytes or more go two a group (73
// columns, 146 bytes: one); 2 packs a lane take 2 rows a group without the edge for rows of whole packs.
TEST(Dispatch, WarpRowsWithPartialPacksHoldWholePacks) {
  for (int64_t cols : {73, 129}) {
    const Plan p = choose(ragged_shape(cols, 2, 8));
    EXPECT_EQ(p.strategy, Strategy::kWarp);
    EXPECT_EQ(p.width, 8);
    EXPECT_EQ(p.packs_per_lane, 2);
    EXPECT_EQ(p.rows_per_group, cols * 2 >= rowwise::kMinTwoEdgeRowBytes ? 2 : 1) << cols;
    EXPECT_TRUE(p.edge);
  }
  const Plan aligned_128 = choose(aligned_shape(128, 2, 8));
  EXPECT_EQ(aligned_128.rows_per_group, 2);
  EXPECT_FALSE(aligned_128.edge);
  const Plan bf16_197 = choose(ragged_shape(197, 2, 8));  // 24 whole packs: 8 lanes of 3, two rows
  EXPECT_EQ(bf16_197.packs_per_lane, 3);
  EXPECT_EQ(bf16_197.rows_per_group, 2);
  const Plan bf16_513 = choose(ragged_shape(513, 2, 8));  // 64 whole packs: 8 lanes of 8
  EXPECT_EQ(bf16_513.width, 8);
  EXPECT_EQ(bf16_513.packs_per_lane, 8);
  EXPECT_EQ(bf16_513.rows_per_group, 1);
  RowShape grad_255 = ragged_shape(255, 2, 8);  // two operands: 4 packs a lane leave no room for a second row
  grad_255.value_bytes = 4;
  grad_255.inputs = 2;
  EXPECT_EQ(choose(grad_255).rows_per_group, 1);
}

// Where memory outpaces the SMs, 16-bit softmax rows that 8 packs a lane would fill take a group twice as
// wide at 4, whose lanes keep their exps for the map (wider_lanes_keep_terms); log_softmax, whose map
// takes no exps, and the H100 keep 8.
TEST(Dispatch, SoftmaxLanesOfFullBudgetGiveWayToWiderGroupsKeepingExps) {
  for (auto [cols, width] : {std::pair<int64_t, int>{456, 8}, {512, 8}, {519, 8}, {904, 16}, {1024, 16}}) {
    RowShape softmax = cols % 8 == 0 ? aligned_shape(cols, 2, 8) : ragged_shape(cols, 2, 8);
    softmax.exp_per_element = softmax.map_takes_terms = true;
    const Plan wider = choose(softmax);
    EXPECT_EQ(wider.strategy, Strategy::kWarp) << cols;
    EXPECT_EQ(wider.width, 2 * width) << cols;
    EXPECT_EQ(wider.packs_per_lane, 4) << cols;
    EXPECT_EQ(wider.rows_per_group, 1) << cols;
    const Plan h100 = choose(softmax, Strategy::kAuto, kH100);
    EXPECT_EQ(h100.width, width) << cols;
    EXPECT_EQ(h100.packs_per_lane, 8) << cols;
    RowShape log_softmax = softmax;
    log_softmax.map_takes_terms = false;
    EXPECT_EQ(choose(log_softmax).width, width) << cols;
    EXPECT_EQ(choose(log_softmax).packs_per_lane, 8) << cols;
  }
}

// Where memory outpaces the SMs (kFastMemoryGbpsPerSm: the H200, not the H100 nor a device that does not
// tell), ops of an exp an element take ragged 16-bit rows of 3-4 packs a lane one a group; rows of 2
// packs a lane, other ops and fp32 rows keep two.
TEST(Dispatch, ExpOpsTakeOneRagged16BitRowAGroupWhereMemoryOutpacesTheSms) {
  EXPECT_TRUE(rowwise::memory_outpaces_sms(kHopper));
  EXPECT_FALSE(rowwise::memory_outpaces_sms(kH100));
  EXPECT_FALSE(rowwise::memory_outpaces_sms(kAmpere));
  for (int64_t cols : {129, 150, 197, 211, 255}) {
    for (bool exp_op : {false, true}) {
      RowShape s = ragged_shape(cols, 2, 8);
      s.exp_per_element = exp_op;
      const int packs = cols / 8 <= 16 ? 2 : cols / 8 <= 24 ? 3 : 4;
      for (bool h200 : {true, false}) {
        const Plan p = choose(s, Strategy::kAuto, h200 ? kHopper : kH100);
        const bool one = exp_op && packs >= 3 && h200;
        const bool six_lanes = exp_op && h200 && cols / 8 >= 17 && cols / 8 <= 18;  // next test
        EXPECT_EQ(p.strategy, Strategy::kWarp) << cols;
        EXPECT_EQ(p.width, six_lanes ? 6 : 8) << cols;
        EXPECT_EQ(p.packs_per_lane, packs) << cols;
        EXPECT_EQ(p.rows_per_group, one ? 1 : 2) << cols << " exp " << exp_op << " H200 " << h200;
        EXPECT_TRUE(p.edge) << cols;
      }
    }
  }
  RowShape fp32 = ragged_shape(97, 4, 4);  // 24 whole packs: 8 lanes of 3
  fp32.exp_per_element = true;
  EXPECT_EQ(choose(fp32).packs_per_lane, 3);
  EXPECT_EQ(choose(fp32).rows_per_group, 2);
}

// There too, edge-taking lanes hold a pack fewer (at most kMaxOverflowLanePacks), the row's last whole
// packs going with its edge, where the edge's slots have room: ops of an exp an element, and int8 / fp8
// outputs of 16-bit rows at 2 packs a lane. Other ops, more packs a lane and the H100 keep their lanes.
TEST(Dispatch, WarpLanesGiveWholePacksToTheEdgeWhereMemoryOutpacesTheSms) {
  struct Row { int64_t cols; int elem_bytes; bool exp_op, narrows; int h200_packs, h100_packs, rows_per_group; };
  for (const Row row : {Row{137, 2, false, true, 2, 3, 2},  // 17 whole packs: 8 lanes of 2 and 9 edge elements
                        Row{143, 2, false, true, 2, 3, 2},  // 15 edge elements, of 16 slots
                        Row{201, 2, false, true, 4, 4, 2},  // int8 / fp8 outputs at 3 packs a lane lost
                        Row{265, 2, true, false, 4, 5, 1},  // 33 whole packs: 8 lanes of 4
                        Row{785, 2, true, false, 7, 7, 1},  // 98 whole packs: 16 lanes of 6 would lose
                        Row{333, 2, false, false, 6, 6, 1},  // abs-max to bf16
                        Row{101, 4, true, false, 3, 4, 2}}) {  // fp32: 25 whole packs, 8 lanes of 3, two rows
    for (bool h200 : {true, false}) {
      const int pack = 16 / row.elem_bytes;
      RowShape s = ragged_shape(row.cols, row.elem_bytes, pack);
      s.exp_per_element = row.exp_op;
      s.narrows_output = row.narrows;
      const Plan p = choose(s, Strategy::kAuto, h200 ? kHopper : kH100);
      const std::string where = std::to_string(row.cols) + " x " + std::to_string(row.elem_bytes) + " bytes, H200 " +
                                std::to_string(h200);
      EXPECT_EQ(p.strategy, Strategy::kWarp) << where;
      EXPECT_TRUE(p.edge) << where;
      EXPECT_EQ(p.width, row.cols / pack > 64 ? 16 : 8) << where;
      EXPECT_EQ(p.packs_per_lane, h200 ? row.h200_packs : row.h100_packs) << where;
      if (h200) EXPECT_EQ(p.rows_per_group, row.rows_per_group) << where;
    }
  }
}

// Rows of whole packs (aligned) give the edge their last whole packs there too, but only rows of one
// 16-bit input (two-input rows: Whole16BitRowsGoWithoutTheEdgeWhereMemoryOutpacesTheSms),
// below 32 lanes at most one element a lane; fp32 rows and the H100 keep their lanes.
TEST(Dispatch, AlignedSixteenBitRowsGiveTheirLastPacksToTheEdgeWhereMemoryOutpacesTheSms) {
  struct Row { int64_t cols; int elem_bytes; int width, h200_packs, h100_packs; };
  for (const Row row : {Row{264, 2, 8, 4, 5},    // 33 packs: 8 lanes of 4, one element a lane to the edge
                        Row{272, 2, 8, 5, 5},    // 34 packs: two elements a lane lost
                        Row{520, 2, 16, 4, 5},   // 65 packs: 16 lanes of 4
                        Row{544, 2, 16, 5, 5},   // 68 packs: two elements a lane lost
                        Row{1064, 2, 32, 4, 5},  // 133 packs: 32 lanes of 4, 1.25 elements a lane
                        Row{132, 4, 8, 5, 5}}) {  // fp32, 33 packs: lost
    for (bool h200 : {true, false}) {
      const int pack = 16 / row.elem_bytes;
      RowShape s = aligned_shape(row.cols, row.elem_bytes, pack);
      s.exp_per_element = true;
      ASSERT_FALSE(s.partial_packs());
      const Plan p = choose(s, Strategy::kAuto, h200 ? kHopper : kH100);
      const std::string where = std::to_string(row.cols) + " x " + std::to_string(row.elem_bytes) + " bytes, H200 " +
                                std::to_string(h200);
      EXPECT_EQ(p.strategy, Strategy::kWarp) << where;
      EXPECT_EQ(p.width, row.width) << where;
      EXPECT_EQ(p.packs_per_lane, h200 ? row.h200_packs : row.h100_packs) << where;
      EXPECT_EQ(p.rows_per_group, 1) << where;
    }
  }
}

// There too, ops of an exp an element take ragged rows of 17-18 whole packs (16-bit 137-151 columns,
// fp32 69-75) in 6 lanes of 3 with the edge: 16-bit rows one a group, fp32 rows two. Other ops, rows of
// 16 or 19 whole packs and the H100 keep 8 lanes.
TEST(Dispatch, ExpOpsTakeRaggedRowsOf17To18WholePacksInSixLanesWhereMemoryOutpacesTheSms) {
  struct Row { int64_t cols; int elem_bytes; };
  for (const Row row : {Row{135, 2}, Row{137, 2}, Row{143, 2}, Row{151, 2}, Row{152, 2}, Row{67, 4}, Row{69, 4},
                        Row{75, 4}, Row{77, 4}}) {
    const int pack = 16 / row.elem_bytes;
    const int64_t whole_packs = row.cols / pack;
    for (bool exp_op : {false, true}) {
      for (bool h200 : {true, false}) {
        RowShape s = ragged_shape(row.cols, row.elem_bytes, pack);
        s.exp_per_element = exp_op;
        const Plan p = choose(s, Strategy::kAuto, h200 ? kHopper : kH100);
        const std::string where = std::to_string(row.cols) + " x " + std::to_string(row.elem_bytes) + " bytes, exp " +
                                  std::to_string(exp_op) + ", H200 " + std::to_string(h200);
        const bool six = exp_op && h200 && (whole_packs == 17 || whole_packs == 18);
        EXPECT_EQ(p.strategy, Strategy::kWarp) << where;
        EXPECT_TRUE(p.edge) << where;
        EXPECT_EQ(p.width, six ? 6 : 8) << where;
        if (six) EXPECT_EQ(p.packs_per_lane, 3) << where;
        if (six) EXPECT_EQ(p.rows_per_group, row.elem_bytes == 2 ? 1 : 2) << where;
      }
    }
  }
}

// There, 16-bit rows of one operand of 17-32 whole packs (but 18 in exp ops: 6 lanes of 3) take 8 lanes
// of one row without the edge code, for every op; gradient rows (two operands) and the H100 keep the
// edge-taking lanes, and rows of 9-12 packs their plans.
TEST(Dispatch, Whole16BitRowsGoWithoutTheEdgeWhereMemoryOutpacesTheSms) {
  for (int64_t cols : {136, 160, 200, 256}) {
    for (bool exp_op : {false, true}) {
      for (int inputs : {1, 2}) {
        RowShape s = aligned_shape(cols, 2, 8);
        s.exp_per_element = exp_op;
        s.value_bytes = 2 * inputs;
        s.inputs = inputs;
        for (bool h200 : {true, false}) {
          const Plan p = choose(s, Strategy::kAuto, h200 ? kHopper : kH100);
          const std::string where = std::to_string(cols) + " exp " + std::to_string(exp_op) + " inputs " +
                                    std::to_string(inputs) + " H200 " + std::to_string(h200);
          EXPECT_EQ(p.strategy, Strategy::kWarp) << where;
          EXPECT_EQ(p.width, 8) << where;
          EXPECT_EQ(p.packs_per_lane, cols <= 192 ? 3 : 4) << where;
          EXPECT_EQ(p.rows_per_group, 1) << where;
          EXPECT_EQ(p.edge, !(inputs == 1 && h200)) << where;
        }
      }
    }
  }
  RowShape bf16_144 = aligned_shape(144, 2, 8);
  bf16_144.exp_per_element = true;
  EXPECT_EQ(choose(bf16_144).width, 6);
  RowShape bf16_96 = aligned_shape(96, 2, 8);
  bf16_96.exp_per_element = true;
  EXPECT_EQ(choose(bf16_96).width, 4);
  EXPECT_EQ(choose(bf16_96).rows_per_group, 2);
}

// Every element size and operand count finds a strategy at every length class.
TEST(Dispatch, EveryElementAndOperandCountHasAPlan) {
  for (int elem_bytes : {2, 4, 8}) {
    for (int inputs : {1, 2}) {
      for (int64_t cols : {1, 7, 64, 1000, 2048, 3001, 50000, 1 << 20}) {
        RowShape s = aligned_shape(cols, elem_bytes, 16 / elem_bytes);
        s.value_bytes = elem_bytes * inputs;
        s.inputs = inputs;
        choose(s);
      }
    }
  }
}

TEST(Dispatch, WarpRowsFillTheirLanes) {
  const Plan bf16_1300 = choose(aligned_shape(1300, 2, 8), Strategy::kWarp);  // 163 packs: 32 lanes of 6, not 8
  EXPECT_EQ(bf16_1300.width, 32);
  EXPECT_EQ(bf16_1300.packs_per_lane, 6);
  const Plan fp32_520 = choose(aligned_shape(520, 4, 4));  // 130 packs: 32 lanes of 5
  EXPECT_EQ(fp32_520.width, 32);
  EXPECT_EQ(fp32_520.packs_per_lane, 5);
  const Plan fp32_260 = choose(aligned_shape(260, 4, 4));  // 65 packs: 16 lanes of 5 fill more than 32 of 3
  EXPECT_EQ(fp32_260.width, 16);
  EXPECT_EQ(fp32_260.packs_per_lane, 5);
  const Plan bf16_136 = choose(aligned_shape(136, 2, 8));  // 17 packs: 8 lanes of 3
  EXPECT_EQ(bf16_136.width, 8);
  EXPECT_EQ(bf16_136.packs_per_lane, 3);
}

// Every warp plan is one of kWarpConfigs (launch_warp matches K, R, the edge and the width; no match is
// no kernel), over element sizes, operand counts and rows with and without partial packs. Groups that
// take the row's partial first and last packs do so one element a lane: kEdgeSlots per lane cover them
// only over kMinEdgeThreads lanes or more; their lanes hold the row's whole packs; two such rows a lane
// fit kStoredBytesPerThread. A configuration planned for some ops or values only is planned only where
// launch_warp builds it (warp_config_offered).
TEST(Dispatch, WarpPlansAreLaunchedConfigs) {
  for (int elem_bytes : {1, 2, 4, 8}) {
    for (int pack = 1; pack * elem_bytes <= 16; pack *= 2) {
      for (int inputs : {1, 2}) {
        for (int64_t cols = 1; cols <= 2048; ++cols) {
          for (bool ragged : {false, true}) {
            for (int ask = 0; ask < 4; ++ask) {
              const bool pairs = ask & 1, narrows = ask & 2;
              RowShape s = ragged ? ragged_shape(cols, elem_bytes, pack) : aligned_shape(cols, elem_bytes, pack);
              s.value_bytes = elem_bytes * inputs;
              s.inputs = inputs;
              s.exp_per_element = pairs;
              s.narrows_output = narrows;
              Plan p;
              if (!rowwise::choose_plan(s, kHopper, Strategy::kWarp, &p)) continue;
              const std::string where = std::to_string(elem_bytes) + "-byte x " + std::to_string(pack) + ", " +
                                        std::to_string(inputs) + " inputs, cols " + std::to_string(cols) +
                                        (ragged ? " ragged" : "") + (pairs ? " pairs" : "") +
                                        (narrows ? " narrowing" : "");
              int matches = 0;
              for (const rowwise::WarpConfig& c : rowwise::kWarpConfigs) {
                if (c.packs_per_lane != p.packs_per_lane || c.rows_per_group != p.rows_per_group ||
                    c.edge_lanes != p.edge || !rowwise::warp_config_width(c, p.width, p.lanes))
                  continue;
                ++matches;
                EXPECT_TRUE(rowwise::warp_config_offered(c, pairs, narrows, pack, s.value_bytes)) << where;
              }
              EXPECT_EQ(matches, 1) << where;
              if (!p.edge) continue;
              // Groups of exactly their lanes size their edge slots for them (warp_rows.cuh).
              if ((p.width & (p.width - 1)) == 0) EXPECT_GE(p.width, rowwise::kMinEdgeThreads) << where;
              // The lanes hold the row's whole packs but those the edge's slots take (edge_takes_overflow).
              const int64_t slots = int64_t(p.width) * p.packs_per_lane;
              const int edge_slots = rowwise::edge_slots(pack, p.lanes > 0 ? p.lanes : rowwise::kMinEdgeThreads);
              EXPECT_LE(std::max<int64_t>(2 * (pack - 1), cols - pack * slots), int64_t(edge_slots) * p.width) << where;
              EXPECT_LE(p.rows_per_group * p.packs_per_lane * pack * s.value_bytes, rowwise::kStoredBytesPerThread)
                  << where;
            }
          }
        }
      }
    }
  }
}

// Rows of wide on-chip values (functor rows of 8 doubles a pack: 64 bytes, two packs a lane) keep warp
// groups of several rows of whole packs; two edge-taking rows a lane would pass kStoredBytesPerThread.
TEST(Dispatch, WarpRowsOfWideValues) {
  RowShape doubles = aligned_shape(64, 2, 8);
  doubles.value_bytes = 8;
  const Plan p = choose(doubles);
  EXPECT_EQ(p.strategy, Strategy::kWarp);
  EXPECT_EQ(p.rows_per_group, 2);
  EXPECT_FALSE(p.edge);
  RowShape ragged_doubles = ragged_shape(257, 2, 8);
  ragged_doubles.value_bytes = 8;
  const Plan q = choose(ragged_doubles, Strategy::kWarp);
  EXPECT_TRUE(q.edge);
  EXPECT_EQ(q.rows_per_group, 1);
}

TEST(Dispatch, BlockRowsUpTo16KFloats) {
  const Plan p = choose(aligned_shape(2048, 4, 4));
  EXPECT_EQ(p.strategy, Strategy::kBlock);
  EXPECT_EQ(p.packs_per_thread, 8);
  EXPECT_EQ(p.threads, 64);
  const Plan p16k = choose(aligned_shape(16384, 4, 4));
  EXPECT_EQ(p16k.strategy, Strategy::kBlock);
  EXPECT_EQ(p16k.threads, 512);
  const Plan bf16_16k = choose(aligned_shape(16384, 2, 8));
  EXPECT_EQ(bf16_16k.strategy, Strategy::kBlock);
  EXPECT_EQ(bf16_16k.packs_per_thread, 8);
  EXPECT_EQ(bf16_16k.threads, 256);
  EXPECT_EQ(choose(aligned_shape(32768, 2, 8)).strategy, Strategy::kBlock);
  EXPECT_EQ(choose(aligned_shape(16385, 4, 4)).strategy, Strategy::kBlockSmem);
}

// Block rows take the packs per thread that keep the most rows on an SM: a 12345-column bf16 row
// (1544 packs when its phase is 7) at 8 packs a thread is 224 threads, 4 blocks at 64 registers; at 7
// it is 224 threads too, 5 blocks at 56.
TEST(Dispatch, BlockRowsKeepTheMostRowsResident) {
  RowShape odd = aligned_shape(12345, 2, 8);
  odd.max_packs = rowwise::max_packs_in_row(12345, 8);
  const Plan p = choose(odd);
  EXPECT_EQ(p.strategy, Strategy::kBlock);
  EXPECT_EQ(p.packs_per_thread, rowwise::kNarrowBlockPacks);
  EXPECT_EQ(p.threads, 224);
  EXPECT_EQ(choose(aligned_shape(5000, 2, 8)).packs_per_thread, 7);   // 96 threads: 12 blocks, not 10
  EXPECT_EQ(choose(aligned_shape(6000, 2, 8)).packs_per_thread, 8);   // 96 threads: 10 blocks, not 9
  EXPECT_EQ(choose(aligned_shape(5000, 4, 4)).packs_per_thread, 8);   // 6 blocks at 7 or 8: 160 threads at 8
  // One warp of 16-bit rows (32 blocks an SM at 6, 7 or 8 packs a thread): 6 while the row fits, on
  // the H200 (plan_block_slice): 1289 columns are 161 whole packs, 27 threads of 6 (pays for 192 slots,
  // not 256); up to 1543 columns (192 whole packs); 1544 are 193, 8 a thread (24.6 % of 256 empty).
  for (int64_t cols : {1274, 1289, 1432, 1440, 1543}) {
    const Plan one_warp = choose(cols % 8 == 0 ? aligned_shape(cols, 2, 8) : ragged_shape(cols, 2, 8));
    EXPECT_EQ(one_warp.strategy, Strategy::kBlock) << cols;
    EXPECT_EQ(one_warp.threads, 32) << cols;
    EXPECT_EQ(one_warp.packs_per_thread, rowwise::kGradBlockPacks) << cols;
  }
  EXPECT_EQ(choose(aligned_shape(1544, 2, 8)).packs_per_thread, 8);
  EXPECT_EQ(choose(ragged_shape(1559, 2, 8)).packs_per_thread, 8);
  EXPECT_EQ(choose(ragged_shape(1289, 2, 8), Strategy::kAuto, kH100).packs_per_thread, 8);  // not measured
  EXPECT_EQ(choose(odd, Strategy::kCluster).packs_per_thread, 8);     // clusters: the most packs a thread
  RowShape doubles = aligned_shape(5000, 8, 2);                       // double math: not bounded
  EXPECT_EQ(choose(doubles).packs_per_thread, 8);
}

// 16-bit gradient rows (two operands) hold 4 packs a thread, or 6 where that keeps more rows on an SM:
// 12345 columns (1543 whole packs) is 13 warps of 4, 2 blocks at 64 registers, or 9 warps of 6, 3 at 72.
RowShape gradient_shape(int64_t cols) {
  RowShape s = ragged_shape(cols, 2, 8);
  s.value_bytes = 4;
  s.inputs = 2;
  return s;
}
// 16-bit gradient rows of whole packs.
RowShape aligned_gradient_shape(int64_t cols, int64_t rows) {
  RowShape s = aligned_shape(cols, 2, 8, rows);
  s.value_bytes = 4;
  s.inputs = 2;
  return s;
}
TEST(Dispatch, SixteenBitGradientBlocksTakeSixPacksForResidency) {
  for (int64_t cols : {10375, 12325, 12345, 13435}) {
    const Plan p = choose(gradient_shape(cols));
    EXPECT_EQ(p.strategy, Strategy::kBlock) << cols;
    EXPECT_EQ(p.packs_per_thread, rowwise::kGradBlockPacks) << cols;
    EXPECT_LE(p.threads, 288) << cols;
  }
  EXPECT_EQ(choose(gradient_shape(12345)).threads, 288);
  EXPECT_EQ(choose(gradient_shape(14645)).packs_per_thread, 4);  // 6 packs: 10 warps, over the bound of 9
  EXPECT_EQ(choose(gradient_shape(2049)).packs_per_thread, 4);   // 2 warps either way: 16 blocks against 14
  EXPECT_NE(choose(gradient_shape(12345), Strategy::kCluster).packs_per_thread, rowwise::kGradBlockPacks);
  RowShape fp32 = ragged_shape(6001, 4, 4);  // fp32 gradients: 8 bytes a value, not the gradient K
  fp32.value_bytes = 8;
  fp32.inputs = 2;
  EXPECT_NE(choose(fp32).packs_per_thread, rowwise::kGradBlockPacks);
}

TEST(Dispatch, FewLongRowsSpreadOverClustersOnHopper) {
  // 128 KB: 2 CTAs of 64 KB hold it, grown to 4 of 32 KB.
  const Plan forced = choose(aligned_shape(32768, 4, 4), Strategy::kCluster);
  EXPECT_EQ(forced.cluster_size, 4);
  EXPECT_EQ(forced.threads, 256);
  EXPECT_EQ(choose(aligned_shape(32768, 4, 4)).strategy, Strategy::kBlockSmem);  // 1000 rows fill the GPU
  const Plan decode = choose(aligned_shape(131072, 4, 4, 1));  // one row: 16 slices of 32 KB
  EXPECT_EQ(decode.strategy, Strategy::kCluster);
  EXPECT_EQ(decode.cluster_size, 16);
  const Plan eight = choose(aligned_shape(262144, 2, 8, 8));  // 8 rows: 8 x 16 CTAs of 32 KB
  EXPECT_EQ(eight.strategy, Strategy::kCluster);
  EXPECT_EQ(eight.cluster_size, 16);
  const Plan small = choose(aligned_shape(8192, 4, 4, 2));  // 32 KB rows: slices stay >= 4 KB
  EXPECT_EQ(small.strategy, Strategy::kCluster);
  EXPECT_EQ(small.cluster_size, 8);
  Plan none;
  EXPECT_FALSE(rowwise::choose_plan(aligned_shape(32768, 4, 4), kAmpere, Strategy::kCluster, &none));
  const Plan sixty_four = choose(aligned_shape(131072, 2, 8, 64));  // 256 KB: 8 CTAs of 32 KB, not 4 of 64
  EXPECT_EQ(sixty_four.strategy, Strategy::kCluster);
  EXPECT_EQ(sixty_four.cluster_size, 8);
  // 1 MB rows: clusters of 16 x 64 KB for every op; longer rows split.
  const Plan mb = choose(aligned_shape(262144, 4, 4, 8));
  EXPECT_EQ(mb.strategy, Strategy::kCluster);
  EXPECT_EQ(mb.cluster_size, 16);
  RowShape gradient = aligned_shape(131072, 4, 4, 8);  // bf16 y and dy: 8 bytes an element on chip
  gradient.value_bytes = 8;
  gradient.inputs = 2;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kCluster);
  gradient.cols = 262144;
  gradient.max_packs = 65536;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kSplit);
  EXPECT_EQ(choose(aligned_shape(262148, 4, 4, 8)).strategy, Strategy::kSplit);
}

// A row goes to shared memory while it fits the device's opt-in share (less the block's own 1 KB), or
// is longer by at most a third of that (the rest streamed twice); then split.
TEST(Dispatch, SharedMemoryWhileTheRowFitsThenSplit) {
  const Plan p = choose(aligned_shape(32768, 4, 4), Strategy::kAuto, kAmpere);
  EXPECT_EQ(p.strategy, Strategy::kBlockSmem);
  EXPECT_EQ(p.smem_bytes, 32768 * 4);
  EXPECT_TRUE(p.fills_sm);  // 128 KB of 164: one block an SM
  EXPECT_EQ(choose(aligned_shape(41472, 4, 4), Strategy::kAuto, kAmpere).strategy, Strategy::kBlockSmem);
  EXPECT_EQ(choose(aligned_shape(55296, 4, 4), Strategy::kAuto, kAmpere).strategy, Strategy::kBlockSmem);
  EXPECT_EQ(choose(aligned_shape(55297, 4, 4), Strategy::kAuto, kAmpere).strategy, Strategy::kSplit);
  EXPECT_EQ(choose(aligned_shape(50000, 4, 4)).strategy, Strategy::kBlockSmem);
  EXPECT_EQ(choose(aligned_shape(57856, 4, 4)).strategy, Strategy::kBlockSmem);
  const Plan streamed = choose(aligned_shape(65536, 4, 4));  // 256 KB: 231 KB held, the rest streamed
  EXPECT_EQ(streamed.strategy, Strategy::kBlockSmem);
  EXPECT_EQ(streamed.smem_bytes, 57856 * 4);
  EXPECT_TRUE(streamed.fills_sm);
  EXPECT_EQ(choose(aligned_shape(77140, 4, 4)).strategy, Strategy::kBlockSmem);  // 4/3 of the buffer
  EXPECT_EQ(choose(aligned_shape(77144, 4, 4), Strategy::kAuto, kAmpere).strategy, Strategy::kSplit);
  // Blocks of 64-113 KB share an SM (two or three): the kernel without copy groups.
  EXPECT_FALSE(choose(aligned_shape(16385, 4, 4)).fills_sm);
  EXPECT_FALSE(choose(aligned_shape(28000, 4, 4)).fills_sm);
  EXPECT_TRUE(choose(aligned_shape(29000, 4, 4)).fills_sm);
  RowShape gradient = aligned_shape(25000, 4, 4);  // y and dy: two operands, 8 bytes an element on chip
  gradient.value_bytes = 8;
  gradient.inputs = 2;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kBlockSmem);
  gradient.cols = 32768;  // 256 KB on chip
  gradient.max_packs = 8192;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kBlockSmem);
  gradient.cols = 50000;
  gradient.max_packs = 12500;
  EXPECT_EQ(choose(gradient, Strategy::kAuto, kAmpere).strategy, Strategy::kSplit);
  gradient.rows = 8;  // few rows: spread over the GPU (by clusters on Hopper)
  EXPECT_EQ(choose(gradient, Strategy::kAuto, kAmpere).strategy, Strategy::kSplit);
  EXPECT_EQ(choose(aligned_shape(50000, 4, 4), Strategy::kBlockSmem).smem_bytes, 50000 * 4);
  Plan none;
  EXPECT_FALSE(rowwise::choose_plan(aligned_shape(1 << 20, 4, 4), kHopper, Strategy::kBlockSmem, &none));
  EXPECT_EQ(choose(aligned_shape(1 << 23, 4, 4)).strategy, Strategy::kSplit);
}

// Gradient rows (two operands) that block_smem would stream more than a quarter of its buffer of go to
// clusters where memory outpaces the SMs (not doubles, which clusters do not take); one-operand rows and
// the H100 stream up to a third, and block_smem still takes such rows forced.
TEST(Dispatch, StreamedGradientRowsOverClustersWhereMemoryOutpacesTheSms) {
  const auto gradient = [](int64_t cols, int elem_bytes) {
    RowShape s = aligned_shape(cols, elem_bytes, 16 / elem_bytes);
    s.value_bytes = 2 * elem_bytes;
    s.inputs = 2;
    return s;
  };
  // fp32: the buffer holds 28928 columns (231424 bytes over 8 a column); 5/4 of it 36160.
  EXPECT_EQ(choose(gradient(36160, 4)).strategy, Strategy::kBlockSmem);
  const Plan fp32 = choose(gradient(36164, 4));
  EXPECT_EQ(fp32.strategy, Strategy::kCluster);
  EXPECT_EQ(fp32.cluster_size, 16);
  EXPECT_EQ(choose(gradient(38568, 4)).strategy, Strategy::kCluster);  // 4/3 of the buffer: streamed before
  EXPECT_EQ(choose(gradient(38568, 4), Strategy::kBlockSmem).smem_bytes, 231424);
  EXPECT_EQ(choose(gradient(36164, 4), Strategy::kAuto, kH100).strategy, Strategy::kBlockSmem);
  EXPECT_EQ(choose(gradient(72328, 2)).strategy, Strategy::kCluster);  // bf16: twice the columns
  EXPECT_EQ(choose(gradient(72320, 2)).strategy, Strategy::kBlockSmem);
  EXPECT_EQ(choose(gradient(18084, 8)).strategy, Strategy::kBlockSmem);  // doubles
  EXPECT_EQ(choose(aligned_shape(72328, 4, 4)).strategy, Strategy::kBlockSmem);  // one operand
}

// Softmax and log_softmax rows that block_smem streams in part take bulk copies for the packs it holds,
// where memory outpaces the SMs; rows that fit, doubles, abs-max and gradient rows, the H100 and devices
// without bulk copies take the threads' own copies.
TEST(Dispatch, StreamedSoftmaxRowsTakeBulkCopiesWhereMemoryOutpacesTheSms) {
  const auto softmax_row = [](int64_t cols, int elem_bytes) {
    RowShape s = aligned_shape(cols, elem_bytes, 16 / elem_bytes);
    s.exp_per_element = true;
    return s;
  };
  EXPECT_FALSE(choose(softmax_row(57856, 4)).bulk_copies);  // fp32: exactly the buffer
  const Plan streamed = choose(softmax_row(57860, 4));
  EXPECT_EQ(streamed.strategy, Strategy::kBlockSmem);
  EXPECT_TRUE(streamed.fills_sm);
  EXPECT_TRUE(streamed.bulk_copies);
  EXPECT_TRUE(choose(softmax_row(131072, 2)).bulk_copies);  // bf16, 256 KB
  EXPECT_TRUE(choose(softmax_row(77140, 4), Strategy::kBlockSmem).bulk_copies);
  EXPECT_FALSE(choose(softmax_row(32768, 4)).bulk_copies);  // one block an SM, the whole row held
  const Plan doubles = choose(softmax_row(36001, 8));
  EXPECT_EQ(doubles.strategy, Strategy::kBlockSmem);
  EXPECT_FALSE(doubles.bulk_copies);  // not measured
  EXPECT_FALSE(choose(aligned_shape(65536, 4, 4)).bulk_copies);  // abs-max: no exp an element
  EXPECT_FALSE(choose(softmax_row(65536, 4), Strategy::kAuto, kH100).bulk_copies);
  EXPECT_FALSE(choose(softmax_row(55296, 4), Strategy::kAuto, kAmpere).bulk_copies);
  RowShape gradient = softmax_row(32768, 4);  // y and dy, 256 KB on chip
  gradient.value_bytes = 8;
  gradient.inputs = 2;
  const Plan two = choose(gradient);
  EXPECT_EQ(two.strategy, Strategy::kBlockSmem);
  EXPECT_FALSE(two.bulk_copies);
}

// Many rows too long for block_smem: clusters of 16 CTAs while the row holds at most 1 MB on chip
// (Hopper; slices of 32 KB up to 512 KB rows, then of up to 64 KB); split beyond that (but tail slices on
// the H200: next test), for doubles and without clusters.
TEST(Dispatch, ManyRowsUpTo1MBOverClusters) {
  const Plan just_past_smem = choose(aligned_shape(77144, 4, 4));
  EXPECT_EQ(just_past_smem.strategy, Strategy::kCluster);
  EXPECT_EQ(just_past_smem.cluster_size, 16);
  const Plan fp32 = choose(aligned_shape(131072, 4, 4));  // 512 KB: 16 slices of 32 KB
  EXPECT_EQ(fp32.strategy, Strategy::kCluster);
  EXPECT_EQ(fp32.cluster_size, 16);
  EXPECT_EQ(fp32.threads, 256);
  EXPECT_EQ(choose(aligned_shape(262144, 2, 8)).strategy, Strategy::kCluster);
  const Plan mb = choose(aligned_shape(262144, 4, 4));  // 1 MB: 16 slices of 64 KB
  EXPECT_EQ(mb.strategy, Strategy::kCluster);
  EXPECT_EQ(mb.cluster_size, 16);
  EXPECT_EQ(mb.threads, 512);
  EXPECT_EQ(choose(aligned_shape(524288, 2, 8)).strategy, Strategy::kCluster);
  // 800 KB; ragged rows of one operand take shared-memory slices on the H200 (next test)
  EXPECT_EQ(choose(ragged_shape(200003, 4, 4), Strategy::kAuto, kH100).strategy, Strategy::kCluster);
  EXPECT_EQ(choose(aligned_shape(262148, 4, 4), Strategy::kAuto, kH100).strategy, Strategy::kSplit);  // past 1 MB
  EXPECT_EQ(choose(aligned_shape(65536, 8, 2)).strategy, Strategy::kSplit);    // doubles: not measured
  EXPECT_EQ(choose(aligned_shape(131072, 4, 4), Strategy::kAuto, kAmpere).strategy, Strategy::kSplit);
  RowShape gradient = aligned_shape(65536, 4, 4);  // fp32 y and dy: 512 KB on chip
  gradient.value_bytes = 8;
  gradient.inputs = 2;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kCluster);
  gradient.cols = 131072;  // 1 MB
  gradient.max_packs = 32768;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kCluster);
  gradient.cols = 131076;  // past 1 MB
  gradient.max_packs = 32769;
  EXPECT_EQ(choose(gradient, Strategy::kAuto, kH100).strategy, Strategy::kSplit);
}

// Many rows of 1-2 MB on chip where memory outpaces the SMs: clusters of 16 tail slices (512 threads of
// 128 bytes, the rest of the slice in shared memory), looping over rows, for 4-byte elements and the
// gradients; 16-bit rows of one operand, gradient rows whose edge rank 0 takes, fewer rows than SMs,
// doubles, rows past 2 MB and the H100 go to split.
TEST(Dispatch, ManyRowsOf1To2MBTakeTailSlicesWhereMemoryOutpacesTheSms) {
  const auto gradient = [](int64_t cols, int elem_bytes, int64_t rows) {
    RowShape s = cols % (16 / elem_bytes) == 0 ? aligned_shape(cols, elem_bytes, 16 / elem_bytes, rows)
                                               : ragged_shape(cols, elem_bytes, 16 / elem_bytes);
    s.rows = rows;
    s.value_bytes = 2 * elem_bytes;
    s.inputs = 2;
    return s;
  };
  const Plan fp32 = choose(gradient(200000, 4, 335));  // 1.6 MB: 3125 packs a CTA, 2048 in registers
  EXPECT_EQ(fp32.strategy, Strategy::kCluster);
  EXPECT_TRUE(fp32.tail_slices);
  EXPECT_TRUE(fp32.clusters_loop);
  EXPECT_EQ(fp32.cluster_size, 16);
  EXPECT_EQ(fp32.threads, 512);
  EXPECT_EQ(fp32.packs_per_thread, 4);
  EXPECT_EQ(fp32.smem_bytes, (3125 - 2048) * 32);
  EXPECT_EQ(choose(gradient(262144, 4, 256)).smem_bytes, 65536);  // 2 MB
  EXPECT_EQ(choose(gradient(262148, 4, 256)).strategy, Strategy::kSplit);  // past 2 MB
  EXPECT_TRUE(choose(gradient(200003, 4, 335)).tail_slices);  // partial packs
  EXPECT_TRUE(choose(gradient(400000, 2, 336)).tail_slices);  // bf16
  EXPECT_EQ(choose(gradient(400003, 2, 336)).strategy, Strategy::kSplit);  // rank 0 would take the edge
  EXPECT_EQ(choose(gradient(200000, 4, 100)).strategy, Strategy::kSplit);  // fewer rows than SMs
  EXPECT_EQ(choose(gradient(200000, 4, 335), Strategy::kAuto, kH100).strategy, Strategy::kSplit);
  EXPECT_EQ(choose(gradient(100000, 8, 335)).strategy, Strategy::kSplit);  // doubles
  const Plan forward = choose(aligned_shape(400000, 4, 4));  // fp32 x: 6250 packs a CTA, 4096 in registers
  EXPECT_TRUE(forward.tail_slices);
  EXPECT_EQ(forward.packs_per_thread, 8);
  EXPECT_EQ(forward.smem_bytes, (6250 - 4096) * 16);
  EXPECT_EQ(choose(aligned_shape(600000, 2, 8)).strategy, Strategy::kSplit);  // bf16 x
}

// Gradient rows of 16-bit values with partial packs give the edge to a cluster's first threads too; rows
// of whole packs, fp32 rows and one-operand rows keep the slices without the edge code.
TEST(Dispatch, ClusterRowsOf16BitGradientsWithPartialPacksTakeTheEdge) {
  RowShape gradient = ragged_shape(200003, 2, 8);  // bf16 y and dy: 800 KB on chip
  gradient.value_bytes = 4;
  gradient.inputs = 2;
  const Plan ragged = choose(gradient);
  EXPECT_EQ(ragged.strategy, Strategy::kCluster);
  EXPECT_TRUE(ragged.edge);
  gradient.cols = 200000;
  gradient.max_packs = 25000;
  EXPECT_FALSE(choose(gradient).edge);  // whole packs
  RowShape fp32 = ragged_shape(100003, 4, 4);
  fp32.value_bytes = 8;
  fp32.inputs = 2;
  const Plan fp32_plan = choose(fp32);
  EXPECT_EQ(fp32_plan.strategy, Strategy::kCluster);
  EXPECT_FALSE(fp32_plan.edge);
  const Plan forward = choose(ragged_shape(200003, 2, 8), Strategy::kAuto, kH100);
  EXPECT_EQ(forward.strategy, Strategy::kCluster);
  EXPECT_FALSE(forward.edge);
}

// Many ragged rows of one operand of 384 KB to 1 MB hold their cluster slices in shared memory where
// memory outpaces the SMs, in the smallest cluster (of any size) whose slices leave two CTAs an SM;
// shorter rows, int8 / fp8 outputs, rows of whole packs, gradients, doubles and the H100 keep register
// slices.
TEST(Dispatch, ManyRaggedRowsOfOneOperandTakeClusterSlicesInSharedMemory) {
  const Plan fp32 = choose(ragged_shape(200003, 4, 4));  // 800 KB: 7 slices of 112 KB
  EXPECT_EQ(fp32.strategy, Strategy::kClusterSmem);
  EXPECT_EQ(fp32.cluster_size, 7);
  EXPECT_EQ(fp32.threads, 512);
  EXPECT_EQ(fp32.smem_bytes, (50002 + 6) / 7 * 16);  // 50002 packs: a phase adds one
  const Plan bf16 = choose(ragged_shape(200003, 2, 8));  // 400 KB: 4 slices of 100 KB
  EXPECT_EQ(bf16.strategy, Strategy::kClusterSmem);
  EXPECT_EQ(bf16.cluster_size, 4);
  EXPECT_EQ(choose(ragged_shape(100003, 4, 4)).cluster_size, 4);
  EXPECT_EQ(choose(ragged_shape(262139, 4, 4)).cluster_size, 10);  // 1 MB: slices of 102 KB
  EXPECT_TRUE(choose(ragged_shape(262143, 4, 4)).tail_slices);  // past 1 MB: register slices and their tails
  EXPECT_EQ(choose(ragged_shape(131073, 2, 8)).strategy, Strategy::kBlockSmem);  // block_smem streams a little
  EXPECT_EQ(choose(ragged_shape(98297, 4, 4)).strategy, Strategy::kCluster);       // below 384 KB
  EXPECT_EQ(choose(ragged_shape(98301, 4, 4)).strategy, Strategy::kClusterSmem);  // 384 KB
  RowShape int8_out = ragged_shape(200003, 4, 4);
  int8_out.narrows_output = true;
  EXPECT_EQ(choose(int8_out).strategy, Strategy::kCluster);
  EXPECT_EQ(choose(aligned_shape(131072, 4, 4)).strategy, Strategy::kCluster);
  EXPECT_EQ(choose(ragged_shape(50003, 8, 2)).strategy, Strategy::kSplit);  // doubles: not measured
  EXPECT_EQ(choose(ragged_shape(200003, 4, 4), Strategy::kAuto, kH100).strategy, Strategy::kCluster);
  RowShape gradient = ragged_shape(100003, 2, 8);
  gradient.value_bytes = 4;
  gradient.inputs = 2;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kCluster);
  // Forced: rows the smallest cluster's slices hold, not below compute capability 9.
  EXPECT_EQ(choose(aligned_shape(1000, 4, 4), Strategy::kClusterSmem).cluster_size, 2);
  Plan plan;
  EXPECT_FALSE(choose_plan(ragged_shape(200003, 4, 4), kAmpere, Strategy::kClusterSmem, &plan));
  EXPECT_FALSE(choose_plan(aligned_shape(524288, 4, 4), kHopper, Strategy::kClusterSmem, &plan));  // 2 MB
}

// Many 16-bit softmax and log_softmax rows of one operand past block_smem, up to 1 MB, hold their cluster
// slices in shared memory where memory outpaces the SMs, aligned or not, unless register slices would be
// full (262144 columns); not other ops, fp32 rows, few rows nor the H100.
TEST(Dispatch, Many16BitSoftmaxRowsTakeClusterSlicesInSharedMemory) {
  const auto softmax_row = [](RowShape s) {
    s.exp_per_element = true;
    s.map_takes_terms = true;
    return s;
  };
  const Plan bf16 = choose(softmax_row(aligned_shape(200000, 2, 8)));  // 400 KB: 4 slices of 100 KB
  EXPECT_EQ(bf16.strategy, Strategy::kClusterSmem);
  EXPECT_EQ(bf16.cluster_size, 4);
  EXPECT_EQ(bf16.smem_bytes, 25000 / 4 * 16);
  const Plan fp16 = choose(softmax_row(aligned_shape(168000, 2, 8)));  // 336 KB, below the ragged rows' 384 KB
  EXPECT_EQ(fp16.strategy, Strategy::kClusterSmem);
  EXPECT_EQ(fp16.cluster_size, 3);
  EXPECT_EQ(choose(softmax_row(aligned_shape(400000, 2, 8))).cluster_size, 7);
  RowShape log_softmax = aligned_shape(300000, 2, 8);
  log_softmax.exp_per_element = true;
  EXPECT_EQ(choose(log_softmax).strategy, Strategy::kClusterSmem);
  EXPECT_EQ(choose(softmax_row(ragged_shape(160001, 2, 8))).strategy, Strategy::kClusterSmem);
  EXPECT_EQ(choose(softmax_row(aligned_shape(150000, 2, 8))).strategy, Strategy::kBlockSmem);
  // Full register slices: 16 CTAs of 256 (and 512) threads of 8 packs.
  EXPECT_EQ(choose(softmax_row(aligned_shape(262144, 2, 8))).strategy, Strategy::kCluster);
  EXPECT_EQ(choose(softmax_row(aligned_shape(524288, 2, 8))).strategy, Strategy::kCluster);
  EXPECT_EQ(choose(aligned_shape(200000, 2, 8)).strategy, Strategy::kCluster);               // abs-max ops
  EXPECT_EQ(choose(softmax_row(aligned_shape(100000, 4, 4))).strategy, Strategy::kCluster);  // fp32
  RowShape int8_out = softmax_row(aligned_shape(200000, 2, 8));
  int8_out.narrows_output = true;
  EXPECT_EQ(choose(int8_out).strategy, Strategy::kCluster);
  EXPECT_EQ(choose(softmax_row(aligned_shape(200000, 2, 8, 100))).strategy, Strategy::kCluster);  // few rows
  EXPECT_EQ(choose(softmax_row(aligned_shape(200000, 2, 8)), Strategy::kAuto, kH100).strategy, Strategy::kCluster);
}

// Register cluster slices of more rows than the clusters held at once take a grid of those clusters on
// the H200, looping over rows; fewer rows, rows whose edge rank 0 takes (ragged 16-bit gradients), 16-bit
// softmax rows and the H100 a cluster a row.
TEST(Dispatch, ManyRowsLoopTheirRegisterClustersOverRows) {
  // Each shape on clusters, looping or not.
  const auto loops = [](const RowShape& s, const rowwise::DeviceInfo& dev = kHopper) {
    const Plan p = choose(s, Strategy::kAuto, dev);
    EXPECT_EQ(p.strategy, Strategy::kCluster) << s.cols << " x " << s.rows;
    return p.clusters_loop;
  };
  const RowShape gradient = aligned_gradient_shape(262144, 2048);  // bf16 y and dy: 1 MB on chip
  EXPECT_TRUE(loops(gradient));
  EXPECT_TRUE(choose(gradient, Strategy::kCluster).clusters_loop);
  EXPECT_FALSE(loops(gradient, kH100));
  // Slices of 256 threads at 64 registers: 4 CTAs an SM, 33 clusters of 16 held at once.
  EXPECT_TRUE(loops(aligned_gradient_shape(131072, 34)));
  EXPECT_FALSE(loops(aligned_gradient_shape(131072, 33)));
  RowShape ragged = gradient_shape(200003);
  ragged.rows = 2685;
  EXPECT_FALSE(loops(ragged));
  EXPECT_TRUE(choose(ragged).edge);
  EXPECT_TRUE(loops(aligned_shape(262144, 4, 4, 1024)));  // fp32 x: 1 MB on chip
  RowShape bf16 = aligned_shape(262144, 2, 8, 512);       // bf16 x: 512 KB
  EXPECT_TRUE(loops(bf16));
  bf16.exp_per_element = bf16.map_takes_terms = true;     // softmax
  EXPECT_FALSE(loops(bf16));
  bf16.map_takes_terms = false;                            // log_softmax
  EXPECT_TRUE(loops(bf16));
  RowShape fp32_gradient = ragged_shape(100003, 4, 4);    // y and dy of partial packs, no edge
  fp32_gradient.rows = 672;
  fp32_gradient.value_bytes = 8;
  fp32_gradient.inputs = 2;
  EXPECT_TRUE(loops(fp32_gradient));
}

// Many 16-bit gradient rows over clusters that queue past two CTAs an SM take the dense slices (three
// CTAs an SM) on the H200, where their slices are of 4 packs and at most 416 threads and their clusters
// do not loop over rows; rows of larger slices, looping clusters, fewer rows, fp32 rows and the H100 the
// unbounded kernel.
TEST(Dispatch, Many16BitGradientRowsOnClustersTakeDenseSlices) {
  const auto dense = [](const RowShape& s, const rowwise::DeviceInfo& dev = kHopper) {
    const Plan p = choose(s, Strategy::kAuto, dev);
    EXPECT_EQ(p.strategy, Strategy::kCluster) << s.cols << " x " << s.rows;
    return p.dense_slices;
  };
  RowShape ragged = gradient_shape(200003);  // bf16 y and dy: 800 KB, 16 slices of 1563 packs
  ragged.rows = 672;
  EXPECT_TRUE(dense(ragged));
  const Plan p = choose(ragged);
  EXPECT_EQ(p.cluster_size, 16);
  EXPECT_EQ(p.packs_per_thread, rowwise::kDenseSlicePacks);
  EXPECT_EQ(p.threads, 416);
  EXPECT_FALSE(dense(ragged, kH100));
  ragged.rows = 16;  // 256 CTAs: two an SM hold them
  EXPECT_FALSE(dense(ragged));
  ragged.rows = 17;
  EXPECT_TRUE(dense(ragged));
  EXPECT_TRUE(dense(aligned_gradient_shape(131072, 30)));  // 512 KB, slices of 256 threads, not looping
  EXPECT_FALSE(dense(aligned_gradient_shape(262144, 100)));  // 1 MB: slices of 512 threads
  const RowShape looping = aligned_gradient_shape(131072, 1024);
  EXPECT_TRUE(choose(looping).clusters_loop);
  EXPECT_FALSE(dense(looping));
  RowShape fp32 = ragged_shape(100003, 4, 4);
  fp32.rows = 1024;
  fp32.value_bytes = 8;
  fp32.inputs = 2;
  EXPECT_FALSE(dense(fp32));
}

// Outputs off their inputs' packs keep the packs' width only where the common pack fell to one element,
// the inputs alone keep the widest, and rows pass kMinOffOutputPackCols: split stores for fp32 inputs,
// packs on the output for 16-bit inputs.
TEST(Dispatch, OutputsOffTheInputsPacksKeepTheirWidthInLongEnoughRows) {
  using rowwise::kMinOffOutputPackCols;
  using rowwise::OutPacks;
  using rowwise::out_packs_for;
  EXPECT_EQ(out_packs_for(1, 4, 4, kMinOffOutputPackCols, 4), OutPacks::kSplitStores);
  EXPECT_EQ(out_packs_for(1, 8, 8, 131072, 2), OutPacks::kOnOutput);
  EXPECT_EQ(out_packs_for(1, 2, 2, 131072, 8), OutPacks::kShared);  // doubles: not measured
  EXPECT_EQ(out_packs_for(1, 4, 4, kMinOffOutputPackCols - 1, 4), OutPacks::kShared);  // warp rows
  EXPECT_EQ(out_packs_for(2, 4, 4, 4096, 4), OutPacks::kShared);  // output packs of two elements stay
  EXPECT_EQ(out_packs_for(4, 8, 8, 4096, 2), OutPacks::kShared);  // and of four
  EXPECT_EQ(out_packs_for(1, 2, 4, 4096, 4), OutPacks::kShared);  // the inputs themselves off each other
}

// What every split plan must satisfy: the held pieces and streamed tails cover the row, none wider
// than needed, every CTA holds a piece, no more CTAs a row than are resident at once (the
// co-residency that makes the waits safe), held packs in whole pieces of at most 512 bytes (or a
// warp's packs) within the CTA's share of shared memory, tails only behind a full held region.
void expect_valid_split(const RowShape& s, const rowwise::DeviceInfo& dev, const Plan& p) {
  const rowwise::SplitLayout& l = p.split;
  const int64_t piece = rowwise::split_piece_packs(s.pack * s.value_bytes);
  EXPECT_EQ(p.strategy, Strategy::kSplit);
  EXPECT_GE(l.chunks * (l.held_packs + l.stream_packs), s.max_packs);
  if (l.stream_packs == 0) {
    EXPECT_LT(l.chunks * (l.held_packs - piece), s.max_packs);
  } else {
    EXPECT_LT(l.chunks * (l.held_packs + l.stream_packs - 1), s.max_packs);
    EXPECT_EQ(l.held_packs, rowwise::split_held_capacity(s, dev));
  }
  EXPECT_LE(l.chunks, (s.max_packs + piece - 1) / piece);
  EXPECT_LE(l.chunks, rowwise::split_resident_ctas(dev));
  EXPECT_EQ(rowwise::kSplitThreads % piece, 0);
  EXPECT_TRUE(piece == 32 || piece * s.pack * s.value_bytes <= 512);
  EXPECT_TRUE(piece == rowwise::kSplitThreads || 2 * piece * s.pack * s.value_bytes > 512);
  EXPECT_EQ(l.held_packs % piece, 0);
  EXPECT_GE(l.held_packs, piece);
  EXPECT_LE(l.held_packs, rowwise::split_held_capacity(s, dev));
  EXPECT_EQ(p.smem_bytes, l.held_packs * s.pack * s.value_bytes);
  EXPECT_LE(rowwise::kSplitBlocksPerSm * (p.smem_bytes + rowwise::kStaticSmemReserve + rowwise::kSystemSmemPerBlock),
            dev.smem_per_sm);
}

// Checks the split plan `strategy` (dispatch, or split forced) gives `s`: valid, `chunks` CTAs a row,
// streaming tails or not.
void expect_split_chunks(const RowShape& s, int64_t chunks, bool streams, Strategy strategy = Strategy::kAuto) {
  const Plan p = choose(s, strategy);
  expect_valid_split(s, kHopper, p);
  EXPECT_EQ(p.split.chunks, chunks);
  EXPECT_EQ(p.split.stream_packs > 0, streams);
}

TEST(Dispatch, SplitHoldsLongRowsOnChipWhenTheyFit) {
  // Rows of 768 KB fp32 (clusters through dispatch): 55 KB a CTA (four an SM) needs 14 slices a row, 37
  // rows a round of the 528 resident CTAs, each slice held whole.
  expect_split_chunks(aligned_shape(196608, 4, 4, 342), 14, false, Strategy::kSplit);
  // 8 rows of 8 MiB fp32 need 149 slices a row: the resident CTAs hold 3.5 rows, so a round takes 4
  // rows of 132 CTAs, full ones, each streaming what it does not hold (kSplitRoundUpBelowRows).
  expect_split_chunks(aligned_shape(1 << 21, 4, 4, 8), 132, true);
  // One row of 16 MiB is held whole by the GPU's 528 CTAs; two such rows take 264 CTAs each.
  expect_split_chunks(aligned_shape(1 << 22, 4, 4, 1), 528, false);
  expect_split_chunks(aligned_shape(1 << 22, 4, 4, 2), 264, true);
  // One row of 32 MiB is more than the GPU holds: every resident CTA takes a slice, tails re-read.
  expect_split_chunks(aligned_shape(1 << 23, 4, 4, 1), 528, true);
}

TEST(Dispatch, SplitSpreadsFewRowsOverTheGpu) {
  // One 1.2 MB row on Ampere (no clusters): slices of ~16 KB over 74 CTAs, not 30 full ones.
  const RowShape one = aligned_shape(300000, 4, 4, 1);
  const Plan p = choose(one, Strategy::kAuto, kAmpere);
  expect_valid_split(one, kAmpere, p);
  EXPECT_EQ(p.split.chunks, 74);
  for (int64_t cols : {1, 33, 4097, 65537, 1 << 20}) {  // forced: any row length, bf16 and fp32
    for (int64_t rows : {1, 7, 5000}) {
      for (const RowShape& s : {aligned_shape(cols, 4, 4, rows), aligned_shape(cols, 2, 8, rows)}) {
        const Plan f = choose(s, Strategy::kSplit);
        expect_valid_split(s, kHopper, f);
        expect_valid_split(s, kAmpere, choose(s, Strategy::kSplit, kAmpere));
      }
    }
  }
}

// Rows holding more than 128 MB on chip, however many: two launches over the resident CTAs.
TEST(Dispatch, RowsFarLongerThanTheGpuHoldsInTwoLaunches) {
  EXPECT_EQ(choose(aligned_shape(32 << 20, 4, 4, 1)).strategy, Strategy::kSplit);  // 128 MB
  const Plan tensor = choose(aligned_shape(int64_t{1} << 28, 4, 4, 1));            // 1 GiB of fp32
  EXPECT_EQ(tensor.strategy, Strategy::kTwoLaunch);
  EXPECT_EQ(tensor.row_ctas, rowwise::split_resident_ctas(kHopper));
  EXPECT_EQ(tensor.threads, rowwise::kSplitThreads);
  EXPECT_EQ(choose(aligned_shape(int64_t{1} << 28, 4, 4, 1), Strategy::kAuto, kAmpere).strategy, Strategy::kTwoLaunch);
  EXPECT_EQ(choose(aligned_shape(65 << 20, 2, 8, 64)).strategy, Strategy::kTwoLaunch);  // 130 MB of bf16
  RowShape gradient = aligned_shape(17 << 20, 4, 4, 4);  // fp32 y and dy: 136 MB on chip
  gradient.value_bytes = 8;
  gradient.inputs = 2;
  EXPECT_EQ(choose(gradient).strategy, Strategy::kTwoLaunch);
  // Forced: CTAs shared out among the rows, none taking less than 16 KB, at least one a row.
  EXPECT_EQ(choose(aligned_shape(1 << 20, 4, 4, 8), Strategy::kTwoLaunch).row_ctas, 66);
  EXPECT_EQ(choose(aligned_shape(8192, 4, 4, 1), Strategy::kTwoLaunch).row_ctas, 2);
  EXPECT_EQ(choose(aligned_shape(1, 4, 4, 1), Strategy::kTwoLaunch).row_ctas, 1);
  EXPECT_EQ(choose(aligned_shape(1 << 20, 2, 8, 5000), Strategy::kTwoLaunch).row_ctas, 1);
}

TEST(Dispatch, ForcedStrategyOnlyWhereTheRowFits) {
  Plan p;
  EXPECT_FALSE(rowwise::choose_plan(aligned_shape(4096, 4, 4), kHopper, Strategy::kWarp, &p));
  EXPECT_FALSE(rowwise::choose_plan(aligned_shape(40000, 4, 4), kHopper, Strategy::kBlock, &p));
  EXPECT_TRUE(rowwise::choose_plan(aligned_shape(20, 4, 4), kHopper, Strategy::kSplit, &p));
  EXPECT_EQ(p.strategy, Strategy::kSplit);
}

TEST(Dispatch, ShortRaggedContiguousRowsGoInTiles) {
  const Plan p = choose(staged_shape(17, 2, 1));  // 17 bf16: rows start off 16-byte boundaries
  EXPECT_EQ(p.strategy, Strategy::kTile);
  EXPECT_EQ(p.width, 1);
  EXPECT_EQ(p.threads, rowwise::kTileThreads);
  EXPECT_EQ(p.rows_per_tile, 512);  // 16 KB of 34-byte rows: 481, the nearest whole groups
  EXPECT_EQ(p.smem_bytes, 2 * rowwise::tile_plane_bytes(512 * 17, 2));
  EXPECT_EQ(choose(staged_shape(16, 2, 8)).strategy, Strategy::kWarp);   // whole packs
  EXPECT_EQ(choose(aligned_shape(17, 2, 1)).strategy, Strategy::kWarp);  // strided: nothing to stage
  EXPECT_EQ(choose(staged_shape(65, 4, 1)).strategy, Strategy::kWarp);   // longer than 64 columns
  EXPECT_EQ(choose(staged_shape(1, 4, 4)).strategy, Strategy::kTile);    // one column: ragged too
  EXPECT_EQ(choose(staged_shape(33, 8, 2)).strategy, Strategy::kWarp);   // doubles: double math a thread
}

// Ragged 16-bit rows of 65-149 columns go a thread each: rows of one operand whose output lies over the
// input (it has that input's element size and offset from 16 bytes) up to 149 columns, int8 / fp8
// outputs up to 131 (16-bit outputs off the input's offset on to 298, below), the gradients (two
// operands) up to 72. Past 64 columns their tiles take up to a third of an SM's shared memory (74.8 KB of
// 228).
TEST(Dispatch, Ragged16BitRowsOfUpTo149ColumnsGoAThreadEach) {
  const auto shape = [](int64_t cols, int inputs, bool out_like_last_input) {
    RowShape s = staged_shape(cols, 2, 1);
    s.inputs = inputs;
    s.value_bytes = 2 * inputs;
    s.exp_per_element = true;
    s.map_takes_terms = inputs == 1;  // softmax
    s.out_like_last_input = out_like_last_input;
    return s;
  };
  const Plan own_plane = choose(shape(127, 1, false));
  EXPECT_EQ(own_plane.strategy, Strategy::kTile);
  EXPECT_EQ(own_plane.width, 1);
  EXPECT_FALSE(own_plane.out_in_input_plane);
  EXPECT_EQ(own_plane.rows_per_tile, 144);  // 74.8 KB holds 150 rows of 508 bytes: whole accesses every 8
  EXPECT_EQ(own_plane.smem_bytes, 2 * rowwise::tile_plane_bytes(144 * 127, 2));
  const Plan over_input = choose(shape(149, 1, true));
  EXPECT_EQ(over_input.strategy, Strategy::kTile);
  EXPECT_TRUE(over_input.out_in_input_plane);
  EXPECT_EQ(over_input.rows_per_tile, 256);  // a row for every thread in 74.5 KB
  EXPECT_EQ(over_input.smem_bytes, rowwise::tile_plane_bytes(256 * 149, 2));
  EXPECT_LE(rowwise::kTileLongThreadRowsBlocksPerSm *
                (over_input.smem_bytes + rowwise::kTileStaticSmemBytes + rowwise::kSystemSmemPerBlock),
            kHopper.smem_per_sm);
  EXPECT_EQ(choose(shape(169, 1, true)).strategy, Strategy::kWarp);  // softmax: pairs up to 167 (below)
  EXPECT_EQ(choose(shape(104, 1, true)).strategy, Strategy::kWarp);  // whole packs
  const auto to_int8 = [&](int64_t cols) {
    RowShape s = shape(cols, 1, false);
    s.out_bytes = 1;
    s.narrows_output = true;
    return s;
  };
  const Plan narrow = choose(to_int8(131));
  EXPECT_EQ(narrow.strategy, Strategy::kTile);
  EXPECT_EQ(narrow.rows_per_tile, 192);  // 74.8 KB holds 194 rows of 393 bytes: whole accesses every 16
  EXPECT_EQ(choose(to_int8(133)).strategy, Strategy::kWarp);
  EXPECT_EQ(choose(shape(131, 1, false)).strategy, Strategy::kTile);  // a 16-bit output in its own plane
  EXPECT_EQ(choose(shape(133, 1, false)).width, 1);  // off the input's offset: on to 298 (below)
  const Plan gradients = choose(shape(71, 2, true));
  EXPECT_EQ(gradients.strategy, Strategy::kTile);
  EXPECT_EQ(gradients.smem_bytes, 2 * rowwise::tile_plane_bytes(256 * 71, 2));  // dx over dy
  EXPECT_EQ(choose(shape(73, 2, true)).strategy, Strategy::kWarp);
  // Rows of up to 64 columns keep their own output plane.
  EXPECT_FALSE(choose(shape(63, 1, true)).out_in_input_plane);
  // Forced, ragged 16-bit rows up to 149 columns go a thread each whatever the op.
  EXPECT_EQ(choose(shape(149, 2, true), Strategy::kTile).width, 1);
  EXPECT_EQ(choose(shape(151, 1, true), Strategy::kTile).width, 2);
}

// Ragged 16-bit rows of one operand of 150-298 columns whose output lies over the input go a pair of
// threads each, 128 rows a tile (74.3 KB at 297 columns): up to 298 columns for ops without exps
// (absmax_scale), 195 for exps in the reduction only (log_softmax), 167 for exps in the map too (softmax);
// up to 298 for every op on the H100, whose SMs keep up with its memory, and for 16-bit outputs off the
// input's offset from 16 bytes.
// The pair's parts meet near the middle, where its lanes' shared words fall on the fewest banks.
TEST(Dispatch, Ragged16BitRowsOfUpTo298ColumnsGoAPairOfThreadsEach) {
  enum Exps { kNone, kReduction, kReductionAndMap };
  const auto shape = [](int64_t cols, bool out_like_last_input, Exps exps) {
    RowShape s = staged_shape(cols, 2, 1);
    s.out_like_last_input = out_like_last_input;
    s.exp_per_element = exps != kNone;
    s.map_takes_terms = exps == kReductionAndMap;
    return s;
  };
  for (int64_t cols = 150; cols <= 298; ++cols) {
    if (cols % 8 == 0) continue;  // whole packs: warp rows
    const Plan pairs = choose(shape(cols, true, kNone));
    EXPECT_EQ(pairs.strategy, Strategy::kTile) << cols;
    EXPECT_EQ(pairs.width, 2) << cols;
    EXPECT_TRUE(pairs.out_in_input_plane) << cols;
    EXPECT_EQ(pairs.rows_per_tile, 128) << cols;
    EXPECT_EQ(pairs.pair_split % 2, 0) << cols;
    EXPECT_LE(std::abs(2 * pairs.pair_split - cols), 2 * 16 + 1) << cols;
  }
  const auto strategy = [&](int64_t cols, Exps exps) { return choose(shape(cols, true, exps)).strategy; };
  EXPECT_NE(strategy(299, kNone), Strategy::kTile);
  EXPECT_EQ(strategy(195, kReduction), Strategy::kTile);
  EXPECT_EQ(strategy(197, kReduction), Strategy::kWarp);
  EXPECT_EQ(strategy(167, kReductionAndMap), Strategy::kTile);
  EXPECT_EQ(strategy(169, kReductionAndMap), Strategy::kWarp);
  EXPECT_EQ(choose(shape(297, true, kReductionAndMap), Strategy::kAuto, kH100).width, 2);  // SMs keep up
  // 16-bit outputs off the input's offset from 16 bytes too, in a plane of their own, whatever the op.
  const Plan own_plane = choose(shape(297, false, kReductionAndMap));
  EXPECT_EQ(own_plane.strategy, Strategy::kTile);
  EXPECT_EQ(own_plane.width, 2);
  EXPECT_FALSE(own_plane.out_in_input_plane);
  EXPECT_NE(choose(shape(299, false, kNone)).strategy, Strategy::kTile);
  EXPECT_EQ(strategy(152, kNone), Strategy::kWarp);                       // whole packs
  for (int64_t cols = 1; cols <= 298; ++cols) {  // forced tiles of short rows take groups of 2 too
    const int split = rowwise::tile_pair_split(cols);
    EXPECT_TRUE(split >= 0 && split <= cols && split % 2 == 0) << cols << ": " << split;
  }
  // 251 columns split at 128 (whole runs) put both parts of a row on one bank: 4 words a bank.
  EXPECT_EQ(rowwise::tile_pair_split(251), 126);
  EXPECT_EQ(rowwise::tile_pair_split(263), 132);
  EXPECT_EQ(rowwise::tile_pair_split(255), 112);  // nearer the middle, 4 words a bank
  EXPECT_EQ(rowwise::tile_pair_split(151), 76);
}

TEST(Dispatch, TilesOf16BitRowsGiveEveryThreadARowWithinTheirSharedMemory) {
  EXPECT_EQ(choose(staged_shape(63, 2, 1)).rows_per_tile, 256);  // 16 KB would be 130 rows
  EXPECT_EQ(choose(staged_shape(63, 2, 1)).smem_bytes, 2 * rowwise::tile_plane_bytes(256 * 63, 2));
  RowShape gradients = staged_shape(63, 2, 1);  // y and dy: 6 bytes a column with dx
  gradients.inputs = 2;
  gradients.value_bytes = 4;
  EXPECT_EQ(choose(gradients).rows_per_tile, 168);  // 256 would take 97 KB: 64 KB of rows, whole accesses
  EXPECT_EQ(choose(staged_shape(5, 2, 1)).rows_per_tile, 1536);  // 1638: the nearest whole groups
  EXPECT_EQ(choose(staged_shape(5, 2, 1, 100)).rows_per_tile, 100);  // no more than the rows
}

TEST(Dispatch, TilesOf16BitRowsOfARowAThreadTakeTwoWhileFourBlocksFitAnSm) {
  EXPECT_EQ(choose(staged_shape(23, 2, 1)).rows_per_tile, 512);  // 356 rows: one group, two take 46 KB
  EXPECT_EQ(choose(staged_shape(27, 2, 1)).rows_per_tile, 512);  // 54 KB
  EXPECT_EQ(choose(staged_shape(31, 2, 1)).rows_per_tile, 256);  // two would take 62 KB
}

TEST(Dispatch, TilesHoldWholeSixteenByteAccessesOfEveryOperand) {
  EXPECT_EQ(rowwise::tile_rows_of_whole_accesses(63, 4), 4);
  EXPECT_EQ(rowwise::tile_rows_of_whole_accesses(63, 1), 16);
  EXPECT_EQ(rowwise::tile_rows_of_whole_accesses(6, 2), 4);
  EXPECT_EQ(rowwise::tile_rows_of_whole_accesses(8, 2), 1);
  EXPECT_EQ(choose(staged_shape(63, 4, 1)).rows_per_tile, 64);  // 4-byte rows: 16 KB (65), whole accesses
  EXPECT_EQ(choose(staged_shape(63, 4, 1)).smem_bytes, 2 * rowwise::tile_plane_bytes(64 * 63, 4));
  EXPECT_EQ(choose(staged_shape(47, 4, 1)).rows_per_tile, 84);  // 87 rows of 188 bytes
  RowShape int8_out = staged_shape(47, 4, 1);
  int8_out.out_bytes = 1;
  EXPECT_EQ(choose(int8_out).rows_per_tile, 80);  // outputs of 47 bytes: 16 rows for whole accesses
  EXPECT_EQ(choose(staged_shape(63, 4, 1, 3)).rows_per_tile, 3);  // one tile: where the tensor starts
}

TEST(Dispatch, ForcedTilesHoldWholeRows) {
  const Plan p = choose(staged_shape(1000, 4, 4), Strategy::kTile);
  EXPECT_EQ(p.width, 128);  // 8 elements a thread per step
  EXPECT_EQ(p.rows_per_tile, 4);
  EXPECT_EQ(choose(staged_shape(8000, 4, 4), Strategy::kTile).rows_per_tile, 1);  // a row beyond a tile
  EXPECT_EQ(choose(staged_shape(1000, 4, 4, 3), Strategy::kTile).rows_per_tile, 3);  // no more than the rows
  Plan refused;
  EXPECT_FALSE(rowwise::choose_plan(staged_shape(65536, 4, 4), kHopper, Strategy::kTile, &refused));  // 512 KB
  EXPECT_FALSE(rowwise::choose_plan(aligned_shape(100, 4, 4), kHopper, Strategy::kTile, &refused));
}

// A plane holds its elements at any offset below an access (below 16 bytes, whole elements) and what
// a thread row's last run reads past them: up to kTileChunk - 1 elements and load_staged_run's word.
TEST(Dispatch, TilePlanesHoldTheLastRunsReach) {
  for (const int bytes : {1, 2, 4, 8}) {
    for (const int64_t elements : {1, 2, 3, 7, 17, 4352, 16383}) {
      const int64_t plane = rowwise::tile_plane_bytes(elements, bytes);
      const int64_t last_offset = rowwise::kTileAccessBytes - bytes;
      const int64_t reach = last_offset + (elements - 1 + rowwise::kTileChunk) * bytes +
                            rowwise::kStagedRunOverreachBytes;
      EXPECT_GE(plane, reach) << bytes << "-byte elements, " << elements;
      EXPECT_EQ(plane % rowwise::kTileAccessBytes, 0);
    }
  }
}

TEST(Dispatch, EveryRuleCitesItsEvidence) {
  for (const auto& rule : rowwise::kStrategyRules) EXPECT_NE(rule.evidence, nullptr);
}

TEST(PackWidth, SharedPhaseKeepsFullVectors) {
  alignas(16) static float buf[64];
  using rowwise::common_pack_width;
  EXPECT_EQ(common_pack_width({{buf, 8, 4}, {buf + 32, 8, 4}}), 4);
  EXPECT_EQ(common_pack_width({{buf + 1, 8, 4}, {buf + 33, 8, 4}}), 4);  // both one element off
  EXPECT_EQ(common_pack_width({{buf + 1, 8, 4}, {buf + 32, 8, 4}}), 1);  // phases differ by one
  EXPECT_EQ(common_pack_width({{buf + 2, 8, 4}, {buf + 32, 8, 4}}), 2);  // by two: pairs still line up
  EXPECT_EQ(common_pack_width({{buf, 5, 4}, {buf + 32, 3, 4}}), 2);      // stride residues agree mod 2
  EXPECT_EQ(common_pack_width({{buf, 16, 2}, {buf + 32, 16, 2}}), 8);    // 16-bit: eight per pack
}

TEST(PackWidth, MixedElementSizesShareTheElementPhase) {
  alignas(16) static unsigned char bytes[256];
  // bf16 in, int8 out: eight elements per pack (16 bytes in, 8 out), phases counted in elements.
  EXPECT_EQ(rowwise::common_pack_width({{bytes, 64, 2}, {bytes + 128, 64, 1}}), 8);
  EXPECT_EQ(rowwise::common_pack_width({{bytes + 2, 64, 2}, {bytes + 129, 64, 1}}), 8);
  EXPECT_EQ(rowwise::common_pack_width({{bytes + 2, 64, 2}, {bytes + 128, 64, 1}}), 1);
}

TEST(RowPacks, PhaseAddsAtMostOnePack) {
  EXPECT_EQ(rowwise::packs_in_row(16, 0, 4), 4);
  EXPECT_EQ(rowwise::packs_in_row(16, 1, 4), 5);
  EXPECT_EQ(rowwise::packs_in_row(13, 3, 4), 4);
  EXPECT_EQ(rowwise::max_packs_in_row(16, 4), 5);
  EXPECT_EQ(rowwise::max_packs_in_row(7, 1), 7);
}

}  // namespace
