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
  char workspace_stand_in[64];
  EXPECT_EQ(rowwise::tensor_softmax(kFake, kFake, -1), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_log_softmax(kFake, kFake, -5), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, nullptr, 0), cudaSuccess);  // empty tensor
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, kFake, 100), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax(kFake, kFake, 100, nullptr, 4096), cudaErrorInvalidValue);  // no workspace
  EXPECT_EQ(rowwise::tensor_log_softmax(kFake, kFake, -1, workspace_stand_in, sizeof workspace_stand_in),
            cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax_workspace_bytes<float>(nullptr), cudaErrorInvalidValue);
}

TEST(Validation, StrideShorterThanARow) {
  EXPECT_EQ(rowwise::softmax(kFake, kFake + 4096, 2, 10, 9, 10), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::softmax(kFake, kFake + 4096, 2, 10, 10, 9), cudaErrorInvalidValue);
}

TEST(Validation, InPlaceNeedsOneLayout) {
  EXPECT_EQ(rowwise::softmax(kFake, kFake, 2, 10, 10, 12), cudaErrorInvalidValue);
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
