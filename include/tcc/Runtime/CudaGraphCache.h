//===- CudaGraphCache.h - replay a model's launches as CUDA graphs --------===//
//
// One run of a model's CUDA entry is a fixed sequence of kernel (and library)
// launches once its packed arguments are fixed: the descriptors hold every
// device pointer (inputs, outputs, weights, arena) and every size, from which
// the host code derives grids and kernel parameters. The cache captures that
// sequence (cuStreamBeginCapture on a private stream, thread-local mode) into
// a CUgraphExec keyed by the packed words and replays it with one
// cuGraphLaunch on the caller's stream.
//
// Policy:
//  - A key is captured the second time it is seen; the first run of a key
//    launches directly. Workloads whose pointers never repeat therefore never
//    pay for a capture, and the first run of an instance (which loads the
//    kernels) happens outside any capture.
//  - At most `capacity` graphs, least recently used evicted. A new graph
//    first tries to take over the evicted executable with cuGraphExecUpdate
//    (cheaper than instantiating); otherwise it is instantiated.
//  - A capture that fails (a call that cannot be captured, an invalidated
//    capture) marks the key: it runs directly from then on. After
//    kMaxCaptureFailures such failures the cache turns itself off.
//  - A graph replays only on the thread that captured it: library state
//    the launches use (cuBLASLt's handle and workspace, CublasLtGemm.cpp) is
//    per thread, and a graph bakes in its pointers. Threads are told apart
//    by a serial number that is never reused.
//  - A caller's stream that is itself being captured (e.g. by
//    torch.cuda.graph) gets direct launches, so they join the caller's graph.
//
// The driver is passed in as its table of function pointers, so the unit
// tests (test/unit/CudaGraphCacheTest.cpp) drive the policy with a fake one.
// Not thread-safe: a Model calls it under its own mutex.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CUDAGRAPHCACHE_H
#define TCC_RUNTIME_CUDAGRAPHCACHE_H

#include "tcc/Runtime/CudaDriver.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tcc::cuda {

/// What one CudaGraphCache::run did.
enum class GraphRun { Replayed, Captured, Direct };

/// Counters of a cache, for tcc_model_get_option and tests.
struct GraphCacheStats {
  uint64_t replays = 0;         ///< runs replayed from a cached graph
  uint64_t captures = 0;        ///< graphs captured (instantiated or updated)
  uint64_t updates = 0;         ///< of those, executables reused by cuGraphExecUpdate
  uint64_t direct = 0;          ///< runs launched directly
  uint64_t captureFailures = 0; ///< captures that failed and fell back
};

class CudaGraphCache {
public:
  static constexpr size_t kDefaultCapacity = 8;
  static constexpr uint64_t kMaxCaptureFailures = 4;

  /// A run: enqueue every launch of the model on the given stream. Throws
  /// (RuntimeError) on failure.
  struct Launch {
    void (*fn)(void *context, CUstream stream);
    void *context;
    void operator()(CUstream stream) const { fn(context, stream); }
  };

  /// `driver` must outlive the cache. With a driver lacking the graph entry
  /// points (Driver::hasGraphs) the cache is disabled.
  explicit CudaGraphCache(const Driver &driver, size_t capacity = kDefaultCapacity);
  ~CudaGraphCache();
  CudaGraphCache(const CudaGraphCache &) = delete;
  CudaGraphCache &operator=(const CudaGraphCache &) = delete;

  /// Runs `launch` for the packed arguments `key` (`words` entries) on
  /// `stream`: replays a cached graph, captures one, or launches directly,
  /// as the policy above says. Throws RuntimeError on a CUDA failure.
  GraphRun run(const int64_t *key, size_t words, CUstream stream, Launch launch);

  /// As run(), with any callable `f(CUstream)`.
  template <typename F>
  GraphRun run(const int64_t *key, size_t words, CUstream stream, F &f) {
    return run(key, words, stream,
               Launch{[](void *c, CUstream s) { (*static_cast<F *>(c))(s); }, &f});
  }

  /// Turns graphs on or off (off frees every graph). Turning them on again
  /// also forgets earlier capture failures.
  void setEnabled(bool enabled);
  bool enabled() const { return enabled_; }

  /// Frees every graph and forgets every key.
  void clear();

  size_t size() const { return graphs_.size(); }
  size_t capacity() const { return capacity_; }
  const GraphCacheStats &stats() const { return stats_; }
  /// Why the last capture failed ("" if none did).
  const std::string &lastCaptureError() const { return lastCaptureError_; }

private:
  struct Graph {
    uint64_t thread = 0; ///< serial of the capturing thread
    std::vector<int64_t> key;
    CUgraphExec exec = nullptr;
    uint64_t lastUse = 0;
  };
  /// A key seen once (waiting for its second run) or one that cannot be captured.
  struct SeenKey {
    uint64_t thread = 0;
    std::vector<int64_t> key;
    bool uncapturable = false;
    uint64_t lastUse = 0;
  };

  CUgraph capture(Launch launch);
  void remember(uint64_t thread, const int64_t *key, size_t words);
  void destroyExec(CUgraphExec exec);

  const Driver &d_;
  size_t capacity_;
  bool enabled_;
  uint64_t clock_ = 0;
  CUstream captureStream_ = nullptr;
  std::vector<Graph> graphs_;
  std::vector<SeenKey> seen_;
  GraphCacheStats stats_;
  std::string lastCaptureError_;
};

} // namespace tcc::cuda

#endif // TCC_RUNTIME_CUDAGRAPHCACHE_H
