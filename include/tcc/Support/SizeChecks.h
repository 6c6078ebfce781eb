//===- SizeChecks.h - result sizes the export computed, checked per call --===//
//
// torch.export gives each result of a symbolic size an expression over the
// input sizes (`(s53 + 1)//3`), valid only under guards it records beside
// the graph: ceil_mode pooling's `(1 + H) % 3 == 0`. tcc sizes its buffers
// by those expressions, while a convolution or a pooling counts its windows
// from the input's size (tcc/Conversion/WindowCount.h). At a size that
// breaks the guards the two differ: a wrong answer, and a kernel that may
// write past its result (issue 39). tcc-legalize-graph records, for each
// such operator and symbolic result dim, the export's expression and the
// window arithmetic; the manifest carries them ("size_checks",
// docs/ARTIFACT.md) and the runtime refuses a call whose sizes make them
// disagree, before any kernel runs.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_SIZECHECKS_H
#define TCC_SUPPORT_SIZECHECKS_H

#include <cstdint>

namespace tcc {

/// The module attribute of tcc-legalize-graph's records: an array of
/// dictionaries with the manifest entry's keys (operator, where, dim, size,
/// input, kernel, stride, padding, dilation, ceil_mode).
inline constexpr const char *kSizeChecksAttrName = "tcc.size_checks";

/// PyTorch's number of windows (conv_output_size, pooling_output_shape) of
/// `kernel` taps `dilation` apart, `stride` apart, over `in` padded by `pad`
/// on each side; with `ceilMode` the division rounds up, less a last window
/// that would start in the trailing padding. The integer form of
/// tcc::windowCount, which the kernels compute; 0 or less where no window
/// fits.
inline int64_t slidingWindowCount(int64_t in, int64_t kernel, int64_t pad, int64_t stride,
                                  int64_t dilation, bool ceilMode) {
  auto floorDiv = [](int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  };
  int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1;
  if (ceilMode)
    span += stride - 1;
  int64_t steps = floorDiv(span, stride);
  if (ceilMode && steps * stride >= in + pad)
    return steps;
  return steps + 1;
}

} // namespace tcc

#endif // TCC_SUPPORT_SIZECHECKS_H
