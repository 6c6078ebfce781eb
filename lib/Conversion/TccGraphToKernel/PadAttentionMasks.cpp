//===- PadAttentionMasks.cpp - weight masks in rows of 16 bytes -----------===//
//
// Implements `tcc-pad-attention-masks`. The fused attention kernel copies a
// mask's tiles into shared memory with 16-byte cp.async only when every row
// starts on 16 bytes; rows of 49 bf16 keys (98 bytes, Swin-T's window
// masks) are loaded element by element, which took Swin-T's stage-1
// attention from 34 to 68 us on an H200. A mask that is a weight (bound or
// derived) is computed before the first call, so its rows can be padded
// there for nothing: the mask becomes a slice of a weight of padded rows,
// a view the kernel reads with the padded stride.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/DerivedWeightArguments.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Support/DerivedWeightProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/BitVector.h"

namespace tcc {
#define GEN_PASS_DEF_PADATTENTIONMASKSPASS
#include "tcc/Conversion/Passes.h.inc"
} // namespace tcc

using namespace mlir;
using namespace tcc;

namespace {

/// The alignment, in bytes, of a row that the kernel copies with cp.async.
constexpr int64_t kRowAlignmentBytes = 16;

/// Whether `use` is the mask operand of an attention kernel (and not also
/// one of its other operands).
bool isMaskUse(OpOperand &use) {
  auto attention = dyn_cast<kernel::AttentionOp>(use.getOwner());
  Value v = use.get();
  return attention && attention.getMask() == v && attention.getQuery() != v &&
         attention.getKey() != v && attention.getValue() != v;
}

/// A static reshape whose result keeps the last dim `lastDim`: a view of
/// rows that stays a view when the rows are padded.
bool keepsRows(Operation *op, int64_t lastDim) {
  auto reshape = dyn_cast<graph::ReshapeOp>(op);
  if (!reshape || !reshape.getDynamicSizes().empty())
    return false;
  auto type = cast<RankedTensorType>(reshape.getType());
  return type.getRank() > 0 && type.getShape().back() == lastDim;
}

/// Whether every use of `v` is an attention mask, directly or through
/// reshapes that keep the rows.
bool onlyMasks(Value v, int64_t lastDim) {
  return llvm::all_of(v.getUses(), [&](OpOperand &use) {
    return isMaskUse(use) || (keepsRows(use.getOwner(), lastDim) &&
                              onlyMasks(use.getOwner()->getResult(0), lastDim));
  });
}

/// `type` with its last dim `size`.
RankedTensorType withLastDim(RankedTensorType type, int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = size;
  return RankedTensorType::get(shape, type.getElementType());
}

/// Moves the uses of `old` (rows of `lastDim`) onto `padded` (the same rows
/// padded): reshapes are rebuilt over the padded rows, and each mask reads
/// a slice of the first `lastDim` elements of every row.
void readPadded(Value old, Value padded, int64_t lastDim, OpBuilder &b) {
  for (OpOperand &use : llvm::make_early_inc_range(old.getUses())) {
    Operation *user = use.getOwner();
    b.setInsertionPoint(user);
    if (isMaskUse(use)) {
      auto type = cast<RankedTensorType>(old.getType());
      use.set(graph::SliceOp::create(b, user->getLoc(), type, padded,
                                     b.getI64IntegerAttr(type.getRank() - 1),
                                     b.getI64IntegerAttr(0), b.getI64IntegerAttr(lastDim),
                                     b.getI64IntegerAttr(1)));
      continue;
    }
    auto reshape = cast<graph::ReshapeOp>(user);
    int64_t pitch = cast<RankedTensorType>(padded.getType()).getShape().back();
    Value next = graph::ReshapeOp::create(
        b, reshape.getLoc(), withLastDim(cast<RankedTensorType>(reshape.getType()), pitch), padded);
    readPadded(reshape.getResult(), next, lastDim, b);
    reshape.erase();
  }
}

class MaskPadding {
public:
  explicit MaskPadding(func::FuncOp func) : func(func), names(func) {}

  void run() {
    // Candidates first: padding appends and erases arguments.
    SmallVector<BlockArgument> masks;
    for (BlockArgument arg : func.getArguments())
      if (pitchFor(arg))
        masks.push_back(arg);
    SmallVector<unsigned> erased;
    for (BlockArgument arg : masks)
      if (pad(arg))
        erased.push_back(arg.getArgNumber());
    llvm::BitVector dead(func.getNumArguments());
    for (unsigned i : erased)
      dead.set(i);
    (void)func.eraseArguments(dead);
  }

private:
  StringRef stringAttr(BlockArgument arg, StringRef name) {
    return graph::argumentString(func, arg, name);
  }

  ArrayAttr program(BlockArgument arg) {
    return func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                            graph::TccGraphDialect::getDerivedAttrName());
  }

  /// The padded row length of a float weight read only as attention masks
  /// whose rows are not a multiple of 16 bytes; 0 for any other argument.
  int64_t pitchFor(BlockArgument arg) {
    if (stringAttr(arg, graph::TccGraphDialect::getRoleAttrName()) != "weight" ||
        arg.use_empty())
      return 0;
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
        !isa<FloatType>(type.getElementType()))
      return 0;
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    int64_t lastDim = type.getShape().back();
    if (bytes == 0 || kRowAlignmentBytes % bytes != 0 ||
        (lastDim * bytes) % kRowAlignmentBytes == 0)
      return 0;
    int64_t perRow = kRowAlignmentBytes / bytes;
    int64_t pitch = (lastDim + perRow - 1) / perRow * perRow;
    if (type.getNumElements() / lastDim * pitch > kMaxDerivedElements || !onlyMasks(arg, lastDim))
      return 0;
    return pitch;
  }

  /// Gives `arg`'s masks a derived weight of padded rows: `arg`'s program
  /// (a bound weight: reading it) and zeros joined along the last dim.
  /// True when `arg` (derived) is to be erased; a bound weight the function
  /// no longer reads is left to the host.
  bool pad(BlockArgument arg) {
    int64_t pitch = pitchFor(arg);
    auto type = cast<RankedTensorType>(arg.getType());
    int64_t lastDim = type.getShape().back();
    SmallVector<std::string> tokens;
    std::string name;
    StringRef argName = stringAttr(arg, graph::TccGraphDialect::getPublicNameAttrName());
    ArrayAttr derived = program(arg);
    if (derived) {
      for (Attribute t : derived)
        tokens.push_back(cast<StringAttr>(t).getValue().str());
      name = argName.str(); // the argument it replaces is erased
    } else {
      tokens.push_back(derivedToken(DerivedOp::Weight, argName));
      name = names.fresh(argName);
    }
    tokens.push_back(derivedToken(DerivedOp::Const, "0"));
    RankedTensorType zeros = withLastDim(type, pitch - lastDim);
    tokens.push_back(derivedToken(DerivedOp::Broadcast, derivedIntList(zeros.getShape())));
    tokens.push_back(derivedToken(DerivedOp::Concat, std::to_string(type.getRank() - 1)));
    BlockArgument padded =
        graph::appendDerivedWeight(func, withLastDim(type, pitch), name, tokens, arg.getLoc());
    if (!padded)
      return false;
    OpBuilder builder(func.getContext());
    readPadded(arg, padded, lastDim, builder);
    if (derived)
      return true;
    func.setArgAttr(arg.getArgNumber(), graph::TccGraphDialect::getHostOnlyAttrName(),
                    UnitAttr::get(func.getContext()));
    return false;
  }

  func::FuncOp func;
  graph::DerivedWeightNames names;
};

struct PadAttentionMasksPass : tcc::impl::PadAttentionMasksPassBase<PadAttentionMasksPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        MaskPadding(func).run();
  }
};

} // namespace
