//===- DerivedWeights.h - weights computed from other weights -------------===//
//
// A derived weight (tcc-hoist-weight-expressions) carries a postfix program
// over named source weights (include/tcc/Support/DerivedWeightProgram.h,
// docs/ARTIFACT.md). DerivedProgram checks one against the manifest once,
// working out the shape of every step, and evaluates it on the host: in
// double precision, with NumPy broadcasting, rounding to nearest even at each
// cast and once at the end into the weight's dtype.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_DERIVEDWEIGHTS_H
#define TCC_RUNTIME_DERIVEDWEIGHTS_H

#include "tcc/Support/DType.h"
#include "tcc/Support/DerivedWeightProgram.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tcc {

/// `v` rounded to what `dtype` can hold (nearest even), as a double. Float
/// dtypes only; float64 is the identity.
double roundToDType(DType dtype, double v);

/// Element `i` of an array of `dtype` (float dtypes), as a double.
double loadFloat(DType dtype, const void *data, int64_t i);

/// Element `i` of an array of any dtype, as a double (exact for floats and
/// for integers up to 2^53).
double loadNumber(DType dtype, const void *data, int64_t i);

/// Stores `v` rounded to nearest even as element `i` of an array of `dtype`.
void storeFloat(DType dtype, void *data, int64_t i, double v);

class DerivedProgram {
public:
  /// A weight a program may read.
  struct Source {
    size_t index = 0; ///< in the manifest's weight list
    DType dtype = DType::Float32;
    std::vector<int64_t> sizes;
    bool derived = false;
  };
  using SourceLookup = std::function<std::optional<Source>(std::string_view name)>;

  /// Checks the program of weight `name` (of `dtype` and `sizes`): every
  /// token known, sources present, float and not derived themselves, shapes
  /// that broadcast, reshapes that keep the element count, one tensor of the
  /// weight's shape left at the end. Throws RuntimeError
  /// (TCC_ERROR_INVALID_MANIFEST) naming the weight and the token.
  static DerivedProgram parse(std::string_view name, DType dtype,
                              const std::vector<int64_t> &sizes,
                              const std::vector<std::string> &tokens,
                              const SourceLookup &lookup);

  /// The manifest indices of the weights it reads, in first-use order.
  const std::vector<size_t> &sources() const { return sources_; }

  /// Computes the weight from `weights[i]`, the data of manifest weight i
  /// (only its sources are read), into `out` (the weight's dtype, dense).
  void evaluate(const void *const *weights, void *out) const;

private:
  struct Step {
    DerivedOp op = DerivedOp::Const;
    size_t source = 0;              ///< Weight: manifest index
    DType dtype = DType::Float32;   ///< Weight: source dtype; Cast: target
    double value = 0;               ///< Const; Iota: the start
    double increment = 0;           ///< Iota: the step
    std::vector<int64_t> shape;     ///< the shape it leaves on the stack
    std::vector<int64_t> permutation; ///< Transpose
    int64_t dim = 0;                ///< Concat, Slice, Take
    int64_t lhsExtent = 0;          ///< Concat: the lhs's size along dim
    int64_t start = 0, step = 1;    ///< Slice
    int64_t slot = 0;               ///< Keep, Recall
    std::string predicate;          ///< Compare
  };
  std::vector<Step> steps_;
  std::vector<size_t> sources_;
  DType dtype_ = DType::Float32;
  std::string name_;
};

} // namespace tcc

#endif // TCC_RUNTIME_DERIVEDWEIGHTS_H
