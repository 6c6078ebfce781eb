//===- FuseSiblingMatmuls.cpp - products of one input as one product -------===//
//
// Implements `tcc-fuse-sibling-matmuls`. A transformer's query, key and
// value projections (and a gated MLP's gate and up projections) are
// separate linear layers reading the same activation. As separate GEMMs each
// fills only part of the GPU: BERT-base's 1024x768x768 projections run 96
// output tiles of 128x64 on an H100's 132 SMs, and cuBLASLt splits K (a
// second kernel) to fill them. Joined along the output dim they are one
// product of three times the columns, one launch, and the results are
// column slices of it, which attention and pointwise kernels read in place
// through their strides. The joined weight and bias are concatenations of
// weights: tcc-hoist-weight-expressions makes them derived weights, computed
// once per binding.
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

#include <tuple>

#define DEBUG_TYPE "tcc-fuse-sibling-matmuls"

namespace tcc::graph {
#define GEN_PASS_DEF_FUSESIBLINGMATMULSPASS
#include "dialects/TccGraph/Transforms/Passes.h.inc"
} // namespace tcc::graph

using namespace mlir;
using namespace tcc::graph;

namespace {

/// A linear layer `x · Wᵀ (+ b)` whose weight and bias are bound weights.
struct Linear {
  MatmulOp matmul;
  BlockArgument weight; // [n, k]
  AddOp biasAdd;        // null without a bias
  BlockArgument bias;   // [n]
  int64_t outputs() { return cast<RankedTensorType>(weight.getType()).getDimSize(0); }
  /// The value the layer's users read.
  Value result() { return biasAdd ? biasAdd.getResult() : matmul.getResult(); }
};

/// `op` as a linear layer over a 2-D static weight, if it is one.
std::optional<Linear> matchLinear(MatmulOp op) {
  auto transpose = op.getRhs().getDefiningOp<TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0} ||
      !TccGraphDialect::isWeightArgument(transpose.getInput()))
    return std::nullopt;
  auto weightType = cast<RankedTensorType>(transpose.getInput().getType());
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  if (!weightType.hasStaticShape() || lhsType.getRank() < 2 ||
      TccGraphDialect::isWeightArgument(op.getLhs()))
    return std::nullopt;
  Linear linear{op, cast<BlockArgument>(transpose.getInput()), nullptr, nullptr};
  // A bias is the product's only user: an add of a [n] weight.
  if (op->hasOneUse())
    if (auto add = dyn_cast<AddOp>(*op->getUsers().begin())) {
      Value other = add.getLhs() == op.getResult() ? add.getRhs() : add.getLhs();
      auto otherType = cast<RankedTensorType>(other.getType());
      if (TccGraphDialect::isWeightArgument(other) && other != op.getResult() &&
          otherType.getRank() == 1 &&
          otherType.getDimSize(0) == weightType.getDimSize(0) &&
          otherType.getElementType() == weightType.getElementType() &&
          add.getType() == op.getType()) {
        linear.biasAdd = add;
        linear.bias = cast<BlockArgument>(other);
      }
    }
  return linear;
}

/// Joins `group` (two or more layers over one input, in block order) into
/// one product and replaces each layer's result by its column slice.
void fuse(MutableArrayRef<Linear> group) {
  Linear &first = group.front();
  OpBuilder b(first.matmul);
  Location loc = b.getFusedLoc(llvm::map_to_vector(group, [](Linear &l) {
    return l.matmul.getLoc();
  }));
  auto weightType = cast<RankedTensorType>(first.weight.getType());
  auto resultType = cast<RankedTensorType>(first.matmul.getType());
  Type element = weightType.getElementType();
  int64_t k = weightType.getDimSize(1), total = 0;
  SmallVector<Value> weights, biases;
  for (Linear &l : group) {
    total += l.outputs();
    weights.push_back(l.weight);
    if (l.bias)
      biases.push_back(l.bias);
  }
  auto joinedWeightType = RankedTensorType::get({total, k}, element);
  Value joined = ConcatOp::create(b, loc, joinedWeightType, weights, b.getI64IntegerAttr(0));
  Value transposed = TransposeOp::create(b, loc, RankedTensorType::get({k, total}, element),
                                         joined, b.getDenseI64ArrayAttr({1, 0}));
  SmallVector<int64_t> shape(resultType.getShape());
  shape.back() = total;
  auto wideType = RankedTensorType::get(shape, resultType.getElementType());
  Value wide = MatmulOp::create(b, loc, wideType, first.matmul.getLhs(), transposed);
  if (first.bias) {
    auto biasType = RankedTensorType::get({total}, element);
    Value bias = ConcatOp::create(b, loc, biasType, biases, b.getI64IntegerAttr(0));
    wide = AddOp::create(b, loc, wideType, wide, bias);
  }
  int64_t start = 0, dim = resultType.getRank() - 1;
  for (Linear &l : group) {
    int64_t end = start + l.outputs();
    Value slice = SliceOp::create(b, l.matmul.getLoc(), l.result().getType(), wide,
                                  b.getI64IntegerAttr(dim), b.getI64IntegerAttr(start),
                                  b.getI64IntegerAttr(end), b.getI64IntegerAttr(1));
    l.result().replaceAllUsesWith(slice);
    start = end;
  }
  for (Linear &l : group) {
    if (l.biasAdd)
      l.biasAdd.erase();
    Operation *transpose = l.matmul.getRhs().getDefiningOp();
    l.matmul.erase();
    if (transpose->use_empty())
      transpose->erase();
  }
  LLVM_DEBUG(llvm::dbgs() << "joined " << group.size() << " products into " << wideType << "\n");
}

struct FuseSiblingMatmulsPass
    : tcc::graph::impl::FuseSiblingMatmulsPassBase<FuseSiblingMatmulsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      if (func.isExternal())
        return;
      // Layers grouped by what must agree: the input, the weight's k and
      // dtype, having a bias.
      using Key = std::tuple<Value, int64_t, Type, int>;
      llvm::MapVector<Key, SmallVector<Linear>> groups;
      for (Operation &op : func.getBody().front()) {
        auto matmul = dyn_cast<MatmulOp>(op);
        if (!matmul)
          continue;
        std::optional<Linear> l = matchLinear(matmul);
        if (!l)
          continue;
        auto weightType = cast<RankedTensorType>(l->weight.getType());
        groups[Key{matmul.getLhs(), weightType.getDimSize(1), weightType.getElementType(),
                   l->bias ? 1 : 0}]
            .push_back(*l);
      }
      for (auto &[key, layers] : groups) {
        // Within what a derived weight may hold, in block order.
        SmallVector<Linear> group;
        int64_t elements = 0, k = std::get<1>(key);
        for (Linear &l : layers) {
          if (elements + l.outputs() * k > ::tcc::kMaxDerivedElements) {
            if (group.size() > 1)
              fuse(group);
            group.clear();
            elements = 0;
          }
          group.push_back(l);
          elements += l.outputs() * k;
        }
        if (group.size() > 1)
          fuse(group);
      }
    });
  }
};

} // namespace
