//===- GridDependency.cuh - a library image's side of GridDependency.h ----===//
//
// An image that includes this file defines the global of GridDependency.h
// and so promises that each of its kernels calls awaitPreviousGrid() before
// its first access to memory an earlier kernel may write (reading constant
// weights before it is allowed only through prefetchToL2: L2 is coherent,
// so a line fetched early is updated by the previous kernel's writes).
// Include it in one translation unit per image.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_KERNELS_GRIDDEPENDENCY_CUH
#define TCC_KERNELS_GRIDDEPENDENCY_CUH

#include "tcc/Runtime/GridDependency.h"

#include <cstdint>

// Only in sm_90+ code, the only code with griddepcontrol: an image's sm_80
// code and its compute_80 PTX (JIT-compiled on newer GPUs) make no promise.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
extern "C" __device__ int TCC_AWAITS_PREVIOUS_GRID_SYMBOL = 1;
#endif

namespace tcc_grid {

/// Returns once the previous kernel on the stream has finished and its
/// writes are visible (at once when launched the usual way, or before sm_90).
__device__ __forceinline__ void awaitPreviousGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the next kernel on the stream be scheduled (it still waits for this
/// one's end in its own awaitPreviousGrid): called after awaitPreviousGrid,
/// so that at most one kernel waits ahead.
__device__ __forceinline__ void allowNextGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Starts fetching [p, p + bytes) into L2 (a hint: nothing is loaded into
/// registers). `p` and `bytes` multiples of 16.
__device__ __forceinline__ void prefetchToL2(const void *p, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#endif
}

} // namespace tcc_grid

#endif // TCC_KERNELS_GRIDDEPENDENCY_CUH
