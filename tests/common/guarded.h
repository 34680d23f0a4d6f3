// Poisoned, guard-banded device buffers and the checks every GPU case shares: each output element
// written and accepted, no byte outside the outputs touched, inputs unchanged.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "element.h"

namespace rowwise_test {

inline constexpr int64_t kGuard = 64;  // poisoned elements before and after every operand's rows

// All-ones bytes: a NaN in every float type, fp8 e4m3 included. In int8 that is -1, a valid output,
// so int8 buffers hold -128 instead, which symmetric quantization never writes (it stops at ±127).
template <class T> constexpr unsigned char poison_byte() { return std::is_same_v<T, int8_t> ? 0x80 : 0xFF; }

template <class T> bool is_poison(const T& v) {
  const unsigned char* b = reinterpret_cast<const unsigned char*>(&v);
  for (size_t i = 0; i < sizeof(T); ++i)
    if (b[i] != poison_byte<T>()) return false;
  return true;
}

// Where one operand's rows sit in its buffer (in elements): stride = cols + pad, row 0 at offset past
// an aligned allocation's guard band.
struct Placement {
  int64_t pad = 0;
  int64_t offset = 0;
};

struct Geometry {
  int64_t rows, cols, stride, first;
  static Geometry of(int64_t rows, int64_t cols, Placement p) { return {rows, cols, cols + p.pad, kGuard + p.offset}; }
  int64_t size() const { return first + (rows - 1) * stride + cols + kGuard; }
  int64_t at(int64_t r, int64_t c) const { return first + r * stride + c; }
};

struct CaseReport {
  cudaError_t status = cudaSuccess;
  int64_t mismatches = 0, unwritten = 0, stray_writes = 0, input_changed = 0;
  std::string first_problem;
  bool ok() const { return status == cudaSuccess && mismatches + unwritten + stray_writes + input_changed == 0; }
  void note(const std::string& what) {
    if (first_problem.empty()) first_problem = what;
  }
  std::string summary() const {
    return std::to_string(mismatches) + " mismatches, " + std::to_string(unwritten) + " unwritten, " +
           std::to_string(stray_writes) + " stray writes; first: " + first_problem;
  }
};

// In a function returning CaseReport `report`: stop with the CUDA error.
#define RW_CUDA_OK(expr)                                                         \
  do {                                                                           \
    cudaError_t e_ = (expr);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      report.status = e_;                                                        \
      report.first_problem = std::string(#expr) + ": " + cudaGetErrorString(e_); \
      return report;                                                             \
    }                                                                            \
  } while (0)

template <class T> struct DeviceBuffer {
  T* ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr); }
  cudaError_t allocate(int64_t n) { return cudaMalloc(&ptr, n * sizeof(T)); }
};

// One operand: a host image of its whole buffer (poison outside the rows) and the device copy.
template <class T> struct Guarded {
  Geometry geo;
  std::vector<T> image;
  DeviceBuffer<T> dev;

  explicit Guarded(Geometry g) : geo(g), image(g.size()) {
    std::memset(image.data(), poison_byte<T>(), image.size() * sizeof(T));
  }
  T* rows() const { return dev.ptr + geo.first; }

  // Puts dense rows × cols values, rounded to T, into the image; returns them as rounded, which is
  // what the kernel sees and so what the reference must see.
  std::vector<double> fill(std::vector<double> dense) {
    for (int64_t r = 0; r < geo.rows; ++r)
      for (int64_t c = 0; c < geo.cols; ++c) {
        T& slot = image[geo.at(r, c)];
        slot = Element<T>::from_double(dense[r * geo.cols + c]);
        dense[r * geo.cols + c] = Element<T>::to_double(slot);
      }
    return dense;
  }
  cudaError_t upload() {
    if (dev.ptr == nullptr)
      if (cudaError_t e = dev.allocate(geo.size()); e != cudaSuccess) return e;
    return cudaMemcpy(dev.ptr, image.data(), image.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  cudaError_t download(std::vector<T>& out) const {
    out.resize(image.size());
    return cudaMemcpy(out.data(), dev.ptr, out.size() * sizeof(T), cudaMemcpyDeviceToHost);
  }
};

// Records the op's return: false (and the error) where it refused or failed to launch.
inline bool launched(cudaError_t status, CaseReport& report) {
  report.status = status;
  if (status != cudaSuccess) report.first_problem = std::string("launch: ") + cudaGetErrorString(status);
  return status == cudaSuccess;
}

// An output read back: every row element written (not poison) and accepted by check(r, c, value),
// which returns what is wrong or ""; every element outside the rows still poison.
template <class T, class Check>
void scan_output(const std::vector<T>& got, const Geometry& geo, Check&& check, CaseReport& report) {
  std::vector<char> is_output(got.size(), 0);
  for (int64_t r = 0; r < geo.rows; ++r)
    for (int64_t c = 0; c < geo.cols; ++c) {
      const int64_t i = geo.at(r, c);
      is_output[i] = 1;
      auto where = [&] { return "row " + std::to_string(r) + " col " + std::to_string(c); };
      if (is_poison(got[i])) {
        ++report.unwritten;
        report.note("unwritten at " + where());
      } else if (const std::string problem = check(r, c, got[i]); !problem.empty()) {
        ++report.mismatches;
        report.note(where() + ": " + problem);
      }
    }
  for (int64_t i = 0; i < static_cast<int64_t>(got.size()); ++i) {
    if (!is_output[i] && !is_poison(got[i])) {
      ++report.stray_writes;
      report.note("write outside the outputs at element " + std::to_string(i - geo.first));
    }
  }
}

// An input must come back byte for byte as uploaded.
template <class T> cudaError_t expect_unchanged(const Guarded<T>& in, const char* name, CaseReport& report) {
  std::vector<T> after;
  if (cudaError_t e = in.download(after); e != cudaSuccess) return e;
  if (std::memcmp(after.data(), in.image.data(), after.size() * sizeof(T)) != 0) {
    ++report.input_changed;
    report.note(std::string("input ") + name + " changed");
  }
  return cudaSuccess;
}

}  // namespace rowwise_test
