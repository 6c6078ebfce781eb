//===- CpuParallel.h - the CPU path's one thread pool ---------------------===//
//
// The generated CPU kernels' parallel loops (tcc-parallelize-cpu-loops
// outlines the outer iterations of each top-level scf.parallel into a
// function `void body(void *context, int64_t begin, int64_t end)`) run
// through `tcc_parallel_for`, on the same thread pool as oneDNN's products
// and convolutions: libgomp's, the OpenMP runtime Debian's oneDNN is built
// with, opened with dlopen by soname (the copy oneDNN loads is the same
// one). One pool serves a call, so a kernel and a product never run side by
// side on more threads than cores.
//
// Why not MLIR's OpenMP dialect: its translation emits calls of LLVM's
// libomp (__kmpc_fork_call), which libgomp does not provide; a second OpenMP
// runtime in the process would keep threads of its own beside oneDNN's and
// oversubscribe the cores. Why not a pool of tcc's own: it would have to
// hand the cores back to oneDNN's between kernels (spinning or sleeping
// threads of two pools on two cores) for no gain; GOMP_parallel's team is
// already warm after the first product.
//
// The thread count: TCC_NUM_THREADS if set (> 0), else every core the
// process may use (sched_getaffinity). With one thread, inside another
// OpenMP region, without libgomp, or with at most `grain` iterations, the
// body runs on the calling thread, as one call over [begin, end).
// TCC_DEBUG_THREADS=1 prints the pool's size on stderr once.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CPUPARALLEL_H
#define TCC_RUNTIME_CPUPARALLEL_H

#include <cstdint>

namespace tcc {

/// The runtime entry that generated CPU code calls for a parallel loop.
inline constexpr const char *kParallelForFunction = "tcc_parallel_for";

namespace cpu {

/// The thread count TCC_NUM_THREADS's text `env` asks for (null when unset):
/// its value when a positive integer, else the cores this process may use.
int parallelThreadCount(const char *env);

} // namespace cpu
} // namespace tcc

extern "C" {

/// Runs body(context, b, e) over disjoint [b, e) covering [begin, end), on
/// up to the pool's thread count, each part at least `grain` iterations
/// (grain <= 0: no minimum); returns when every part has returned.
void tcc_parallel_for(void (*body)(void *context, int64_t begin, int64_t end), void *context,
                      int64_t begin, int64_t end, int64_t grain);

/// The pool's thread count (TCC_NUM_THREADS, read once).
int tcc_cpu_thread_count(void);
}

#endif // TCC_RUNTIME_CPUPARALLEL_H
