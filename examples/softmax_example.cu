// softmax over the rows of a [rows, cols] bf16 matrix, then log_softmax of every other row in place.
#include <rowwise/rowwise.cuh>

#include <cstdio>
#include <vector>

#define CHECK(expr)                                                                   \
  do {                                                                                \
    cudaError_t e = (expr);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e));          \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main() {
  const int64_t rows = 4, cols = 50257;
  std::vector<__nv_bfloat16> host(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) host[i] = __float2bfloat16(float(i % 97) / 10.0f);

  __nv_bfloat16 *x, *y;
  CHECK(cudaMalloc(&x, host.size() * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&y, host.size() * sizeof(__nv_bfloat16)));
  CHECK(cudaMemcpy(x, host.data(), host.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

  CHECK(rowwise::softmax(x, y, rows, cols));                           // dense rows
  CHECK(rowwise::log_softmax(x, x, rows / 2, cols, 2 * cols, 2 * cols));  // rows 0, 2: strided, in place

  CHECK(cudaMemcpy(host.data(), y, host.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int64_t c = 0; c < cols; ++c) sum += __bfloat162float(host[c]);
  std::printf("softmax row 0 sums to %.4f over %lld columns\n", sum, static_cast<long long>(cols));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  return 0;
}
