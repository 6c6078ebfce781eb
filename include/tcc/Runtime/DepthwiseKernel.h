//===- DepthwiseKernel.h - the convolutions tcc's depthwise kernel takes --===//
//
// tcc_conv2d (CudnnConv.h) runs a depthwise convolution on cuDNN or on tcc's
// own kernel (lib/Runtime/Kernels/Depthwise.cu), whichever is faster. Unlike
// cuDNN's channels-last convolutions, which need packed images, that kernel
// reads and writes channels-last tensors of any pixel and row strides. The
// compiler asks which convolutions it takes to choose the model's layout
// and the views a convolution may write in place (a channel slice of a
// concatenation, a padded buffer's interior); the runtime checks the same,
// plus what each layout's kernel needs of the strides.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_DEPTHWISEKERNEL_H
#define TCC_RUNTIME_DEPTHWISEKERNEL_H

#include <cstdint>

namespace tcc {

/// One filter per channel (groups = channels = filters), windows up to 7x7,
/// strides and dilations up to 4.
constexpr bool depthwiseKernelTakes(int64_t channels, int64_t filters, int64_t groups, int64_t r,
                                    int64_t s, int64_t strideH, int64_t strideW,
                                    int64_t dilationH, int64_t dilationW) {
  auto within = [](int64_t v, int64_t most) { return v >= 1 && v <= most; };
  return groups == channels && filters == channels && within(r, 7) && within(s, 7) &&
         within(strideH, 4) && within(strideW, 4) && within(dilationH, 4) &&
         within(dilationW, 4);
}

} // namespace tcc

#endif // TCC_RUNTIME_DEPTHWISEKERNEL_H
