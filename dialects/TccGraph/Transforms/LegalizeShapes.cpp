//===- LegalizeShapes.cpp - transposes, reshapes, concatenation -----------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

Results makePermute(OperatorArgs &args, OpBuilder &b, SmallVector<int64_t> perm) {
  Value x = args.tensor("self");
  return SmallVector<Value>{b.create<TransposeOp>(args.getOp().getLoc(), args.resultType(),
                                                  x, b.getDenseI64ArrayAttr(perm))};
}

Results legalizeTranspose(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  if (rank < 2)
    return SmallVector<Value>{x};  // t() of a vector is the vector
  int64_t d0 = normalizeDim(args.getInt("dim0").value_or(0), rank);
  int64_t d1 = normalizeDim(args.getInt("dim1").value_or(1), rank);
  std::swap(perm[d0], perm[d1]);
  return makePermute(args, b, perm);
}

Results legalizePermute(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  std::optional<SmallVector<int64_t>> dims = args.getInts("dims");
  if (!x || !dims)
    return args.getOp().emitError("permute expects 'self' and 'dims'");
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  for (int64_t &d : *dims)
    d = normalizeDim(d, rank);
  return makePermute(args, b, *dims);
}

/// view/reshape/flatten: the export already knows the result shape.
Results legalizeReshape(OperatorArgs &args, OpBuilder &b) {
  Value x = args.tensor("self");
  if (!x)
    return args.getOp().emitError("expected a tensor operand 'self'");
  RankedTensorType type = args.resultType();
  if (type.getNumDynamicDims() > 1)
    return args.getOp().emitError("reshape to a shape with more than one symbolic "
                                  "dimension is not supported yet");
  return SmallVector<Value>{b.create<ReshapeOp>(args.getOp().getLoc(), type, x)};
}

Results legalizeCat(OperatorArgs &args, OpBuilder &b) {
  SmallVector<Value> inputs = args.tensorList("tensors");
  if (inputs.empty())
    return args.getOp().emitError("cat expects a list of tensors");
  RankedTensorType type = args.resultType();
  int64_t dim = normalizeDim(args.getInt("dim").value_or(0), type.getRank());
  if (inputs.size() == 1)
    return SmallVector<Value>{inputs[0]};
  return SmallVector<Value>{b.create<ConcatOp>(args.getOp().getLoc(), type, inputs,
                                               b.getI64IntegerAttr(dim))};
}
} // namespace

void tcc::graph::populateShapeLegalizers(LegalizerTable &t) {
  t["aten.t.default"] = legalizeTranspose;
  t["aten.transpose.int"] = legalizeTranspose;
  t["aten.permute.default"] = legalizePermute;
  t["aten.view.default"] = legalizeReshape;
  t["aten.reshape.default"] = legalizeReshape;
  t["aten._unsafe_view.default"] = legalizeReshape;
  t["aten.flatten.using_ints"] = legalizeReshape;
  t["aten.cat.default"] = legalizeCat;
}
