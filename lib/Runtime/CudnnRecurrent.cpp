//===- CudnnRecurrent.cpp - tcc_cuda_rnn on cuDNN 9's RNN API -------------===//
//
// One cudnnRNNForward (CUDNN_FWD_MODE_INFERENCE, CUDNN_RNN_ALGO_STANDARD)
// per call: every layer, direction and step of the stack. The API is in
// cudnn_adv.h (libcudnn_adv.so.9, reached through the libcudnn.so.9 shim
// that CudnnLibrary.h opens).
//
// Three things are kept per (thread, CUDA context), in this file's part of
// cuDNN's state (CudnnLibrary.h):
//  - a Network per layer stack configuration (cell, layers, directions,
//    sizes, biases, math): the RNN and dropout descriptors, the size of
//    cuDNN's weight space and where each of PyTorch's weights goes in it
//    (cudnnGetRNNWeightParams: per layer and direction, each gate's block of
//    w_ih and w_hh rows as one matrix, each gate's slice of b_ih and b_hh as
//    one bias, w_hr as the LSTM's projection, linear layer 8);
//  - per Network, its Shapes: for each (sequence length, batch, layout) the
//    data descriptors of x and y, the h and c tensor descriptors, the
//    sequence lengths on the device (cudnnRNNForward reads them there) and
//    the workspace the call needs;
//  - per Network, the packed weight spaces of bound weights, keyed on the
//    weights' device pointers (one model instance's copy): packed on the
//    first call with those pointers, again in place when a model has copied
//    weights to the device since (cuda::deviceWeightsEpoch: a new copy may
//    sit at a freed one's address). A space is never freed before the thread
//    ends, since a captured graph may read it; a stale one is reused when its
//    pointers come again.
// So a call after the first of its shape and weights allocates nothing and
// does not synchronize: it sets the stream and enqueues cudnnRNNForward, and
// can be captured in a CUDA graph. Weights that are not all bound (computed
// by the model) are copied into the Network's own weight space on every
// call, on the call's stream.
//
// Layouts: [T, B, ·] is CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, batch first
// [B, T, ·] CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, every sequence of the
// batch T steps long (CUDNN_RNN_PADDED_IO_ENABLED, which the unpacked
// layouts need, with nothing to pad). h0/c0 absent are cuDNN's zero states.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CudnnRecurrent.h"
#include "CudnnLibrary.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace tcc;

namespace {

using cudnn::ContextState;
using cudnn::cudnnHandle_t;
using cudnn::cudnnStatus_t;

//===----------------------------------------------------------------------===//
// The subset of cudnn_adv.h / cudnn_ops.h used here (cuDNN 9 values)
//===----------------------------------------------------------------------===//

using cudnnRNNDescriptor_t = struct cudnnRNNStruct *;
using cudnnRNNDataDescriptor_t = struct cudnnRNNDataStruct *;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct *;
using cudnnDropoutDescriptor_t = struct cudnnDropoutStruct *;

constexpr int CUDNN_DATA_FLOAT = 0;
constexpr int CUDNN_DEFAULT_MATH = 0;
constexpr int CUDNN_FMA_MATH = 3;
constexpr int CUDNN_RNN_ALGO_STANDARD = 0;
constexpr int CUDNN_FWD_MODE_INFERENCE = 0;
constexpr int CUDNN_RNN_RELU = 0, CUDNN_RNN_TANH = 1, CUDNN_LSTM = 2, CUDNN_GRU = 3;
constexpr int CUDNN_RNN_NO_BIAS = 0, CUDNN_RNN_DOUBLE_BIAS = 2;
constexpr int CUDNN_UNIDIRECTIONAL = 0, CUDNN_BIDIRECTIONAL = 1;
constexpr int CUDNN_LINEAR_INPUT = 0;
constexpr int CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED = 0;
constexpr int CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED = 2;
constexpr uint32_t CUDNN_RNN_PADDED_IO_ENABLED = 1;
/// cudnnGetRNNWeightParams's linear layer of an LSTM's projection.
constexpr int32_t kLstmProjectionLayer = 8;

/// The RNN API, beside what every user of cuDNN needs (CudnnLibrary.h).
struct Rnn : cudnn::Library {
  cudnnStatus_t (*createRnn)(cudnnRNNDescriptor_t *);
  cudnnStatus_t (*destroyRnn)(cudnnRNNDescriptor_t);
  cudnnStatus_t (*setRnn)(cudnnRNNDescriptor_t, int algo, int cellMode, int biasMode,
                          int dirMode, int inputMode, int dataType, int mathPrec, int mathType,
                          int32_t inputSize, int32_t hiddenSize, int32_t projSize,
                          int32_t numLayers, cudnnDropoutDescriptor_t, uint32_t auxFlags);
  cudnnStatus_t (*createData)(cudnnRNNDataDescriptor_t *);
  cudnnStatus_t (*destroyData)(cudnnRNNDataDescriptor_t);
  cudnnStatus_t (*setData)(cudnnRNNDataDescriptor_t, int dataType, int layout, int maxSeqLength,
                           int batchSize, int vectorSize, const int seqLengths[],
                           void *paddingFill);
  cudnnStatus_t (*createTensor)(cudnnTensorDescriptor_t *);
  cudnnStatus_t (*destroyTensor)(cudnnTensorDescriptor_t);
  cudnnStatus_t (*setTensorNd)(cudnnTensorDescriptor_t, int dataType, int nbDims,
                               const int dims[], const int strides[]);
  cudnnStatus_t (*getTensorNd)(cudnnTensorDescriptor_t, int nbDimsRequested, int *dataType,
                               int *nbDims, int dims[], int strides[]);
  cudnnStatus_t (*createDropout)(cudnnDropoutDescriptor_t *);
  cudnnStatus_t (*destroyDropout)(cudnnDropoutDescriptor_t);
  cudnnStatus_t (*setDropout)(cudnnDropoutDescriptor_t, cudnnHandle_t, float dropout,
                              void *states, size_t stateBytes, unsigned long long seed);
  cudnnStatus_t (*getWeightSpaceSize)(cudnnHandle_t, cudnnRNNDescriptor_t, size_t *);
  cudnnStatus_t (*getTempSpaceSizes)(cudnnHandle_t, cudnnRNNDescriptor_t, int fwdMode,
                                     cudnnRNNDataDescriptor_t, size_t *workSpace,
                                     size_t *reserveSpace);
  cudnnStatus_t (*getWeightParams)(cudnnHandle_t, cudnnRNNDescriptor_t, int32_t pseudoLayer,
                                   size_t weightSpaceSize, const void *weightSpace,
                                   int32_t linLayerID, cudnnTensorDescriptor_t mDesc,
                                   void **mAddr, cudnnTensorDescriptor_t bDesc, void **bAddr);
  cudnnStatus_t (*forward)(cudnnHandle_t, cudnnRNNDescriptor_t, int fwdMode,
                           const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t xDesc,
                           const void *x, cudnnRNNDataDescriptor_t yDesc, void *y,
                           cudnnTensorDescriptor_t hDesc, const void *hx, void *hy,
                           cudnnTensorDescriptor_t cDesc, const void *cx, void *cy,
                           size_t weightSpaceSize, const void *weightSpace,
                           size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                           void *reserveSpace);

  /// The library, or a RuntimeError naming `layer`.
  static const Rnn &get(const std::string &layer);
};

struct LoadedRnn {
  Rnn lib{};
  std::string error; // empty when usable

  explicit LoadedRnn(const std::string &layer) {
    // Throws where cuDNN cannot be opened: the next call tries again.
    static_cast<cudnn::Library &>(lib) = cudnn::Library::get("the recurrent layer " + layer);
    (void)(lib.resolve("cudnnCreateRNNDescriptor", lib.createRnn, error) &&
           lib.resolve("cudnnDestroyRNNDescriptor", lib.destroyRnn, error) &&
           lib.resolve("cudnnSetRNNDescriptor_v8", lib.setRnn, error) &&
           lib.resolve("cudnnCreateRNNDataDescriptor", lib.createData, error) &&
           lib.resolve("cudnnDestroyRNNDataDescriptor", lib.destroyData, error) &&
           lib.resolve("cudnnSetRNNDataDescriptor", lib.setData, error) &&
           lib.resolve("cudnnCreateTensorDescriptor", lib.createTensor, error) &&
           lib.resolve("cudnnDestroyTensorDescriptor", lib.destroyTensor, error) &&
           lib.resolve("cudnnSetTensorNdDescriptor", lib.setTensorNd, error) &&
           lib.resolve("cudnnGetTensorNdDescriptor", lib.getTensorNd, error) &&
           lib.resolve("cudnnCreateDropoutDescriptor", lib.createDropout, error) &&
           lib.resolve("cudnnDestroyDropoutDescriptor", lib.destroyDropout, error) &&
           lib.resolve("cudnnSetDropoutDescriptor", lib.setDropout, error) &&
           lib.resolve("cudnnGetRNNWeightSpaceSize", lib.getWeightSpaceSize, error) &&
           lib.resolve("cudnnGetRNNTempSpaceSizes", lib.getTempSpaceSizes, error) &&
           lib.resolve("cudnnGetRNNWeightParams", lib.getWeightParams, error) &&
           lib.resolve("cudnnRNNForward", lib.forward, error));
  }
};

const Rnn &Rnn::get(const std::string &layer) {
  static LoadedRnn loaded(layer); // thread-safe, once per process
  if (!loaded.error.empty())
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "the recurrent layer " + layer + " needs cuDNN's RNN API: " + loaded.error);
  return loaded.lib;
}

//===----------------------------------------------------------------------===//
// Networks, shapes and packed weights
//===----------------------------------------------------------------------===//

/// A recurrence's sizes and operands, as tcc_cuda_rnn receives them.
struct Call : RnnSizes {
  int32_t compute;
  const void *x, *h0, *c0;
  const void *const *weights;
  void *y, *hn, *cn;
  std::string layer; ///< for messages
};

int toInt(int64_t v, const char *what, const Call &c) {
  if (v < 0 || v > INT_MAX)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED, "the recurrent layer " + c.layer + ": " + what +
                                                  " " + std::to_string(v) +
                                                  " is out of range for cuDNN");
  return static_cast<int>(v);
}

/// What a Network's descriptor depends on.
struct NetworkKey {
  int32_t mode, compute;
  int64_t layers, dirs, inputSize, hidden, stateSize;
  bool hasBiases;
  auto tie() const {
    return std::tie(mode, compute, layers, dirs, inputSize, hidden, stateSize, hasBiases);
  }
  bool operator<(const NetworkKey &o) const { return tie() < o.tie(); }
};

/// One copy of (part of) a PyTorch weight into cuDNN's weight space.
struct WeightCopy {
  size_t weight;     ///< index in the call's weight list
  size_t fromBytes;  ///< offset in that weight
  size_t toBytes;    ///< offset in the weight space
  size_t bytes;
};

/// The descriptors of one (sequence length, batch, layout).
struct Shape {
  const Rnn *lib = nullptr;
  cudnnRNNDataDescriptor_t x = nullptr, y = nullptr;
  cudnnTensorDescriptor_t h = nullptr, c = nullptr;
  cuda::DeviceBuffer seqLengths; ///< `batch` int32s, each the sequence length
  size_t workspaceBytes = 0;

  Shape() = default;
  Shape(const Shape &) = delete;
  Shape &operator=(const Shape &) = delete;
  ~Shape() {
    if (!lib)
      return;
    for (cudnnRNNDataDescriptor_t d : {x, y})
      if (d) (void)lib->destroyData(d);
    for (cudnnTensorDescriptor_t t : {h, c})
      if (t) (void)lib->destroyTensor(t);
  }
};

/// Bound weights packed into a weight space, and the count of device
/// weight copies they were packed at.
struct PackedWeights {
  cuda::DeviceBuffer space;
  uint64_t epoch = 0;
};

/// One layer stack's descriptor, where its weights go, and what is kept
/// for it.
struct Network {
  const Rnn *lib = nullptr;
  cudnnRNNDescriptor_t rnn = nullptr;
  cudnnDropoutDescriptor_t dropout = nullptr;
  size_t weightSpaceBytes = 0;
  std::vector<WeightCopy> copies;
  /// The weight space of weights that are not all bound, copied every call
  /// (and where the copies' offsets were read).
  cuda::DeviceBuffer scratchWeights;
  std::map<std::tuple<int64_t, int64_t, bool>, std::unique_ptr<Shape>> shapes;
  std::map<std::vector<const void *>, PackedWeights> packed;

  Network() = default;
  Network(const Network &) = delete;
  Network &operator=(const Network &) = delete;
  ~Network() {
    shapes.clear();
    if (!lib)
      return;
    if (rnn) (void)lib->destroyRnn(rnn);
    if (dropout) (void)lib->destroyDropout(dropout);
  }
};

/// This file's part of cuDNN's per-(thread, context) state.
struct RnnPlans : cudnn::StatePart {
  std::map<NetworkKey, std::unique_ptr<Network>> networks;
  explicit RnnPlans(ContextState &) {}
};

/// A tensor descriptor made for one query and destroyed after it.
struct TempTensor {
  const Rnn &lib;
  cudnnTensorDescriptor_t t = nullptr;
  explicit TempTensor(const Rnn &l) : lib(l) {
    lib.check(lib.createTensor(&t), "cudnnCreateTensorDescriptor");
  }
  ~TempTensor() { (void)lib.destroyTensor(t); }
  TempTensor(const TempTensor &) = delete;
  TempTensor &operator=(const TempTensor &) = delete;
  /// The element count the descriptor states.
  int64_t elements() const {
    int dataType = 0, rank = 0, dims[8] = {}, strides[8] = {};
    lib.check(lib.getTensorNd(t, 8, &dataType, &rank, dims, strides),
              "cudnnGetTensorNdDescriptor");
    int64_t n = 1;
    for (int i = 0; i < rank; ++i)
      n *= dims[i];
    return n;
  }
};

/// The descriptor of `c`'s layer stack, its weight space's size and the
/// place of each of PyTorch's weights in it.
std::unique_ptr<Network> makeNetwork(const Rnn &lib, ContextState &state, const Call &c) {
  auto net = std::make_unique<Network>();
  net->lib = &lib;
  lib.check(lib.createDropout(&net->dropout), "cudnnCreateDropoutDescriptor");
  // No dropout (inference): no states, the seed unused.
  lib.check(lib.setDropout(net->dropout, state.handle, 0.0f, nullptr, 0, 0),
            "cudnnSetDropoutDescriptor");
  lib.check(lib.createRnn(&net->rnn), "cudnnCreateRNNDescriptor");
  const int cell = c.mode == kRnnModeLstm  ? CUDNN_LSTM
                   : c.mode == kRnnModeGru ? CUDNN_GRU
                   : c.mode == kRnnModeTanh ? CUDNN_RNN_TANH
                                            : CUDNN_RNN_RELU;
  // fp32 arithmetic only (CUDNN_FMA_MATH), as PyTorch with TF32 off, unless
  // TF32 was asked for.
  const int math = c.compute == kRnnComputeTf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  lib.check(lib.setRnn(net->rnn, CUDNN_RNN_ALGO_STANDARD, cell,
                       c.hasBiases ? CUDNN_RNN_DOUBLE_BIAS : CUDNN_RNN_NO_BIAS,
                       c.dirs == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
                       CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, math,
                       toInt(c.inputSize, "input size", c), toInt(c.hidden, "hidden size", c),
                       toInt(c.stateSize, "projection size", c),
                       toInt(c.layers, "layer count", c), net->dropout,
                       CUDNN_RNN_PADDED_IO_ENABLED),
            "cudnnSetRNNDescriptor_v8 for " + c.layer);
  lib.check(lib.getWeightSpaceSize(state.handle, net->rnn, &net->weightSpaceBytes),
            "cudnnGetRNNWeightSpaceSize for " + c.layer);
  net->scratchWeights = cuda::DeviceBuffer(net->weightSpaceBytes);
  // Where each weight goes: per layer and direction (cuDNN's pseudo-layer),
  // gate g of w_ih is linear layer g, of w_hh linear layer G + g, in
  // PyTorch's gate order (cuDNN's too); an LSTM's w_hr is linear layer 8.
  TempTensor matrix(lib), bias(lib);
  const uintptr_t base = reinterpret_cast<uintptr_t>(net->scratchWeights.data());
  const size_t f = sizeof(float);
  auto place = [&](int32_t unit, int32_t linear, size_t weight, size_t fromBytes,
                   int64_t elements, bool isBias) {
    void *m = nullptr, *b = nullptr;
    lib.check(lib.getWeightParams(state.handle, net->rnn, unit, net->weightSpaceBytes,
                                  net->scratchWeights.data(), linear, matrix.t, &m, bias.t, &b),
              "cudnnGetRNNWeightParams for " + c.layer);
    void *to = isBias ? b : m;
    int64_t stated = 0;
    if (to)
      stated = isBias ? bias.elements() : matrix.elements();
    if (stated != elements)
      throw RuntimeError(TCC_ERROR_INTERNAL,
                         "cudnn: the weight space of " + c.layer + " has " +
                             std::to_string(stated) + " elements for linear layer " +
                             std::to_string(linear) + " of pseudo-layer " + std::to_string(unit) +
                             (isBias ? " (bias)" : "") + ", expected " +
                             std::to_string(elements));
    net->copies.push_back({weight, fromBytes, reinterpret_cast<uintptr_t>(to) - base,
                           static_cast<size_t>(elements) * f});
  };
  const int64_t G = c.gates, H = c.hidden, P = c.stateSize;
  for (int64_t layer = 0; layer < c.layers; ++layer)
    for (int64_t dir = 0; dir < c.dirs; ++dir) {
      const int32_t unit = static_cast<int32_t>(layer * c.dirs + dir);
      const size_t first = static_cast<size_t>(unit * c.perDirection);
      const int64_t in = layer == 0 ? c.inputSize : c.dirs * P;
      for (int64_t g = 0; g < G; ++g) {
        const int32_t input = static_cast<int32_t>(g), recurrent = static_cast<int32_t>(G + g);
        place(unit, input, first + 0, g * H * in * f, H * in, false);
        place(unit, recurrent, first + 1, g * H * P * f, H * P, false);
        if (c.hasBiases) {
          place(unit, input, first + 2, g * H * f, H, true);
          place(unit, recurrent, first + 3, g * H * f, H, true);
        }
      }
      if (c.projections)
        place(unit, kLstmProjectionLayer, first + (c.hasBiases ? 4 : 2), 0, P * H, false);
    }
  return net;
}

/// The descriptors of `c`'s sequence length, batch and layout.
std::unique_ptr<Shape> makeShape(const Rnn &lib, ContextState &state, const Network &net,
                                 const Call &c, void *stream) {
  auto shape = std::make_unique<Shape>();
  shape->lib = &lib;
  const int seq = toInt(c.seq, "sequence length", c), batch = toInt(c.batch, "batch", c);
  std::vector<int> lengths(static_cast<size_t>(batch), seq);
  const int layout = c.batchFirst ? CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED
                                  : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
  lib.check(lib.createData(&shape->x), "cudnnCreateRNNDataDescriptor");
  lib.check(lib.createData(&shape->y), "cudnnCreateRNNDataDescriptor");
  lib.check(lib.setData(shape->x, CUDNN_DATA_FLOAT, layout, seq, batch,
                        toInt(c.inputSize, "input size", c), lengths.data(), nullptr),
            "cudnnSetRNNDataDescriptor (x) for " + c.layer);
  lib.check(lib.setData(shape->y, CUDNN_DATA_FLOAT, layout, seq, batch,
                        toInt(c.dirs * c.stateSize, "output size", c), lengths.data(), nullptr),
            "cudnnSetRNNDataDescriptor (y) for " + c.layer);
  // h: [L·D, B, P]; c: [L·D, B, H], packed.
  const int units = toInt(c.layers * c.dirs, "layers", c);
  auto setState = [&](cudnnTensorDescriptor_t &t, int64_t width, const char *what) {
    lib.check(lib.createTensor(&t), "cudnnCreateTensorDescriptor");
    const int w = toInt(width, what, c);
    const int dims[3] = {units, batch, w}, strides[3] = {batch * w, w, 1};
    lib.check(lib.setTensorNd(t, CUDNN_DATA_FLOAT, 3, dims, strides),
              std::string("cudnnSetTensorNdDescriptor (") + what + ") for " + c.layer);
  };
  setState(shape->h, c.stateSize, "h");
  setState(shape->c, c.hidden, "c");
  // cudnnRNNForward reads the lengths from device memory, after it returns:
  // copied on the call's stream and waited for, so that any stream of this
  // thread may use the shape from here on.
  shape->seqLengths = cuda::DeviceBuffer(lengths.size() * sizeof(int));
  const cuda::Driver &d = cuda::Driver::get();
  d.check(d.cuMemcpyHtoDAsync(shape->seqLengths.get(), lengths.data(),
                              lengths.size() * sizeof(int), static_cast<cuda::CUstream>(stream)),
          "copying the sequence lengths of " + c.layer);
  d.check(d.cuStreamSynchronize(static_cast<cuda::CUstream>(stream)),
          "copying the sequence lengths of " + c.layer);
  size_t reserve = 0;
  lib.check(lib.getTempSpaceSizes(state.handle, net.rnn, CUDNN_FWD_MODE_INFERENCE, shape->x,
                                  &shape->workspaceBytes, &reserve),
            "cudnnGetRNNTempSpaceSizes for " + c.layer);
  return shape;
}

/// Enqueues the copies of `c`'s weights into `space` on `stream`.
void packWeights(const Network &net, const Call &c, void *space, void *stream) {
  const cuda::Driver &d = cuda::Driver::get();
  const uintptr_t to = reinterpret_cast<uintptr_t>(space);
  for (const WeightCopy &w : net.copies) {
    const uintptr_t from = reinterpret_cast<uintptr_t>(c.weights[w.weight]);
    d.check(d.cuMemcpyDtoDAsync(static_cast<cuda::CUdeviceptr>(to + w.toBytes),
                                static_cast<cuda::CUdeviceptr>(from + w.fromBytes), w.bytes,
                                static_cast<cuda::CUstream>(stream)),
            "copying the weights of " + c.layer + " into cuDNN's weight space");
  }
}

/// The weight space to run `c` with: bound weights packed once per set of
/// pointers (again after a device weight copy); others copied now.
const void *weightSpace(Network &net, const Call &c, bool capturing, void *stream) {
  if (!c.weightsBound) {
    packWeights(net, c, net.scratchWeights.data(), stream);
    return net.scratchWeights.data();
  }
  std::vector<const void *> key(c.weights, c.weights + c.numWeights());
  const uint64_t epoch = cuda::deviceWeightsEpoch();
  auto found = net.packed.find(key);
  if (found != net.packed.end()) {
    PackedWeights &p = found->second;
    if (p.epoch != epoch) { // maybe other weights at these addresses now
      packWeights(net, c, p.space.data(), stream);
      p.epoch = epoch;
    }
    return p.space.data();
  }
  if (capturing)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "cudnn: the recurrent layer " + c.layer +
                           " first ran with these weights under stream capture: run the model "
                           "once outside capture (its weights are packed then)");
  PackedWeights p;
  p.space = cuda::DeviceBuffer(net.weightSpaceBytes);
  packWeights(net, c, p.space.data(), stream);
  // Done before another stream of this thread can use the space.
  const cuda::Driver &d = cuda::Driver::get();
  d.check(d.cuStreamSynchronize(static_cast<cuda::CUstream>(stream)),
          "packing the weights of " + c.layer);
  p.epoch = epoch;
  return net.packed.emplace(std::move(key), std::move(p)).first->second.space.data();
}

/// No step: the final states are the initial ones (or zeros).
void noSteps(const Call &c, void *stream) {
  const cuda::Driver &d = cuda::Driver::get();
  auto s = static_cast<cuda::CUstream>(stream);
  auto fill = [&](void *to, const void *from, int64_t width) {
    size_t bytes = static_cast<size_t>(c.layers * c.dirs * c.batch * width) * sizeof(float);
    auto dst = static_cast<cuda::CUdeviceptr>(reinterpret_cast<uintptr_t>(to));
    if (from)
      d.check(d.cuMemcpyDtoDAsync(dst, static_cast<cuda::CUdeviceptr>(
                                           reinterpret_cast<uintptr_t>(from)),
                                  bytes, s),
              "copying the initial state of " + c.layer);
    else
      d.check(d.cuMemsetD8Async(dst, 0, bytes, s), "zeroing the state of " + c.layer);
  };
  fill(c.hn, c.h0, c.stateSize);
  if (c.mode == kRnnModeLstm)
    fill(c.cn, c.c0, c.hidden);
}

void run(const Call &c, void *stream) {
  if (c.batch == 0)
    return;
  if (c.seq == 0)
    return noSteps(c, stream);
  const Rnn &lib = Rnn::get(c.layer);
  ContextState &state = cudnn::stateForCurrentContext(lib);
  lib.check(lib.setStream(state.handle, stream), "cudnnSetStream");
  const bool capturing = cudnn::isCapturing(stream);
  RnnPlans &plans = state.part<RnnPlans>(cudnn::Part::Recurrence);
  NetworkKey key{c.mode,   c.compute, c.layers,    c.dirs,
                 c.inputSize, c.hidden, c.stateSize, c.hasBiases};
  std::unique_ptr<Network> &net = plans.networks[key];
  auto firstUnderCapture = [&](const char *what) {
    return RuntimeError(TCC_ERROR_UNSUPPORTED,
                        "cudnn: the recurrent layer " + c.layer + " first ran " + what +
                            " under stream capture: run the model once outside capture");
  };
  if (!net) {
    if (capturing)
      throw firstUnderCapture("at all");
    net = makeNetwork(lib, state, c);
  }
  std::unique_ptr<Shape> &shape = net->shapes[{c.seq, c.batch, c.batchFirst}];
  if (!shape) {
    if (capturing)
      throw firstUnderCapture(("with sequence length " + std::to_string(c.seq) + " and batch " +
                               std::to_string(c.batch))
                                  .c_str());
    shape = makeShape(lib, state, *net, c, stream);
  }
  if (shape->workspaceBytes > state.workspace.bytes()) {
    if (capturing)
      throw firstUnderCapture("with a workspace this large");
    state.reserveWorkspace(shape->workspaceBytes);
  }
  const void *space = weightSpace(*net, c, capturing, stream);
  lib.check(lib.forward(state.handle, net->rnn, CUDNN_FWD_MODE_INFERENCE,
                        static_cast<const int32_t *>(shape->seqLengths.data()), shape->x, c.x,
                        shape->y, c.y, shape->h, c.h0, c.hn, shape->c, c.c0, c.cn,
                        net->weightSpaceBytes, space, shape->workspaceBytes,
                        shape->workspaceBytes ? state.workspace.data() : nullptr, 0, nullptr),
            "cudnnRNNForward for " + c.layer);
}

} // namespace

extern "C" void tcc_cuda_rnn(int32_t mode, int32_t flags, int64_t layers, int64_t seq,
                             int64_t batch, int64_t inputSize, int64_t hidden,
                             int64_t stateSize, const void *x, const void *h0, const void *c0,
                             const void *const *weights, int64_t numWeights, void *y, void *hn,
                             void *cn, int32_t compute, const char *layer, void *stream) {
  if (hasKernelLaunchError())
    return;
  try {
    Call c{RnnSizes::decode(mode, flags, layers, seq, batch, inputSize, hidden, stateSize),
           compute, x, h0, c0, weights, y, hn, cn, layer ? layer : "(unnamed)"};
    if (mode < kRnnModeLstm || mode > kRnnModeRelu || numWeights != c.numWeights() ||
        (c.projections && mode != kRnnModeLstm))
      throw RuntimeError(TCC_ERROR_INTERNAL, "cudnn: the recurrent layer " + c.layer +
                                                 " was called with weights that do not match "
                                                 "its layers (internal error)");
    run(c, stream);
  } catch (const std::exception &e) {
    recordKernelLaunchError(e.what());
  }
}
