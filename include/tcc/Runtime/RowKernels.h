//===- RowKernels.h - softmax and normalizations, one pass per row --------===//
//
// The CUDA lowering of `tcc_kernel.row` calls tcc_row, which runs one kernel
// of tcc's kernel library (Kernels/Rows.cu): each row is read once (with its
// residual, when one is fused in), reduced and written once.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_ROWKERNELS_H
#define TCC_RUNTIME_ROWKERNELS_H

#include "tcc/Runtime/KernelTypes.h"

#include <cstdint>

namespace tcc {

/// What tcc_row computes over each row. The values are the ABI.
enum RowKind : int32_t {
  kRowSoftmax = 0,    ///< exp(h - max) / sum
  kRowLogSoftmax = 1, ///< (h - max) - log(sum exp(h - max))
  kRowLayerNorm = 2,  ///< (h - mean) · rsqrt(var + eps) [· weight] [+ bias]
  kRowRmsNorm = 3,    ///< h · rsqrt(mean(h²) + eps) [· weight]
};

} // namespace tcc

extern "C" {

/// For each of `rows` rows of `n` elements:
///
///   h   = x + residual (when `residual` is non-null), else x
///   out = kind(h) as above
///
/// x, residual and sumOut have element type `inDType`, out has `outDType`,
/// weight and bias `paramDType`. Arithmetic is fp32. As PyTorch computes the
/// same graph: h is rounded to `inDType` before it is used (and written to
/// `sumOut` when that is non-null: the residual stream a later layer reads);
/// layer_norm's variance is the biased one; for rms_norm, h · rsqrt(..) is
/// rounded to `inDType` before the weight multiplies it. Rows are addressed
/// as base + row · stride with contiguous elements; pointers need only
/// element alignment. Enqueued on `stream`; failures are recorded, never
/// thrown.
///
/// Softmax of a row that is all -inf gives NaN, as PyTorch's does; eps is
/// used by the norms only. weight and bias may each be null; softmax takes
/// neither and rms_norm no bias (recorded as errors), and paramDType is only
/// read when one is given. Input strides are free (0 broadcasts a row); the
/// rows of out and sumOut must not overlap (|stride| ≥ n when rows > 1).
/// sumOut may alias x, and out may alias x or residual (each element is read
/// before it is written, by the same thread). 1 ≤ n ≤ 2^30; rows = 0 or
/// n = 0 does nothing. A call while an earlier failure is pending on this
/// thread returns at once.
void tcc_row(int32_t kind, int32_t inDType, int32_t outDType, int32_t paramDType, int64_t rows,
             int64_t n, const void *x, int64_t xStride, const void *residual,
             int64_t residualStride, void *sumOut, int64_t sumStride, const void *weight,
             const void *bias, float eps, void *out, int64_t outStride, void *stream);

} // extern "C"

#endif // TCC_RUNTIME_ROWKERNELS_H
