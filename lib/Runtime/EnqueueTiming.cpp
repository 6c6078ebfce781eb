//===- EnqueueTiming.cpp - device time of enqueued library work -----------===//
#include "tcc/Runtime/EnqueueTiming.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/RuntimeError.h"

#include <algorithm>
#include <limits>
#include <vector>

using namespace tcc;

float tcc::timeEnqueues(const std::function<void(void *stream)> &enqueue) {
  const cuda::Driver &d = cuda::Driver::get();
  if (!d.hasEvents() || !d.hasGraphs())
    return -1.0f;
  constexpr int kCallsPerGraph = 4, kReplays = 3;
  cuda::CUstream timing = nullptr;
  cuda::CUgraph graph = nullptr;
  cuda::CUgraphExec exec = nullptr;
  cuda::CUevent start = nullptr, stop = nullptr;
  float result = std::numeric_limits<float>::infinity();
  try {
    d.check(d.cuStreamCreate(&timing, /*CU_STREAM_NON_BLOCKING=*/1), "cuStreamCreate");
    enqueue(timing); // loads its kernels
    d.check(d.cuStreamSynchronize(timing), "cuStreamSynchronize");
    d.check(d.cuStreamBeginCapture(timing, cuda::kCaptureModeThreadLocal), "cuStreamBeginCapture");
    try {
      for (int i = 0; i < kCallsPerGraph; ++i)
        enqueue(timing);
    } catch (...) {
      (void)d.cuStreamEndCapture(timing, &graph);
      throw;
    }
    d.check(d.cuStreamEndCapture(timing, &graph), "cuStreamEndCapture");
    d.check(d.cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiateWithFlags");
    d.check(d.cuEventCreate(&start, 0), "cuEventCreate");
    d.check(d.cuEventCreate(&stop, 0), "cuEventCreate");
    d.check(d.cuGraphLaunch(exec, timing), "cuGraphLaunch");
    std::vector<float> times;
    for (int i = 0; i < kReplays; ++i) {
      d.check(d.cuEventRecord(start, timing), "cuEventRecord");
      d.check(d.cuGraphLaunch(exec, timing), "cuGraphLaunch");
      d.check(d.cuEventRecord(stop, timing), "cuEventRecord");
      d.check(d.cuEventSynchronize(stop), "cuEventSynchronize");
      float ms = 0;
      d.check(d.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
      times.push_back(ms * 1000.0f / kCallsPerGraph);
    }
    std::sort(times.begin(), times.end());
    result = times[times.size() / 2];
  } catch (const RuntimeError &) {
  }
  if (start) (void)d.cuEventDestroy(start);
  if (stop) (void)d.cuEventDestroy(stop);
  if (exec) (void)d.cuGraphExecDestroy(exec);
  if (graph) (void)d.cuGraphDestroy(graph);
  if (timing) {
    (void)d.cuStreamSynchronize(timing);
    (void)d.cuStreamDestroy(timing);
  }
  return result;
}

bool tcc::isCapturing(void *stream) {
  const cuda::Driver &d = cuda::Driver::get();
  if (!d.cuStreamIsCapturing)
    return false;
  int status = 0;
  if (d.cuStreamIsCapturing(static_cast<cuda::CUstream>(stream), &status) != 0)
    return false;
  return status != 0; // CU_STREAM_CAPTURE_STATUS_NONE
}
