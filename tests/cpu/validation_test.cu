// Argument checks return cudaErrorInvalidValue before touching a device: these run without a GPU.
#include <gtest/gtest.h>
#include <rowwise/rowwise.cuh>

namespace {

// Never dereferenced: every call below must be refused (or be a no-op) before any launch.
float* const kFake = reinterpret_cast<float*>(0x10000);

TEST(Validation, NegativeRowsOrEmptyColumns) {
  EXPECT_EQ(rowwise::softmax(kFake, kFake, -1, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax(kFake, kFake, 4, 0), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::log_softmax(kFake, kFake, 4, -3), cudaErrorInvalidValue);
}

TEST(Validation, ZeroRowsIsANoOpEvenWithNullPointers) {
  EXPECT_EQ(rowwise::softmax<float>(nullptr, nullptr, 0, 10), cudaSuccess);
  EXPECT_EQ(rowwise::log_softmax<double>(nullptr, nullptr, 0, 10), cudaSuccess);
}

TEST(Validation, NullPointers) {
  EXPECT_EQ(rowwise::softmax<float>(nullptr, kFake, 2, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax<float>(kFake, nullptr, 2, 10), cudaErrorInvalidValue);
}

TEST(Validation, TensorOpsRefuseBadArgumentsBeforeTheDevice) {
  alignas(16) char workspace_stand_in[64];
  EXPECT_EQ(rowwise::tensor_softmax(kFake, kFake, -1), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_log_softmax(kFake, kFake, -5), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, nullptr, 0), cudaSuccess);  // empty tensor
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, kFake, 100), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, kFake, 100, workspace_stand_in, sizeof workspace_stand_in),
            cudaErrorInvalidValue);  // before the device is asked for the workspace size
  EXPECT_EQ(rowwise::tensor_softmax(kFake, kFake, 100, nullptr, 4096), cudaErrorInvalidValue);  // no workspace
  EXPECT_EQ(rowwise::tensor_log_softmax(kFake, kFake, -1, workspace_stand_in, sizeof workspace_stand_in),
            cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax_workspace_bytes<float>(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax(kFake, kFake, 100, workspace_stand_in + 4, sizeof workspace_stand_in - 4),
            cudaErrorInvalidValue);  // a workspace off 16 bytes: counters and states misaligned
  // x and y are checked before the device is asked for the workspace's size (no driver here answers).
  EXPECT_EQ(rowwise::tensor_softmax(kFake, kFake + 3, 100, workspace_stand_in, sizeof workspace_stand_in),
            cudaErrorInvalidValue);  // y overlapping x
  EXPECT_EQ(rowwise::tensor_log_softmax(reinterpret_cast<const float*>(0x10002), kFake, 100, workspace_stand_in,
                                        sizeof workspace_stand_in),
            cudaErrorInvalidValue);  // x misaligned
  // An empty tensor launches nothing, but its workspace pointer is checked as for any n.
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, nullptr, 0, workspace_stand_in, 0), cudaSuccess);
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, nullptr, 0, workspace_stand_in + 4, 60), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, nullptr, 0, nullptr, 0), cudaErrorInvalidValue);
}

TEST(Validation, StrideShorterThanARow) {
  EXPECT_EQ(rowwise::softmax(kFake, kFake + 4096, 2, 10, 9, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax(kFake, kFake + 4096, 2, 10, 10, 9), cudaErrorInvalidValue);
}

TEST(Validation, InPlaceNeedsOneLayout) {
  EXPECT_EQ(rowwise::softmax(kFake, kFake, 2, 10, 10, 12), cudaErrorInvalidValue);
}

// In place is the same elements; any other shared byte between an output and an input is refused.
TEST(Validation, OutputOverlappingAnInputOtherThanInPlace) {
  EXPECT_EQ(rowwise::softmax(kFake, kFake + 1, 2, 10), cudaErrorInvalidValue);        // one element on
  EXPECT_EQ(rowwise::softmax(kFake, kFake + 9, 2, 10, 16, 16), cudaErrorInvalidValue);  // y's row 0 over x's row 0's last
  EXPECT_EQ(rowwise::softmax(kFake + 19, kFake, 2, 10, 16, 16), cudaErrorInvalidValue);  // y's row 1 over x's row 0
  EXPECT_EQ(rowwise::tensor_softmax(kFake, kFake + 3, 100), cudaErrorInvalidValue);
  float scale = 0;
  EXPECT_EQ(rowwise::absmax_scale(kFake, reinterpret_cast<int8_t*>(kFake), &scale, 64, 100),
            cudaErrorInvalidValue);  // in place, but a float row holds four int8 rows
}

TEST(Validation, OverlapIsExact) {
  using rowwise::StridedOperand;
  const auto at = [](int64_t offset, int64_t stride, int bytes = 4) {
    return StridedOperand{reinterpret_cast<const char*>(kFake) + offset, stride, bytes};
  };
  using rowwise::detail::overlaps_partly;
  EXPECT_FALSE(overlaps_partly(at(0, 10), at(0, 10), 5, 10)) << "in place";
  EXPECT_FALSE(overlaps_partly(at(0, 10), at(0, 12), 1, 10)) << "one row: strides do not matter";
  EXPECT_FALSE(overlaps_partly(at(40, 20), at(0, 20), 5, 10)) << "rows interleaved";
  EXPECT_FALSE(overlaps_partly(at(0, 20), at(40, 20), 5, 10)) << "rows interleaved, the other way";
  EXPECT_FALSE(overlaps_partly(at(200, 10), at(0, 10), 5, 10)) << "right after";
  EXPECT_FALSE(overlaps_partly(at(0, 10), at(200, 10), 5, 10)) << "right before";
  EXPECT_TRUE(overlaps_partly(at(196, 10), at(0, 10), 5, 10)) << "the last element";
  EXPECT_TRUE(overlaps_partly(at(36, 20), at(0, 20), 5, 10)) << "interleaved, one element over";
  EXPECT_TRUE(overlaps_partly(at(44, 20), at(0, 20), 5, 10)) << "interleaved, one element over the next";
  EXPECT_TRUE(overlaps_partly(at(0, 10), at(0, 12), 2, 10)) << "in place with two strides";
  EXPECT_TRUE(overlaps_partly(at(0, 10, 1), at(0, 10), 2, 10)) << "two element sizes";
  EXPECT_TRUE(overlaps_partly(at(400, 11), at(0, 10), 100, 10)) << "two strides, spans crossing";
  EXPECT_FALSE(overlaps_partly(at(4000, 11), at(0, 10), 100, 10)) << "two strides, spans apart";
}

TEST(Validation, RowScaleSharingBytesWithARow) {
  float* y = kFake + 8192;
  EXPECT_EQ(rowwise::absmax_scale(kFake, y, kFake + 5, 4, 100, 100, 100), cudaErrorInvalidValue);  // in x
  EXPECT_EQ(rowwise::absmax_scale(kFake, y, y + 399, 4, 100, 100, 100), cudaErrorInvalidValue);    // y's last
  EXPECT_EQ(rowwise::absmax_scale(kFake, y, kFake - 1, 4, 100, 100, 100), cudaErrorInvalidValue);  // straddles
  int8_t* q = reinterpret_cast<int8_t*>(y);
  EXPECT_EQ(rowwise::absmax_scale(kFake, q, reinterpret_cast<float*>(q + 100), 2, 100, 100, 300),
            cudaErrorInvalidValue);  // in the stride's gap of y: not a row's bytes, but inside its span
}

TEST(Validation, RowScaleNotFloatAligned) {
  float* odd = reinterpret_cast<float*>(reinterpret_cast<char*>(kFake) + 8192 + 2);
  EXPECT_EQ(rowwise::absmax_scale(kFake, kFake + 4096, odd, 2, 10), cudaErrorInvalidValue);
}

TEST(Validation, PointerNotAlignedToItsElement) {
  const float* odd = reinterpret_cast<const float*>(0x10001);
  EXPECT_EQ(rowwise::softmax(odd, kFake, 2, 10), cudaErrorInvalidValue);
}

TEST(Validation, OffsetsOverflowingInt64) {
  EXPECT_EQ(rowwise::softmax(kFake, kFake + 4096, int64_t(1) << 40, 10, int64_t(1) << 40, 10), cudaErrorInvalidValue);
}

struct NoLoad {
  template <int N> __device__ void load(float*, int64_t, int64_t) const {}
};
struct NoStore {
  template <int N> __device__ void store(const float*, int64_t, int64_t) const {}
};

TEST(Validation, NegativeCtaBound) {
  rowwise::Options bound;
  bound.max_ctas = -1;
  EXPECT_EQ(rowwise::softmax(kFake, kFake, 2, 10, 10, 10, 0, bound), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax<float>(NoLoad{}, NoStore{}, 2, 10, 1, 0, bound), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax_backward(kFake, kFake + 4096, kFake + 8192, 2, 10, 10, 10, 10, 0, bound),
            cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::log_softmax(kFake, kFake + 4096, 2, 10, 10, 10, 0, bound), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::log_softmax_backward(kFake, kFake + 4096, kFake + 8192, 2, 10, 10, 10, 10, 0, bound),
            cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::absmax_scale(kFake, kFake + 4096, nullptr, 2, 10, 10, 10, 0, bound), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::absmax_scale(kFake, reinterpret_cast<int8_t*>(kFake + 4096), nullptr, 2, 10, 10, 10, 0, bound),
            cudaErrorInvalidValue);
  // Refused with no row to launch too, as the C ABI (rowwise_c.h) says.
  EXPECT_EQ(rowwise::softmax<float>(nullptr, nullptr, 0, 10, 10, 10, 0, bound), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::absmax_scale(kFake, kFake + 4096, nullptr, 0, 10, 10, 10, 0, bound), cudaErrorInvalidValue);
}

TEST(Validation, FunctorPackWidth) {
  EXPECT_EQ(rowwise::softmax<float>(NoLoad{}, NoStore{}, 2, 10, 3), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax<float>(NoLoad{}, NoStore{}, 2, 10, 16), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax<float>(NoLoad{}, NoStore{}, 0, 10, 4), cudaSuccess);
}

}  // namespace

namespace {

TEST(Validation, BackwardArguments) {
  const float* y = kFake;
  const float* dy = kFake + 4096;
  float* dx = kFake + 8192;
  EXPECT_EQ(rowwise::softmax_backward(y, dy, dx, -1, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax_backward(y, dy, dx, 2, 0), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax_backward<float>(nullptr, dy, dx, 2, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::log_softmax_backward<float>(y, nullptr, dx, 2, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::log_softmax_backward<float>(y, dy, nullptr, 2, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax_backward<float>(nullptr, nullptr, nullptr, 0, 10), cudaSuccess);
  EXPECT_EQ(rowwise::softmax_backward(y, dy, dx, 2, 10, 10, 9, 10), cudaErrorInvalidValue);  // dy stride < cols
  // dx over dy (in place) needs dy's stride; so does dx over y.
  EXPECT_EQ(rowwise::softmax_backward(y, dy, kFake + 4096, 2, 10, 10, 10, 12), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::log_softmax_backward(y, dy, kFake, 2, 10, 10, 12, 12), cudaErrorInvalidValue);
}

TEST(Validation, AbsmaxArguments) {
  float scale_storage = 0;
  float* scale = &scale_storage;
  int8_t* q = reinterpret_cast<int8_t*>(0x40000);
  EXPECT_EQ(rowwise::absmax_scale(kFake, q, scale, -1, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::absmax_scale(kFake, q, scale, 2, 0), cudaErrorInvalidValue);
  EXPECT_EQ((rowwise::absmax_scale<float, int8_t>)(nullptr, q, scale, 2, 10), cudaErrorInvalidValue);
  EXPECT_EQ((rowwise::absmax_scale<float, int8_t>)(kFake, nullptr, scale, 2, 10), cudaErrorInvalidValue);
  EXPECT_EQ((rowwise::absmax_scale<float, int8_t>)(nullptr, nullptr, nullptr, 0, 10), cudaSuccess);
  EXPECT_EQ(rowwise::absmax_scale(kFake, q, scale, 2, 10, 10, 9), cudaErrorInvalidValue);      // y stride < cols
  EXPECT_EQ(rowwise::absmax_scale(kFake, kFake, scale, 2, 10, 10, 12), cudaErrorInvalidValue);  // in place, two layouts
}

}  // namespace
