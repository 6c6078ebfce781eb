//===- FormGemm.cpp - matmuls and their epilogues into tcc_kernel.gemm ----===//
//
// Each tcc_graph.matmul becomes one tcc_kernel.gemm. Around it:
//   - a transpose of an operand's last two dims is folded into its
//     transpose flag (a linear layer's weight is never copied);
//   - the epilogue is followed through single-use chains (and reshapes that
//     keep the last dim, as `linear` on a [B, L, K] input produces): a scale
//     by a constant (alpha, before anything else), a bias over the last dim,
//     ReLU or GELU-tanh, and a residual add of a tensor of the result's shape
//     (without an activation: the libraries add it before the activation,
//     PyTorch after), also behind a transpose of the product where the
//     residual is the same transpose of a tensor of the product's shape (the
//     GEMM adds that tensor; its result is transposed after).
// Exact GELU, SiLU and the like are not in the libraries' epilogues: they stay
// tcc_graph ops and become a pointwise kernel of their own. A convolution
// with stride equal to its kernel (a patch embedding) becomes such a product
// first.
//
//===----------------------------------------------------------------------===//
#include "FormKernels.h"

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <cmath>

#define DEBUG_TYPE "tcc-form-kernels"

using namespace mlir;
using namespace tcc::formation;
namespace graph = tcc::graph;
namespace kernel = tcc::kernel;

namespace {

/// [0, 1, ..., r-3, r-1, r-2]
SmallVector<int64_t> lastTwoSwapped(int64_t rank) {
  SmallVector<int64_t> p = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(p[rank - 1], p[rank - 2]);
  return p;
}

/// `v` is a splat constant equal to `expected` up to the rounding of its
/// element type (a bf16 model holds 0.044715 as 0.0446777).
bool isConstant(Value v, double expected) {
  std::optional<double> c = splatConstant(v);
  if (!c)
    return false;
  auto type = cast<FloatType>(cast<RankedTensorType>(v.getType()).getElementType());
  double ulp = std::ldexp(1.0, 1 - static_cast<int>(llvm::APFloat::semanticsPrecision(
                                       type.getFloatSemantics())));
  return std::abs(*c - expected) <= 2 * ulp * std::abs(expected);
}

//===----------------------------------------------------------------------===//
// GELU, tanh approximation, as tcc_graph ops
//===----------------------------------------------------------------------===//

/// `v` is OpTy(p, q) or OpTy(q, p) with pred(p, q); matched ops are recorded.
template <typename OpTy>
bool commutative(Value v, llvm::SetVector<Operation *> &ops,
                 llvm::function_ref<bool(Value, Value)> pred) {
  auto op = v.getDefiningOp<OpTy>();
  if (!op || !(pred(op.getLhs(), op.getRhs()) || pred(op.getRhs(), op.getLhs())))
    return false;
  ops.insert(op);
  return true;
}

/// v = 0.5·x (either operand order), the first factor of both GELU forms.
bool isHalfOf(Value v, Value x, llvm::SetVector<Operation *> &ops) {
  return commutative<graph::MulOp>(
      v, ops, [&](Value x1, Value k) { return x1 == x && isConstant(k, 0.5); });
}

/// y = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): what aten.gelu with
/// approximate='tanh' legalizes to, and GPT-2's hand-written NewGELU.
bool isGeluTanh(Value y, Value x, llvm::SetVector<Operation *> &ops) {
  auto cube = [&](Value v) {
    return commutative<graph::MulOp>(v, ops, [&](Value sq, Value x1) {
      return x1 == x && commutative<graph::MulOp>(sq, ops, [&](Value p, Value q) {
               return p == x && q == x;
             });
    });
  };
  auto inner = [&](Value v) {
    return commutative<graph::AddOp>(v, ops, [&](Value x1, Value t) {
      return x1 == x && commutative<graph::MulOp>(t, ops, [&](Value c3, Value k) {
               return cube(c3) && isConstant(k, 0.044715);
             });
    });
  };
  auto onePlusTanh = [&](Value v) {
    return commutative<graph::AddOp>(v, ops, [&](Value t, Value one) {
      auto tanh = t.getDefiningOp<graph::TanhOp>();
      if (!tanh || !isConstant(one, 1.0))
        return false;
      ops.insert(tanh);
      return commutative<graph::MulOp>(tanh.getInput(), ops, [&](Value s, Value k) {
        return inner(s) && isConstant(k, 0.7978845608028654);
      });
    });
  };
  return commutative<graph::MulOp>(
      y, ops, [&](Value h, Value t) { return isHalfOf(h, x, ops) && onePlusTanh(t); });
}

/// y = 0.5·x·(1 + erf(x/√2)): what aten.gelu (exact, BERT's) legalizes to.
bool isGeluErf(Value y, Value x, llvm::SetVector<Operation *> &ops) {
  auto onePlusErf = [&](Value v) {
    return commutative<graph::AddOp>(v, ops, [&](Value e, Value one) {
      auto erf = e.getDefiningOp<graph::ErfOp>();
      if (!erf || !isConstant(one, 1.0))
        return false;
      ops.insert(erf);
      return commutative<graph::MulOp>(erf.getInput(), ops, [&](Value x1, Value k) {
        return x1 == x && isConstant(k, 0.7071067811865476);
      });
    });
  };
  return commutative<graph::MulOp>(
      y, ops, [&](Value h, Value t) { return isHalfOf(h, x, ops) && onePlusErf(t); });
}

using GeluMatcher = bool (*)(Value y, Value x, llvm::SetVector<Operation *> &ops);

/// The GELU (as `isGelu` matches it) whose every op reads only `x` and
/// itself: its result value and ops, or null.
Value findGelu(Value x, GeluMatcher isGelu, SmallVectorImpl<Operation *> &patternOps) {
  // Candidates: values up to 8 single steps downstream of x.
  SmallVector<Value> frontier = {x};
  llvm::SetVector<Operation *> seen;
  for (int depth = 0; depth < 8 && !frontier.empty(); ++depth) {
    SmallVector<Value> next;
    for (Value v : frontier)
      for (Operation *user : v.getUsers())
        if (user->getNumResults() == 1 && seen.insert(user))
          next.push_back(user->getResult(0));
    for (Value y : next) {
      llvm::SetVector<Operation *> ops;
      if (!isGelu(y, x, ops))
        continue;
      // Every use of x and of each intermediate stays inside the pattern.
      auto inside = [&](Operation *user) { return ops.contains(user); };
      bool closed = llvm::all_of(x.getUsers(), inside);
      for (Operation *op : ops)
        if (op->getResult(0) != y)
          closed &= llvm::all_of(op->getUsers(), inside);
      if (!closed)
        continue;
      // Constants are shared and stay; the rest goes in program order.
      for (Operation *op : ops)
        patternOps.push_back(op);
      llvm::sort(patternOps, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      return y;
    }
    frontier = std::move(next);
  }
  return nullptr;
}

} // namespace

Value tcc::formation::findGeluErf(Value x, SmallVectorImpl<Operation *> &patternOps) {
  return findGelu(x, isGeluErf, patternOps);
}

namespace {

//===----------------------------------------------------------------------===//
// Following the epilogue
//===----------------------------------------------------------------------===//

struct GemmEpilogue {
  double alpha = 1.0;
  Value bias;     ///< [N]
  Value residual; ///< the matmul's shape
  kernel::Activation activation = kernel::Activation::none;
  /// A residual added behind a transpose of the product: the gemm reads the
  /// residual transposed back and its sum is transposed by `transposeAfter`.
  SmallVector<int64_t> transposeAfter;
  /// The value the gemm (reshaped back) replaces, and the ops it absorbed.
  Value replaced;
  SmallVector<Operation *> absorbed;
};

/// At most one dynamic dim, so reshapes between the two shapes need no sizes.
bool reshapable(RankedTensorType a, RankedTensorType b) {
  return llvm::count_if(a.getShape(), ShapedType::isDynamic) <= 1 &&
         llvm::count_if(b.getShape(), ShapedType::isDynamic) <= 1;
}

/// With `cpuOnly`, the exact (erf) GELU is taken too: oneDNN computes it,
/// cuBLASLt does not.
GemmEpilogue followEpilogue(graph::MatmulOp matmul, bool cpuOnly) {
  GemmEpilogue e;
  RankedTensorType mmType = typeOf(matmul.getResult());
  int64_t n = mmType.getShape().back();
  Value cur = matmul.getResult();
  e.replaced = cur;
  SmallVector<Operation *> pending; // reshapes passed since the last absorbed op
  auto absorb = [&](Operation *op) {
    e.absorbed.append(pending.begin(), pending.end());
    pending.clear();
    e.absorbed.push_back(op);
    cur = op->getResult(0);
    e.replaced = cur;
  };
  while (true) {
    bool free = !e.bias && e.activation == kernel::Activation::none && !e.residual;
    if (e.activation == kernel::Activation::none && !e.residual) {
      SmallVector<Operation *> geluOps;
      Value y = findGelu(cur, isGeluTanh, geluOps);
      kernel::Activation gelu = kernel::Activation::gelu_tanh;
      if (!y && cpuOnly && typeOf(cur).getElementType().isF32()) {
        y = findGelu(cur, isGeluErf, geluOps);
        gelu = kernel::Activation::gelu_erf;
      }
      if (y) {
        e.absorbed.append(pending.begin(), pending.end());
        pending.clear();
        e.absorbed.append(geluOps.begin(), geluOps.end());
        e.activation = gelu;
        cur = e.replaced = y;
        continue;
      }
    }
    if (!cur.hasOneUse())
      break;
    Operation *user = *cur.getUsers().begin();
    if (auto reshape = dyn_cast<graph::ReshapeOp>(user)) {
      auto to = typeOf(reshape.getResult());
      if (to.getRank() < 1 || to.getShape().back() != n || ShapedType::isDynamic(n) ||
          !reshapable(to, mmType))
        break;
      pending.push_back(reshape);
      cur = reshape.getResult();
      continue;
    }
    if (isa<graph::MulOp, graph::DivOp>(user) && free && !e.bias) {
      Value other = user->getOperand(0) == cur ? user->getOperand(1) : user->getOperand(0);
      std::optional<double> c = splatConstant(other);
      bool isDiv = isa<graph::DivOp>(user);
      if (!c || (isDiv && (user->getOperand(1) != other || *c == 0.0)) ||
          typeOf(user->getResult(0)) != typeOf(cur))
        break;
      e.alpha = isDiv ? e.alpha / *c : e.alpha * *c;
      absorb(user);
      continue;
    }
    bool activationFree = e.activation == kernel::Activation::none && !e.residual;
    if (auto relu = dyn_cast<graph::ReluOp>(user); relu && activationFree) {
      e.activation = kernel::Activation::relu;
      absorb(relu);
      continue;
    }
    // A residual behind a transpose (ConvNeXt's block end: the product
    // channels-last, permuted to NCHW, added to the block's input, itself
    // channels-last permuted the same way): the GEMM adds the residual's
    // channels-last source and its sum is permuted after. Where the residual
    // is no such permutation it would need a transposing copy: not taken.
    if (auto t = dyn_cast<graph::TransposeOp>(user);
        t && !e.residual && e.activation == kernel::Activation::none && pending.empty() &&
        typeOf(cur) == mmType && t.getResult().hasOneUse()) {
      auto add = dyn_cast<graph::AddOp>(*t.getResult().getUsers().begin());
      Value other = add ? (add.getLhs() == t.getResult() ? add.getRhs() : add.getLhs()) : Value();
      auto source = other ? other.getDefiningOp<graph::TransposeOp>() : graph::TransposeOp();
      if (!add || add.getLhs() == add.getRhs() || !source ||
          source.getPermutation() != t.getPermutation() ||
          typeOf(source.getInput()) != mmType || typeOf(add.getResult()) != typeOf(other))
        break;
      e.residual = source.getInput();
      e.transposeAfter.assign(t.getPermutation().begin(), t.getPermutation().end());
      e.absorbed.push_back(t);
      absorb(add);
      break;
    }
    if (auto add = dyn_cast<graph::AddOp>(user)) {
      Value other = add.getLhs() == cur ? add.getRhs() : add.getLhs();
      if (add.getLhs() == add.getRhs() || typeOf(add.getResult()) != typeOf(cur))
        break;
      auto ot = typeOf(other);
      bool leadingOnes = llvm::all_of(ot.getShape().drop_back(), [](int64_t d) { return d == 1; });
      if (!e.bias && e.activation == kernel::Activation::none && !e.residual &&
          ot.getRank() >= 1 && ot.getShape().back() == n && leadingOnes &&
          ot.getRank() <= typeOf(cur).getRank()) {
        e.bias = other;
        absorb(add);
        continue;
      }
      if (!e.residual && e.activation == kernel::Activation::none && ot == typeOf(cur) &&
          reshapable(ot, mmType)) {
        e.residual = other;
        absorb(add);
        continue;
      }
      break;
    }
    break;
  }
  return e;
}

//===----------------------------------------------------------------------===//
// Forming
//===----------------------------------------------------------------------===//

/// Rows of at least this many bytes are worth a padded copy (below that, an
/// unaligned kernel costs less than the copy).
constexpr int64_t kPaddedRowsFromBytes = 8192;

/// The row pitch, in elements, a product's result is better computed with
/// and then copied out of (0: none). cuBLASLt's tensor-core kernels need
/// the row stride of C a multiple of 16 bytes: a vocabulary of 50257 logits
/// is not, and falls to an align-1 kernel 4-6x slower (850 us for GPT-2's
/// bf16 LM head on an H100 against 148 us padded). So the product is
/// written into rows padded to 16 bytes and copied out densely (one pass at
/// memory bandwidth); tcc_gemm runs the columns past the last multiple of
/// 16 bytes as a second, narrow product. Computing it transposed instead (Cᵀ = Bᵀ·Aᵀ, N no
/// longer the contiguous dim) needed a transposing copy that cost 420 us.
int64_t paddedRowPitch(RankedTensorType type, bool f32TensorCores) {
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  int64_t n = type.getShape().back();
  bool tensorCores = !type.getElementType().isF32() || f32TensorCores;
  if (!tensorCores || ShapedType::isDynamic(n) || (n * bytes) % 16 == 0 ||
      n * bytes < kPaddedRowsFromBytes)
    return 0;
  int64_t perRow = 16 / bytes;
  return (n + perRow - 1) / perRow * perRow;
}

void formGemm(graph::MatmulOp matmul, bool f32TensorCores, bool cpuOnly) {
  Value a = matmul.getLhs(), b = matmul.getRhs();
  bool ta = false, tb = false;
  if (Value t = transposeInput(a, lastTwoSwapped(typeOf(a).getRank()))) {
    a = t;
    ta = true;
  }
  if (Value t = transposeInput(b, lastTwoSwapped(typeOf(b).getRank()))) {
    b = t;
    tb = true;
  }
  GemmEpilogue e = followEpilogue(matmul, cpuOnly);
  Operation *last = e.absorbed.empty() ? matmul.getOperation() : e.absorbed.back();
  OpBuilder builder(last);
  SmallVector<Operation *> fused = {matmul.getOperation()};
  fused.append(e.absorbed.begin(), e.absorbed.end());
  Location loc = kernelLocation(fused);
  RankedTensorType type = typeOf(matmul.getResult());
  int64_t rank = type.getRank();
  auto at = typeOf(a), bt = typeOf(b);
  // Sizes of dynamic result dims come from the operands.
  auto dynamicSize = [&](int64_t d) -> Value {
    if (d == rank - 2)
      return tensor::DimOp::create(builder, loc, a, ta ? at.getRank() - 1 : at.getRank() - 2);
    if (d == rank - 1)
      return tensor::DimOp::create(builder, loc, b, tb ? bt.getRank() - 2 : bt.getRank() - 1);
    // A batch dim: from the operand that has it and is not broadcast there.
    int64_t fromEnd = rank - d;
    for (Value v : {a, b}) {
      auto vt = typeOf(v);
      if (vt.getRank() >= fromEnd && vt.getShape()[vt.getRank() - fromEnd] != 1)
        return tensor::DimOp::create(builder, loc, v, vt.getRank() - fromEnd);
    }
    return tensor::DimOp::create(builder, loc, a, at.getRank() - fromEnd);
  };
  Value bias = e.bias ? reshapeTo(builder, loc, e.bias, {type.getShape().back()}) : Value();
  Value residual = e.residual ? reshapeTo(builder, loc, e.residual, type.getShape()) : Value();
  auto activation = kernel::ActivationAttr::get(builder.getContext(), e.activation);
  Value init;
  if (int64_t pitch = paddedRowPitch(type, f32TensorCores)) {
    // The product's rows inside padded ones; the dense copy comes with
    // bufferization, where the slice meets a consumer that needs it whole.
    SmallVector<int64_t> shape(type.getShape());
    shape.back() = pitch;
    Value padded = emptyTensor(builder, loc, RankedTensorType::get(shape, type.getElementType()),
                               dynamicSize);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, padded);
    sizes.back() = builder.getIndexAttr(type.getShape().back());
    SmallVector<OpFoldResult> offsets(rank, builder.getIndexAttr(0)),
        strides(rank, builder.getIndexAttr(1));
    init = tensor::ExtractSliceOp::create(builder, loc, type, padded, offsets, sizes, strides);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] gemm at " << loc << " into rows of " << pitch
                            << "\n");
  } else {
    init = emptyTensor(builder, loc, type, dynamicSize);
  }
  auto gemm = kernel::GemmOp::create(builder, loc, TypeRange{type}, a, b, bias, residual, init,
                                     ta ? builder.getUnitAttr() : nullptr,
                                     tb ? builder.getUnitAttr() : nullptr, activation,
                                     builder.getF64FloatAttr(e.alpha));
  Value product = gemm.getResult(0);
  Value result =
      e.transposeAfter.empty()
          ? reshapeTo(builder, loc, product, typeOf(e.replaced).getShape())
          : graph::TransposeOp::create(builder, loc, typeOf(e.replaced), product,
                                       builder.getDenseI64ArrayAttr(e.transposeAfter))
                .getResult();
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] gemm at " << loc << ": " << e.absorbed.size()
                          << " epilogue ops\n");
  e.replaced.replaceAllUsesWith(result);
  SmallVector<Operation *> dead = {matmul.getOperation()};
  dead.append(e.absorbed.begin(), e.absorbed.end());
  eraseDead(dead);
}

/// A convolution whose stride equals its kernel, without padding, dilation
/// or groups (ViT's patch embedding) is a matrix product of the image cut
/// into patches: [N, C, Hp·kh, Wp·kw] → [N·Hp·Wp, C·kh·kw] (one transposing
/// copy of the input), times the weight [F, C·kh·kw]ᵀ, plus the bias, back to
/// [N, F, Hp, Wp]. The product then forms a GEMM like any other, on the
/// tensor cores for half types, accumulating in f32.
void rewritePatchConvolution(graph::Conv2dOp conv) {
  auto xt = typeOf(conv.getInput()), wt = typeOf(conv.getWeight()), yt = typeOf(conv.getResult());
  if (xt.getRank() != 4 || wt.getRank() != 4 || conv.getGroups() != 1 ||
      !wt.hasStaticShape() || !kernelElementType(xt.getElementType()))
    return;
  int64_t f = wt.getDimSize(0), c = wt.getDimSize(1), kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  int64_t n = xt.getDimSize(0), h = xt.getDimSize(2), w = xt.getDimSize(3);
  if (conv.getStride() != ArrayRef<int64_t>{kh, kw} || conv.getPadding() != ArrayRef<int64_t>{0, 0} ||
      conv.getDilation() != ArrayRef<int64_t>{1, 1} || kh * kw == 1 ||
      ShapedType::isDynamic(h) || ShapedType::isDynamic(w) || h % kh || w % kw ||
      xt.getDimSize(1) != c)
    return;
  int64_t hp = h / kh, wp = w / kw;
  int64_t rows = ShapedType::isDynamic(n) ? ShapedType::kDynamic : n * hp * wp;
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  Type elt = xt.getElementType();
  Value x = reshapeTo(b, loc, conv.getInput(), {n, c, hp, kh, wp, kw});
  x = graph::TransposeOp::create(b, loc, RankedTensorType::get({n, hp, wp, c, kh, kw}, elt), x,
                                 b.getDenseI64ArrayAttr({0, 2, 4, 1, 3, 5}));
  x = reshapeTo(b, loc, x, {rows, c * kh * kw});
  Value weight = reshapeTo(b, loc, conv.getWeight(), {f, c * kh * kw});
  Value wT = graph::TransposeOp::create(b, loc, RankedTensorType::get({c * kh * kw, f}, elt),
                                        weight, b.getDenseI64ArrayAttr({1, 0}));
  Value y = graph::MatmulOp::create(b, loc, RankedTensorType::get({rows, f}, elt), x, wT);
  if (Value bias = conv.getBias())
    y = graph::AddOp::create(b, loc, typeOf(y), y, bias);
  y = reshapeTo(b, loc, y, {n, hp, wp, f});
  y = graph::TransposeOp::create(b, loc, yt, y, b.getDenseI64ArrayAttr({0, 3, 1, 2}));
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] patch convolution at " << loc << " as a GEMM\n");
  conv.getResult().replaceAllUsesWith(y);
  conv.erase();
}

} // namespace

/// A product over one term, [..., M, 1] x [..., 1, N] (an outer product:
/// a rotary embedding's inv_freq @ positions), as the broadcast multiply it
/// is: each element is one product rounded once, as the GEMM's, and it
/// fuses with its neighbours where a library call would be a launch of its
/// own. Returns whether `matmul` was replaced.
static bool replaceOuterProduct(graph::MatmulOp matmul) {
  auto lhs = typeOf(matmul.getLhs()), rhs = typeOf(matmul.getRhs());
  if (lhs.getRank() < 2 || rhs.getRank() < 2 || lhs.getShape().back() != 1 ||
      rhs.getShape()[rhs.getRank() - 2] != 1)
    return false;
  OpBuilder b(matmul);
  Value product = graph::MulOp::create(b, matmul.getLoc(), matmul.getType(), matmul.getLhs(),
                                       matmul.getRhs());
  matmul.replaceAllUsesWith(product);
  matmul.erase();
  return true;
}

void tcc::formation::formGemmKernels(func::FuncOp func, bool f32TensorCores, bool cpuOnly) {
  SmallVector<graph::Conv2dOp> convs;
  func.walk([&](graph::Conv2dOp op) { convs.push_back(op); });
  for (graph::Conv2dOp conv : convs)
    rewritePatchConvolution(conv);
  SmallVector<graph::MatmulOp> matmuls;
  func.walk([&](graph::MatmulOp op) { matmuls.push_back(op); });
  for (graph::MatmulOp matmul : matmuls) {
    Value lhs = matmul.getLhs(), rhs = matmul.getRhs();
    // The GEMM kernels compute f32, f16 and bf16 (accumulating in f32); an
    // f64 product stays a linalg matmul, accumulating in f64.
    if (!kernelElementType(typeOf(matmul.getResult()).getElementType()))
      continue;
    if (!replaceOuterProduct(matmul))
      formGemm(matmul, f32TensorCores, cpuOnly);
    // Transposes folded into the flags die with their last reader.
    for (Value v : {lhs, rhs})
      if (auto t = v.getDefiningOp<graph::TransposeOp>(); t && t->use_empty())
        t->erase();
  }
}
