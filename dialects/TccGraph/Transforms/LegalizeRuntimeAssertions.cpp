//===- LegalizeRuntimeAssertions.cpp - the export's checks of .item() values ===//
//
// torch._check on a value read with .item() is exported as
// aten._assert_scalar(condition, message), which the exported program
// evaluates on every call. Its condition is a rank-0 bool tensor by now
// (the frontend's tensorizeScalarValues). The node has no result for a
// check to hang on, so the check is made on one of the call's results, the
// user output with the fewest elements: the call fails with the export's
// message where PyTorch raises (a run error on the CPU path, a device
// assertion on the CUDA path), and the check costs one read of that output.
// An input's size in the condition is read as a tensor too (sym_size.int,
// below). A condition that is not a tensor (one over a size expression,
// u0 <= 2*s77) is left to the guards; the manifest lists it as not
// evaluated.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace tcc::graph;

namespace {

/// Elements of `type`, or INT64_MAX where a size is symbolic.
int64_t elementCount(RankedTensorType type) {
  return type.hasStaticShape() ? type.getNumElements() : INT64_MAX;
}

FailureOr<SmallVector<Value>> legalizeAssertScalar(OperatorArgs &args, OpBuilder &b) {
  Value condition = args.tensor("self");
  if (!condition)
    return SmallVector<Value>{}; // a symbolic condition: the guards' (above)
  OperatorOp op = args.getOp();
  auto conditionType = dyn_cast<RankedTensorType>(condition.getType());
  if (!conditionType || conditionType.getRank() != 0 ||
      !conditionType.getElementType().isInteger(1))
    return operatorError(args) << "expects a condition of one bool, not " << condition.getType();
  auto func = op->getParentOfType<func::FuncOp>();
  auto ret = func ? dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator()) : nullptr;
  // User outputs carry their sizes; the state the call writes follows them.
  std::optional<unsigned> chosen;
  for (unsigned pass = 0; ret && pass < 2 && !chosen; ++pass)
    for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      bool userOutput = func.getResultAttr(i, TccGraphDialect::getSizesAttrName()) != nullptr;
      if (!type || (pass == 0 && !userOutput))
        continue;
      if (!chosen ||
          elementCount(type) < elementCount(cast<RankedTensorType>(ret.getOperand(*chosen).getType())))
        chosen = i;
    }
  if (!chosen)
    return operatorError(args) << "the program returns no tensor to check the condition with";
  std::optional<std::string> message;
  if (auto text = dyn_cast_or_null<StringAttr>(op.getArgs().get("assert_msg")))
    message = text.str();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ret);
  Value result = ret.getOperand(*chosen);
  Value checked = b.create<CheckOp>(
      op.getLoc(), result.getType(), condition, result,
      b.getStringAttr("aten._assert_scalar: " +
                      message.value_or("the export's check of a value computed at run time")));
  ret.setOperand(*chosen, checked);
  return SmallVector<Value>{};
}

/// sym_size.int(self, dim) as a rank-0 i64 tensor: an input's size that a
/// check compares with an .item() value (the frontend reads it again so).
FailureOr<SmallVector<Value>> legalizeSizeRead(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> self = requiredTensor(args, "self");
  std::optional<int64_t> dim = args.getInt("dim");
  if (failed(self) || !dim)
    return failure();
  int64_t rank = cast<RankedTensorType>(self->getType()).getRank();
  if (*dim < -rank || *dim >= rank)
    return operatorError(args) << "dim " << *dim << " is out of range for rank " << rank;
  return SmallVector<Value>{sizeTensor(b, args.getOp().getLoc(), *self, *dim < 0 ? *dim + rank : *dim)};
}

} // namespace

void tcc::graph::populateRuntimeAssertionLegalizers(LegalizerTable &t) {
  t["aten._assert_scalar.default"] = legalizeAssertScalar;
  t["aten.sym_size.int"] = legalizeSizeRead;
}
