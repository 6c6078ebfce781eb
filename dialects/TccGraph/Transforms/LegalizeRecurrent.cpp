//===- LegalizeRecurrent.cpp - LSTM, GRU and RNN layers -------------------===//
//
// aten.lstm.input, gru.input, rnn_tanh.input and rnn_relu.input as one
// tcc_graph.rnn each: the recurrence stays one op (never unrolled over
// time), so a symbolic sequence length reaches the runtime call whole.
// bf16 and f16 layers compute in f32 and round their outputs once: nearer
// float64's answer than PyTorch's own (which rounds between steps), and
// within a few bf16 ulps of it (measured on 2-layer bidirectional LSTM/GRU,
// hidden 256, 7-256 steps: eager 0.3-0.8% off float64, f32-then-round
// 0.25-0.3%). Refused by name: dropout in training mode (tcc compiles
// inference), the packed-sequence overloads (`.data`) and f64.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "tcc/Support/RecurrentShapes.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// aten.<mode>.input(input, hx, params, has_biases, num_layers, dropout,
/// train, bidirectional, batch_first); an LSTM's hx is [h0, c0].
LegalizeFn legalizeRecurrence(StringRef mode) {
  return [mode = mode.str()](OperatorArgs &args, OpBuilder &b) -> Results {
    OperatorOp op = args.getOp();
    bool lstm = mode == "lstm";
    Value x = args.tensor("input");
    if (!x)
      return operatorError(args) << "needs an input tensor";
    Value h0, c0;
    if (lstm) {
      SmallVector<Value> hx = args.tensorList("hx");
      if (hx.size() != 2)
        return operatorError(args) << "expects hx = [h0, c0], got " << hx.size() << " tensors";
      h0 = hx[0];
      c0 = hx[1];
    } else {
      h0 = args.tensor("hx");
    }
    double dropout = args.getFloat("dropout").value_or(0.0);
    if (args.getBool("train").value_or(false) && dropout > 0.0)
      return operatorError(args) << "dropout=" << llvm::formatv("{0}", dropout).str()
                                 << " in training mode (train=True) is not supported: tcc "
                                    "compiles inference; call model.eval() before exporting";
    Type elt = typeOf(x).getElementType();
    if (!elt.isF32() && !elt.isBF16() && !elt.isF16())
      return operatorError(args) << "computes float32, bfloat16 and float16 recurrences, got "
                                 << elt << " (export the layer in one of those)";
    Type f32 = b.getF32Type();
    auto inF32 = [&](Value v) { return v ? makeCast(b, op.getLoc(), v, f32) : v; };
    x = inF32(x);
    h0 = inF32(h0);
    c0 = inF32(c0);
    SmallVector<Value> weights;
    for (Value w : args.tensorList("params"))
      weights.push_back(inF32(w));
    // torch.export._patches' while-loop forms (the way to export a
    // symbolic sequence length) record h_n and c_n as [L·D, 1, B, H] where
    // the operator returns [L·D, B, H]: the same elements, reshaped after.
    SmallVector<Type> resultTypes;
    SmallVector<bool> unitDim;
    for (unsigned i = 0; i < op.getNumResults(); ++i) {
      RankedTensorType type = args.resultType(i);
      unitDim.push_back(i > 0 && type.getRank() == 4 && type.getDimSize(1) == 1);
      if (unitDim.back())
        type = RankedTensorType::get({type.getDimSize(0), type.getDimSize(2), type.getDimSize(3)},
                                     f32);
      else
        type = type.clone(f32);
      resultTypes.push_back(type);
    }
    auto flag = [&](StringRef name, bool dflt) {
      return args.getBool(name).value_or(dflt) ? b.getUnitAttr() : UnitAttr();
    };
    auto rnn = b.create<RnnOp>(op.getLoc(), resultTypes, x, h0, c0, weights,
                               b.getStringAttr(mode),
                               b.getI64IntegerAttr(args.getInt("num_layers").value_or(1)),
                               flag("bidirectional", false), flag("batch_first", false),
                               flag("has_biases", true));
    // Shapes PyTorch would not take fail the op's verifier, which the
    // legalization pass reports at the operator's line.
    SmallVector<Value> results;
    for (auto [i, v] : llvm::enumerate(rnn.getResults())) {
      Value result = makeCast(b, op.getLoc(), v, elt);
      results.push_back(unitDim[i] ? makeReshape(b, op.getLoc(), result,
                                                 args.resultType(i).getShape())
                                   : result);
    }
    return results;
  };
}

/// The packed-sequence overloads: refused by name.
Results refusePackedSequence(OperatorArgs &args, OpBuilder &) {
  return operatorError(args) << "packed sequences (torch.nn.utils.rnn.PackedSequence) are not "
                                "supported: pass the padded batch as one tensor";
}

} // namespace

void tcc::graph::populateRecurrentLegalizers(LegalizerTable &t) {
  for (StringRef mode : {"lstm", "gru", "rnn_tanh", "rnn_relu"}) {
    t["aten." + mode.str() + ".input"] = legalizeRecurrence(mode);
    t["aten." + mode.str() + ".data"] = refusePackedSequence;
  }
}
