//===- WinogradConv.h - 3x3 fp32 convolutions as Winograd F(4x4, 3x3) -*- C++ -*-===//
//
// A 3x3 convolution with stride 1 over f32 tensors as F(4x4, 3x3)
// (Kernels/WinogradTransforms.h): one kernel transforms the input tiles and
// the filters into 36 planes each, one cuBLASLt call multiplies the planes
// (tcc_gemm, 36 strided batches of tiles x channels by channels x filters),
// one kernel turns the products into outputs with the epilogue (bias,
// residual, ReLU). Three launches; cuDNN's non-fused Winograd takes four and
// its tiled FFT thirteen (ResNet-18's first stage, b32: 122 us on an H200,
// where cuDNN's one-kernel implicit GEMM takes 254). For fp32 products only
// (--precision fp32): the batched product is an fp32 GEMM. CudnnConv.cpp
// times this way beside cuDNN's and keeps the faster.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_WINOGRADCONV_H
#define TCC_RUNTIME_WINOGRADCONV_H

#include "DepthwiseConv.h"

#include <cstddef>
#include <cstdint>

namespace tcc {

/// Whether it computes the convolution: f32 with fp32 products (`compute`
/// kConvComputeF32), a 3x3 window, stride and dilation 1, one group, no
/// activation on the input and none or ReLU after (`activations` as
/// tcc_conv2d's), channels-last tensors with packed pixels (as cuDNN takes
/// them) or NCHW ones with any strides, and planes within 2^31 elements.
bool winogradConvApplies(const DepthwiseShape &shape, int32_t compute, int32_t activations);

/// The workspace launchWinogradConv needs: the three sets of 36 planes.
size_t winogradConvWorkspaceBytes(const DepthwiseShape &shape);

/// Enqueues y = act(conv(x, w) + bias + z) on `stream` (bias, z may be null;
/// z may be y) in `workspace` (winogradConvWorkspaceBytes). Throws a
/// RuntimeError if a launch or cuBLASLt fails.
void launchWinogradConv(const DepthwiseShape &shape, const void *x, const void *w,
                        const void *bias, const void *z, void *y, int32_t activations,
                        void *workspace, void *stream);

} // namespace tcc

#endif // TCC_RUNTIME_WINOGRADCONV_H
