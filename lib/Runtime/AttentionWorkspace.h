//===- AttentionWorkspace.h - where split attention launches keep partials ===//
//
// The per-thread, per-context device workspace of the attention launchers
// that split keys across blocks (AttentionKernels.cpp, AttentionDecode.cpp):
// zeroed counters first, then the partial results.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_ATTENTIONWORKSPACE_H
#define TCC_LIB_RUNTIME_ATTENTIONWORKSPACE_H

#include <cstddef>
#include <cstdint>

namespace tcc {

/// Where a split launch keeps its partials and its row groups' counters.
struct SplitSpace {
  float *partials = nullptr;
  int32_t *counters = nullptr;
};

/// The split-key workspace of this thread in the current context: at least
/// `counters` ints, zero (AttentionParams::splitCounters), then at least
/// `partialBytes`; null partials where it would have to grow while
/// `stream` is captured into a graph. The counters sit first, at a fixed
/// place: every launch leaves those it used at 0 (the merging block resets
/// them), so only a grown buffer needs zeroing, once, on `stream` before
/// the launch (cuMemsetD8Async; never under capture: a capture that
/// would need to grow it runs unsplit). Buffers it outgrows stay allocated
/// until the thread ends: a CUDA graph captured earlier may still read
/// them (their counters stay zero between its replays). One per thread
/// and context, as cuBLASLt's workspace (CublasLtGemm.cpp): one thread's
/// calls on two streams must not overlap in time (a capture and the
/// replays of its graph share the buffer of the call made before it).
SplitSpace splitWorkspace(void *stream, size_t partialBytes, int64_t counters);

} // namespace tcc

#endif // TCC_LIB_RUNTIME_ATTENTIONWORKSPACE_H
