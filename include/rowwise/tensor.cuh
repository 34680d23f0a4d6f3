// Whole-tensor softmax and log-softmax: the n elements of a tensor as one row, planned as any row (a
// tensor of up to 4 KB takes the tile, warp or block strategy; then clusters up to 1 MB, split up to
// 128 MB, and two_launch past that, reading it twice).
//
// Split and two_launch need a small workspace: a count of arrivals and a state per CTA. Either let
// rowwise take it from the stream's memory pool (the overloads without a workspace; on a device without
// memory pools, from cudaMalloc, whose cudaFree waits for the device), or pass your own
// like CUB: ask tensor_softmax_workspace_bytes, allocate that much (16-byte aligned, as cudaMalloc's
// are), zero it once (cudaMemsetAsync) and reuse it; every call leaves it zeroed again. One call at a
// time may use a workspace.
#pragma once
#include "api.cuh"

namespace rowwise {

// Workspace bytes tensor_softmax and tensor_log_softmax of T need in the current context (any n): a
// state per CTA the context holds, so fewer in a green context; one sized in the device's primary
// context serves every context of the device.
template <class T> cudaError_t tensor_softmax_workspace_bytes(size_t* bytes) {
  static_assert(is_element_v<T>, "rowwise: element type must be float, double, __half or __nv_bfloat16");
  if (bytes == nullptr) return cudaErrorInvalidValue;
  DeviceInfo dev;
  if (cudaError_t e = current_device_info(&dev); e != cudaSuccess) return e;
  // Split and two_launch take at most the resident CTAs to a row.
  *bytes = split_workspace_bytes(1, split_resident_ctas(dev), sizeof(typename SoftmaxOp<acc_t<T>>::State));
  return cudaSuccess;
}

namespace detail {

template <template <class> class OpOf, class T>
cudaError_t run_tensor(const T* x, T* y, int64_t n, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  // Its counters take atomics and its states 8- and 16-byte stores.
  if (reinterpret_cast<uintptr_t>(workspace) % 16 != 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  // The operands before the device is asked anything (the workspace's size).
  if (!operands_ok(1, n, {operand(x, n)}, {operand(y, n)})) return cudaErrorInvalidValue;
  if (workspace != nullptr) {
    size_t needed = 0;
    if (cudaError_t e = tensor_softmax_workspace_bytes<T>(&needed); e != cudaSuccess) return e;
    if (workspace_bytes < needed) return cudaErrorInvalidValue;
  }
  return run_pointer_rows<OpOf>(x, y, 1, n, n, n, stream, Options{}, workspace);
}

}  // namespace detail

// y = softmax(x) over all n elements (n up to 2^40 and beyond; in place allowed). `workspace`: at least
// tensor_softmax_workspace_bytes, 16-byte aligned, zeroed before its first use. n == 0 launches nothing
// (the workspace's pointer is still checked, its size is not: that asks the device).
template <class T>
cudaError_t tensor_softmax(const T* x, T* y, int64_t n, void* workspace, size_t workspace_bytes,
                           cudaStream_t stream = 0) {
  if (workspace == nullptr) return cudaErrorInvalidValue;
  return detail::run_tensor<SoftmaxOp>(x, y, n, workspace, workspace_bytes, stream);
}
template <class T> cudaError_t tensor_softmax(const T* x, T* y, int64_t n, cudaStream_t stream = 0) {
  return detail::run_tensor<SoftmaxOp>(x, y, n, nullptr, 0, stream);
}

// y = log_softmax(x) over all n elements; as tensor_softmax (same workspace).
template <class T>
cudaError_t tensor_log_softmax(const T* x, T* y, int64_t n, void* workspace, size_t workspace_bytes,
                               cudaStream_t stream = 0) {
  if (workspace == nullptr) return cudaErrorInvalidValue;
  return detail::run_tensor<LogSoftmaxOp>(x, y, n, workspace, workspace_bytes, stream);
}
template <class T> cudaError_t tensor_log_softmax(const T* x, T* y, int64_t n, cudaStream_t stream = 0) {
  return detail::run_tensor<LogSoftmaxOp>(x, y, n, nullptr, 0, stream);
}

}  // namespace rowwise
