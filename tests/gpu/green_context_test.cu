// rowwise in a green context (an SM partition of the device, CUDA 12.4+), as an engine that keeps SMs
// for communication kernels runs it: dispatch sees the context's SMs, not the device's (split sizes its
// co-resident grid by them), and every strategy matches the float64 reference there.
#include <gtest/gtest.h>
#include <cuda.h>

#include <string>

#include "../common/gpu_check.h"
#include "../common/gpu_skip.h"

namespace rowwise_test {
namespace {

#if CUDA_VERSION >= 12040

template <class Fn> Fn driver(const char* name) { return reinterpret_cast<Fn>(rowwise::detail::driver_function(name, 12040)); }

// A green context of `sms` of the device's SMs, current on this thread while the object lives; the
// context that was current before is current again after. `skip` says why none was made.
class GreenContext {
 public:
  explicit GreenContext(unsigned sms) {
    get_resource_ = driver<CUresult (*)(CUdevice, CUdevResource*, CUdevResourceType)>("cuDeviceGetDevResource");
    split_ = driver<CUresult (*)(CUdevResource*, unsigned*, const CUdevResource*, CUdevResource*, unsigned, unsigned)>(
        "cuDevSmResourceSplitByCount");
    describe_ = driver<CUresult (*)(CUdevResourceDesc*, CUdevResource*, unsigned)>("cuDevResourceGenerateDesc");
    create_ = driver<CUresult (*)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned)>("cuGreenCtxCreate");
    to_context_ = driver<CUresult (*)(CUcontext*, CUgreenCtx)>("cuCtxFromGreenCtx");
    set_current_ = driver<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
    destroy_ = driver<CUresult (*)(CUgreenCtx)>("cuGreenCtxDestroy");
    if (!get_resource_ || !split_ || !describe_ || !create_ || !to_context_ || !set_current_ || !destroy_) {
      skip = "the driver has no green contexts";
      return;
    }
    int device = 0;
    CUdevResource part{}, rest{};
    unsigned groups = 1;
    CUdevResourceDesc desc{};
    CUcontext context = nullptr;
    if (cudaGetDevice(&device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess ||
        get_resource_(device, &all_sms, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS ||
        split_(&part, &groups, &all_sms, &rest, 0, sms) != CUDA_SUCCESS || groups != 1 ||
        describe_(&desc, &part, 1) != CUDA_SUCCESS) {
      skip = "no partition of " + std::to_string(sms) + " SMs on this device";
      return;
    }
    if (create_(&green_, desc, device, CU_GREEN_CTX_DEFAULT_STREAM) != CUDA_SUCCESS) {
      skip = "cuGreenCtxCreate refused";
      green_ = nullptr;
      return;
    }
    previous_ = rowwise::detail::current_context();
    made = to_context_(&context, green_) == CUDA_SUCCESS && set_current_(context) == CUDA_SUCCESS;
    if (!made) skip = "the green context could not be made current";
    sm_count = static_cast<int>(part.sm.smCount);
  }
  ~GreenContext() {
    if (made) {
      cudaDeviceSynchronize();  // nothing of this context's left in flight when it goes
      set_current_(previous_);
    }
    if (green_ != nullptr) destroy_(green_);
  }
  GreenContext(const GreenContext&) = delete;
  GreenContext& operator=(const GreenContext&) = delete;

  bool made = false;
  std::string skip;
  int sm_count = 0;
  CUdevResource all_sms{};

 private:
  CUresult (*get_resource_)(CUdevice, CUdevResource*, CUdevResourceType) = nullptr;
  CUresult (*split_)(CUdevResource*, unsigned*, const CUdevResource*, CUdevResource*, unsigned, unsigned) = nullptr;
  CUresult (*describe_)(CUdevResourceDesc*, CUdevResource*, unsigned) = nullptr;
  CUresult (*create_)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned) = nullptr;
  CUresult (*to_context_)(CUcontext*, CUgreenCtx) = nullptr;
  CUresult (*set_current_)(CUcontext) = nullptr;
  CUresult (*destroy_)(CUgreenCtx) = nullptr;
  CUgreenCtx green_ = nullptr;
  CUcontext previous_ = nullptr;
};

TEST(GreenContext, EveryStrategyRunsOnAShareOfTheSms) {
  RW_REQUIRE_GPU();
  GreenContext green(16);
  if (!green.made) GTEST_SKIP() << green.skip;
  rowwise::DeviceInfo info;
  ASSERT_EQ(rowwise::current_device_info(&info), cudaSuccess);
  EXPECT_EQ(info.sm_count, green.sm_count);
  if (info.sm_count >= static_cast<int>(green.all_sms.sm.smCount)) GTEST_SKIP() << "the partition is the whole device";
  struct Case {
    rowwise::Strategy strategy;
    int64_t rows, cols;
  };
  // Few long rows (clusters, or split where the partition holds no cluster), many long rows, split and
  // two_launch forced, rows of shared memory, tiles and warps.
  const Case cases[] = {{rowwise::Strategy::kAuto, 1, 131072},      {rowwise::Strategy::kAuto, 40, 100000},
                        {rowwise::Strategy::kSplit, 3, 200000},     {rowwise::Strategy::kTwoLaunch, 2, 300001},
                        {rowwise::Strategy::kBlockSmem, 3, 20000},  {rowwise::Strategy::kAuto, 300, 33},
                        {rowwise::Strategy::kAuto, 1000, 128}};
  for (const Case& c : cases) {
    rowwise::Options options;
    options.strategy = c.strategy;
    const CaseReport r = check_forward_case<float>(Op::kSoftmax, c.rows, c.cols, Values::kSpecialRows,
                                                   forward_layouts()[0], options, 31 + c.cols);
    EXPECT_TRUE(r.ok()) << rowwise::strategy_name(c.strategy) << " " << c.rows << " x " << c.cols << ": "
                        << r.summary();
  }
  const int64_t n = 3000001;  // split over the partition's SMs
  const CaseReport tensor = check_forward_launch<float>(Op::kSoftmax, 1, n, Values::kNormal, forward_layouts()[0], 5,
                                                        [&](const float* x, float* y, int64_t, int64_t) {
                                                          return rowwise::tensor_softmax(x, y, n);
                                                        });
  EXPECT_TRUE(tensor.ok()) << "tensor_softmax: " << tensor.summary();
}

#else
TEST(GreenContext, EveryStrategyRunsOnAShareOfTheSms) { GTEST_SKIP() << "built with CUDA older than 12.4"; }
#endif

}  // namespace
}  // namespace rowwise_test
