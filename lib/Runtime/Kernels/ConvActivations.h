//===- ConvActivations.h - a convolution's activations, as PyTorch's ------===//
//
// The ConvActivation codes of tcc_conv2d (CudnnConv.h) as scalar functions,
// for tcc's depthwise CUDA kernel (Kernels/Depthwise.cu, nvcc) and the CPU
// path's tcc_cpu_conv2d (CpuGemm.cpp, g++): one definition of what each
// computes. Plain C++17; under nvcc also device functions (SiLU with the fast
// exponential and division there).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_CONVACTIVATIONS_H
#define TCC_LIB_RUNTIME_KERNELS_CONVACTIVATIONS_H

#include "tcc/Runtime/CudnnConv.h"

#include <cmath>

#ifdef __CUDACC__
#define TCC_ACTIVATION_FN __host__ __device__ __forceinline__
#else
#define TCC_ACTIVATION_FN inline
#endif

namespace tcc_activations {

struct Identity {
  TCC_ACTIVATION_FN float operator()(float v) const { return v; }
};
struct Relu {
  TCC_ACTIVATION_FN float operator()(float v) const { return v < 0.0f ? 0.0f : v; } // NaN kept
};
struct Relu6 {
  TCC_ACTIVATION_FN float operator()(float v) const {
    return v < 0.0f ? 0.0f : v > 6.0f ? 6.0f : v;
  }
};
struct Silu {
  TCC_ACTIVATION_FN float operator()(float v) const {
#ifdef __CUDA_ARCH__
    return __fdividef(v, 1.0f + __expf(-v)); // the fast intrinsics: SiLU runs per loaded element
#else
    return v / (1.0f + std::exp(-v));
#endif
  }
};
struct Hardswish {
  TCC_ACTIVATION_FN float operator()(float v) const {
    float gate = v + 3.0f;
    gate = gate < 0.0f ? 0.0f : gate > 6.0f ? 6.0f : gate;
    return v * gate * (1.0f / 6.0f);
  }
};

/// fn(activation) with the activation `code` named as a type: the switch
/// once, outside whatever loops fn runs.
template <typename Fn> TCC_ACTIVATION_FN void withActivation(int code, Fn &&fn) {
  switch (code) {
  case tcc::kConvActivationRelu:
    return fn(Relu{});
  case tcc::kConvActivationRelu6:
    return fn(Relu6{});
  case tcc::kConvActivationSilu:
    return fn(Silu{});
  case tcc::kConvActivationHardswish:
    return fn(Hardswish{});
  default:
    return fn(Identity{});
  }
}

/// One value through the activation `code`.
TCC_ACTIVATION_FN float activate(int code, float v) {
  float out = v;
  withActivation(code, [&](auto act) { out = act(v); });
  return out;
}

} // namespace tcc_activations

#endif // TCC_LIB_RUNTIME_KERNELS_CONVACTIVATIONS_H
