//===- WinogradConv.cpp - 3x3 fp32 convolutions as Winograd F(4x4, 3x3) ---===//
#include "WinogradConv.h"

#include "Kernels/WinogradParams.h"

#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/KernelLibrary.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

#include <array>
#include <climits>
#include <cstdint>

namespace tcc {

namespace {

using tcc_winograd::kThreads;
constexpr int64_t kElements = 36, kOut = 4;

int64_t tiles(const DepthwiseShape &s) {
  return s.n * ((s.oh + kOut - 1) / kOut) * ((s.ow + kOut - 1) / kOut);
}

/// Bytes of `elements` floats, rounded up to 256 (each set of planes is
/// aligned for cuBLASLt).
int64_t planeSetBytes(int64_t elements) { return (elements * 4 + 255) / 256 * 256; }

/// Rows of an NCHW tensor that start 16-byte aligned with packed columns.
bool rowsOfFour(const void *base, const std::array<int64_t, 4> &st) {
  return reinterpret_cast<uintptr_t>(base) % 16 == 0 && st[3] == 1 && st[2] % 4 == 0 &&
         st[1] % 4 == 0 && st[0] % 4 == 0;
}

} // namespace

bool winogradConvApplies(const DepthwiseShape &s, int32_t compute, int32_t activations) {
  if (s.dtype != kKernelF32 || compute != kConvComputeF32 || s.r != 3 || s.s != 3 ||
      s.strideH != 1 || s.strideW != 1 || s.dilationH != 1 || s.dilationW != 1 ||
      s.groups != 1 || s.n <= 0 || s.c <= 0 || s.k <= 0 || s.oh <= 0 || s.ow <= 0)
    return false;
  const int32_t epilogue = convEpilogueActivation(activations);
  if (convInputActivation(activations) != kConvActivationNone ||
      (epilogue != kConvActivationNone && epilogue != kConvActivationRelu))
    return false;
  // Every index within int32 but the planes' (int64 in the kernels).
  if (s.c > INT_MAX / 9 || s.k > INT_MAX || s.h > INT_MAX / 2 || s.w > INT_MAX / 2 ||
      s.padH > INT_MAX / 4 || s.padW > INT_MAX / 4 || s.n > INT_MAX)
    return false;
  const int64_t t = tiles(s);
  if (t * kElements * std::max(s.c, s.k) > (int64_t(1) << 31) || kElements * s.k * s.c > INT_MAX)
    return false;
  if (s.layout == kConvLayoutNhwc)
    return packedChannelsLastPixels(s.xStrides, s.c, s.w) &&
           packedChannelsLastPixels(s.yStrides, s.k, s.ow) &&
           (s.zStrides == std::array<int64_t, 4>{0, 0, 0, 0} ||
            packedChannelsLastPixels(s.zStrides, s.k, s.ow));
  return true;
}

size_t winogradConvWorkspaceBytes(const DepthwiseShape &s) {
  const int64_t t = tiles(s);
  return static_cast<size_t>(planeSetBytes(kElements * t * s.c) +
                             planeSetBytes(kElements * s.k * s.c) +
                             planeSetBytes(kElements * t * s.k));
}

void launchWinogradConv(const DepthwiseShape &s, const void *x, const void *w,
                        const void *bias, const void *z, void *y, int32_t activations,
                        void *workspace, void *stream) {
  using tcc_winograd::WinogradParams;
  if (hasKernelLaunchError())
    throw RuntimeError(TCC_ERROR_INTERNAL, "a Winograd convolution after an earlier failure");
  const int64_t t = tiles(s);
  WinogradParams p{};
  p.x = static_cast<const float *>(x);
  p.w = static_cast<const float *>(w);
  p.bias = static_cast<const float *>(bias);
  p.z = static_cast<const float *>(z);
  p.y = static_cast<float *>(y);
  char *ws = static_cast<char *>(workspace);
  p.v = reinterpret_cast<float *>(ws);
  p.u = reinterpret_cast<float *>(ws + planeSetBytes(kElements * t * s.c));
  p.m = reinterpret_cast<float *>(ws + planeSetBytes(kElements * t * s.c) +
                                  planeSetBytes(kElements * s.k * s.c));
  for (int i = 0; i < 4; ++i) {
    p.xStrides[i] = s.xStrides[i];
    p.yStrides[i] = s.yStrides[i];
    p.zStrides[i] = z ? s.zStrides[i] : 0;
  }
  p.n = static_cast<int32_t>(s.n);
  p.c = static_cast<int32_t>(s.c);
  p.h = static_cast<int32_t>(s.h);
  p.w_ = static_cast<int32_t>(s.w);
  p.k = static_cast<int32_t>(s.k);
  p.oh = static_cast<int32_t>(s.oh);
  p.ow = static_cast<int32_t>(s.ow);
  p.padH = static_cast<int32_t>(s.padH);
  p.padW = static_cast<int32_t>(s.padW);
  p.tilesH = static_cast<int32_t>((s.oh + kOut - 1) / kOut);
  p.tilesW = static_cast<int32_t>((s.ow + kOut - 1) / kOut);
  p.filterNhwc = s.layout == kConvLayoutNhwc ? 1 : 0;
  p.channelMajor = s.layout == kConvLayoutNhwc ? 0 : 1;
  if (p.channelMajor) {
    p.vectorInput = s.padW == 1 && s.w % kOut == 0 && rowsOfFour(x, s.xStrides) ? 1 : 0;
    p.vectorOutput =
        s.ow % kOut == 0 && rowsOfFour(y, s.yStrides) && (!z || rowsOfFour(z, s.zStrides)) ? 1
                                                                                              : 0;
  }
  p.relu = convEpilogueActivation(activations) == kConvActivationRelu ? 1 : 0;
  auto blocks = [](int64_t threads) { return (threads + kThreads - 1) / kThreads; };
  p.inputBlocks = blocks(t * s.c);
  void *args[] = {&p};
  const char *transform = "tcc_winograd_transform_f32";
  launchLibraryKernel(kernelLibraryFunction(KernelImage::Winograd, transform), transform,
                      static_cast<unsigned>(p.inputBlocks + blocks(s.k * s.c)), 1, 1, kThreads,
                      0, stream, args);
  if (p.channelMajor) // m[ξ] = u[ξ] · v[ξ]: [k, c] by [c, tiles], 36 batches
    tcc_gemm(kKernelF32, kGemmComputeF32, kElements, 1, s.k, t, s.c, p.u, s.c, s.k * s.c, 0,
             /*transA=*/0, p.v, t, t * s.c, 0, /*transB=*/0, p.m, t, t * s.k, 0, nullptr, 0, 0,
             0, nullptr, kGemmEpilogueNone, 1.0f, stream);
  else // m[ξ] = v[ξ] · u[ξ]ᵀ: [tiles, c] by [k, c] transposed
    tcc_gemm(kKernelF32, kGemmComputeF32, kElements, 1, t, s.k, s.c, p.v, s.c, t * s.c, 0,
             /*transA=*/0, p.u, s.c, s.k * s.c, 0, /*transB=*/1, p.m, s.k, t * s.k, 0, nullptr,
             0, 0, 0, nullptr, kGemmEpilogueNone, 1.0f, stream);
  if (hasKernelLaunchError())
    throw RuntimeError(TCC_ERROR_INTERNAL, takeKernelLaunchError());
  const char *output = "tcc_winograd_output_f32";
  launchLibraryKernel(kernelLibraryFunction(KernelImage::Winograd, output), output,
                      static_cast<unsigned>(blocks(t * s.k)), 1, 1, kThreads, 0, stream, args);
}

} // namespace tcc
