// rowwise inside a CUDA graph, as inference engines run a decode step and as torch.cuda.graph captures:
// each call captured on a stream of its own in global capture mode (where an API call that may
// synchronize breaks the capture), then the graph replayed twice and the output checked against the
// float64 reference. ctest runs each test in a process of its own, so each strategy's first call there
// is the captured one: its kernels' attribute, occupancy and cluster queries run under capture (the
// device's, once, in the first case). Every strategy, the gradients, abs-max to int8, and the
// whole-tensor ops with their workspace from the stream's pool (graph allocation nodes) or the
// caller's (left zeroed by each replay for the next).
#include <gtest/gtest.h>

#include <cuda_bf16.h>

#include <string>

#include "../common/gpu_check.h"
#include "../common/gpu_check_absmax.h"
#include "../common/gpu_check_backward.h"
#include "../common/gpu_skip.h"

namespace rowwise_test {
namespace {

using rowwise::Strategy;

constexpr int kReplays = 2;

// call(stream) captured into a graph and the graph replayed kReplays times on that stream; the first
// error of the capture (the call's own first), the instantiation or the replays. A graph without nodes
// (the call's work run at once, not captured) fails the test.
template <class Call> cudaError_t replay_captured(Call&& call) {
  cudaStream_t stream = nullptr;
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess) return e;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  if (e == cudaSuccess) {
    const cudaError_t called = call(stream);
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    e = called != cudaSuccess ? called : ended;
  }
  size_t nodes = 0;
  if (e == cudaSuccess) e = cudaGraphGetNodes(graph, nullptr, &nodes);
  if (e == cudaSuccess && nodes == 0) {
    ADD_FAILURE() << "the call captured nothing";
    e = cudaErrorUnknown;
  }
  if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, graph, 0);
  for (int i = 0; i < kReplays && e == cudaSuccess; ++i) e = cudaGraphLaunch(exec, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (exec != nullptr) cudaGraphExecDestroy(exec);
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  return e;
}

TEST(GraphCapture, EveryStrategyReplaysTheCapturedCall) {
  RW_REQUIRE_GPU();
  struct Case {
    Strategy strategy;
    int64_t rows, cols;
  };
  // Each forced on a shape it takes (the cluster falls back to split where the device has none), and
  // dispatch on a decode row and a ragged short one.
  const Case cases[] = {{Strategy::kWarp, 100, 1000},      {Strategy::kTile, 300, 33},
                        {Strategy::kBlock, 20, 5000},      {Strategy::kBlockSmem, 3, 20000},
                        {Strategy::kCluster, 2, 131072},   {Strategy::kSplit, 3, 200000},
                        {Strategy::kTwoLaunch, 2, 300001}, {Strategy::kTwoPass, 2, 70001},
                        {Strategy::kAuto, 1, 131072},      {Strategy::kAuto, 1000, 129}};
  int index = 0;
  for (const Case& c : cases) {
    rowwise::Options options;
    options.strategy = c.strategy;
    const Layout& layout = forward_layout(index % 2 == 0 ? "contiguous" : "misaligned-both");
    const CaseReport r = check_forward_launch<float>(
        Op::kSoftmax, c.rows, c.cols, Values::kSpecialRows, layout, 71 + index++,
        [&](const float* x, float* y, int64_t xs, int64_t ys) {
          return replay_captured(
              [&](cudaStream_t s) { return call_forward(Op::kSoftmax, x, y, c.rows, c.cols, xs, ys, options, s); });
        });
    EXPECT_TRUE(r.ok()) << rowwise::strategy_name(c.strategy) << " " << c.rows << " x " << c.cols << " "
                        << layout.name << ": " << r.summary();
  }
}

TEST(GraphCapture, GradientsAndQuantizedRowsReplay) {
  RW_REQUIRE_GPU();
  using T = __nv_bfloat16;
  for (const int64_t cols : {1000, 131072}) {  // warp rows; a decode row on a cluster
    const CaseReport grad = check_backward_launch<T>(
        GradOp::kSoftmaxBackward, 1, cols, Values::kNormal, backward_layouts()[0], 11 + cols,
        [&](const T* y, const T* dy, T* dx, int64_t ys, int64_t dys, int64_t dxs) {
          return replay_captured([&](cudaStream_t s) {
            return call_backward(GradOp::kSoftmaxBackward, y, dy, dx, 1, cols, ys, dys, dxs, rowwise::Options{}, s);
          });
        });
    EXPECT_TRUE(grad.ok()) << "softmax_backward bf16 " << cols << ": " << grad.summary();
    const CaseReport quant = check_absmax_launch<T, int8_t>(
        7, cols, Values::kNormal, forward_layouts()[0], true, 13 + cols,
        [&](const T* x, int8_t* y, float* scale, int64_t xs, int64_t ys) {
          return replay_captured([&](cudaStream_t s) {
            return rowwise::absmax_scale(x, y, scale, 7, cols, xs, ys, s, rowwise::Options{});
          });
        });
    EXPECT_TRUE(quant.ok()) << "absmax_scale bf16 -> int8 " << cols << ": " << quant.summary();
  }
}

TEST(GraphCapture, WholeTensorsReplayWithEitherWorkspace) {
  RW_REQUIRE_GPU();
  const int64_t n = 3000001;  // split
  size_t bytes = 0;
  DeviceBuffer<unsigned char> workspace;
  for (const bool callers : {false, true}) {
    if (callers) {  // sized only now: the pool's case is the process's first call
      ASSERT_EQ(rowwise::tensor_softmax_workspace_bytes<float>(&bytes), cudaSuccess);
      ASSERT_EQ(workspace.allocate(bytes), cudaSuccess);
      ASSERT_EQ(cudaMemset(workspace.ptr, 0, bytes), cudaSuccess);
    }
    const CaseReport r = check_forward_launch<float>(
        Op::kSoftmax, 1, n, Values::kSpecialRows, forward_layouts()[0], 17,
        [&](const float* x, float* y, int64_t, int64_t) {
          return replay_captured([&](cudaStream_t s) {
            return callers ? rowwise::tensor_softmax(x, y, n, workspace.ptr, bytes, s)
                           : rowwise::tensor_softmax(x, y, n, s);
          });
        });
    EXPECT_TRUE(r.ok()) << "tensor_softmax " << (callers ? "caller workspace" : "pool") << ": " << r.summary();
  }
}

}  // namespace
}  // namespace rowwise_test
