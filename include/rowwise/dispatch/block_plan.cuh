// Plans of rows one block or one cluster holds (block, cluster: registers; block_smem, cluster_smem:
// shared memory) or streams (two_pass): packs a thread, block size, cluster size, shared memory.
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>

#include "../kernels/block_rows.cuh"
#include "../kernels/block_smem_rows.cuh"
#include "../kernels/cluster_rows.cuh"
#include "../kernels/cluster_smem_rows.cuh"
#include "../kernels/two_pass_rows.cuh"
#include "plan.cuh"

namespace rowwise {

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

// block_smem and two_pass: as many threads as the batch each thread holds allows (a backward batch of
// fp32 spilled at 1024 threads).
inline int stream_block_threads(const RowShape& shape, int batch) {
  return block_max_threads(batch * shape.pack * shape.value_bytes);
}

// Cluster rows: each CTA holds a block-sized slice (at most kClusterSliceBytes); cluster sizes above 8
// (up to kMaxClusterCtas) are Hopper's non-portable ones, checked against the device when launched.
inline constexpr int64_t kClusterSliceBytes = 65536;
// Clusters grow (up to kMaxClusterCtas) while their slices are larger than this: more, smaller CTAs
// an SM overlap their phases. H200, 16-64 rows, µs: bf16 softmax_backward 64 x 131072 26.9 -> 22.5,
// log_softmax 19.2 -> 17.6, 16 x 262144 softmax 13.8 -> 12.8 (slices of 64 KB -> 32 KB).
inline constexpr int64_t kClusterGrowSliceBytes = 32768;

// Few long rows spread over bigger clusters while the GPU has SMs to spare, down to slices this small.
inline constexpr int64_t kMinClusterSliceBytes = 4096;

// Register cluster slices of more rows than the clusters the device holds at once run on a grid of those
// clusters, each looping over rows and pushing its states to its peers (kernels/cluster_rows.cuh), where
// memory outpaces the SMs; fewer rows, rows whose edge rank 0 takes (ragged 16-bit gradients) and 16-bit
// softmax rows take a cluster a row, which the hardware starts as one drains. The clusters held are
// estimated from the slice's register budget (SMs x resident CTAs / cluster size; the launch sizes the
// grid from the occupancy API). H200, 256 MiB, two rounds, % of copy, from as many rows as SMs: fp32
// softmax / log_softmax of 80000-262144 columns +2.7 to +6.1 (to 84-88; 131080 and 200000 -0.2 to
// +2.7), gradients of 65536-262144 +2.3 to +12.8 (to 87-97), absmax_scale +2.5 to +6.9, int8 outputs
// +4.5 to +13.2, 16-bit log_softmax +2.0 to +5.3 (300000 / 400000: -1.2 / -1.3). 16-bit softmax lost
// 1.4 to 4.2 at 160000-400000 (slices of 160-416 threads): it keeps a cluster a row. 32-100 rows (more
// than held, fewer than SMs), fp32 / bf16 of 65536-262144 columns: +1.8 on average, to +9.0, none lost
// but at 200000 (slices of 416 threads: fp32 softmax, log_softmax, absmax_scale and bf16 gradients
// +0.8 to -4.1, as fp32 softmax of 200000 at 132 / 160 rows, -1.9 / -2.7). Clusters that are not queued
// would push without looping: -5.5 at 32 rows. docs/perf.md "Clusters that loop over rows, their states
// pushed".
inline bool clusters_loop_over_rows(const RowShape& shape, const DeviceInfo& dev, const Plan& plan) {
  const bool softmax_16bit = shape.map_takes_terms && shape.elem_bytes() == 2;
  const int stored = plan.packs_per_thread * shape.pack * shape.value_bytes;
  const int registers = block_budget(plan.packs_per_thread, stored).registers;
  const int64_t held = int64_t{dev.sm_count} * resident_blocks(plan.threads, registers) / plan.cluster_size;
  return !plan.edge && !softmax_16bit && shape.rows > held && memory_outpaces_sms(dev);
}

// Many 16-bit gradient rows over clusters queued past two CTAs an SM, where memory outpaces the SMs:
// slices of kDenseSlicePacks packs a thread in CTAs of at most kDenseSliceThreads threads take the
// kernel bounded to three such CTAs an SM (kernels/cluster_rows.cuh: dense slices). Unbounded, bf16
// softmax_backward slices with the edge took 54 registers: two CTAs an SM, and of clusters of 16 only
// 15 resident at once (ncu). H200, 256 MiB, same job, two rounds, softmax_backward / log_softmax_backward
// of bf16: 200003 columns 73.6 / 73.6 -> 84.7 / 85.5-85.9 %, 131072 87.2-87.7 / 87.0-87.3 -> 91.2-91.5 /
// 91.0-91.5, 100003 85.6 / 78.7-79.0 -> 84.4-84.9 / 84.7-84.8. Clusters that loop over rows take none:
// bounded, the pushed kernel spilled (76-132 bytes) and ran at 72-80 % where the unbounded one ran at
// 91-96 (16-bit gradients of 80000-160000 columns), which beat dense slices a cluster a row by 2.3 to 9.2
// (80000: -0.5 to -1.9). Rows whose slices take more threads (bf16 of 262144 columns: 512), fewer rows and
// the H100 were not measured (docs/perf.md "Dense gradient cluster slices").
inline bool dense_cluster_slices(const RowShape& shape, const DeviceInfo& dev, const Plan& plan) {
  return shape.inputs == 2 && shape.elem_bytes() == 2 && shape.pack_bytes == kMaxPackBytes &&
         plan.packs_per_thread == kDenseSlicePacks && plan.threads <= kDenseSliceThreads && !plan.clusters_loop &&
         shape.rows * plan.cluster_size > 2 * int64_t{dev.sm_count} && memory_outpaces_sms(dev);
}

// block_smem rows may be longer than what shared memory holds by 1 / kBlockSmemBufferShare of it (the
// rest streamed twice). H200, against split, % of copy: fp32 softmax 65536 / 73728 / 81920 columns
// (1.13 / 1.27 / 1.41 times the buffer) 75 / 78 / 78 -> 86 / 82 / 77, fp32 softmax_backward 32768 /
// 40960 80 / 79 -> 96 / 88, bf16 softmax 131072 / 147456 / 163840 69 / 67 / 69 -> 77 / 73 / 68.
inline constexpr int64_t kBlockSmemBufferShare = 3;
// block_smem's buffer for the row: as much of it as shared memory holds, in whole packs.
inline int64_t block_smem_buffer_bytes(const RowShape& shape, const DeviceInfo& dev) {
  const int64_t pack_bytes = int64_t(shape.pack) * shape.value_bytes;
  return (dev.max_smem_optin - kStaticSmemReserve) / pack_bytes * pack_bytes;
}
// Whether block_smem streams more of the row than 1 / share of its buffer.
inline bool block_smem_streams_past(const RowShape& shape, const DeviceInfo& dev, int64_t share) {
  return shape.row_value_bytes() * share > block_smem_buffer_bytes(shape, dev) * (share + 1);
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

// Block rows: whole packs only where the block's first threads take the edge (block_rows_take_edge).
inline bool plan_block(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  plan->edge = block_rows_take_edge(shape);
  return plan_block_slice(plan->edge ? std::max<int64_t>(1, shape.cols / shape.pack) : shape.max_packs, shape,
                          true, memory_outpaces_sms(dev), plan);
}

// Many rows of 1-2 MB on chip, where memory outpaces the SMs: clusters of 16 tail slices
// (kernels/cluster_rows.cuh), kStoredBytesPerThread a thread in 512 threads and the rest of the slice in
// shared memory, two CTAs an SM; so many rows are more than the clusters held at once (16), which loop
// over them. Rows of 4-byte elements and the gradients, not those whose edge rank 0 takes. H200, 256 MiB,
// split -> tail slices, two rounds, % of copy: fp32 softmax_backward of 160000 / 200000 / 262144 columns
// 83.9 / 83.4 / 80.4 -> 91.6 / 91.9 / 88.6, log_softmax_backward 82.2 / 82.7 / 79.9 -> 92.3 / 92.4 / 89.7,
// bf16 gradients of 400000 +11.5 to +14.3 (to 91-92), fp32 softmax / log_softmax of 400000 +11.0 to +12.2
// (to 83), absmax_scale +5.2, int8 outputs +15.4. 16-bit rows of one operand lost: bf16 softmax of 400000
// 65.3 -> 41.3, log_softmax -2.4 (docs/perf.md "Tail slices: rows of 1-2 MB on clusters"). Clusters of
// 1024-thread CTAs, one an SM, holding the same rows in registers lost 3-18 (fp32 gradients of 200000:
// 81.0 -> 64.9).
inline bool plan_tail_cluster(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  const int64_t pack_bytes = int64_t(shape.pack) * shape.value_bytes;
  const bool four_byte_or_gradient = shape.elem_bytes() == 4 || shape.inputs == 2;
  if (dev.cc_major < 9 || kStoredBytesPerThread % pack_bytes != 0 || shape.value_bytes / shape.inputs > 4 ||
      !four_byte_or_gradient || shape.rows < dev.sm_count || !memory_outpaces_sms(dev) || cluster_rows_take_edge(shape))
    return false;
  const int k = static_cast<int>(kStoredBytesPerThread / pack_bytes);
  const int threads = block_max_threads(kStoredBytesPerThread);
  const int64_t slice = (shape.max_packs + kMaxClusterCtas - 1) / kMaxClusterCtas;
  const int64_t tail_bytes = (slice - int64_t{threads} * k) * pack_bytes;
  if (tail_bytes <= 0 || tail_bytes > smem_per_block(dev, kTailSliceCtasPerSm, kStaticSmemReserve)) return false;
  plan->packs_per_thread = k;
  plan->threads = threads;
  plan->cluster_size = kMaxClusterCtas;
  plan->tail_slices = true;
  plan->smem_bytes = tail_bytes;
  plan->clusters_loop = true;
  return true;
}

// Cluster rows: a block slice a CTA.
inline bool plan_cluster(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  if (dev.cc_major < 9) return false;
  const int64_t pack_bytes = int64_t(shape.pack) * shape.value_bytes;
  for (int c = 2; c <= kMaxClusterCtas; c *= 2) {
    int64_t slice = (shape.max_packs + c - 1) / c;
    if (slice * pack_bytes > kClusterSliceBytes || !plan_block_slice(slice, shape, false, false, plan)) continue;
    // The smallest cluster that holds the row, grown while its slices are large or few rows leave
    // SMs idle.
    while (c < kMaxClusterCtas &&
           (slice * pack_bytes > kClusterGrowSliceBytes ||
            (shape.rows * c * 2 <= dev.sm_count &&
             (shape.max_packs + 2 * c - 1) / (2 * c) * pack_bytes >= kMinClusterSliceBytes))) {
      c *= 2;
      slice = (shape.max_packs + c - 1) / c;
    }
    plan_block_slice(slice, shape, false, false, plan);
    plan->cluster_size = c;
    plan->edge = cluster_rows_take_edge(shape);
    plan->clusters_loop = clusters_loop_over_rows(shape, dev, *plan);
    plan->dense_slices = dense_cluster_slices(shape, dev, *plan);
    return true;
  }
  return plan_tail_cluster(shape, dev, plan);
}

// cluster_smem rows: the smallest cluster (2-16 CTAs, any size) whose slices leave kClusterSmemCtasPerSm
// CTAs an SM: slices of 100-112 KB. H200, 256 MiB, softmax of 200003 columns, % of copy at slices of 200 /
// 100 / 50 KB: fp32 74.6 / 80.0 / 74.1, bf16 (100 / 50 / 25 KB) 78.8 / 71.2 / 53.9. Clusters of a power of
// two -> of any size, softmax / log_softmax (/ absmax_scale): bf16 of 160000 columns (4 -> 3 CTAs) +1.9 /
// -0.2, 300000 (8 -> 6) +2.1 / +0.9, 400000 (8 -> 7) +0.6 / +2.5, 480000 (16 -> 9) 0.0 / +1.0, 262144 (8
// -> 5) -0.7 / -0.9; ragged rows, two rounds, same job: fp32 of 150001 (8 -> 6) -0.4 / -0.5 / -1.6, 200003
// (8 -> 7) +1.4 / +1.0 / +1.4, 250001 (16 -> 9) +1.0 / +1.2 / +0.8, bf16 of 300007 (8 -> 6) -0.2 / +0.5 /
// -1.1, 400009 (8 -> 7) +0.8 / +1.9 / +1.3, 500001 (16 -> 9) -2.1 / -0.7 / +1.4 (docs/perf.md "16-bit
// softmax rows on cluster slices in shared memory").
inline constexpr int kClusterSmemCtasPerSm = 2;
inline bool plan_cluster_smem(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  if (dev.cc_major < 9) return false;
  const int64_t pack_bytes = int64_t(shape.pack) * shape.value_bytes;
  const int64_t fits = smem_per_block(dev, kClusterSmemCtasPerSm, kStaticSmemReserve);
  for (int c = 2; c <= kMaxClusterCtas; ++c) {
    const int64_t slice = (shape.max_packs + c - 1) / c * pack_bytes;
    if (slice > fits) continue;
    plan->cluster_size = c;
    plan->threads = kClusterSmemThreads;
    plan->smem_bytes = slice;
    return true;
  }
  return false;
}

// Softmax and log_softmax rows that block_smem streams in part have their held packs copied by bulk
// copies (one instruction of one thread a group, through the tensor memory accelerator) where memory
// outpaces the SMs: the threads' own copies (cp.async, ~14 a thread) likely filled the queues that the
// streamed part's loads then waited behind. H200, same build, block_smem forced, 256 MiB / 1 GiB: bf16
// softmax of 131072 / 147456 columns 74.9 / 71.5 -> 81.4 / 76.1 % (1 GiB 85.8 -> 90.7), log_softmax +3.4
// to +5.9, fp32 softmax and log_softmax of 65536 / 73728 +1.0 to +1.4 at 256 MiB (within 0.5 at 1 GiB);
// rows just past the buffer (bf16 118784) -0.4 to -0.8. Not taken: rows that fit (fp32 32768 columns
// 92.7 -> 86.8 %, bf16 65536 87.2 -> 75.3; a group's run over 8 or 32 bulk copies lost more), absmax_scale
// (-0.6 to +0.7), the gradients (bf16 65536: log_softmax_backward -1.9 / -3.3, softmax_backward +3.8 /
// +1.8; docs/perf.md "Bulk copies for streamed block_smem rows"); doubles were not measured.
inline bool block_smem_bulk_copies(const RowShape& shape, const DeviceInfo& dev) {
  return shape.inputs == 1 && shape.exp_per_element && shape.value_bytes <= 4 && dev.cc_major >= 9 &&
         memory_outpaces_sms(dev);
}

// block_smem rows: the whole row while it fits, else what fits (the rest streamed twice:
// kernels/block_smem_rows.cuh).
inline bool plan_block_smem(const RowShape& shape, const DeviceInfo& dev, Plan* plan) {
  const int64_t fits = block_smem_buffer_bytes(shape, dev);
  const int64_t row = shape.row_value_bytes();
  plan->smem_bytes = std::min(row, fits);
  plan->threads = stream_block_threads(shape, kSmemBatch);
  plan->fills_sm = row > fits || 2 * (plan->smem_bytes + kStaticSmemReserve + kSystemSmemPerBlock) > dev.smem_per_sm;
  plan->bulk_copies = row > fits && block_smem_bulk_copies(shape, dev);
  return fits > 0 && !block_smem_streams_past(shape, dev, kBlockSmemBufferShare) &&
         shape.max_packs * shape.pack <= INT32_MAX;
}

// two_pass rows: a block a row, streamed twice.
inline bool plan_two_pass(const RowShape& shape, Plan* plan) {
  plan->threads = stream_block_threads(shape, kTwoPassBatch);
  return true;
}

}  // namespace rowwise
