//===- LegalizeIndexing.cpp - expand, gathers by index, as_strided --------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// The operator's name without the "torch.ops." prefix, for messages.
StringRef operatorName(OperatorArgs &args) {
  StringRef name = args.getOp().getName();
  name.consume_front("torch.ops.");
  return name;
}

/// `made` if it verifies; otherwise erases it and reports the verifier's
/// reason under the operator's name, since the user knows the ATen call.
template <typename OpTy>
Results verified(OperatorArgs &args, OpTy made) {
  std::string reason;
  LogicalResult ok = [&] {
    ScopedDiagnosticHandler capture(made->getContext(), [&](Diagnostic &d) {
      reason = d.str();
      return success();
    });
    return mlir::verify(made);
  }();
  if (succeeded(ok))
    return SmallVector<Value>{made.getResult()};
  made->erase();
  return args.getOp().emitError("operator '") << operatorName(args) << "': " << reason;
}

/// The named operand, or an error naming the operator.
FailureOr<Value> required(OperatorArgs &args, StringRef name) {
  if (Value v = args.tensor(name))
    return v;
  return args.getOp().emitError("operator '") << operatorName(args) << "' needs tensor '"
                                              << name << "'";
}

int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }

/// expand / expand_as: the export's result type already resolved -1 sizes.
Results legalizeExpand(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = required(args, "self");
  if (failed(x))
    return failure();
  RankedTensorType type = args.resultType();
  // Symbolic result sizes (expand to a sequence length) come from the
  // export's expressions rather than from the input.
  FailureOr<SmallVector<Value>> sizes = symbolicSizes(args, b);
  if (failed(sizes))
    return failure();
  return verified(args, b.create<BroadcastOp>(args.getOp().getLoc(), type, *x, *sizes));
}

/// `dim` argument normalized against `rank`, or an error naming the operator.
FailureOr<int64_t> dimArg(OperatorArgs &args, int64_t rank, int64_t fallback = 0) {
  int64_t raw = args.getInt("dim").value_or(fallback);
  int64_t dim = normalizeDim(raw, rank);
  if (dim < 0 || dim >= rank)
    return args.getOp().emitError("operator '") << operatorName(args) << "': dim " << raw
                                                << " out of range for rank " << rank;
  return dim;
}

Results makeTake(OperatorArgs &args, OpBuilder &b, Value x, Value index, int64_t dim) {
  if (!isa<IntegerType>(cast<RankedTensorType>(index.getType()).getElementType()) ||
      cast<RankedTensorType>(index.getType()).getElementType().isInteger(1))
    return args.getOp().emitError("operator '")
           << operatorName(args) << "': only integer index tensors are supported "
           << "(boolean masks are not)";
  return verified(args, b.create<TakeOp>(args.getOp().getLoc(), args.resultType(), x, index,
                                         b.getI64IntegerAttr(dim)));
}

/// The source, the index tensor and (when `hasDim`) the normalized `dim`.
struct Indexed {
  Value x, index;
  int64_t dim = 0;
};
FailureOr<Indexed> indexedArgs(OperatorArgs &args, StringRef source, StringRef indexName,
                               bool hasDim) {
  FailureOr<Value> x = required(args, source), index = required(args, indexName);
  if (failed(x) || failed(index))
    return failure();
  Indexed r{*x, *index};
  if (hasDim) {
    FailureOr<int64_t> dim = dimArg(args, rankOf(*x));
    if (failed(dim))
      return failure();
    r.dim = *dim;
  }
  return r;
}

Results legalizeEmbedding(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Indexed> in = indexedArgs(args, "weight", "indices", /*hasDim=*/false);
  if (failed(in))
    return failure();
  return makeTake(args, b, in->x, in->index, 0);
}

Results legalizeIndexSelect(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Indexed> in = indexedArgs(args, "self", "index", /*hasDim=*/true);
  if (failed(in))
    return failure();
  if (rankOf(in->index) > 1)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "': the index must be 1-D";
  return makeTake(args, b, in->x, in->index, in->dim);
}

/// x[idx] / x[:, :, idx]: one index tensor, at the position its operand name
/// (`indices.<i>`) records; None entries before it are full slices.
Results legalizeIndexTensor(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = required(args, "self");
  if (failed(x))
    return failure();
  OperatorOp op = args.getOp();
  Value index;
  int64_t position = -1, count = 0;
  for (auto [v, n] : llvm::zip(op.getOperands(), op.getOperandNames())) {
    StringRef name = cast<StringAttr>(n).getValue();
    if (!name.consume_front("indices."))
      continue;
    ++count;
    index = v;
    if (name.getAsInteger(10, position))
      return op.emitError("operator '") << operatorName(args) << "': bad operand name";
  }
  if (count != 1)
    return op.emitError("operator '") << operatorName(args) << "': " << count
                                      << " index tensors; only one (other entries None) "
                                      << "is supported";
  if (position >= rankOf(*x))
    return op.emitError("operator '") << operatorName(args) << "': index at position "
                                      << position << " of a rank-" << rankOf(*x)
                                      << " tensor";
  return makeTake(args, b, *x, index, position);
}

Results legalizeGather(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Indexed> in = indexedArgs(args, "self", "index", /*hasDim=*/true);
  if (failed(in))
    return failure();
  return verified(args, b.create<GatherOp>(args.getOp().getLoc(), args.resultType(), in->x,
                                           in->index, b.getI64IntegerAttr(in->dim)));
}

Results legalizeAsStrided(OperatorArgs &args, OpBuilder &b) {
  FailureOr<Value> x = required(args, "self");
  std::optional<SmallVector<int64_t>> strides = args.getInts("stride");
  if (failed(x))
    return failure();
  if (!strides)
    return args.getOp().emitError("operator '") << operatorName(args)
                                                << "' needs static strides";
  int64_t offset = args.getInt("storage_offset").value_or(0);
  return verified(args, b.create<AsStridedOp>(args.getOp().getLoc(), args.resultType(), *x,
                                              b.getDenseI64ArrayAttr(*strides),
                                              b.getI64IntegerAttr(offset)));
}
} // namespace

void tcc::graph::populateIndexingLegalizers(LegalizerTable &t) {
  t["aten.expand.default"] = legalizeExpand;
  t["aten.expand_as.default"] = legalizeExpand;
  t["aten.embedding.default"] = legalizeEmbedding;
  t["aten.index_select.default"] = legalizeIndexSelect;
  t["aten.index.Tensor"] = legalizeIndexTensor;
  t["aten.gather.default"] = legalizeGather;
  t["aten.as_strided.default"] = legalizeAsStrided;
}
