// The warp primitives on their own: warp_reduce (shfl_down tree, first lane of each group) and
// warp_allreduce (shfl_xor butterfly, every lane) for every group width, over float sums (integer
// values: exact in any order) and over MaxSum states with empty (-inf) groups; the all-reduces both
// as the loop over the width and unrolled for it (kUnrolled).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <rowwise/primitives/max_sum.cuh>
#include <rowwise/primitives/warp_reduce.cuh>

#include "../common/guarded.h"
#include "../common/gpu_skip.h"

namespace rowwise_test {
namespace {

struct Plus {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct Merge {
  __device__ rowwise::MaxSum<float> operator()(const rowwise::MaxSum<float>& a, const rowwise::MaxSum<float>& b) const {
    return rowwise::MaxSum<float>::combine(a, b);
  }
};

// One warp: lane l holds in[l] (a sum) and the state {in[l], 1} (one value, or empty for -inf).
template <bool kUnrolled>
__global__ void warp_primitives_kernel(const float* in, int width, float* reduced, float* all_reduced,
                                       rowwise::MaxSum<float>* merged) {
  const int lane = threadIdx.x;
  reduced[lane] = rowwise::warp_reduce(in[lane], Plus{}, width);
  all_reduced[lane] = rowwise::warp_allreduce<kUnrolled>(in[lane], Plus{}, width);
  const rowwise::MaxSum<float> one =
      std::isinf(in[lane]) ? rowwise::MaxSum<float>::empty() : rowwise::MaxSum<float>{in[lane], 1.f};
  merged[lane] = rowwise::warp_allreduce<kUnrolled>(one, Merge{}, width);
}

TEST(WarpPrimitives, EveryGroupWidth) {
  RW_REQUIRE_GPU();
  constexpr int kLanes = 32;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> sums(kLanes), states(kLanes);
  for (int l = 0; l < kLanes; ++l) sums[l] = float((l * 7) % 11) - 5.f;
  DeviceBuffer<float> in, reduced, all_reduced;
  DeviceBuffer<rowwise::MaxSum<float>> merged;
  ASSERT_EQ(in.allocate(kLanes), cudaSuccess);
  ASSERT_EQ(reduced.allocate(kLanes), cudaSuccess);
  ASSERT_EQ(all_reduced.allocate(kLanes), cudaSuccess);
  ASSERT_EQ(merged.allocate(kLanes), cudaSuccess);
  for (const bool unrolled : {false, true}) {
    const auto kernel = unrolled ? warp_primitives_kernel<true> : warp_primitives_kernel<false>;
    for (int width = 1; width <= kLanes; width *= 2) {
      // States: the sums as maxima, except that group 1 (if any) is all -inf, i.e. empty.
      for (int l = 0; l < kLanes; ++l) states[l] = (l / width == 1) ? -inf : sums[l];
      for (const std::vector<float>* values : {&sums, &states}) {
        ASSERT_EQ(cudaMemcpy(in.ptr, values->data(), kLanes * 4, cudaMemcpyHostToDevice), cudaSuccess);
        kernel<<<1, kLanes>>>(in.ptr, width, reduced.ptr, all_reduced.ptr, merged.ptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        std::vector<float> got_reduced(kLanes), got_all(kLanes);
        std::vector<rowwise::MaxSum<float>> got_merged(kLanes);
        ASSERT_EQ(cudaMemcpy(got_reduced.data(), reduced.ptr, kLanes * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(got_all.data(), all_reduced.ptr, kLanes * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(got_merged.data(), merged.ptr, kLanes * sizeof(got_merged[0]), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        for (int g = 0; g < kLanes / width; ++g) {
          double sum = 0, m = -inf, s = 0;
          for (int l = g * width; l < (g + 1) * width; ++l) {
            sum += (*values)[l];
            m = std::max<double>(m, (*values)[l]);
          }
          for (int l = g * width; l < (g + 1) * width; ++l)
            if (!std::isinf((*values)[l])) s += std::exp((*values)[l] - m);
          if (values == &sums) {
            EXPECT_EQ(got_reduced[g * width], sum) << "warp_reduce width " << width << " group " << g;
            for (int l = g * width; l < (g + 1) * width; ++l)
              EXPECT_EQ(got_all[l], sum) << "warp_allreduce width " << width << " lane " << l << " unrolled "
                                         << unrolled;
          } else {
            for (int l = g * width; l < (g + 1) * width; ++l) {
              const auto where = "MaxSum width " + std::to_string(width) + " lane " + std::to_string(l) +
                                 (unrolled ? " unrolled" : "");
              EXPECT_EQ(got_merged[l].m, m) << where;
              EXPECT_NEAR(got_merged[l].s, s, 1e-5 * s) << where;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace rowwise_test
