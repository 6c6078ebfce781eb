//===- Legalizers.h - per-operator legalization, shared by the families ---===//
//
// Private to tcc-legalize-graph. Each family file registers functions that
// rewrite one ATen operator (by its name without the "torch.ops." prefix)
// into typed tcc_graph ops. A legalizer returns the values that replace the
// operator's results, or failure after emitting an error at the op.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_TRANSFORMS_LEGALIZERS_H
#define TCC_DIALECTS_TCCGRAPH_TRANSFORMS_LEGALIZERS_H

#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>

namespace tcc::graph {

/// Reads an imported operator's operands and arguments by schema name.
class OperatorArgs {
public:
  explicit OperatorArgs(OperatorOp op) : op(op) {}
  OperatorOp getOp() const { return op; }
  /// The operand with this schema name, or null if it was None/absent.
  mlir::Value tensor(llvm::StringRef name) const;
  /// All operands whose names start with `name.` (tensor lists: `tensors.0`, ...).
  llvm::SmallVector<mlir::Value> tensorList(llvm::StringRef name) const;
  std::optional<int64_t> getInt(llvm::StringRef name) const;
  std::optional<double> getFloat(llvm::StringRef name) const;   // ints convert too
  std::optional<bool> getBool(llvm::StringRef name) const;
  std::optional<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name) const;
  bool has(llvm::StringRef name) const;
  /// The i-th result type as a ranked tensor.
  mlir::RankedTensorType resultType(unsigned i = 0) const;

private:
  mutable OperatorOp op;
};

using LegalizeFn = std::function<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
    OperatorArgs &, mlir::OpBuilder &)>;
using LegalizerTable = llvm::StringMap<LegalizeFn>;

void populateElementwiseLegalizers(LegalizerTable &table);
void populateLinalgLikeLegalizers(LegalizerTable &table);
void populateShapeLegalizers(LegalizerTable &table);
void populateLogicLegalizers(LegalizerTable &table);
void populateCreationLegalizers(LegalizerTable &table);
void populateAttentionLegalizers(LegalizerTable &table);
void populateEinsumLegalizers(LegalizerTable &table);
void populateConvTransposeLegalizers(LegalizerTable &table);
void populateConvolutionLegalizers(LegalizerTable &table);
/// convolution(transposed=True) (LegalizeConvTranspose.cpp).
mlir::FailureOr<llvm::SmallVector<mlir::Value>> legalizeTransposedConvolution(OperatorArgs &args,
                                                                              mlir::OpBuilder &b);
void populateIndexingLegalizers(LegalizerTable &table);
void populateRearrangeLegalizers(LegalizerTable &table);
void populatePoolingLegalizers(LegalizerTable &table);
void populateVectorNormLegalizers(LegalizerTable &table);
void populateLossLegalizers(LegalizerTable &table);
void populateScatterLegalizers(LegalizerTable &table);
void populateOrderingLegalizers(LegalizerTable &table);
void populateBesselLegalizers(LegalizerTable &table);
void populateSpecialPolynomialLegalizers(LegalizerTable &table);
void populateGammaLegalizers(LegalizerTable &table);
void populateAiryLegalizers(LegalizerTable &table);
void populateLinearAlgebraLegalizers(LegalizerTable &table);
void populateBackwardLegalizers(LegalizerTable &table);
void populateCombinatoricsLegalizers(LegalizerTable &table);
void populateMaskedIndexingLegalizers(LegalizerTable &table);
void populateSegmentReduceLegalizers(LegalizerTable &table);
void populateResamplingLegalizers(LegalizerTable &table);
/// LSTM, GRU and RNN layers as tcc_graph.rnn (LegalizeRecurrent.cpp).
void populateRecurrentLegalizers(LegalizerTable &table);
/// PT2E's quantize/dequantize operators as tcc_graph.quantize/dequantize
/// (LegalizeQuantization.cpp).
void populateQuantizationLegalizers(LegalizerTable &table);
/// aten._assert_scalar on a computed condition as a check of the call's
/// result (LegalizeRuntimeAssertions.cpp).
void populateRuntimeAssertionLegalizers(LegalizerTable &table);
/// rand, randn, randint, bernoulli and their _like forms on tcc_graph.random
/// (LegalizeRandom.cpp).
void populateRandomLegalizers(LegalizerTable &table);
/// Max pooling's indices; wraps the pooling legalizers, so it runs after them.
void populatePoolingIndexLegalizers(LegalizerTable &table);
/// A tcc_graph.special_function `function` of the operands named `first` and
/// `second` (tensors or Python numbers), computed in the result's type,
/// float32 or float64 (LegalizeSpecialPolynomials.cpp).
LegalizeFn legalizeSpecialFunction(llvm::StringRef function, llvm::StringRef first,
                                   llvm::StringRef second);

/// The index tensors of an index-style operator (operands `indices.<dim>`;
/// None entries are absent), sorted by dim; an error when there are none.
mlir::FailureOr<llvm::SmallVector<std::pair<int64_t, mlir::Value>>>
indexOperands(OperatorArgs &args, mlir::Value x);
/// x[indices] as aten.index.Tensor computes it, typed as the operator's
/// result (LegalizeIndexing.cpp).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
indexTensors(OperatorArgs &args, mlir::OpBuilder &b, mlir::Value x,
             llvm::ArrayRef<std::pair<int64_t, mlir::Value>> indices);
/// `self` with `src` written (or added, `accumulate`) along `dim` at `index`
/// (self's rank; src at least index's shape), as scatter; `shapesFit`: the
/// caller made index of self's sizes apart from `dim` and src of index's
/// (LegalizeScatter.cpp).
mlir::FailureOr<mlir::Value> scatterAlongDim(OperatorArgs &args, mlir::OpBuilder &b,
                                             mlir::Value self, int64_t dim, mlir::Value index,
                                             mlir::Value src, bool accumulate,
                                             bool shapesFit = false);

/// `self` with `source`'s slices along `dim` written at the positions of
/// `index` (1-D or 0-d integers): a tcc_graph.index_copy, which touches only
/// the written slices (any shapes, symbolic ones too). `source` is cast to
/// self's element type and, where its shape is static, broadcast to the
/// written slices' shape; nullopt when it cannot be (LegalizeScatter.cpp).
std::optional<mlir::Value> indexCopyAlong(OperatorArgs &args, mlir::OpBuilder &b,
                                          mlir::Value self, int64_t dim, mlir::Value index,
                                          mlir::Value source);

/// A rank-0 constant of `elementType` holding `value`.
mlir::Value makeScalar(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Type elementType, double value);
/// A constant of `type` (static shape) with every element `value`.
mlir::Value makeSplat(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                      double value);
/// The operator's name without the "torch.ops." prefix, for messages.
llvm::StringRef operatorName(OperatorArgs &args);
/// An error at the operator beginning "operator '<name>': ", for the caller
/// to complete.
mlir::InFlightDiagnostic operatorError(OperatorArgs &args);
/// The named tensor operand, or an error naming the operator.
mlir::FailureOr<mlir::Value> requiredTensor(OperatorArgs &args, llvm::StringRef name);
/// The tensor operand `name` converted to the type ATen computes a float
/// result in: double for double, else float (ATen upcasts half and
/// bfloat16); an error naming the operator where the result is not a float.
mlir::FailureOr<mlir::Value> floatComputeOperand(OperatorArgs &args, mlir::OpBuilder &b,
                                                 llvm::StringRef name);
/// The operand named `name`, or a rank-0 constant from a scalar argument of
/// that name (Python numbers in `add(x, 2.0)`), typed like `like`.
mlir::FailureOr<mlir::Value> tensorOrScalar(OperatorArgs &args, mlir::OpBuilder &b,
                                            llvm::StringRef name, mlir::Value like);
/// Creates a broadcasting binary op whose result type is computed from the operands.
template <typename OpTy>
mlir::Value makeBinary(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                       mlir::Value rhs) {
  auto l = llvm::cast<mlir::RankedTensorType>(lhs.getType());
  auto r = llvm::cast<mlir::RankedTensorType>(rhs.getType());
  auto shape = broadcastShapes(l.getShape(), r.getShape());
  auto type = mlir::RankedTensorType::get(succeeded(shape) ? *shape
                                          : llvm::SmallVector<int64_t>(l.getShape()),
                                          l.getElementType());
  return b.create<OpTy>(loc, type, lhs, rhs);
}
/// Reduces `x` over `dims` (sorted, normalized).
template <typename ReduceOp>
mlir::Value makeReduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       llvm::ArrayRef<int64_t> dims, bool keepdim) {
  auto t = llvm::cast<mlir::RankedTensorType>(x.getType());
  llvm::SmallVector<int64_t> shape;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (!llvm::is_contained(dims, i))
      shape.push_back(t.getShape()[i]);
    else if (keepdim)
      shape.push_back(1);
  }
  return b.create<ReduceOp>(loc, mlir::RankedTensorType::get(shape, t.getElementType()), x,
                            b.getDenseI64ArrayAttr(dims), b.getBoolAttr(keepdim));
}

/// Builds pointwise formulas from the typed ops in element type `elt`;
/// `c(v)` is a scalar constant of it. Shared by the activations and losses.
struct PointwiseBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type elt;
  mlir::Value c(double v) { return makeScalar(b, loc, elt, v); }
  template <typename OpTy> mlir::Value bin(mlir::Value l, mlir::Value r) {
    return makeBinary<OpTy>(b, loc, l, r);
  }
  template <typename OpTy> mlir::Value un(mlir::Value x) { return b.create<OpTy>(loc, x); }
  /// 1 / (1 + exp(-x)).
  mlir::Value sigmoid(mlir::Value x) {
    // One op per statement: argument order is the compiler's (issue 17).
    mlir::Value decay = un<ExpOp>(un<NegOp>(x));
    mlir::Value denominator = bin<AddOp>(c(1.0), decay);
    return bin<DivOp>(c(1.0), denominator);
  }
};

/// `v` converted to element type `elt` (itself when it already has it).
mlir::Value makeCast(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type elt);
/// xlogy(x, y) = x * log(y) (log1p(y) for special_xlog1py), as PyTorch: 0
/// where x is 0, NaN where y is NaN (before the x == 0 rule). Operands of one
/// float type, broadcast.
mlir::Value makeXlogy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, mlir::Value y,
                      bool log1p);
/// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable at both ends.
mlir::Value makeLogSigmoid(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// pairwise_distance: the p-norm of x1 - x2 + eps over the last dim of the
/// broadcast operands (of one float type), in their type.
mlir::Value makePairwiseDistance(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x1,
                                 mlir::Value x2, double p, double eps, bool keepdim);
/// avg_pool's count_include_pad, always true with a divisor_override.
bool countIncludePad(OperatorArgs &args);
/// An average pool's result (count_include_pad, no ceil_mode: every window
/// divides by kernelSize) rescaled to divide by divisor_override when given.
/// With ceil_mode the caller first pads the input (padForCeilMode) and pools
/// without it, so that the edge windows divide by kernelSize too.
mlir::FailureOr<mlir::Value> applyDivisorOverride(OperatorArgs &args, mlir::OpBuilder &b,
                                                  mlir::Value avg, int64_t kernelSize);
/// A divisor_override with ceil_mode: every window divides by the override,
/// so the windows' sums are needed, edge windows included.
bool ceilModeByPadding(OperatorArgs &args);
/// `x` padded with zeros at the end of its last kernel.size() dims so that
/// the windows of a ceil_mode pool of output sizes `outSizes` all fit whole:
/// a pool without ceil_mode then gives the same windows, every one of
/// kernelSize elements (the added zeros add nothing to the sums).
mlir::Value padForCeilMode(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                           llvm::ArrayRef<int64_t> outSizes, llvm::ArrayRef<int64_t> kernel,
                           llvm::ArrayRef<int64_t> stride, llvm::ArrayRef<int64_t> padding,
                           llvm::ArrayRef<int64_t> dilation);
/// Swaps the last two dimensions.
mlir::Value transposeLast2(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// A 1-D iota 0..n-1 of `elt`, reshaped to rank `rank` with n at `at`; a
/// symbolic n (kDynamic) is `length`, an index value.
mlir::Value makeIotaAt(mlir::OpBuilder &b, mlir::Location loc, int64_t n, mlir::Type elt,
                       int64_t rank, int64_t at, mlir::Value length = {});
/// log(sum(exp(x))) over `dims` (kept as size 1), as PyTorch's logsumexp:
/// the max m taken out (as 0 where infinite), so all -inf (or no elements)
/// gives -inf and an inf gives inf.
mlir::Value makeLogSumExp(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          llvm::ArrayRef<int64_t> dims);
/// torch.matmul of rank >= 2 operands, batch dims broadcast.
mlir::Value makeMatmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs, mlir::Value rhs);
/// The symbolic sizes of result `result`, in order, as index values computed
/// from the function's inputs (see SymbolicSizes.cpp); empty when static.
mlir::FailureOr<llvm::SmallVector<mlir::Value>> symbolicSizes(OperatorArgs &args,
                                                              mlir::OpBuilder &b,
                                                              unsigned result = 0);
/// The export's sizes of an operator's operands (one `tcc.sizes` entry per
/// operand, unit where unknown), set by tcc-legalize-graph on each operator
/// of a symbolic result before any is legalized: a producer's tcc.sizes go
/// with it.
inline constexpr llvm::StringLiteral kOperandSizesAttrName = "tcc.operand_sizes";
/// The export's sizes of `operand`, an operand of the operator (its
/// tcc.operand_sizes entry: an expression or a number per dim) or one of its
/// results (tcc.sizes); null where unknown (an operator of static result, a
/// value the legalizer made).
mlir::ArrayAttr exportSizes(OperatorArgs &args, mlir::Value operand);
/// The largest size the export allows along `dim` of `operand` where the
/// export states it as one symbol (its range's maximum, from the module's
/// tcc.symbols) or a number; nullopt otherwise.
std::optional<int64_t> largestSize(OperatorArgs &args, mlir::Value operand, int64_t dim);
/// Whether dim `da` of `a` and dim `db` of `b` are known to have one size at
/// run time: both static and equal, or both operands or results of the
/// operator whose export states them as the same expression (the call's
/// guards hold it).
bool sameSize(OperatorArgs &args, mlir::Value a, int64_t da, mlir::Value b, int64_t db);
/// Records, for each symbolic one of the result's last `kernel.size()` dims,
/// that the export's expression for it must equal PyTorch's window count over
/// the same dim of the operand `input` (tcc/Support/SizeChecks.h): the
/// module's tcc.size_checks, which the guard manifest carries and the runtime
/// checks before each call. Without the export's sizes, nothing.
void recordWindowChecks(OperatorArgs &args, llvm::StringRef input, llvm::ArrayRef<int64_t> kernel,
                        llvm::ArrayRef<int64_t> stride, llvm::ArrayRef<int64_t> padding,
                        llvm::ArrayRef<int64_t> dilation, bool ceilMode);
/// A per-spatial-dim argument as `n` entries ([v] means n times v; absent or
/// empty means n times dflt).
llvm::SmallVector<int64_t> perDim(std::optional<llvm::SmallVector<int64_t>> v, size_t n,
                                  int64_t dflt);
/// perDim for two spatial dims.
llvm::SmallVector<int64_t> pair(std::optional<llvm::SmallVector<int64_t>> v, int64_t dflt);
/// Normalizes a possibly negative dimension index.
int64_t normalizeDim(int64_t dim, int64_t rank);
/// An i1 comparison (eq, ne, lt, le, gt, ge) after bringing both sides to one
/// element type; operands broadcast.
mlir::Value makeCompare(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef predicate,
                        mlir::Value x, mlir::Value y);
/// x[start:end:step] along `dim` (static), with PyTorch's clamping of
/// out-of-range and negative bounds.
mlir::Value makeSlice(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t dim,
                      int64_t start, int64_t end, int64_t step);
/// x[start : start + length] along `dim` where start is a rank-0 i64 tensor
/// read at run time: a take at start + iota(length), `type` the result's
/// (`length`, an index value, is used where its size along `dim` is
/// symbolic) (LegalizeShapes.cpp).
mlir::Value takeRange(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t dim,
                      mlir::Value start, mlir::Value length, mlir::RankedTensorType type);
/// The ranked tensor type of `v` (every tcc_graph tensor has one).
inline mlir::RankedTensorType typeOf(mlir::Value v) {
  return llvm::cast<mlir::RankedTensorType>(v.getType());
}
/// `shape` with dimension `dim` of size `size`.
llvm::SmallVector<int64_t> withDimSize(llvm::ArrayRef<int64_t> shape, int64_t dim, int64_t size);
/// Reshape `v` to `shape` (may hold one kDynamic).
mlir::Value makeReshape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        llvm::ArrayRef<int64_t> shape);
/// Reshape `v` to `shape`, which may hold several kDynamic: `sizes` has an
/// index value for every dim of `shape` (those of static dims are unused).
mlir::Value makeReshape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<mlir::Value> sizes);
/// One spatial dim of a resampling over symbolic sizes (LegalizeResampling):
/// the output positions start, start + 1, ... (f32; `outStatic` long, or
/// `outSize` where that is kDynamic), the output and input sizes as f32
/// scalars and the last input index as an i64 scalar, read at run time.
struct ResampleAxis {
  mlir::Value positions, outF, inF, lastIndex;
};
ResampleAxis resampleAxis(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t dim,
                          int64_t outStatic, mlir::Value outSize, double start);
/// ATen's area_pixel_compute_scale on those sizes: (in - 1) / (out - 1)
/// with align_corners (0 for one output), else 1 / factor where a positive
/// factor was given, else in / out; an f32 scalar.
mlir::Value runtimePixelScale(mlir::OpBuilder &b, mlir::Location loc, const ResampleAxis &axis,
                              bool alignCorners, std::optional<double> factor);
/// The size of dim `d` of `v` as an index value (a constant where static).
mlir::Value dimIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, int64_t d);
/// The size of dim `d` of `x` as a rank-0 i64 tensor (a constant where
/// static, tcc_graph.dim_size where symbolic).
mlir::Value sizeTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t d);
/// The product of the sizes of dims [from, to) of `v`, as an index value.
mlir::Value dimProduct(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, int64_t from,
                       int64_t to);

/// `x` without `front` elements at the start and `back` at the end of `dim`
/// (both >= 0); a symbolic dim keeps a symbolic size, n - front - back
/// (LegalizeRearrange.cpp).
mlir::Value cropDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t dim,
                    int64_t front, int64_t back);
/// `before` and `after` elements of `value` along `dim` (negative amounts
/// crop); any of x's sizes may be symbolic.
mlir::Value padConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t dim,
                        int64_t before, int64_t after, double value = 0.0);
/// `v` cut or extended at the end of dim `i` (with `fill`) to the size of
/// dim `like` of `target`. Where either size is symbolic, `v` is first
/// extended by max(want - have, 0) elements (none where they agree), then
/// cut to want: every read stays inside `v` even where the sizes are not
/// what the caller checked (a failed check lets the call run on)
/// (LegalizeScatter.cpp).
mlir::Value fitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, int64_t i,
                   mlir::Value target, int64_t like, double fill);
/// fitDim to a size given as `want` (static, or kDynamic with its run-time
/// size `wantSize`, an index value) rather than as a dim of a tensor.
mlir::Value fitDimTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, int64_t i,
                     int64_t want, mlir::Value wantSize, double fill);
/// `ok` and `next` (rank-0 i1 conditions); `ok` may be absent.
mlir::Value conjoin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ok, mlir::Value next);
/// The number of elements of `v`: static, or kDynamic where a size is
/// symbolic (never a product of the kDynamic markers).
int64_t elementCount(mlir::Value v);
/// `v` reshaped to the shape of `like`, whose symbolic sizes it takes.
mlir::Value reshapeLike(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Value like);
/// A plain 2-D or 3-D convolution (by the rank of `resultType`: 4 or 5) of
/// [N, C, spatial..] by [O, C/g, k..] as tcc_graph.conv2d ops.
mlir::Value makeConvolution(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, mlir::Value w,
                            mlir::Value bias, llvm::ArrayRef<int64_t> stride,
                            llvm::ArrayRef<int64_t> pad, llvm::ArrayRef<int64_t> dilation,
                            int64_t groups, mlir::RankedTensorType resultType);

} // namespace tcc::graph

#endif // TCC_DIALECTS_TCCGRAPH_TRANSFORMS_LEGALIZERS_H
