//===- CpuRecurrent.h - the CPU path's recurrent layers (LSTM, GRU, RNN) --===//
//
// The CPU lowering of tcc_kernel.rnn (convert-tcc-kernel-to-loops) calls
// `tcc_cpu_rnn` once per recurrent layer stack, whatever the sequence
// length: per layer and direction, x·W_ihᵀ + b_ih of every step as one
// product, then per step h·W_hhᵀ + b_hh (and, for an LSTM with
// projections, the projection of h), each in tcc_cpu_gemm (oneDNN or
// OpenBLAS, CpuGemm.h), and the gates in f32 loops, in PyTorch's order and
// formulas (LSTM i, f, g, o; GRU r, z, n with n = tanh(W_in x + b_in +
// r·(W_hn h + b_hn)), h' = (1 - z)·n + z·h), 8 columns at a time on AVX2
// (sigmoid and tanh of CpuVectorMath.h, within 2 ulp).
//
// Threads (TCC_NUM_THREADS): the two directions of a bidirectional layer
// run side by side on the runtime's pool (CpuParallel.h), each direction's
// per-step products on oneDNN with its share of the threads; the input
// projections before them use every thread. A step's gates are split over
// the pool only where batch × hidden is large (a wake-up of the pool per
// step costs more than 2048 vectorized LSTM columns).
//
// Why not oneDNN's RNN primitives: they want the weights in their own
// gate order and layout per direction (LSTM ifco vs PyTorch's ifgo, GRU's
// "linear before reset" variant), a reorder per layer that the products here
// avoid, and the GEMMs are where the time goes either way; the per-step code
// below stays a direct transcription of PyTorch's cell, easy to check.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CPURECURRENT_H
#define TCC_RUNTIME_CPURECURRENT_H

#include <cstdint>

namespace tcc {

/// A recurrence's cell: tcc_cpu_rnn's `mode` (tcc_kernel.rnn's RnnMode).
enum RnnModeCode : int32_t {
  kRnnModeLstm = 0,
  kRnnModeGru = 1,
  kRnnModeTanh = 2,
  kRnnModeRelu = 3,
};

/// tcc_cpu_rnn's `flags`.
constexpr int32_t kRnnBidirectional = 1;
constexpr int32_t kRnnBatchFirst = 2;
constexpr int32_t kRnnHasBiases = 4;
/// Every weight is a bound weight: its products may keep it packed until
/// weights are bound again (tcc_cpu_gemm's kGemmBIsBoundWeight).
constexpr int32_t kRnnWeightsAreBound = 8;

/// A recurrence's sizes as tcc_cpu_rnn and tcc_cuda_rnn receive them, with
/// what their flags say decoded.
struct RnnSizes {
  int32_t mode, flags;
  int64_t layers, dirs, seq, batch, inputSize, hidden, stateSize;
  int64_t gates;        ///< LSTM 4, GRU 3, plain RNN 1
  int64_t perDirection; ///< weights per layer and direction (RecurrentShapes.h's order)
  bool batchFirst, hasBiases, weightsBound;
  bool projections; ///< an LSTM's h is stateSize (proj_size) wide, not hidden

  static constexpr RnnSizes decode(int32_t mode, int32_t flags, int64_t layers, int64_t seq,
                                   int64_t batch, int64_t inputSize, int64_t hidden,
                                   int64_t stateSize) {
    const bool biases = (flags & kRnnHasBiases) != 0, projected = stateSize != hidden;
    return {mode,
            flags,
            layers,
            (flags & kRnnBidirectional) ? 2 : 1,
            seq,
            batch,
            inputSize,
            hidden,
            stateSize,
            mode == kRnnModeLstm ? 4 : mode == kRnnModeGru ? 3 : 1,
            2 + (biases ? 2 : 0) + (projected ? 1 : 0),
            (flags & kRnnBatchFirst) != 0,
            biases,
            (flags & kRnnWeightsAreBound) != 0,
            projected};
  }
  /// Every weight of the stack.
  int64_t numWeights() const { return layers * dirs * perDirection; }
};

} // namespace tcc

extern "C" {

/// One recurrent layer stack on host memory, f32, every tensor packed:
/// `x` [seq, batch, inputSize] ([batch, seq, inputSize] with
/// kRnnBatchFirst); `h0` [layers·D, batch, stateSize] and, for an LSTM, `c0`
/// [layers·D, batch, hidden], each null for zeros; `weights` PyTorch's flat
/// list (tcc/Support/RecurrentShapes.h), `numWeights` of them; `y` the last
/// layer's h at every step [seq, batch, D·stateSize] (batch first likewise),
/// `hn` [layers·D, batch, stateSize], `cn` (LSTM) [layers·D, batch, hidden].
/// `stateSize` is the LSTM's proj_size with projections, else `hidden`.
/// A failure (a workspace that cannot be allocated) is a run error.
void tcc_cpu_rnn(int32_t mode, int32_t flags, int64_t layers, int64_t seq, int64_t batch,
                 int64_t inputSize, int64_t hidden, int64_t stateSize, const void *x,
                 const void *h0, const void *c0, const void *const *weights,
                 int64_t numWeights, void *y, void *hn, void *cn);

} // extern "C"

#endif // TCC_RUNTIME_CPURECURRENT_H
