// rowwise inside a CUDA graph, as inference engines run a decode step and as torch.cuda.graph captures:
// each call captured on a stream of its own in global capture mode (where an API call that may
// synchronize breaks the capture), then the graph replayed twice and the output checked against the
// float64 reference. ctest runs each test in a process of its own, so each strategy's first call there
// is the captured one: its kernels' attribute, occupancy and cluster queries run under capture (the
// device's, once, in the first case). Every strategy, the gradients, abs-max to int8, and the
// whole-tensor ops with their workspace from the stream's pool (graph allocation nodes) or the
// caller's (left zeroed by each replay for the next). And programmatic launches, on a stream and in a graph.
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

// Each strategy forced on a shape it takes (the cluster falls back to split where the device has none),
// and dispatch on a decode row and a ragged short one.
struct StrategyCase {
  Strategy strategy;
  int64_t rows, cols;
};
constexpr StrategyCase kStrategyCases[] = {
    {Strategy::kWarp, 100, 1000},      {Strategy::kTile, 300, 33},        {Strategy::kBlock, 20, 5000},
    {Strategy::kBlockSmem, 3, 20000},  {Strategy::kCluster, 2, 131072},   {Strategy::kSplit, 3, 200000},
    {Strategy::kTwoLaunch, 2, 300001}, {Strategy::kTwoPass, 2, 70001},    {Strategy::kAuto, 1, 131072},
    {Strategy::kAuto, 1000, 129}};

TEST(GraphCapture, EveryStrategyReplaysTheCapturedCall) {
  RW_REQUIRE_GPU();
  int index = 0;
  for (const StrategyCase& c : kStrategyCases) {
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

// Two programmatic launches in a row (Options::programmatic_launch), the second reading what the first
// wrote last: log_softmax of ~64 MB of rows ending in x, into a buffer of NaN, then softmax of its last
// rows, which is softmax(x). Each launch lets the next begin once all its CTAs have started, so a
// kernel that read before waiting for the one before it would read NaN (or, in two_launch, its own
// first launch's states before they are written). On a stream, and captured in a graph (a programmatic
// edge between the two). Below sm_90, and for the short-row strategies (warp, tile, block:
// waits_for_prior_grid), the launches are ordinary.
TEST(GraphCapture, ProgrammaticLaunchesReadWhatTheLaunchBeforeWrote) {
  RW_REQUIRE_GPU();
  constexpr int64_t kLeadBytes = int64_t{64} << 20;
  int index = 0;
  for (const bool captured : {false, true}) {
    for (const StrategyCase& c : kStrategyCases) {
      rowwise::Options options;
      options.strategy = c.strategy;
      options.programmatic_launch = true;
      const int64_t lead = kLeadBytes / (c.cols * int64_t{sizeof(float)});  // rows before x's
      const int64_t rows = lead + c.rows, elems = rows * c.cols;
      const CaseReport r = check_forward_launch<float>(
          Op::kSoftmax, c.rows, c.cols, Values::kNormal, forward_layout("contiguous"), 91 + index++,
          [&](const float* x, float* y, int64_t, int64_t) {
            DeviceBuffer<float> in, logits;
            if (cudaError_t e = in.allocate(elems); e != cudaSuccess) return e;
            if (cudaError_t e = logits.allocate(elems); e != cudaSuccess) return e;
            if (cudaError_t e = cudaMemset(in.ptr, 0, lead * c.cols * sizeof(float)); e != cudaSuccess) return e;
            if (cudaError_t e = cudaMemcpy(in.ptr + lead * c.cols, x, c.rows * c.cols * sizeof(float),
                                           cudaMemcpyDeviceToDevice);
                e != cudaSuccess)
              return e;
            if (cudaError_t e = cudaMemset(logits.ptr, 0xFF, elems * sizeof(float)); e != cudaSuccess) return e;  // NaN
            if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return e;
            const auto chain = [&](cudaStream_t s) {
              const cudaError_t e = call_forward(Op::kLogSoftmax, in.ptr, logits.ptr, rows, c.cols, c.cols, c.cols,
                                                 options, s);
              return e != cudaSuccess ? e
                                      : call_forward(Op::kSoftmax, logits.ptr + lead * c.cols, y, c.rows, c.cols,
                                                     c.cols, c.cols, options, s);
            };
            if (captured) return replay_captured(chain);
            if (cudaError_t e = chain(nullptr); e != cudaSuccess) return e;
            return cudaDeviceSynchronize();
          });
      EXPECT_TRUE(r.ok()) << (captured ? "graph " : "stream ") << rowwise::strategy_name(c.strategy) << " " << c.rows
                          << " x " << c.cols << " after " << lead << " rows: " << r.summary();
    }
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
