//===- EnqueueTiming.h - device time of enqueued library work -------------===//
//
// The runtime's libraries (cuDNN convolutions, cuBLASLt GEMMs) choose among
// their candidate algorithms for a shape by measuring each once, on its
// first call outside stream capture. Shared here so both measure alike.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_ENQUEUETIMING_H
#define TCC_RUNTIME_ENQUEUETIMING_H

#include <functional>

namespace tcc {

/// Device microseconds per `enqueue(stream)`, or a negative value when the
/// driver cannot tell (no events or graphs), +infinity when enqueueing
/// fails with a RuntimeError (that way is never chosen). `enqueue` runs on a
/// private stream: once to load its kernels, then a few times captured into
/// a CUDA graph whose replays are timed with events, so the host's time per
/// call (tens of microseconds, more than many of these kernels take) is not
/// what the events measure. Synchronous.
float timeEnqueues(const std::function<void(void *stream)> &enqueue);

/// Whether work enqueued on `stream` is being captured into a graph (false
/// when the driver cannot tell).
bool isCapturing(void *stream);

} // namespace tcc

#endif // TCC_RUNTIME_ENQUEUETIMING_H
