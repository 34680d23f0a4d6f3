// Programmatic dependent launch (sm_90 and newer): a grid launched with it may start while the grid
// before it in the stream still runs, so its launch and its CTAs' start overlap that grid's tail. Such
// a grid must wait, before it touches global memory, for the grid before it to finish and its writes
// to become visible; and it lets the grid after it start early. Both return at once in a grid launched
// without it, and compile to nothing below sm_90.
#pragma once

namespace rowwise {

// The long-row kernels call this first (dispatch/plan.cuh waits_for_prior_grid): it waits for the
// grid it depends on, if any, then lets its own dependent start (that grid waits in turn before it reads
// what this one writes).
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace rowwise
