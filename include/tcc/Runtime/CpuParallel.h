//===- CpuParallel.h - the CPU path's one thread pool ---------------------===//
//
// The generated CPU kernels' parallel loops (tcc-parallelize-cpu-loops
// outlines the outer iterations of each top-level scf.parallel into a
// function `void body(void *context, int64_t begin, int64_t end)`) and
// attention's heads (tcc_cpu_attention) run through `tcc_parallel_for`, on
// one pool of worker threads that sleep between loops (CpuParallel.cpp says
// why it is not libgomp's team, which oneDNN's products use). A loop runs
// on the calling thread between library calls, never beside a oneDNN
// region of the same call, so the cores are never asked for more threads
// than the count.
//
// Why not MLIR's OpenMP dialect: its translation emits calls of LLVM's
// libomp (__kmpc_fork_call), which libgomp does not provide; a second OpenMP
// runtime in the process would keep threads of its own beside oneDNN's
// (libgomp) and oversubscribe the cores, and its regions join every thread
// as libgomp's do.
//
// The thread count: TCC_NUM_THREADS if set (> 0), else every core the
// process may use (sched_getaffinity); the caller is one of them. With one
// thread, inside a loop of the pool, while another caller's loop holds the
// pool, or with fewer than two grains of iterations, the body runs on the
// calling thread as one call over [begin, end). TCC_DEBUG_THREADS=1 prints
// the pool's size on stderr once.
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
/// the caller and up to the pool's other threads, each part at least
/// `grain` iterations (grain <= 1: no minimum); returns when every part has
/// returned.
void tcc_parallel_for(void (*body)(void *context, int64_t begin, int64_t end), void *context,
                      int64_t begin, int64_t end, int64_t grain);

/// The pool's thread count (TCC_NUM_THREADS, read once).
int tcc_cpu_thread_count(void);
}

#endif // TCC_RUNTIME_CPUPARALLEL_H
