//===- CudaGraphCache.cpp - replay a model's launches as CUDA graphs ------===//
#include "tcc/Runtime/CudaGraphCache.h"

#include "tcc/Runtime/RuntimeError.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace tcc::cuda {

namespace {

bool sameKey(const std::vector<int64_t> &stored, const int64_t *key, size_t words) {
  return stored.size() == words && std::memcmp(stored.data(), key, words * sizeof(int64_t)) == 0;
}

/// This thread's serial number: unlike std::thread::id, never reused.
uint64_t threadSerial() {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t serial = next.fetch_add(1, std::memory_order_relaxed);
  return serial;
}

} // namespace

CudaGraphCache::CudaGraphCache(const Driver &driver, size_t capacity)
    : d_(driver), capacity_(std::max<size_t>(capacity, 1)), enabled_(driver.hasGraphs()) {}

CudaGraphCache::~CudaGraphCache() {
  clear();
  if (captureStream_)
    (void)d_.cuStreamDestroy(captureStream_);
}

void CudaGraphCache::destroyExec(CUgraphExec exec) {
  // An executable still in flight is freed by the driver when it completes.
  if (exec)
    (void)d_.cuGraphExecDestroy(exec);
}

void CudaGraphCache::clear() {
  for (Graph &g : graphs_)
    destroyExec(g.exec);
  graphs_.clear();
  seen_.clear();
}

void CudaGraphCache::setEnabled(bool enabled) {
  enabled = enabled && d_.hasGraphs();
  if (!enabled)
    clear();
  else if (!enabled_)
    stats_.captureFailures = 0;
  enabled_ = enabled;
}

void CudaGraphCache::remember(uint64_t thread, const int64_t *key, size_t words) {
  if (seen_.size() >= capacity_) {
    auto oldest = std::min_element(seen_.begin(), seen_.end(),
                                   [](const SeenKey &a, const SeenKey &b) {
                                     return a.lastUse < b.lastUse;
                                   });
    seen_.erase(oldest);
  }
  seen_.push_back({thread, std::vector<int64_t>(key, key + words), false, clock_});
}

CUgraph CudaGraphCache::capture(Launch launch) {
  if (!captureStream_) {
    CUresult r = d_.cuStreamCreate(&captureStream_, /*CU_STREAM_NON_BLOCKING=*/1);
    if (r != 0) {
      captureStream_ = nullptr;
      lastCaptureError_ = "cuStreamCreate: " + d_.errorText(r);
      return nullptr;
    }
  }
  // Thread-local mode: a call on this thread that cannot be captured (a
  // synchronous copy, an allocation) fails the capture instead of running.
  CUresult r = d_.cuStreamBeginCapture(captureStream_, kCaptureModeThreadLocal);
  if (r != 0) {
    lastCaptureError_ = "cuStreamBeginCapture: " + d_.errorText(r);
    return nullptr;
  }
  std::string failure;
  try {
    launch(captureStream_);
  } catch (const std::exception &e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  // Always end the capture: the stream must leave capture mode.
  CUgraph graph = nullptr;
  r = d_.cuStreamEndCapture(captureStream_, &graph);
  if (failure.empty() && (r != 0 || !graph))
    failure = "cuStreamEndCapture: " + d_.errorText(r);
  if (!failure.empty()) {
    if (graph)
      (void)d_.cuGraphDestroy(graph);
    lastCaptureError_ = failure;
    return nullptr;
  }
  return graph;
}

GraphRun CudaGraphCache::run(const int64_t *key, size_t words, CUstream stream, Launch launch) {
  auto direct = [&] {
    launch(stream);
    ++stats_.direct;
    return GraphRun::Direct;
  };
  if (!enabled_)
    return direct();
  ++clock_;
  uint64_t thread = threadSerial();

  // The hot path: a graph for exactly these arguments, on this thread.
  for (Graph &g : graphs_)
    if (g.thread == thread && sameKey(g.key, key, words)) {
      g.lastUse = clock_;
      CUresult r = d_.cuGraphLaunch(g.exec, stream);
      if (r != 0)
        d_.check(r, "cuGraphLaunch");
      ++stats_.replays;
      return GraphRun::Replayed;
    }

  // The caller is capturing its stream: join its capture with plain launches.
  int status = kCaptureStatusNone;
  if (d_.cuStreamIsCapturing(stream, &status) != 0 || status != kCaptureStatusNone)
    return direct();

  auto seen = std::find_if(seen_.begin(), seen_.end(),
                           [&](const SeenKey &s) {
                             return s.thread == thread && sameKey(s.key, key, words);
                           });
  if (seen == seen_.end()) {
    remember(thread, key, words); // captured if it comes again
    return direct();
  }
  seen->lastUse = clock_;
  if (seen->uncapturable)
    return direct();

  CUgraph graph = capture(launch);
  if (!graph) {
    seen->uncapturable = true;
    if (++stats_.captureFailures >= kMaxCaptureFailures)
      setEnabled(false);
    return direct(); // nothing ran during the capture; a real error shows here
  }
  seen_.erase(seen);

  // A slot: a free one, or the least recently used graph's executable,
  // updated in place when the new graph has the same topology.
  CUgraphExec exec = nullptr;
  Graph *slot = nullptr;
  if (graphs_.size() >= capacity_) {
    slot = &*std::min_element(graphs_.begin(), graphs_.end(),
                              [](const Graph &a, const Graph &b) { return a.lastUse < b.lastUse; });
    alignas(16) unsigned char resultInfo[64] = {}; // CUgraphExecUpdateResultInfo
    if (d_.cuGraphExecUpdate(slot->exec, graph, resultInfo) == 0) {
      exec = slot->exec;
      ++stats_.updates;
    } else {
      destroyExec(slot->exec);
    }
    slot->exec = nullptr;
  }
  CUresult r = 0;
  if (!exec)
    r = d_.cuGraphInstantiateWithFlags(&exec, graph, 0);
  (void)d_.cuGraphDestroy(graph); // the executable is independent of it
  if (r != 0 || !exec) {
    if (slot)
      graphs_.erase(graphs_.begin() + (slot - graphs_.data()));
    lastCaptureError_ = "cuGraphInstantiate: " + d_.errorText(r);
    remember(thread, key, words);
    seen_.back().uncapturable = true;
    if (++stats_.captureFailures >= kMaxCaptureFailures)
      setEnabled(false);
    return direct();
  }
  if (!slot) {
    graphs_.emplace_back();
    slot = &graphs_.back();
  }
  slot->thread = thread;
  slot->key.assign(key, key + words);
  slot->exec = exec;
  slot->lastUse = clock_;
  ++stats_.captures;
  d_.check(d_.cuGraphLaunch(exec, stream), "cuGraphLaunch");
  return GraphRun::Captured;
}

} // namespace tcc::cuda
