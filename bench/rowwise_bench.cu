// rowwise-bench: bandwidth of rowwise's ops (softmax, log_softmax, their backward passes, abs-max
// scaling to the input type, int8 and fp8 e4m3) and of the seeds' baseline kernels, against
// device-to-device copy.
//
// Each case (op, dtype, rows, cols) is timed as the median of --iters launches, each between its own
// pair of events, after 3 warm-up launches; the launches are all queued behind a kernel that holds the
// GPU, so the events time the GPU, not the host's launch rate (--timing graph: a case's launches
// captured in a CUDA graph, each replay between its own pair, divided by its launches). Bytes moved
// count every operand once: x read and y written (forward), y and dy read and dx written (backward), x
// read, y written in the output type and a float scale a row (abs-max). Data smaller than 4x the L2
// cache rotates over several copies of its buffers so that launches do not find their data in L2. A
// sample of rows is checked against a float64 CPU reference. The seed sweep prints each seed baseline
// beside rowwise at the same shape.
//
// Exit status: 0 all cases ok, 1 a check failed (or a CUDA or usage error), 2 no CUDA device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "bench_cases.h"
#include "command_line.h"
#include "device_timing.cuh"
#include "report.h"
#include "run_case.h"
#include "sweeps.h"

using namespace rowwise_bench;

int main(int argc, char** argv) {
  const Config cfg = parse_args(argc, argv);

  int device_count = 0;
  const cudaError_t e = cudaGetDeviceCount(&device_count);
  if (e != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "rowwise-bench: no CUDA device (%s)\n",
                 cudaGetErrorString(e != cudaSuccess ? e : cudaErrorNoDevice));
    return 2;
  }

  const Device dev = query_device(cfg.iters);
  print_header(dev, cfg);
  std::vector<Result> results;
  for (const Case& c : build_cases(cfg)) {
    const uint64_t seed = 0x5EED0000u + results.size();
    results.push_back(run_case(c, cfg, dev, seed));
    print_row(results.back(), cfg.strategy);
  }
  print_seed_comparison(results);
  print_summary(results);
  if (!cfg.json_path.empty()) write_json(cfg.json_path, dev, cfg, results);
  if (!cfg.csv_path.empty()) write_csv(cfg.csv_path, cfg, results);

  const bool failed = std::any_of(results.begin(), results.end(), [](const Result& r) { return r.check == Check::kFail; });
  return failed ? 1 : 0;
}
