//===- TorchScriptGraph.h - TorchScript IR as plain C++ data --------------===//
//
// The textual TorchScript IR that `str(graph)` prints (traced, inlined,
// frozen and scripted graphs), read into plain structures: values with their
// printed types, nodes with kind, attributes, inputs, nested blocks (for
// prim::If / prim::Loop, which the converter folds or refuses) and the
// source range of the trailing `# file:line:col` comment.
//
// The same structures are produced from the forward code of a
// torch.jit.save archive (see TorchScriptCode.h), so one converter turns
// both into an ExportedProgram.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTGRAPH_H
#define TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTGRAPH_H

#include "tcc/Support/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tcc::frontend::torchscript {

/// A printed type. Tensor types keep what the dump says about them
/// (`Float(10, 100, strides=[100, 1], ...)`); `Tensor` alone knows nothing.
struct TsType {
  enum Kind {
    Tensor,
    Int,
    Float,
    Bool,
    Str,
    None,
    Device,
    List,     ///< element in `elements[0]` (int[], Tensor[], List[int])
    Tuple,    ///< `(T1, T2)` / Tuple[...]
    Optional, ///< `T?` / Optional[T]
    Class,    ///< `__torch__.Foo`: a module or other object
    Other,    ///< anything else, kept by spelling
  };
  Kind kind = Other;
  /// As written, for messages.
  std::string spelling;
  /// Tensor types: dtype and sizes when the dump gives them. A dimension
  /// printed as `*` is unknown (nullopt).
  std::optional<DType> dtype;
  bool hasSizes = false;
  std::vector<std::optional<int64_t>> sizes;
  std::vector<TsType> elements;
};

/// Where a node came from: the `# file:line:col` comment.
struct TsSourceRange {
  std::string file;
  int line = 0;
  int column = 0;
  bool known() const { return !file.empty(); }
  /// "file:line:col", or "" when unknown.
  std::string str() const;
};

/// An attribute value (`[name="lin"]`, `[value=...]`).
struct TsAttr {
  enum Kind {
    Int,
    Float,
    String,
    Ints,
    Floats,
    TensorInline, ///< printed values (`0.01 * -3.5 ... [ CPUFloatType{10} ]` or `{2}`)
    TensorRef,    ///< `<Tensor>`: the data is not in the dump
    Other,        ///< kept by spelling
  };
  std::string name;
  Kind kind = Other;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats; ///< Floats, and TensorInline values (row-major)
  /// TensorInline: sizes (empty for 0-d) and dtype from `CPUFloatType{..}`.
  std::vector<int64_t> tensorSizes;
  DType tensorDType = DType::Float32;
  /// For Int/Float: the literal had a '.', 'e', inf or nan.
  bool looksFloat = false;
};

struct TsValue {
  std::string name; ///< without '%'
  TsType type;
};

struct TsBlock;

struct TsNode {
  std::string kind; ///< "aten::linear", "prim::Constant"
  std::vector<TsAttr> attrs;
  std::vector<std::string> inputs;
  /// Keyword names parallel to `inputs` ("" for positional ones); empty
  /// for dumps (always positional), set by the archive-code reader.
  std::vector<std::string> inputNames;
  std::vector<TsValue> outputs;
  std::vector<TsBlock> blocks;
  std::string scope;
  TsSourceRange source;
  /// Position of the node in the dump (1-based), for messages.
  int textLine = 0;

  const TsAttr *attr(std::string_view name) const;
};

struct TsBlock {
  std::vector<TsValue> inputs;
  std::vector<TsNode> nodes;
  std::vector<std::string> returns;
};

struct TsGraph {
  std::vector<TsValue> inputs;
  std::vector<TsNode> nodes;
  std::vector<std::string> returns;
};

/// Parses a type spelling (`Float(2, 3, strides=[3, 1], ...)`, `int[]`,
/// `Optional[Tensor]`). Unknown spellings give Kind::Other.
TsType parseTsType(std::string_view spelling);

/// Parses the text printed by str(graph). Throws FrontendError
/// "<sourceName>:LINE:COL: <what was expected>" for malformed text.
TsGraph parseTorchScriptGraph(std::string_view text, const std::string &sourceName);

/// A number of the dump or the code read as an int: truncated toward zero,
/// saturated at int64's bounds, NaN as 0. A plain cast is undefined behaviour
/// for inf (`prim::Constant[value=inf]()` is a float constant TorchScript
/// prints) and for anything beyond 2^63.
int64_t saturatingInt64(double v);

} // namespace tcc::frontend::torchscript

#endif // TCC_FRONTEND_TORCHSCRIPT_TORCHSCRIPTGRAPH_H
