//===- ConvAsGemm.cpp - convolutions as cuBLASLt GEMMs --------------------===//
#include "ConvAsGemm.h"

#include "Kernels/Im2colParams.h"

#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace tcc {

static_assert((kIm2colMaxTerms + 7) / 8 * 8 <= tcc_im2col::kMaxRowLength,
              "tcc_im2col's term table holds every row");

namespace {
/// Packed NHWC strides (batch, channel, row, column order) of [n, c, h, w].
bool packedNhwc(const std::array<int64_t, 4> &s, int64_t c, int64_t h, int64_t w) {
  return packedChannelsLastPixels(s, c, w) && s[0] == h * w * c;
}

/// Epilogue activations the GEMM applies (the input's must be none): none,
/// or ReLU without a residual (cuBLASLt adds the residual after it).
bool gemmEpilogueTakes(int32_t activations, bool residual) {
  return activations == kConvActivationNone ||
         (activations == kConvActivationRelu && !residual);
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
  if (!gemmEpilogueTakes(activations, residual))
    return false;
  return packedNhwc(s.xStrides, s.c, s.h, s.w) && packedNhwc(s.yStrides, s.k, s.h, s.w) &&
         (!residual || packedNhwc(s.zStrides, s.k, s.h, s.w));
}

namespace {
/// Window terms rounded up to whole 16-byte vectors of any element type.
int64_t im2colRowLength(const DepthwiseShape &s) { return (s.r * s.s * s.c + 7) / 8 * 8; }

int64_t filterBytes(const DepthwiseShape &s) {
  // 256-byte aligned: the windows follow.
  return (s.k * im2colRowLength(s) * kernelDTypeBytes(s.dtype) + 255) / 256 * 256;
}

int64_t imagesPerChunk(const DepthwiseShape &s) {
  int64_t perImage = s.oh * s.ow * im2colRowLength(s) * kernelDTypeBytes(s.dtype);
  return std::max<int64_t>(1, std::min<int64_t>(s.n, kIm2colChunkBytes / perImage));
}
} // namespace

bool im2colGemmApplies(const DepthwiseShape &s, int32_t activations, bool residual) {
  if (s.layout != kConvLayoutNhwc || s.groups != 1 || s.r * s.s <= 1 ||
      s.r * s.s * s.c > kIm2colMaxTerms || s.n <= 0 || s.c <= 0 || s.k <= 0 || s.oh <= 0 ||
      s.ow <= 0 || s.oh * s.ow * s.r >= INT32_MAX || s.h >= INT32_MAX || s.w >= INT32_MAX)
    return false;
  if (s.dtype != kKernelF32 && s.dtype != kKernelF16 && s.dtype != kKernelBF16)
    return false;
  return gemmEpilogueTakes(activations, residual) && packedNhwc(s.yStrides, s.k, s.oh, s.ow) &&
         (!residual || packedNhwc(s.zStrides, s.k, s.oh, s.ow));
}

size_t im2colGemmWorkspaceBytes(const DepthwiseShape &s) {
  return static_cast<size_t>(filterBytes(s) + imagesPerChunk(s) * s.oh * s.ow *
                                                  im2colRowLength(s) *
                                                  kernelDTypeBytes(s.dtype));
}

void launchIm2colGemm(const DepthwiseShape &s, int32_t compute, const void *x, const void *w,
                      const void *bias, const void *z, void *y, int32_t activations,
                      void *workspace, void *stream) {
  using tcc_im2col::Im2colParams;
  if (hasKernelLaunchError())
    throw RuntimeError(TCC_ERROR_INTERNAL, "an im2col convolution after an earlier failure");
  const int64_t bytes = kernelDTypeBytes(s.dtype), rowLength = im2colRowLength(s);
  Im2colParams p{};
  p.x = x;
  p.w = w;
  p.wPadded = workspace;
  p.cols = static_cast<char *>(workspace) + filterBytes(s);
  setWindowGeometry(p, s);
  p.terms = static_cast<int32_t>(s.r * s.s * s.c);
  p.rowLength = static_cast<int32_t>(rowLength);
  p.k = static_cast<int32_t>(s.k);
  const bool halves = bytes == 2;
  void *args[] = {&p};
  auto launch = [&](const char *name, int64_t threads) {
    cuda::CUfunction f = kernelLibraryFunction(KernelImage::Im2col, name);
    int64_t blocks = (threads + tcc_im2col::kThreads - 1) / tcc_im2col::kThreads;
    launchLibraryKernel(f, name, static_cast<unsigned>(blocks), 1, 1, tcc_im2col::kThreads, 0,
                        stream, args);
  };
  launch(halves ? "tcc_pad_rows_b2" : "tcc_pad_rows_b4", s.k * rowLength);
  int32_t epilogue = (bias ? kGemmEpilogueBias : kGemmEpilogueNone) |
                     (activations == kConvActivationRelu ? kGemmEpilogueRelu : 0);
  int32_t gemmCompute = compute == kConvComputeTf32 ? kGemmComputeTf32 : kGemmComputeF32;
  const int64_t chunk = imagesPerChunk(s);
  for (int64_t n0 = 0; n0 < s.n; n0 += chunk) {
    const int64_t images = std::min(chunk, s.n - n0);
    p.firstImage = static_cast<int32_t>(n0);
    p.images = static_cast<int32_t>(images);
    // A warp per pixel, 8 pixels per warp (one per warp: 35 instead of 25 us
    // per chunk of ResNet's stem on an H200).
    launch(halves ? "tcc_im2col_b2" : "tcc_im2col_b4", (images * s.oh * s.ow + 7) / 8 * 32);
    char *yChunk = static_cast<char *>(y) + n0 * s.yStrides[0] * bytes;
    const char *zChunk = z ? static_cast<const char *>(z) + n0 * s.zStrides[0] * bytes : nullptr;
    tcc_gemm(s.dtype, gemmCompute, 1, 1, images * s.oh * s.ow, s.k, rowLength, p.cols, rowLength,
             0, 0, /*transA=*/0, p.wPadded, rowLength, 0, 0, /*transB=*/1, yChunk, s.k, 0, 0,
             zChunk, s.k, 0, 0, bias, epilogue, 1.0f, stream);
    if (hasKernelLaunchError())
      throw RuntimeError(TCC_ERROR_INTERNAL, takeKernelLaunchError());
  }
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
