//===- CpuRecurrent.cpp - the CPU path's recurrent layers -----------------===//
#include "tcc/Runtime/CpuRecurrent.h"

#include "tcc/Runtime/CpuGemm.h"
#include "tcc/Runtime/CpuParallel.h"
#include "tcc/Runtime/CpuVectorMath.h"
#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/KernelTypes.h"
#include "tcc/Runtime/RuntimeChecks.h"

#include "Avx2Math.h"
#include "OneDnnLibrary.h"

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


/// Where step t of sequence b lies among the rows of a [T, B, ·] tensor, or
/// of a [B, T, ·] one.
struct RowOrder {
  int64_t seq, batch;
  bool batchFirst;
  int64_t row(int64_t t, int64_t b) const { return batchFirst ? b * seq + t : t * batch + b; }
};

/// A recurrence's sizes and operands, as tcc_cpu_rnn receives them.
struct Recurrence : tcc::RnnSizes {
  const float *x, *h0, *c0;
  const float *const *weights;
  float *y, *hn, *cn;
};

//===----------------------------------------------------------------------===//
// The cells: one batch row's gates, columns [lo, hi) of the hidden size
//===----------------------------------------------------------------------===//

/// One batch row of a step: `gi` its input projection (G·H), `gh` its hidden
/// projection (G·H), `c` its cell state (LSTM), `h` its new h (the LSTM's
/// unprojected one), `hPrev` its h before the step (GRU).
struct CellRow {
  const float *gi, *gh;
  float *c, *h;
  const float *hPrev;
};

float relu(float v) { return v > 0.0f || std::isnan(v) ? v : 0.0f; }

/// PyTorch's cells, one column at a time, on libm.
void cellScalar(int32_t mode, int64_t H, const CellRow &row, int64_t lo, int64_t hi) {
  using tcc::cpu::scalarSigmoid;
  const float *gi = row.gi, *gh = row.gh;
  for (int64_t j = lo; j < hi; ++j) {
    switch (mode) {
    case tcc::kRnnModeLstm: {
      float i = scalarSigmoid(gi[j] + gh[j]);
      float f = scalarSigmoid(gi[H + j] + gh[H + j]);
      float g = std::tanh(gi[2 * H + j] + gh[2 * H + j]);
      float o = scalarSigmoid(gi[3 * H + j] + gh[3 * H + j]);
      row.c[j] = f * row.c[j] + i * g;
      row.h[j] = o * std::tanh(row.c[j]);
      break;
    }
    case tcc::kRnnModeGru: {
      float reset = scalarSigmoid(gi[j] + gh[j]);
      float update = scalarSigmoid(gi[H + j] + gh[H + j]);
      float n = std::tanh(gi[2 * H + j] + reset * gh[2 * H + j]);
      row.h[j] = (1.0f - update) * n + update * row.hPrev[j];
      break;
    }
    case tcc::kRnnModeTanh:
      row.h[j] = std::tanh(gi[j] + gh[j]);
      break;
    default:
      row.h[j] = relu(gi[j] + gh[j]);
      break;
    }
  }
}

#ifdef TCC_HAVE_AVX2_MATH
/// The same cells 8 columns at a time (Avx2Math.h), the last few masked.
template <int32_t Mode>
TCC_AVX2_TARGET void cellAvx2(int64_t H, const CellRow &row, int64_t lo, int64_t hi) {
  namespace v = tcc::cpu::avx2;
  const float *gi = row.gi, *gh = row.gh;
  for (int64_t j = lo; j < hi; j += 8) {
    const __m256i mask = v::firstLanes(hi - j);
    // Gate g's pre-activation, gi + gh.
#define TCC_GATE(g) _mm256_add_ps(_mm256_maskload_ps(gi + (g) * H + j, mask), \
                                  _mm256_maskload_ps(gh + (g) * H + j, mask))
    __m256 h;
    if constexpr (Mode == tcc::kRnnModeLstm) {
      __m256 i = v::sigmoid(TCC_GATE(0)), f = v::sigmoid(TCC_GATE(1));
      __m256 g = v::tanh(TCC_GATE(2)), o = v::sigmoid(TCC_GATE(3));
      __m256 c = _mm256_add_ps(_mm256_mul_ps(f, _mm256_maskload_ps(row.c + j, mask)),
                               _mm256_mul_ps(i, g));
      _mm256_maskstore_ps(row.c + j, mask, c);
      h = _mm256_mul_ps(o, v::tanh(c));
    } else if constexpr (Mode == tcc::kRnnModeGru) {
      __m256 reset = v::sigmoid(TCC_GATE(0)), update = v::sigmoid(TCC_GATE(1));
      __m256 n = v::tanh(_mm256_add_ps(_mm256_maskload_ps(gi + 2 * H + j, mask),
                                       _mm256_mul_ps(reset, _mm256_maskload_ps(gh + 2 * H + j, mask))));
      h = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(_mm256_set1_ps(1.0f), update), n),
                        _mm256_mul_ps(update, _mm256_maskload_ps(row.hPrev + j, mask)));
    } else if constexpr (Mode == tcc::kRnnModeTanh) {
      h = v::tanh(TCC_GATE(0));
    } else {
      // max(0, x) keeps a NaN x (maxps returns its second operand then);
      // + 0 makes max(0, -0) = -0 the +0 PyTorch's relu gives.
      const __m256 zero = _mm256_setzero_ps();
      h = _mm256_add_ps(_mm256_max_ps(zero, TCC_GATE(0)), zero);
    }
#undef TCC_GATE
    _mm256_maskstore_ps(row.h + j, mask, h);
  }
}
#endif

/// One batch row's cell over columns [lo, hi).
void cell(int32_t mode, bool vector, int64_t H, const CellRow &row, int64_t lo, int64_t hi) {
#ifdef TCC_HAVE_AVX2_MATH
  if (vector) {
    switch (mode) {
    case tcc::kRnnModeLstm: return cellAvx2<tcc::kRnnModeLstm>(H, row, lo, hi);
    case tcc::kRnnModeGru: return cellAvx2<tcc::kRnnModeGru>(H, row, lo, hi);
    case tcc::kRnnModeTanh: return cellAvx2<tcc::kRnnModeTanh>(H, row, lo, hi);
    default: return cellAvx2<tcc::kRnnModeRelu>(H, row, lo, hi);
    }
  }
#endif
  (void)vector;
  cellScalar(mode, H, row, lo, hi);
}

//===----------------------------------------------------------------------===//
// One direction of one layer
//===----------------------------------------------------------------------===//

/// One direction's buffers, kept by the calling thread from one call to
/// the next (a worker of the pool may run the direction's steps).
struct DirectionState {
  std::vector<float> inputGates, hiddenGates, h, c, unprojected;
};

/// The per-call buffers, kept by each calling thread.
struct Workspace {
  DirectionState directions[2];
  std::vector<float> layerOut[2];
};

/// Below this many cell columns (batch × hidden) a step's gates run on one
/// thread: vectorized, 2048 LSTM columns take a few microseconds, about
/// what waking the pool costs.
constexpr int64_t kParallelCellColumns = 16384;
/// Columns per part of a step's gates when they are split.
constexpr int64_t kCellColumnsPerPart = 2048;

/// Direction `dir` of layer `layer`.
struct Direction {
  const Recurrence &r;
  DirectionState &state;
  int64_t layer, dir;
  const float *in; ///< the layer's input, rows in `inOrder`, `inSize` wide
  RowOrder inOrder;
  int64_t inSize;
  float *out; ///< the layer's output, rows in `outOrder`, D·P wide
  RowOrder outOrder;
  bool vector;       ///< the gates on AVX2 (tcc::cpu::hasAvx2Fma)
  bool splitCells;   ///< the gates of a step split over the pool

  int64_t unit() const { return layer * r.dirs + dir; }
  const float *const *weights() const { return r.weights + unit() * r.perDirection; }

  /// Every step's input projection at once (rows in the input's order), and
  /// the initial states.
  void prepare() const {
    const int64_t B = r.batch, T = r.seq, H = r.hidden, P = r.stateSize, G = r.gates;
    const float *const *w = weights();
    state.inputGates.resize(static_cast<size_t>(T * B * G * H));
    product(T * B, G * H, inSize, in, inSize, w[0], r.hasBiases ? w[2] : nullptr,
            state.inputGates.data(), r.weightsBound);
    state.h.assign(static_cast<size_t>(B * P), 0.0f);
    state.c.assign(static_cast<size_t>(B * H), 0.0f);
    if (r.h0)
      std::memcpy(state.h.data(), r.h0 + unit() * B * P, sizeof(float) * B * P);
    if (r.c0 && r.mode == tcc::kRnnModeLstm)
      std::memcpy(state.c.data(), r.c0 + unit() * B * H, sizeof(float) * B * H);
    state.hiddenGates.resize(static_cast<size_t>(B * G * H));
    state.unprojected.resize(r.projections ? static_cast<size_t>(B * H) : 0);
  }

  /// Batch row b's cell operands at time t.
  CellRow row(int64_t t, int64_t b) const {
    const int64_t H = r.hidden, P = r.stateSize, G = r.gates;
    float *h = state.h.data() + b * P;
    return {state.inputGates.data() + inOrder.row(t, b) * G * H,
            state.hiddenGates.data() + b * G * H, state.c.data() + b * H,
            r.projections ? state.unprojected.data() + b * H : h, h};
  }

  /// Every step, then the final states into hn (and cn).
  void steps() const {
    const int64_t B = r.batch, T = r.seq, H = r.hidden, P = r.stateSize, G = r.gates;
    const float *const *w = weights();
    const float *wHh = w[1], *bHh = r.hasBiases ? w[3] : nullptr;
    const float *wHr = r.projections ? w[r.hasBiases ? 4 : 2] : nullptr;
    float *h = state.h.data();
    const int64_t chunks = (H + kCellColumnsPerPart - 1) / kCellColumnsPerPart;
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = dir == 0 ? step : T - 1 - step;
      product(B, G * H, P, h, P, wHh, bHh, state.hiddenGates.data(), r.weightsBound);
      if (splitCells) {
        struct Step {
          const Direction *d;
          int64_t t, chunks;
        } context{this, t, chunks};
        tcc_parallel_for(
            [](void *c, int64_t begin, int64_t end) {
              const Step &s = *static_cast<Step *>(c);
              const int64_t H = s.d->r.hidden;
              for (int64_t part = begin; part < end; ++part) {
                const int64_t b = part / s.chunks, lo = part % s.chunks * kCellColumnsPerPart;
                cell(s.d->r.mode, s.d->vector, H, s.d->row(s.t, b), lo,
                     std::min(H, lo + kCellColumnsPerPart));
              }
            },
            &context, 0, B * chunks, 1);
      } else {
        for (int64_t b = 0; b < B; ++b)
          cell(r.mode, vector, H, row(t, b), 0, H);
      }
      // An LSTM with projections: h = (o·tanh(c))·W_hrᵀ.
      if (r.projections)
        product(B, P, H, state.unprojected.data(), H, wHr, nullptr, h, r.weightsBound);
      for (int64_t b = 0; b < B; ++b)
        std::memcpy(out + outOrder.row(t, b) * r.dirs * P + dir * P, h + b * P,
                    sizeof(float) * P);
    }
    std::memcpy(r.hn + unit() * B * P, h, sizeof(float) * B * P);
    if (r.mode == tcc::kRnnModeLstm)
      std::memcpy(r.cn + unit() * B * H, state.c.data(), sizeof(float) * B * H);
  }
};

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
  const bool vector = tcc::cpu::hasAvx2Fma();
  const int threads = tcc_cpu_thread_count();
  // Two directions side by side, each on its share of the threads, where
  // there are two threads to share; otherwise the directions one after the
  // other, a step's gates split over the pool where there are many.
  // (Only on oneDNN: without it OpenBLAS runs the products on a pool of
  // its own, CpuGemm.cpp.)
  const bool sideBySide = r.dirs == 2 && threads >= 2 && tcc::cpu::onednn::library();
  const bool splitCells = !sideBySide && threads >= 2 && B * r.hidden >= kParallelCellColumns;
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
    Direction directions[2] = {
        {r, ws.directions[0], layer, 0, in, inOrder, inSize, out, outOrder, vector, splitCells},
        {r, ws.directions[1], layer, 1, in, inOrder, inSize, out, outOrder, vector, splitCells}};
    // The input projections on every thread (oneDNN's), one after the other.
    for (int64_t dir = 0; dir < r.dirs; ++dir)
      directions[dir].prepare();
    if (sideBySide) {
      struct Both {
        Direction *directions;
        int share;
      } both{directions, threads / 2};
      tcc_parallel_for(
          [](void *c, int64_t begin, int64_t end) {
            const Both &b = *static_cast<Both *>(c);
            // A direction run by the caller alone (a worker slow to start,
            // or the pool busy) keeps the share: the other is due next.
            tcc::cpu::onednn::ThreadShare share(b.share);
            for (int64_t dir = begin; dir < end; ++dir)
              b.directions[dir].steps();
          },
          &both, 0, 2, 1);
    } else {
      for (int64_t dir = 0; dir < r.dirs; ++dir)
        directions[dir].steps();
    }
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
  const tcc::RnnSizes sizes = tcc::RnnSizes::decode(mode, flags, layers, seq, batch, inputSize,
                                                    hidden, stateSize);
  if (numWeights != sizes.numWeights()) {
    tcc_assert_failed("tcc_cpu_rnn: the weights do not match the layers (internal error)");
    return;
  }
  Recurrence r{sizes,
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
