//===- ConvAsGemm.h - convolutions as cuBLASLt GEMMs -------------*- C++ -*-===//
//
// A 1x1 convolution with stride 1, no padding and one group, over packed
// channels-last (NHWC) tensors, is the product of the [N·H·W, C] input by
// the [K, C] weight transposed, with the bias, a ReLU or a residual in
// cuBLASLt's epilogue (tcc_gemm, CublasLtGemm.h). cuDNN's legacy API offers
// only its fused implicit-GEMM algorithm for a bias epilogue, or separate
// passes for bias and residual: on an H200 it ran EfficientNet's 1x1 bf16
// expansions at 14x14 in 30-57 us on a SIMT kernel. CudnnConv.cpp times this
// way beside cuDNN's and keeps the faster.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CONVASGEMM_H
#define TCC_RUNTIME_CONVASGEMM_H

#include "DepthwiseConv.h"

#include <cstddef>
#include <cstdint>

namespace tcc {

/// Whether one GEMM computes it: 1x1, stride 1, no padding, one group,
/// channels-last with packed images (channels innermost, then columns,
/// rows, batch), epilogue activation none or ReLU (`activations` as
/// tcc_conv2d's, the input's none), and not a ReLU with a residual.
bool convAsGemmApplies(const DepthwiseShape &shape, int32_t activations, bool residual);

/// Enqueues y = act(x · wᵀ + bias) + z on `stream` as tcc_gemm (bias, z may
/// be null; z may be y). `compute` as tcc_conv2d's (ConvCompute). Throws a
/// RuntimeError if cuBLASLt fails.
void launchConvAsGemm(const DepthwiseShape &shape, int32_t compute, const void *x,
                      const void *w, const void *bias, const void *z, void *y,
                      int32_t activations, void *stream);

/// Whether the windows-as-rows product computes it (Kernels/Im2col.cu): a
/// window larger than 1x1 over at most kIm2colMaxTerms (R*S*C) terms, one
/// group, channels-last, the output (and residual) packed, the epilogue as
/// convAsGemmApplies takes it. For a network's first layer (3 channels),
/// where cuDNN's kernels are slow.
constexpr int64_t kIm2colMaxTerms = 256; // Im2colParams.h's kMaxRowLength
bool im2colGemmApplies(const DepthwiseShape &shape, int32_t activations, bool residual);

/// The workspace launchIm2colGemm needs: the padded filters and the windows
/// of as many images as fit kIm2colChunkBytes (at least one).
constexpr int64_t kIm2colChunkBytes = int64_t(24) << 20;
size_t im2colGemmWorkspaceBytes(const DepthwiseShape &shape);

/// Enqueues y = act(windows(x) · paddedFiltersᵀ + bias) + z on `stream`: per
/// chunk of images, tcc_im2col into `workspace`, then tcc_gemm. Throws a
/// RuntimeError if a launch or cuBLASLt fails.
void launchIm2colGemm(const DepthwiseShape &shape, int32_t compute, const void *x,
                      const void *w, const void *bias, const void *z, void *y,
                      int32_t activations, void *workspace, void *stream);

} // namespace tcc

#endif // TCC_RUNTIME_CONVASGEMM_H
