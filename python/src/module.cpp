// rowwise._C: librowwise's C ABI for Python. Takes device pointers and streams as ints (the Python layers
// validate arrays and find pointers, row strides and streams) and rowwise_options' fields as arguments,
// returns the C ABI's error codes, and describes DLPack capsules for the framework-free array path.
#include <cuda_runtime.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <rowwise_c.h>

#include <rowwise/dispatch/device_info.cuh>  // the driver's current context, through the runtime

#include <cstdint>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

void* ptr(uintptr_t address) { return reinterpret_cast<void*>(address); }

// Makes `context` current again after a device switch: cudaSetDevice(previous) would make the previous
// device's primary context current, replacing one the caller had made current (cuCtxCreate, a green
// context). Falls back to that where the driver cannot tell or set the context.
void restore_context(CUcontext context, int device) {
  using SetCurrent = CUresult (*)(CUcontext);
  static const auto set_current =
      reinterpret_cast<SetCurrent>(rowwise::detail::driver_function("cuCtxSetCurrent", 12000));
  if (context == nullptr || set_current == nullptr || set_current(context) != CUDA_SUCCESS) cudaSetDevice(device);
}

// Runs call() with the GIL released and `device` current (the C ABI works on the current device), then
// gives the caller its device and context back. device < 0: the current device, whatever it is.
template <class Call> int on_device(int device, Call call) {
  nb::gil_scoped_release release;
  if (device < 0) return call();
  int previous = 0;
  if (cudaError_t e = cudaGetDevice(&previous); e != cudaSuccess) return e;
  if (previous == device) return call();
  const CUcontext caller = rowwise::detail::current_context();
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return e;
  const int code = call();
  restore_context(caller, previous);
  return code;
}

// Python's dtype code as the C ABI's enum, or false: an int outside the enum's range is no dtype, and
// converting it to the enum would be undefined behaviour in C++.
bool to_dtype(int code, rowwise_dtype* dtype) {
  if (code < ROWWISE_F32 || code > ROWWISE_FP8_E4M3) return false;
  *dtype = rowwise_dtype(code);
  return true;
}

using ForwardFn = int (*)(rowwise_dtype, const void*, void*, int64_t, int64_t, int64_t, int64_t, void*,
                          const rowwise_options*);
using BackwardFn = int (*)(rowwise_dtype, const void*, const void*, void*, int64_t, int64_t, int64_t, int64_t,
                           int64_t, void*, const rowwise_options*);

template <ForwardFn Fn>
int forward(int dtype_code, uintptr_t x, uintptr_t y, int64_t rows, int64_t cols, int64_t x_row_stride,
            int64_t y_row_stride, uintptr_t stream, int64_t max_ctas, bool programmatic_launch, int device) {
  rowwise_dtype dtype;
  if (!to_dtype(dtype_code, &dtype)) return ROWWISE_ERROR_DTYPE;
  const rowwise_options options{max_ctas, programmatic_launch};
  return on_device(device, [&] {
    return Fn(dtype, ptr(x), ptr(y), rows, cols, x_row_stride, y_row_stride, ptr(stream), &options);
  });
}

template <BackwardFn Fn>
int backward(int dtype_code, uintptr_t y, uintptr_t dy, uintptr_t dx, int64_t rows, int64_t cols,
             int64_t y_row_stride, int64_t dy_row_stride, int64_t dx_row_stride, uintptr_t stream, int64_t max_ctas,
             bool programmatic_launch, int device) {
  rowwise_dtype dtype;
  if (!to_dtype(dtype_code, &dtype)) return ROWWISE_ERROR_DTYPE;
  const rowwise_options options{max_ctas, programmatic_launch};
  return on_device(device, [&] {
    return Fn(dtype, ptr(y), ptr(dy), ptr(dx), rows, cols, y_row_stride, dy_row_stride, dx_row_stride,
              ptr(stream), &options);
  });
}

int absmax_scale(int x_code, int y_code, uintptr_t x, uintptr_t y, uintptr_t row_scale, int64_t rows,
                 int64_t cols, int64_t x_row_stride, int64_t y_row_stride, uintptr_t stream, int64_t max_ctas,
                 bool programmatic_launch, int device) {
  rowwise_dtype x_dtype, y_dtype;
  if (!to_dtype(x_code, &x_dtype) || !to_dtype(y_code, &y_dtype)) return ROWWISE_ERROR_DTYPE;
  const rowwise_options options{max_ctas, programmatic_launch};
  return on_device(device, [&] {
    return rowwise_absmax_scale(x_dtype, y_dtype, ptr(x), ptr(y), static_cast<float*>(ptr(row_scale)), rows, cols,
                                x_row_stride, y_row_stride, ptr(stream), &options);
  });
}

// (data pointer, shape, strides in elements, (DLPack type code, bits, lanes), (device type, device id)).
nb::tuple describe(nb::ndarray<nb::ro> a) {
  nb::list shape, strides;
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape.append(a.shape(i));
    strides.append(a.stride(i));
  }
  const auto dtype = a.dtype();
  return nb::make_tuple(reinterpret_cast<uintptr_t>(a.data()), nb::tuple(shape), nb::tuple(strides),
                        nb::make_tuple(dtype.code, dtype.bits, dtype.lanes),
                        nb::make_tuple(a.device_type(), a.device_id()));
}

// (error code, is device memory, device) for a pointer: __cuda_array_interface__ does not say where its
// data lives.
nb::tuple pointer_device(uintptr_t address) {
  cudaPointerAttributes attributes{};
  const cudaError_t e = cudaPointerGetAttributes(&attributes, ptr(address));
  const bool on_device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  return nb::make_tuple(int(e), on_device, attributes.device);
}

// Orders `consumer` after the work queued on `producer` so far (an event recorded there, waited for
// there), as __cuda_array_interface__ v3 asks of a consumer given its producer's stream. Streams as
// cudaStream_t values: 1 and 2 are the legacy and per-thread default streams, in CUDA as in the interface.
int stream_wait(uintptr_t consumer, uintptr_t producer, int device) {
  return on_device(device, [&]() -> int {
    cudaEvent_t event;
    if (cudaError_t e = cudaEventCreateWithFlags(&event, cudaEventDisableTiming); e != cudaSuccess) return e;
    cudaError_t e = cudaEventRecord(event, static_cast<cudaStream_t>(ptr(producer)));
    if (e == cudaSuccess) e = cudaStreamWaitEvent(static_cast<cudaStream_t>(ptr(consumer)), event, 0);
    cudaEventDestroy(event);  // released once the wait no longer needs it
    return e;
  });
}

// (error code, count) of the CUDA devices this process sees.
nb::tuple device_count() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  return nb::make_tuple(int(e), e == cudaSuccess ? count : 0);
}

}  // namespace

NB_MODULE(_C, m) {
  m.doc() = "librowwise's C ABI: raw device pointers and streams as ints, error codes as results.";

  nb::dict dtypes;
  dtypes["float32"] = int(ROWWISE_F32);
  dtypes["float64"] = int(ROWWISE_F64);
  dtypes["float16"] = int(ROWWISE_F16);
  dtypes["bfloat16"] = int(ROWWISE_BF16);
  dtypes["int8"] = int(ROWWISE_I8);
  dtypes["float8_e4m3fn"] = int(ROWWISE_FP8_E4M3);
  m.attr("DTYPES") = dtypes;
  m.attr("ERROR_DTYPE") = int(ROWWISE_ERROR_DTYPE);       // an unsupported dtype or dtype pair
  m.attr("INVALID_VALUE") = int(cudaErrorInvalidValue);  // an argument the checks refuse

  m.def("softmax", &forward<rowwise_softmax>, "dtype"_a, "x"_a, "y"_a, "rows"_a, "cols"_a, "x_row_stride"_a,
        "y_row_stride"_a, "stream"_a, "max_ctas"_a, "programmatic_launch"_a, "device"_a);
  m.def("log_softmax", &forward<rowwise_log_softmax>, "dtype"_a, "x"_a, "y"_a, "rows"_a, "cols"_a,
        "x_row_stride"_a, "y_row_stride"_a, "stream"_a, "max_ctas"_a, "programmatic_launch"_a, "device"_a);
  m.def("softmax_backward", &backward<rowwise_softmax_backward>, "dtype"_a, "y"_a, "dy"_a, "dx"_a, "rows"_a,
        "cols"_a, "y_row_stride"_a, "dy_row_stride"_a, "dx_row_stride"_a, "stream"_a, "max_ctas"_a,
        "programmatic_launch"_a, "device"_a);
  m.def("log_softmax_backward", &backward<rowwise_log_softmax_backward>, "dtype"_a, "y"_a, "dy"_a, "dx"_a,
        "rows"_a, "cols"_a, "y_row_stride"_a, "dy_row_stride"_a, "dx_row_stride"_a, "stream"_a, "max_ctas"_a,
        "programmatic_launch"_a, "device"_a);
  m.def("absmax_scale", &absmax_scale, "x_dtype"_a, "y_dtype"_a, "x"_a, "y"_a, "row_scale"_a, "rows"_a, "cols"_a,
        "x_row_stride"_a, "y_row_stride"_a, "stream"_a, "max_ctas"_a, "programmatic_launch"_a, "device"_a);
  m.def("error_string", [](int code) { return rowwise_error_string(code); }, "code"_a);
  m.def("describe", &describe, "capsule"_a, "Describes a DLPack capsule (or any DLPack-exporting object).");
  m.def("pointer_device", &pointer_device, "address"_a);
  m.def("device_count", &device_count);
  m.def("stream_wait", &stream_wait, "consumer"_a, "producer"_a, "device"_a);
}
