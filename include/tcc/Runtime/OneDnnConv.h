//===- OneDnnConv.h - the CPU path's f32 convolutions on oneDNN -----------===//
//
// tcc_cpu_conv2d (CpuGemm.h) runs each f32 convolution through oneDNN's
// convolution primitive when the library is there: bias, a residual (a
// binary-add post-op) and the activation (an eltwise post-op) in the same
// pass over the result, images read and written through their own strides
// (channels-last, NCHW, or channel slices of a larger buffer alike). Images
// that are not channels-last (a model compiled for CUDA too keeps NCHW) are
// reordered into packed NHWC around the primitive, and an input activation
// is applied to that copy.
// oneDNN's fastest kernels want the filter in a blocked layout of their own:
// a filter that is a bound weight is reordered once and kept until weights
// are bound again (boundWeightsChanged); any other filter is reordered on
// every call. Primitives are created once per shape and kept for the process.
//
// Measured on one core of the 2-core build machine (AVX-512), a 3x3
// convolution 64->64 channels on 56x56 takes 2.0 ms channels-last
// (brgconv), 3.0 ms NCHW (an im2col GEMM), 2.1 ms in PyTorch; a depthwise
// 3x3 on 144x56x56 0.13 ms channels-last against PyTorch's 0.30 ms.
//
// oneDNN (Debian: libdnnl2, `scripts/setup.sh` installs it) is opened with
// dlopen on the first convolution: model.so loads without it, and the first
// convolution then says once on stderr that tcc's own loops run instead,
// much slower. TCC_DNNL_LIBRARY names another library (a path or soname;
// "none" takes none); TCC_NUM_THREADS sets the number of threads oneDNN
// uses (default: OpenMP's, every core the process may use).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_ONEDNNCONV_H
#define TCC_RUNTIME_ONEDNNCONV_H

#include <cstdint>

namespace tcc::cpu {

/// One f32 convolution, as tcc_cpu_conv2d receives it (CudnnConv.h's
/// tcc_conv2d contract): strides in elements, in N, C, H, W order.
struct ConvArgs {
  int64_t n, c, h, w, k, r, s, oh, ow, padH, padW, strideH, strideW, dilationH, dilationW,
      groups;
  int64_t xStrides[4], yStrides[4], zStrides[4];
  const float *x, *weight, *bias, *z; ///< bias and z may be null; z may be y
  float *y;
  int32_t activation;       ///< a ConvActivation, applied last
  int32_t inputActivation;  ///< a ConvActivation applied to each input element first
  bool filterNhwc;          ///< the filter is k×r×s×(c/groups), else k×(c/groups)×r×s
  bool filterIsBoundWeight; ///< its values change only when weights are bound
};

/// Computes the convolution with oneDNN. False (nothing written) where
/// oneDNN is missing or has no primitive for it: the caller's loops run.
bool oneDnnConv2d(const ConvArgs &args);

/// Bound weights changed (bound, loaded or derived again): filters kept in
/// oneDNN's layout are reordered from their weights on their next call.
void boundWeightsChanged();

} // namespace tcc::cpu

#endif // TCC_RUNTIME_ONEDNNCONV_H
