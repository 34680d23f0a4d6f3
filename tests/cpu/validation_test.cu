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
