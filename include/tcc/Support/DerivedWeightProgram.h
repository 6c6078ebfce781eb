//===- DerivedWeightProgram.h - the tokens of a derived weight's program --===//
//
// A derived weight (tcc-hoist-weight-expressions) is computed by the runtime
// from other weights with a postfix program: a list of tokens, each an
// operation name with an optional argument after the first ':'
// ("weight:bn1.running_var", "const:1e-05", "add", "reshape:8,1,1").
// docs/ARTIFACT.md describes the encoding; the compiler writes it and the
// runtime evaluates it, both through this header. Header-only: the runtime
// links no tcc library.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_DERIVEDWEIGHTPROGRAM_H
#define TCC_SUPPORT_DERIVEDWEIGHTPROGRAM_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tcc {

/// The largest tensor (in elements) a derived weight's program may hold at
/// any step: the compiler derives no larger expression, and passes that
/// create weight expressions meant to be derived stay within it.
inline constexpr int64_t kMaxDerivedElements = int64_t(64) * 1024 * 1024;

/// One operation of a derived weight's program. Operands are popped from a
/// stack of tensors and the result pushed.
enum class DerivedOp {
  // Leaves (argument: a weight name, or a number).
  Weight,
  Const,
  // Binary, with NumPy broadcasting: pop rhs, pop lhs, push lhs op rhs.
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Maximum,
  Minimum,
  // Unary.
  Neg,
  Rsqrt,
  Sqrt,
  Exp,
  Log,
  Abs,
  // Rounding to a float dtype (argument: its manifest name).
  Cast,
  // Views (argument: a comma-separated list of integers, possibly empty).
  Reshape,
  Broadcast,
  Transpose,
  // Pop rhs, pop lhs, push them joined along a dim (argument: the dim); the
  // other dims agree.
  Concat,
  // Elements start, start + step, ... (size of them) along a dim (argument:
  // "DIM,START,STEP,SIZE").
  Slice,
  // Binary with NumPy broadcasting, 1 where the comparison holds, else 0
  // (argument: eq, ne, lt, le, gt or ge; NaN compares unequal).
  Compare,
  // Pop rhs, pop lhs, pop condition (all broadcast): lhs where the condition
  // is nonzero, else rhs.
  Select,
  // Shared subexpressions: keep:K stores the top in slot K without popping
  // it; recall:K pushes what slot K holds (a DAG written as a list).
  Keep,
  Recall,
  // Pop index, pop input: numpy.take along a dim (argument: the dim); the
  // index is an integer weight, negative entries count from the end.
  Take,
  // Unary (after the others: artifacts written before them still read).
  Cos,
  Sin,
  // Leaf: start, start + step, ... as a 1-D tensor (argument:
  // "SIZE,START,STEP", the numbers as %.17g): positions, as torch.arange.
  Iota,
};

/// The last operation (the spellings and the parser run up to it).
inline constexpr DerivedOp kLastDerivedOp = DerivedOp::Iota;

/// Every operation with its spelling, in enum order.
inline constexpr const char *kDerivedOpNames[] = {
    "weight", "const", "add",  "sub", "mul", "div", "pow",  "maximum",   "minimum", "neg",
    "rsqrt",  "sqrt",  "exp",  "log", "abs", "cast", "reshape", "broadcast", "transpose",
    "concat", "slice", "compare", "select", "keep", "recall", "take",    "cos",     "sin",
    "iota"};

static_assert(sizeof(kDerivedOpNames) / sizeof(kDerivedOpNames[0]) ==
                  static_cast<size_t>(kLastDerivedOp) + 1,
              "one spelling per DerivedOp");

inline const char *derivedOpName(DerivedOp op) {
  return kDerivedOpNames[static_cast<int>(op)];
}

inline std::optional<DerivedOp> parseDerivedOp(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(kLastDerivedOp); ++i)
    if (name == kDerivedOpNames[i])
      return static_cast<DerivedOp>(i);
  return std::nullopt;
}

/// Whether the operation takes an argument after ':'.
inline bool derivedOpHasArgument(DerivedOp op) {
  switch (op) {
  case DerivedOp::Weight: case DerivedOp::Const: case DerivedOp::Cast:
  case DerivedOp::Reshape: case DerivedOp::Broadcast: case DerivedOp::Transpose:
  case DerivedOp::Concat: case DerivedOp::Slice: case DerivedOp::Compare:
  case DerivedOp::Keep: case DerivedOp::Recall: case DerivedOp::Take:
  case DerivedOp::Iota:
    return true;
  default:
    return false;
  }
}

/// "add", "weight:bn1.weight", "reshape:8,1,1".
inline std::string derivedToken(DerivedOp op, std::string_view argument = {}) {
  std::string token = derivedOpName(op);
  if (derivedOpHasArgument(op))
    token.append(":").append(argument);
  return token;
}

/// "8,1,1" (empty for rank 0) from any range of integers.
template <typename Range> std::string derivedIntList(const Range &values) {
  std::string text;
  for (int64_t v : values)
    text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

/// A token split at its first ':' (the argument may contain more of them).
struct DerivedToken {
  std::string_view name;
  std::string_view argument;
  bool hasArgument = false;
};

inline DerivedToken splitDerivedToken(std::string_view token) {
  size_t colon = token.find(':');
  if (colon == std::string_view::npos)
    return {token, {}, false};
  return {token.substr(0, colon), token.substr(colon + 1), true};
}

} // namespace tcc

#endif // TCC_SUPPORT_DERIVEDWEIGHTPROGRAM_H
