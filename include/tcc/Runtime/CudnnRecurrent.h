//===- CudnnRecurrent.h - the CUDA path's recurrent layers (cuDNN 9) ------===//
//
// convert-tcc-kernel-to-cuda (lib/Conversion/KernelCalls/RnnCalls.cpp) turns
// each tcc_kernel.rnn of the CUDA path into one call of `tcc_cuda_rnn`,
// implemented in lib/Runtime/CudnnRecurrent.cpp on cuDNN 9's RNN API
// (cudnnSetRNNDescriptor_v8, cudnnRNNForward in inference mode): the whole
// layer stack, every layer and direction and step, in one library call.
// cuDNN's cells are PyTorch's: LSTM gates i, f, g, o; GRU r, z, n with the
// reset gate applied to W_hn·h + b_hn (CUDNN_RNN_DOUBLE_BIAS); an LSTM's
// proj_size is cuDNN's projSize. The library is opened with dlopen on the
// first call (CudnnLibrary.h); where it cannot be, the run fails naming the
// layer. The mode and flags are the CPU path's (CpuRecurrent.h).
//
// Errors are reported as tcc_conv2d's are (CudnnConv.h): recorded in the
// per-thread slot of kernel launch failures, a RuntimeError when the CUDA
// entry returns.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CUDNNRECURRENT_H
#define TCC_RUNTIME_CUDNNRECURRENT_H

#include "tcc/Runtime/CpuRecurrent.h"

#include <cstdint>

namespace tcc {

/// Arithmetic of an f32 recurrence's products: fp32 only (CUDNN_FMA_MATH:
/// PyTorch's with TF32 off), or TF32 allowed (CUDNN_DEFAULT_MATH,
/// `--precision tf32` or `bf16`). The ABI between pass and runtime.
enum RnnCompute : int32_t {
  kRnnComputeF32 = 0,
  kRnnComputeTf32 = 1,
};

} // namespace tcc

extern "C" {

/// tcc_cpu_rnn's recurrence (same mode, flags, sizes and layouts; every
/// tensor packed, f32) on device memory, enqueued on `stream` (a CUstream).
/// `layer` names the layer for errors (its ATen operator and Python line).
///
/// With kRnnWeightsAreBound the weights are packed into cuDNN's weight space
/// once per set of weight pointers (a model instance's device copy), on the
/// first call, which then synchronizes `stream`; later calls only enqueue
/// cudnnRNNForward, and can be captured in a CUDA graph. Each new sequence
/// length and batch makes its descriptors once (a first call of a shape
/// must not be under stream capture). Without the flag the weights are
/// copied into a weight space on every call (copies on `stream`).
void tcc_cuda_rnn(int32_t mode, int32_t flags, int64_t layers, int64_t seq, int64_t batch,
                  int64_t inputSize, int64_t hidden, int64_t stateSize, const void *x,
                  const void *h0, const void *c0, const void *const *weights,
                  int64_t numWeights, void *y, void *hn, void *cn, int32_t compute,
                  const char *layer, void *stream);

} // extern "C"

#endif // TCC_RUNTIME_CUDNNRECURRENT_H
