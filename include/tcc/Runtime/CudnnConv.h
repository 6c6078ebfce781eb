//===- CudnnConv.h - 2-D convolutions of the CUDA path through cuDNN 9 ----===//
//
// tcc-gpu-library-conv (lib/Transforms/GpuLibraryConv.cpp) replaces each
// linalg.conv_2d_nchw_fchw / linalg.conv_2d_ngchw_gfchw of the CUDA path's
// planned program with a call of `tcc_conv2d_f32`, implemented in
// lib/Runtime/CudnnConv.cpp on cuDNN 9's convolution API, opened with dlopen
// on the first convolution (model.so still loads, and runs its CPU path,
// without cuDNN).
//
// Errors are reported as tcc_gemm_f32's are (CublasLtGemm.h): recorded in
// the per-thread slot of kernel launch failures (MlirGpuRuntime.h), the rest
// of the call skipped, a RuntimeError when the CUDA entry returns.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CUDNNCONV_H
#define TCC_RUNTIME_CUDNNCONV_H

#include <cstdint>

namespace tcc {

/// Arithmetic of the products: fp32 only (CUDNN_FMA_MATH), or TF32 allowed
/// (CUDNN_DEFAULT_MATH, `--precision tf32`). The ABI between pass and runtime.
enum ConvCompute : int32_t {
  kConvComputeF32 = 0,
  kConvComputeTf32 = 1,
};

/// The layout of tcc_conv2d's tensors: NCHW (filters FCRS) or NHWC (filters FRSC).
enum ConvLayout : int32_t {
  kConvLayoutNchw = 0,
  kConvLayoutNhwc = 1,
};

/// The activation of tcc_conv2d's epilogue.
enum ConvActivation : int32_t {
  kConvActivationNone = 0,
  kConvActivationRelu = 1,
};

} // namespace tcc

extern "C" {

/// A cross-correlation (PyTorch's conv2d) without padding: the input arrives
/// already padded (tcc lowers padding to a separate copy).
///
///   y[n, f, oh, ow] = sum_{ci, i, j} x[n, g·C/G + ci, oh·sh + i·dh, ow·sw + j·dw]
///                                   · w[f, ci, i, j]
///                     + (accumulate ? y[n, f, oh, ow] : 0),   g = f / (F/G)
///
///   x: n×c×h×w, w: f×(c/groups)×kh×kw, y: n×f×oh×ow, all contiguous NCHW
///   (PyTorch's grouped weight is group-major: rows g·F/G .. (g+1)·F/G - 1).
///
/// oh, ow must be floor((h - dh·(kh-1) - 1) / sh) + 1 (and likewise for w).
/// All pointers are device pointers; the work is enqueued on `stream` (a
/// CUstream, NULL for the legacy default stream); nothing is synchronized.
void tcc_conv2d_f32(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t kh,
                    int64_t kw, int64_t oh, int64_t ow, int64_t strideH, int64_t strideW,
                    int64_t dilationH, int64_t dilationW, int64_t groups, const float *x,
                    const float *weight, float *y, int32_t accumulate, int32_t compute,
                    void *stream);

} // extern "C"

#endif // TCC_RUNTIME_CUDNNCONV_H
