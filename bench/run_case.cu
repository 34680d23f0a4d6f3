// Running one case of rowwise-bench.
#include "run_case.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "device_timing.cuh"
#include "reference_check.cuh"
#include "seed_baselines.cuh"

namespace rowwise_bench {
namespace {

// The whole-tensor ops' workspace, held by the caller as CUB's users do: allocated and zeroed once.
void* tensor_workspace(size_t* bytes) {
  static size_t size = 0;
  static void* workspace = [] {
    void* p = nullptr;
    CUDA_CHECK(rowwise::tensor_softmax_workspace_bytes<double>(&size));  // the largest state: any T fits
    CUDA_CHECK(cudaMalloc(&p, size));
    CUDA_CHECK(cudaMemset(p, 0, size));
    return p;
  }();
  *bytes = size;
  return workspace;
}

// The library's options for the cases' rowwise launches.
rowwise::Options options_of(const Config& cfg) {
  rowwise::Options options;
  options.strategy = cfg.strategy;
  options.programmatic_launch = cfg.programmatic_launch;
  return options;
}

template <class T>
cudaError_t launch_forward(Op op, const T* x, T* y, int64_t rows, int64_t cols, const rowwise::Options& options,
                           cudaStream_t stream) {
  size_t bytes = 0;
  void* workspace = is_tensor_op(op) ? tensor_workspace(&bytes) : nullptr;
  switch (op) {
    case Op::kTensorSoftmax: return rowwise::tensor_softmax(x, y, rows * cols, workspace, bytes, stream);
    case Op::kTensorLogSoftmax: return rowwise::tensor_log_softmax(x, y, rows * cols, workspace, bytes, stream);
    case Op::kSoftmax: return rowwise::softmax(x, y, rows, cols, cols, cols, stream, options);
    case Op::kLogSoftmax: return rowwise::log_softmax(x, y, rows, cols, cols, cols, stream, options);
    case Op::kFtSoftmax: return seed_baselines::ft_softmax(x, y, rows, cols, stream);
    default: return cudaErrorInvalidValue;  // not a forward op
  }
}

template <class T>
cudaError_t launch_backward(Op op, const T* y, const T* dy, T* dx, int64_t rows, int64_t cols,
                            const rowwise::Options& options, cudaStream_t stream) {
  return op == Op::kSoftmaxBackward
             ? rowwise::softmax_backward(y, dy, dx, rows, cols, cols, cols, cols, stream, options)
             : rowwise::log_softmax_backward(y, dy, dx, rows, cols, cols, cols, cols, stream, options);
}

template <class T, class U>
cudaError_t launch_absmax(Op op, const T* x, U* y, float* scale, int64_t rows, int64_t cols,
                          const rowwise::Options& options, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, U>) {
    if (op == Op::kCubAbsmaxScale) return seed_baselines::cub_absmax_scale(x, y, scale, rows, cols, stream);
  }
  return rowwise::absmax_scale(x, y, scale, rows, cols, cols, cols, stream, options);
}

// Times launch(i, stream) (warm-ups, then the median of --iters samples: Config::graph_timing), then
// checks the sampled rows with check_row(row), which reads copy 0: launch 0 wrote it, and every later
// launch on it writes the same.
template <class Launch, class CheckRow>
Result measure(const Case& c, int copies, const Config& cfg, const Device& dev, Launch launch, CheckRow check_row) {
  Result r;
  r.c = c;
  r.copies = copies;
  // A shape that a forced strategy or a seed baseline does not fit is refused with cudaErrorInvalidValue
  // before any launch.
  const cudaError_t first = launch(0, nullptr);
  if (first == cudaErrorInvalidValue && (cfg.strategy != rowwise::Strategy::kAuto || op_info(c.op).baseline))
    return r;
  CUDA_CHECK(first);
  for (int i = 1; i < kWarmups; ++i) CUDA_CHECK(launch(i, nullptr));
  const double ms =
      cfg.graph_timing
          ? median_graph_launch_ms(graph_launches(copies), cfg.iters,
                                   [&](int i, cudaStream_t s) { CUDA_CHECK(launch(kWarmups + i, s)); })
          : median_event_ms(cfg.iters, [&](int i) { CUDA_CHECK(launch(kWarmups + i, nullptr)); });
  r.time_us = ms * 1e3;
  r.gbps = gbps(c.moved_bytes(), ms);
  r.pct_copy = 100.0 * r.gbps / dev.copy_gbps;
  const std::vector<int64_t> rows = sample_rows(c.rows);
  r.check = std::all_of(rows.begin(), rows.end(), check_row) ? Check::kOk : Check::kFail;
  return r;
}

// Copies of an output, each starting Config::out_offset elements past its buffer's alignment.
template <class T> class OutputCopies {
 public:
  OutputCopies(int64_t elems, int copies, int offset) : copies_(elems + offset, copies), offset_(offset) {}
  T* at(int copy) const { return copies_.at(copy) + offset_; }

 private:
  Copies<T> copies_;
  int offset_;
};

template <class T> Result run_forward(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  const int copies = rotation_copies(c, dev);
  const Copies<T> x(c.rows * c.cols, copies);
  const OutputCopies<T> y(c.rows * c.cols, copies, cfg.out_offset);
  fill_normal(x.all(), x.all_elems(), seed, dev.sm_count);
  auto launch = [&](int i, cudaStream_t stream) {
    const int k = i % copies;
    return launch_forward(c.op, x.at(k), y.at(k), c.rows, c.cols, options_of(cfg), stream);
  };
  auto check_row = [&](int64_t row) {
    const std::vector<double> ref = reference_row(op_info(c.op).reference, row_to_host(x.at(0), row, c.cols));
    return matches(c, "y", row, row_to_host(y.at(0), row, c.cols), ref, error_limit<T>);
  };
  return measure(c, copies, cfg, dev, launch, check_row);
}

template <class T> Result run_backward(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  const int copies = rotation_copies(c, dev);
  const int64_t n = c.rows * c.cols;
  const Copies<T> y(n, copies), dy(n, copies);
  const OutputCopies<T> dx(n, copies, cfg.out_offset);
  // Realistic y: rowwise's forward op of normal rows, whose x sits in dx until the timed launches
  // overwrite it.
  for (int k = 0; k < copies; ++k) fill_normal(dx.at(k), n, seed + k, dev.sm_count);
  for (int k = 0; k < copies; ++k)
    CUDA_CHECK(launch_forward(forward_of(c.op), dx.at(k), y.at(k), c.rows, c.cols, rowwise::Options{}, nullptr));
  fill_normal(dy.all(), dy.all_elems(), ~seed, dev.sm_count);
  auto launch = [&](int i, cudaStream_t stream) {
    const int k = i % copies;
    return launch_backward(c.op, y.at(k), dy.at(k), dx.at(k), c.rows, c.cols, options_of(cfg), stream);
  };
  auto check_row = [&](int64_t row) {
    const std::vector<double> ref =
        reference_grad(c.op, row_to_host(y.at(0), row, c.cols), row_to_host(dy.at(0), row, c.cols));
    return matches(c, "dx", row, row_to_host(dx.at(0), row, c.cols), ref, error_limit<T>);
  };
  return measure(c, copies, cfg, dev, launch, check_row);
}

// Abs-max scaling of T rows to U (T itself, int8_t or __nv_fp8_e4m3), with a float scale a row.
template <class T, class U>
Result run_absmax(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  const int copies = rotation_copies(c, dev);
  const Copies<T> x(c.rows * c.cols, copies);
  const OutputCopies<U> y(c.rows * c.cols, copies, cfg.out_offset);
  const Copies<float> scale(c.rows, copies);
  fill_normal(x.all(), x.all_elems(), seed, dev.sm_count);
  auto launch = [&](int i, cudaStream_t stream) {
    const int k = i % copies;
    return launch_absmax(c.op, x.at(k), y.at(k), scale.at(k), c.rows, c.cols, options_of(cfg), stream);
  };
  auto check_row = [&](int64_t row) {
    const AbsmaxReference ref = reference_absmax(row_to_host(x.at(0), row, c.cols), quant_max<U>());
    return matches(c, "y", row, row_to_host(y.at(0), row, c.cols), ref.y, error_limit<U>) &&
           matches(c, "row_scale", row, row_to_host(scale.at(0), row, 1), {ref.scale}, scale_limit);
  };
  return measure(c, copies, cfg, dev, launch, check_row);
}

template <class T> Result run_typed_case(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  switch (op_info(c.op).family) {
    case Family::kForward: return run_forward<T>(c, cfg, dev, seed);
    case Family::kBackward: return run_backward<T>(c, cfg, dev, seed);
    case Family::kAbsmax: break;
  }
  if (c.op == Op::kAbsmaxInt8) return run_absmax<T, int8_t>(c, cfg, dev, seed);
  if (c.op == Op::kAbsmaxFp8) return run_absmax<T, __nv_fp8_e4m3>(c, cfg, dev, seed);
  return run_absmax<T, T>(c, cfg, dev, seed);
}

template <class T> struct Tag {
  using type = T;
};

template <class F> auto visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::kFp32: return f(Tag<float>{});
    case DType::kFp64: return f(Tag<double>{});
    case DType::kFp16: return f(Tag<__half>{});
    case DType::kBf16: break;
  }
  return f(Tag<__nv_bfloat16>{});
}

}  // namespace

Result run_case(const Case& c, const Config& cfg, const Device& dev, uint64_t seed) {
  // The seed baselines store by 16-byte vectors wherever their outputs lie.
  if (cfg.out_offset != 0 && op_info(c.op).baseline) return Result{c};
  return visit_dtype(c.dtype, [&](auto tag) { return run_typed_case<typename decltype(tag)::type>(c, cfg, dev, seed); });
}

}  // namespace rowwise_bench
