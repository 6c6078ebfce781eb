//===- LegalizeSpecialPolynomials.cpp - orthogonal polynomials of degree n ===//
//
// torch.special's chebyshev_polynomial_{t,u,v,w}, their shifted forms,
// hermite_polynomial_{h,he}, laguerre_polynomial_l and legendre_polynomial_p
// of a tensor x and a tensor degree n (or a Python number for either). The
// degree differs per element, so the recurrence runs a data-dependent number
// of steps: each becomes one tcc_graph.special_function, whose lowering is
// ATen's scalar code with its loop (SpecialFunctions.cpp in the linalg
// conversion). PyTorch has these in float and double only. The legalizer of
// a special_function serves zeta too (LegalizeGamma.cpp).
//
//===----------------------------------------------------------------------===//
#include "dialects/TccGraph/Transforms/Legalizers.h"

using namespace mlir;
using namespace tcc::graph;

namespace {
using Results = FailureOr<SmallVector<Value>>;

/// The operand `name` in element type `elt`: the tensor converted, or a
/// rank-0 constant from a Python number.
FailureOr<Value> operandAs(OperatorArgs &args, OpBuilder &b, StringRef name, Type elt) {
  Location loc = args.getOp().getLoc();
  if (Value v = args.tensor(name))
    return makeCast(b, loc, v, elt);
  std::optional<double> scalar = args.getFloat(name);
  if (!scalar)
    return operatorError(args) << "needs '" << name << "' (a tensor or a number)";
  return makeScalar(b, loc, elt, *scalar);
}

} // namespace

LegalizeFn tcc::graph::legalizeSpecialFunction(StringRef function, StringRef first,
                                               StringRef second) {
  return [function, first, second](OperatorArgs &args, OpBuilder &b) -> Results {
    RankedTensorType type = args.resultType();
    Type elt = type.getElementType();
    if (!elt.isF32() && !elt.isF64())
      return operatorError(args) << "is computed in float32 or float64 only, not " << elt
                                 << " (PyTorch has no kernel for it)";
    FailureOr<Value> x = operandAs(args, b, first, elt);
    if (failed(x))
      return failure();
    FailureOr<Value> n = operandAs(args, b, second, elt);
    if (failed(n))
      return failure();
    Value r = b.create<SpecialFunctionOp>(args.getOp().getLoc(), type, ValueRange{*x, *n},
                                          b.getStringAttr(function));
    return SmallVector<Value>{r};
  };
}

void tcc::graph::populateSpecialPolynomialLegalizers(LegalizerTable &t) {
  for (StringRef function :
       {"chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
        "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
        "laguerre_polynomial_l", "legendre_polynomial_p"}) {
    for (StringRef overload : {"default", "x_scalar", "n_scalar"})
      t[("aten.special_" + function + "." + overload).str()] =
          legalizeSpecialFunction(function, "x", "n");
  }
}
