//===- CpuRecurrent.cpp - the CPU path's recurrent layers -----------------===//
#include "tcc/Runtime/CpuRecurrent.h"

#include "tcc/Runtime/CpuGemm.h"
#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Runtime/RuntimeChecks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>

namespace {

/// The rows of one matrix product c = a·bᵀ (+ bias), b a weight [n, k].
void product(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *weight,
             const float *bias, float *c, bool weightIsBound) {
  int32_t epilogue = (bias ? tcc::kGemmEpilogueBias : tcc::kGemmEpilogueNone) |
                     (weightIsBound ? tcc::kGemmBIsBoundWeight : 0);
  tcc_cpu_gemm(tcc::kKernelF32, tcc::kGemmComputeF32, 1, 1, m, n, k, a, lda, 0, 0, 0, weight, k,
               0, 0, 1, c, n, 0, 0, nullptr, 0, 0, 0, bias, epilogue, 1.0f, nullptr);
}

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

/// Where step t of sequence b lies among the rows of a [T, B, ·] tensor, or
/// of a [B, T, ·] one.
struct RowOrder {
  int64_t seq, batch;
  bool batchFirst;
  int64_t row(int64_t t, int64_t b) const { return batchFirst ? b * seq + t : t * batch + b; }
};

/// A recurrence's sizes and operands, as tcc_cpu_rnn receives them.
struct Recurrence {
  int32_t mode;
  int64_t layers, dirs, seq, batch, inputSize, hidden, stateSize, gates, perDirection;
  bool batchFirst, hasBiases, projections, weightsBound;
  const float *x, *h0, *c0;
  const float *const *weights;
  float *y, *hn, *cn;
};

/// The per-call buffers, kept by each thread from one call to the next.
struct Workspace {
  std::vector<float> inputGates, hiddenGates, h, c, unprojected, layerOut[2];
};

/// One direction `dir` of layer `layer`: reads `in` (rows in `inOrder`,
/// `inSize` wide), writes its h at every step into columns [dir·P, dir·P + P)
/// of `out` (rows in `outOrder`, D·P wide), and its last h (and c) into hn
/// (cn).
void runDirection(const Recurrence &r, Workspace &ws, int64_t layer, int64_t dir, const float *in,
                  RowOrder inOrder, int64_t inSize, float *out, RowOrder outOrder) {
  const int64_t B = r.batch, T = r.seq, H = r.hidden, P = r.stateSize, G = r.gates;
  const int64_t unit = layer * r.dirs + dir;
  const float *const *w = r.weights + unit * r.perDirection;
  const float *wIh = w[0], *wHh = w[1];
  const float *bIh = r.hasBiases ? w[2] : nullptr, *bHh = r.hasBiases ? w[3] : nullptr;
  const float *wHr = r.projections ? w[r.hasBiases ? 4 : 2] : nullptr;

  // Every step's input projection at once: rows in the input's order.
  ws.inputGates.resize(static_cast<size_t>(T * B * G * H));
  product(T * B, G * H, inSize, in, inSize, wIh, bIh, ws.inputGates.data(), r.weightsBound);

  ws.h.assign(static_cast<size_t>(B * P), 0.0f);
  ws.c.assign(static_cast<size_t>(B * H), 0.0f);
  if (r.h0)
    std::memcpy(ws.h.data(), r.h0 + unit * B * P, sizeof(float) * B * P);
  if (r.c0 && r.mode == tcc::kRnnModeLstm)
    std::memcpy(ws.c.data(), r.c0 + unit * B * H, sizeof(float) * B * H);
  ws.hiddenGates.resize(static_cast<size_t>(B * G * H));
  ws.unprojected.resize(r.projections ? static_cast<size_t>(B * H) : 0);
  float *h = ws.h.data(), *c = ws.c.data(), *gh = ws.hiddenGates.data();

  for (int64_t step = 0; step < T; ++step) {
    const int64_t t = dir == 0 ? step : T - 1 - step;
    product(B, G * H, P, h, P, wHh, bHh, gh, r.weightsBound);
    for (int64_t b = 0; b < B; ++b) {
      const float *gi = ws.inputGates.data() + inOrder.row(t, b) * G * H;
      const float *ghb = gh + b * G * H;
      switch (r.mode) {
      case tcc::kRnnModeLstm: {
        float *hb = r.projections ? ws.unprojected.data() + b * H : h + b * P;
        float *cb = c + b * H;
        for (int64_t j = 0; j < H; ++j) {
          float i = sigmoid(gi[j] + ghb[j]);
          float f = sigmoid(gi[H + j] + ghb[H + j]);
          float g = std::tanh(gi[2 * H + j] + ghb[2 * H + j]);
          float o = sigmoid(gi[3 * H + j] + ghb[3 * H + j]);
          cb[j] = f * cb[j] + i * g;
          hb[j] = o * std::tanh(cb[j]);
        }
        break;
      }
      case tcc::kRnnModeGru: {
        float *hb = h + b * H;
        for (int64_t j = 0; j < H; ++j) {
          float reset = sigmoid(gi[j] + ghb[j]);
          float update = sigmoid(gi[H + j] + ghb[H + j]);
          float n = std::tanh(gi[2 * H + j] + reset * ghb[2 * H + j]);
          hb[j] = (1.0f - update) * n + update * hb[j];
        }
        break;
      }
      default: {  // rnn_tanh, rnn_relu
        float *hb = h + b * H;
        for (int64_t j = 0; j < H; ++j) {
          float v = gi[j] + ghb[j];
          hb[j] = r.mode == tcc::kRnnModeTanh ? std::tanh(v) : (v > 0.0f || std::isnan(v) ? v : 0.0f);
        }
        break;
      }
      }
    }
    // An LSTM with projections: h = (o·tanh(c))·W_hrᵀ.
    if (r.projections)
      product(B, P, H, ws.unprojected.data(), H, wHr, nullptr, h, r.weightsBound);
    for (int64_t b = 0; b < B; ++b)
      std::memcpy(out + outOrder.row(t, b) * r.dirs * P + dir * P, h + b * P, sizeof(float) * P);
  }
  std::memcpy(r.hn + unit * B * P, h, sizeof(float) * B * P);
  if (r.mode == tcc::kRnnModeLstm)
    std::memcpy(r.cn + unit * B * H, c, sizeof(float) * B * H);
}

void runRecurrence(const Recurrence &r) {
  const int64_t B = r.batch, T = r.seq, P = r.stateSize;
  const int64_t units = r.layers * r.dirs;
  if (B == 0)
    return;
  if (T == 0) {  // no step: the final states are the initial ones
    for (int64_t u = 0; u < units; ++u) {
      float *hn = r.hn + u * B * P;
      if (r.h0)
        std::memcpy(hn, r.h0 + u * B * P, sizeof(float) * B * P);
      else
        std::fill(hn, hn + B * P, 0.0f);
      if (r.mode == tcc::kRnnModeLstm) {
        float *cn = r.cn + u * B * r.hidden;
        if (r.c0)
          std::memcpy(cn, r.c0 + u * B * r.hidden, sizeof(float) * B * r.hidden);
        else
          std::fill(cn, cn + B * r.hidden, 0.0f);
      }
    }
    return;
  }
  thread_local Workspace ws;
  // Layers between the first and the last write time-major buffers of
  // their own; the last writes the caller's output in its layout.
  const RowOrder user{T, B, r.batchFirst}, timeMajor{T, B, false};
  const float *in = r.x;
  RowOrder inOrder = user;
  int64_t inSize = r.inputSize;
  for (int64_t layer = 0; layer < r.layers; ++layer) {
    bool last = layer == r.layers - 1;
    float *out = r.y;
    if (!last) {
      std::vector<float> &buffer = ws.layerOut[layer % 2];
      buffer.resize(static_cast<size_t>(T * B * r.dirs * P));
      out = buffer.data();
    }
    RowOrder outOrder = last ? user : timeMajor;
    for (int64_t dir = 0; dir < r.dirs; ++dir)
      runDirection(r, ws, layer, dir, in, inOrder, inSize, out, outOrder);
    in = out;
    inOrder = outOrder;
    inSize = r.dirs * P;
  }
}

} // namespace

extern "C" void tcc_cpu_rnn(int32_t mode, int32_t flags, int64_t layers, int64_t seq,
                            int64_t batch, int64_t inputSize, int64_t hidden, int64_t stateSize,
                            const void *x, const void *h0, const void *c0,
                            const void *const *weights, int64_t numWeights, void *y, void *hn,
                            void *cn) {
  const bool hasBiases = (flags & tcc::kRnnHasBiases) != 0;
  const int64_t dirs = (flags & tcc::kRnnBidirectional) ? 2 : 1;
  const int64_t gates = mode == tcc::kRnnModeLstm ? 4 : mode == tcc::kRnnModeGru ? 3 : 1;
  const bool projections = stateSize != hidden;
  const int64_t perDirection = 2 + (hasBiases ? 2 : 0) + (projections ? 1 : 0);
  if (numWeights != layers * dirs * perDirection) {
    tcc_assert_failed("tcc_cpu_rnn: the weights do not match the layers (internal error)");
    return;
  }
  Recurrence r{mode,
               layers,
               dirs,
               seq,
               batch,
               inputSize,
               hidden,
               stateSize,
               gates,
               perDirection,
               (flags & tcc::kRnnBatchFirst) != 0,
               hasBiases,
               projections,
               (flags & tcc::kRnnWeightsAreBound) != 0,
               static_cast<const float *>(x),
               static_cast<const float *>(h0),
               static_cast<const float *>(c0),
               reinterpret_cast<const float *const *>(weights),
               static_cast<float *>(y),
               static_cast<float *>(hn),
               static_cast<float *>(cn)};
  // The generated code that calls this cannot take an exception.
  try {
    runRecurrence(r);
  } catch (const std::bad_alloc &) {
    tcc_assert_failed("a recurrent layer's workspace could not be allocated");
  }
}
