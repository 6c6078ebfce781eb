//===- InputGuard.h - torch.export's guards over input sizes ---------------===//
//
// torch.export records, beside the graph ("guards_code" in models/model.json),
// Python boolean expressions over the inputs' sizes under which the export is
// valid: "(L['x'].size()[2] % 2) == 0". Outside them an operator's result size
// or a reshape can be wrong while the call still runs, so the compiler carries
// them in the guard manifest and the runtime checks every call against them.
//
// This parses the subset torch emits, without executing anything: integers,
// `L['name'].size()[i]`, `+ - * // %`, unary minus, parentheses, comparisons
// (chained as in Python), `and`/`or`/`not`, True/False and max/min calls.
// Arithmetic follows Python integers (`//` floors, `%` takes the divisor's
// sign); an overflow of int64 is an error, never a wrapped value.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_INPUTGUARD_H
#define TCC_SUPPORT_INPUTGUARD_H

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tcc {

/// An expression outside the subset, a name that is not an input, an
/// overflow or a division by zero.
class InputGuardError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// An input the guards may name: its name in `L['name']` and its rank.
struct GuardInput {
  std::string name;
  size_t rank = 0;
};

/// The sizes of one call's inputs, read by evaluate() (no allocation).
class GuardInputSizes {
public:
  virtual ~GuardInputSizes() = default;
  /// Size of dim `dim` of input `input` (both within the parsed ranks).
  virtual int64_t size(size_t input, size_t dim) const = 0;
};

/// One input dim a guard reads.
struct GuardDimRef {
  size_t input = 0;
  size_t dim = 0;
};

/// One parsed guard. Cheap to copy; immutable once parsed.
class InputGuard {
public:
  /// Bounds on what parse() accepts, so a hostile archive cannot exhaust
  /// the stack or the time of a load.
  static constexpr size_t kMaxTextLength = 4096;
  static constexpr int kMaxDepth = 64;

  /// Parses `text` with `inputs` resolving `L['name']`; throws
  /// InputGuardError naming what is outside the subset and its column.
  static InputGuard parse(std::string_view text, const std::vector<GuardInput> &inputs);

  /// Whether the guard holds for `sizes`; throws InputGuardError on an
  /// overflow or a division by zero.
  bool holds(const GuardInputSizes &sizes) const;

  /// The input dims it reads, each once, in order of first appearance.
  const std::vector<GuardDimRef> &dims() const { return dims_; }
  const std::string &text() const { return text_; }

private:
  enum class NodeKind {
    Constant, InputDim, Negate, Not, Add, Sub, Mul, FloorDiv, Mod,
    Eq, Ne, Lt, Le, Gt, Ge, And, Or, Max, Min
  };
  struct Node {
    NodeKind kind = NodeKind::Constant;
    int64_t value = 0;     // Constant
    GuardDimRef ref;       // InputDim
    std::vector<int> args; // operands, by node index
  };
  class Parser;
  int64_t evaluateNode(int index, const GuardInputSizes &sizes) const;

  std::string text_;
  std::vector<Node> nodes_; // the root is the last node
  std::vector<GuardDimRef> dims_;
};

} // namespace tcc

#endif // TCC_SUPPORT_INPUTGUARD_H
