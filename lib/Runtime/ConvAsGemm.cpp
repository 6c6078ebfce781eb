//===- ConvAsGemm.cpp - a 1x1 channels-last convolution as one GEMM -------===//
#include "ConvAsGemm.h"

#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

namespace tcc {

namespace {
/// Packed NHWC strides (batch, channel, row, column order) of [n, c, h, w].
bool packedNhwc(const std::array<int64_t, 4> &s, int64_t c, int64_t h, int64_t w) {
  return s[1] == 1 && s[3] == c && s[2] == w * c && s[0] == h * w * c;
}
} // namespace

bool convAsGemmApplies(const DepthwiseShape &s, int32_t activations, bool residual) {
  if (s.layout != kConvLayoutNhwc || s.r != 1 || s.s != 1 || s.strideH != 1 ||
      s.strideW != 1 || s.padH != 0 || s.padW != 0 || s.groups != 1 || s.oh != s.h ||
      s.ow != s.w || s.n <= 0 || s.h <= 0 || s.w <= 0 || s.c <= 0 || s.k <= 0)
    return false;
  if (s.dtype != kKernelF32 && s.dtype != kKernelF16 && s.dtype != kKernelBF16)
    return false;
  // The epilogue's activation in bits 0-7, the input's in bits 8-15.
  if (activations != kConvActivationNone &&
      !(activations == kConvActivationRelu && !residual))
    return false;
  return packedNhwc(s.xStrides, s.c, s.h, s.w) && packedNhwc(s.yStrides, s.k, s.h, s.w) &&
         (!residual || packedNhwc(s.zStrides, s.k, s.h, s.w));
}

void launchConvAsGemm(const DepthwiseShape &s, int32_t compute, const void *x, const void *w,
                      const void *bias, const void *z, void *y, int32_t activations,
                      void *stream) {
  int64_t m = s.n * s.h * s.w;
  int32_t epilogue = (bias ? kGemmEpilogueBias : kGemmEpilogueNone) |
                     (activations == kConvActivationRelu ? kGemmEpilogueRelu : 0);
  int32_t gemmCompute = compute == kConvComputeTf32 ? kGemmComputeTf32 : kGemmComputeF32;
  // tcc_gemm reports into the call's error slot; a way timed beside cuDNN's
  // must fail as a RuntimeError instead (and leave the slot as it was).
  if (hasKernelLaunchError())
    throw RuntimeError(TCC_ERROR_INTERNAL, "a GEMM convolution after an earlier failure");
  tcc_gemm(s.dtype, gemmCompute, 1, 1, m, s.k, s.c, x, s.c, 0, 0, /*transA=*/0, w, s.c, 0, 0,
           /*transB=*/1, y, s.k, 0, 0, z, s.k, 0, 0, bias, epilogue, 1.0f, stream);
  if (hasKernelLaunchError())
    throw RuntimeError(TCC_ERROR_INTERNAL, takeKernelLaunchError());
}

} // namespace tcc
