//===- RecurrentShapes.h - the shapes a recurrent layer takes -------------===//
//
// One rule for tcc_graph.rnn and tcc_kernel.rnn, which verify it at either
// end of kernel formation: PyTorch's nn.LSTM / nn.GRU / nn.RNN layout of
// inputs, weights and outputs (aten.lstm.input and its siblings). Per layer
// and direction the weights come as w_ih [G·H, I], w_hh [G·H, P], then with
// biases b_ih [G·H], b_hh [G·H], then for an LSTM with projections w_hr
// [P, H]; G is the number of gates (LSTM 4, GRU 3, plain RNN 1), H the
// hidden size, P the size of h (H, or proj_size), I the layer's input size
// (the model's for layer 0, then D·P with D directions). Dynamic sizes match
// anything; the weights need static shapes.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_RECURRENTSHAPES_H
#define TCC_SUPPORT_RECURRENTSHAPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <optional>
#include <string>

namespace tcc {

/// The gates of a recurrence `mode` (lstm 4, gru 3, rnn_tanh and rnn_relu
/// 1), 0 for any other name.
inline int64_t recurrentGates(llvm::StringRef mode) {
  return llvm::StringSwitch<int64_t>(mode)
      .Case("lstm", 4)
      .Case("gru", 3)
      .Cases({"rnn_tanh", "rnn_relu"}, 1)
      .Default(0);
}

/// The ATen operator a recurrence `mode` comes from, for messages.
inline std::string recurrentOperatorName(llvm::StringRef mode) {
  return "aten." + mode.str() + ".input";
}

/// Weights per layer and direction: w_ih, w_hh, the biases, w_hr.
inline int64_t recurrentWeightsPerDirection(bool hasBiases, bool projections) {
  return 2 + (hasBiases ? 2 : 0) + (projections ? 1 : 0);
}

/// A recurrence's sizes and layout, as its op states them.
struct RecurrentShapes {
  llvm::StringRef mode;
  int64_t layers = 1;
  bool bidirectional = false, batchFirst = false, hasBiases = true;
  llvm::ArrayRef<int64_t> input;                  ///< [T, B, I] ([B, T, I] batch first)
  std::optional<llvm::ArrayRef<int64_t>> h0, c0;  ///< absent: zeros
  llvm::SmallVector<llvm::ArrayRef<int64_t>> weights;
  llvm::ArrayRef<int64_t> output;                 ///< [T, B, D·P] ([B, T, D·P])
  llvm::ArrayRef<int64_t> hn;                     ///< [L·D, B, P]
  std::optional<llvm::ArrayRef<int64_t>> cn;      ///< [L·D, B, H], LSTM only
};

/// The hidden size H and the size P of h (H without projections) that the
/// first layer's w_hh [G·H, P] states; nullopt where it states none.
inline std::optional<std::pair<int64_t, int64_t>>
recurrentHiddenSizes(int64_t gates, llvm::ArrayRef<int64_t> firstHiddenWeight) {
  if (gates <= 0 || firstHiddenWeight.size() != 2 ||
      mlir::ShapedType::isDynamic(firstHiddenWeight[0]) ||
      mlir::ShapedType::isDynamic(firstHiddenWeight[1]) || firstHiddenWeight[0] % gates != 0)
    return std::nullopt;
  return std::make_pair(firstHiddenWeight[0] / gates, firstHiddenWeight[1]);
}

/// Why `s` is no recurrence PyTorch computes, or "" when it is one.
inline std::string recurrentShapeError(const RecurrentShapes &s) {
  auto same = [](int64_t a, int64_t b) {
    return a == b || mlir::ShapedType::isDynamic(a) || mlir::ShapedType::isDynamic(b);
  };
  auto sameShape = [&](llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i]))
        return false;
    return true;
  };
  auto text = [](llvm::ArrayRef<int64_t> shape) {
    std::string t = "[";
    for (size_t i = 0; i < shape.size(); ++i)
      t += (i ? ", " : "") +
           (mlir::ShapedType::isDynamic(shape[i]) ? std::string("?") : std::to_string(shape[i]));
    return t + "]";
  };
  int64_t gates = recurrentGates(s.mode);
  if (gates == 0)
    return "mode must be lstm, gru, rnn_tanh or rnn_relu, got '" + s.mode.str() + "'";
  if (s.layers < 1)
    return "needs at least one layer";
  if (s.input.size() != 3)
    return "the input must have rank 3, got " + text(s.input);
  int64_t dirs = s.bidirectional ? 2 : 1;
  int64_t units = s.layers * dirs;
  bool lstm = gates == 4;
  int64_t plain = recurrentWeightsPerDirection(s.hasBiases, false);
  int64_t count = static_cast<int64_t>(s.weights.size());
  bool projections = lstm && count == units * (plain + 1);
  if (count != units * plain && !projections)
    return "expects " + std::to_string(units * plain) + " weights (" + std::to_string(s.layers) +
           " layers x " + std::to_string(dirs) + " directions x " + std::to_string(plain) +
           "), got " + std::to_string(count);
  for (llvm::ArrayRef<int64_t> w : s.weights)
    for (int64_t d : w)
      if (mlir::ShapedType::isDynamic(d))
        return "the weights need static shapes, got " + text(w);
  auto sizes = recurrentHiddenSizes(gates, s.weights[1]);
  if (!sizes)
    return "w_hh must be [" + std::to_string(gates) + "·hidden, size of h], got " +
           text(s.weights[1]);
  auto [hidden, hSize] = *sizes;
  if (!projections && hSize != hidden)
    return "w_hh must be [" + std::to_string(gates * hidden) + ", " + std::to_string(hidden) +
           "] without projections, got " + text(s.weights[1]);
  int64_t per = recurrentWeightsPerDirection(s.hasBiases, projections);
  int64_t batch = s.input[s.batchFirst ? 0 : 1], seq = s.input[s.batchFirst ? 1 : 0];
  for (int64_t layer = 0; layer < s.layers; ++layer)
    for (int64_t dir = 0; dir < dirs; ++dir) {
      const llvm::ArrayRef<int64_t> *w = &s.weights[(layer * dirs + dir) * per];
      int64_t in = layer == 0 ? s.input[2] : dirs * hSize;
      std::string where =
          " of layer " + std::to_string(layer) + (dir ? " (reverse)" : "") + " must be ";
      llvm::SmallVector<std::pair<const char *, llvm::SmallVector<int64_t>>> expected = {
          {"w_ih", {gates * hidden, in}}, {"w_hh", {gates * hidden, hSize}}};
      if (s.hasBiases) {
        expected.push_back({"b_ih", {gates * hidden}});
        expected.push_back({"b_hh", {gates * hidden}});
      }
      if (projections)
        expected.push_back({"w_hr", {hSize, hidden}});
      for (auto [i, e] : llvm::enumerate(expected))
        if (!sameShape(w[i], e.second))
          return std::string(e.first) + where + text(e.second) + ", got " + text(w[i]);
    }
  llvm::SmallVector<int64_t> output = s.batchFirst
                                          ? llvm::SmallVector<int64_t>{batch, seq, dirs * hSize}
                                          : llvm::SmallVector<int64_t>{seq, batch, dirs * hSize};
  if (!sameShape(s.output, output))
    return "the output must be " + text(output) + ", got " + text(s.output);
  llvm::SmallVector<int64_t> hn{units, batch, hSize}, cn{units, batch, hidden};
  if (!sameShape(s.hn, hn))
    return "h_n must be " + text(hn) + ", got " + text(s.hn);
  if (s.h0 && !sameShape(*s.h0, hn))
    return "h0 must be " + text(hn) + ", got " + text(*s.h0);
  if (lstm != s.cn.has_value())
    return lstm ? "an LSTM has a c_n result" : "only an LSTM has a c_n result";
  if (!lstm && s.c0)
    return "only an LSTM takes c0";
  if (s.cn && !sameShape(*s.cn, cn))
    return "c_n must be " + text(cn) + ", got " + text(*s.cn);
  if (s.c0 && !sameShape(*s.c0, cn))
    return "c0 must be " + text(cn) + ", got " + text(*s.c0);
  return "";
}

/// recurrentShapeError of an op's values (tensors or memrefs): `outputs`
/// are the output, h_n and, for an LSTM, c_n; h0 and c0 may be null.
inline std::string recurrentOpError(llvm::StringRef mode, int64_t layers, bool bidirectional,
                                    bool batchFirst, bool hasBiases, mlir::Value input,
                                    mlir::Value h0, mlir::Value c0, mlir::ValueRange weights,
                                    mlir::ValueRange outputs) {
  auto shape = [](mlir::Value v) { return llvm::cast<mlir::ShapedType>(v.getType()).getShape(); };
  size_t expected = recurrentGates(mode) == 4 ? 3 : 2;
  if (outputs.size() != expected)
    return "has " + std::to_string(expected) + " outputs (output, h_n" +
           (expected == 3 ? ", c_n" : "") + "), got " + std::to_string(outputs.size());
  RecurrentShapes s;
  s.mode = mode;
  s.layers = layers;
  s.bidirectional = bidirectional;
  s.batchFirst = batchFirst;
  s.hasBiases = hasBiases;
  s.input = shape(input);
  if (h0)
    s.h0 = shape(h0);
  if (c0)
    s.c0 = shape(c0);
  for (mlir::Value w : weights)
    s.weights.push_back(shape(w));
  s.output = shape(outputs[0]);
  s.hn = shape(outputs[1]);
  if (expected == 3)
    s.cn = shape(outputs[2]);
  return recurrentShapeError(s);
}

} // namespace tcc

#endif // TCC_SUPPORT_RECURRENTSHAPES_H
