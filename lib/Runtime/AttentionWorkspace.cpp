//===- AttentionWorkspace.cpp - where split attention launches keep partials ===//
//
// See AttentionWorkspace.h.
//
//===----------------------------------------------------------------------===//
#include "AttentionWorkspace.h"

#include "tcc/Runtime/CudaDriver.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

using namespace tcc;

namespace {

/// Whether work enqueued on `stream` is being captured into a CUDA graph
/// (false when the driver cannot tell).
bool isCapturing(void *stream) {
  const cuda::Driver &d = cuda::Driver::get();
  int status = 0;
  return d.cuStreamIsCapturing &&
         d.cuStreamIsCapturing(static_cast<cuda::CUstream>(stream), &status) == 0 && status != 0;
}

} // namespace

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
SplitSpace tcc::splitWorkspace(void *stream, size_t partialBytes, int64_t counters) {
  struct Workspace {
    cuda::CUcontext context;
    cuda::DeviceBuffer buffer;
    size_t counterBytes; ///< the zeroed counters at the start (256-byte multiple)
  };
  thread_local std::vector<Workspace> workspaces;
  thread_local std::vector<cuda::DeviceBuffer> outgrown;
  cuda::CUcontext ctx = cuda::ensureContext();
  Workspace *found = nullptr;
  for (Workspace &w : workspaces)
    if (w.context == ctx)
      found = &w;
  auto spaceOf = [](const Workspace &w) {
    auto *base = static_cast<unsigned char *>(w.buffer.data());
    return SplitSpace{reinterpret_cast<float *>(base + w.counterBytes),
                      reinterpret_cast<int32_t *>(base)};
  };
  const size_t counterBytes = (size_t(counters) * sizeof(int32_t) + 255) / 256 * 256;
  if (found && found->counterBytes >= counterBytes &&
      found->buffer.bytes() - found->counterBytes >= partialBytes)
    return spaceOf(*found);
  if (isCapturing(stream))
    return SplitSpace{};
  Workspace grown{ctx, {}, counterBytes};
  size_t bytes = partialBytes;
  if (found) {
    grown.counterBytes = std::max(counterBytes, found->counterBytes);
    bytes = std::max(bytes, found->buffer.bytes() - found->counterBytes);
  }
  grown.buffer = cuda::DeviceBuffer(grown.counterBytes + bytes);
  const cuda::Driver &d = cuda::Driver::get();
  d.check(d.cuMemsetD8Async(grown.buffer.get(), 0, grown.counterBytes,
                            static_cast<cuda::CUstream>(stream)),
          "cuMemsetD8Async (the key splits' counters, " + std::to_string(grown.counterBytes) +
              " bytes)");
  if (!found) {
    workspaces.push_back(std::move(grown));
    return spaceOf(workspaces.back());
  }
  outgrown.push_back(std::move(found->buffer));
  *found = std::move(grown);
  return spaceOf(*found);
}

