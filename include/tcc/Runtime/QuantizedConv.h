//===- QuantizedConv.h - the CPU path's int8 convolutions and linears -----===//
//
// A bufferized tcc_kernel.qconv (PT2E's dequantize → conv2d/linear →
// [relu] → [quantize], formed for the CPU path) is one call of
// tcc_cpu_qconv2d. It runs oneDNN's int8 convolution where oneDNN is there
// and the filters' zero points are all 0 (symmetric weights, as
// X86InductorQuantizer makes them): u8 or s8 images times s8 filters
// accumulated in s32, the input's zero point subtracted by oneDNN, the
// per-filter scales as output scales, bias, a residual and ReLU or the exact
// GELU as post-ops, and the
// requantization (× inverse scale + zero point, clip to the recorded range,
// round half to even, saturate) as post-ops into a u8/s8 result, or f32
// without. Filters that are bound weights are reordered into oneDNN's layout
// once per binding. Elsewhere tcc's own loops compute the same in PyTorch's
// order: the i32 sums, then v = acc · scale + bias, ReLU, and
// clamp(nearbyint(v · inverse scale) + zero point).
//
// The results match PyTorch's reference (the QDQ graph in f32) within one
// quantization step: the int8 sums are exact where f32 rounds, and oneDNN
// adds the zero point before rounding.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_QUANTIZEDCONV_H
#define TCC_RUNTIME_QUANTIZEDCONV_H

#include <cstdint>

namespace tcc {
/// tcc_cpu_qconv2d's flags.
enum QConvFlags : int32_t {
  kQConvInputSigned = 1,      ///< the input is s8, else u8
  kQConvRequantize = 2,       ///< the result is u8/s8 (else f32)
  kQConvOutputSigned = 4,     ///< with kQConvRequantize: s8, else u8
  kQConvRelu = 8,             ///< ReLU before requantization
  kQConvFilterIsBoundWeight = 16,
  kQConvGeluErf = 32,         ///< the exact GELU before requantization
};
} // namespace tcc

extern "C" {

/// An int8 2-D convolution (tcc_kernel.qconv): sizes, then padding, stride,
/// dilation and groups, then the input's, the result's and the residual's
/// strides in elements (N, C, H, W order; the residual's 0 without one), then
/// the pointers: input (u8/s8), filter (s8, packed [F, C/groups, R, S]),
/// scales (f32 [F]), filter zero points (i64 [F]), input zero point (one
/// i64), bias (f32 [F] or null), residual (f32, the result's shape, or
/// null), inverse output
/// scale (one f32) and output zero point (one i64, both null without
/// requantization), result; then the flags (QConvFlags) and the quant range.
void tcc_cpu_qconv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
                     int64_t s, int64_t oh, int64_t ow, int64_t padH, int64_t padW,
                     int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
                     int64_t groups, int64_t xStrideN, int64_t xStrideC, int64_t xStrideH,
                     int64_t xStrideW, int64_t yStrideN, int64_t yStrideC, int64_t yStrideH,
                     int64_t yStrideW, int64_t zStrideN, int64_t zStrideC, int64_t zStrideH,
                     int64_t zStrideW, const void *x, const int8_t *weight, const float *scales,
                     const int64_t *weightZeroPoints, const int64_t *inputZeroPoint,
                     const float *bias, const float *residual, const float *outputInverseScale,
                     const int64_t *outputZeroPoint, void *y, int32_t flags, int64_t quantMin,
                     int64_t quantMax);
}

#endif // TCC_RUNTIME_QUANTIZEDCONV_H
