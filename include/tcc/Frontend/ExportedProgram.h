//===- ExportedProgram.h - a torch.export program as plain C++ data -------===//
//
// What torch.export writes (schema 8.x of torch/_export/serde/schema.py),
// read into plain structures with no MLIR: the graph's nodes in order, the
// metadata of every tensor value, the signature that says which graph inputs
// are user inputs, parameters or buffers, the ranges of the symbolic sizes
// and, for a .pt2 archive, the weight and constant bytes.
//
// The reader keeps operators generic (a target string and named arguments);
// deciding which operators tcc supports is the importer's job.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_FRONTEND_EXPORTEDPROGRAM_H
#define TCC_FRONTEND_EXPORTEDPROGRAM_H

#include "tcc/Frontend/StackTrace.h"
#include "tcc/Support/DType.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tcc::frontend {

//===----------------------------------------------------------------------===//
// Tensor metadata
//===----------------------------------------------------------------------===//

/// One size (or stride) of a tensor: static, or a symbolic expression.
struct SymDim {
  /// Set for a static dimension.
  std::optional<int64_t> value;
  /// Infix expression over symbol names ("s77", "2*s77 + 1", see
  /// SympyExpr.h) for a symbolic dimension; empty for a static one.
  std::string expr;
  /// The example value torch.export traced with (0 if it gave none); equals
  /// *value for a static dimension.
  int64_t hint = 0;

  bool isStatic() const { return value.has_value(); }
};

/// Metadata of one tensor value (schema TensorMeta).
struct TensorMeta {
  DType dtype = DType::Float32;
  std::vector<SymDim> sizes;
  std::vector<SymDim> strides;
  /// Elements from the start of the storage; 0 unless the tensor is a view.
  int64_t storageOffset = 0;
  /// "cpu", "cuda", "cuda:0", ...
  std::string device;
  /// Strides are row-major for the sizes (judged on the hints where a size is
  /// symbolic; dimensions of size 1 may have any stride).
  bool contiguous = true;
};

/// "[10, 100] float32", "[s77, 10] float32": for messages.
std::string formatTensorType(const TensorMeta &meta);

//===----------------------------------------------------------------------===//
// Arguments and nodes
//===----------------------------------------------------------------------===//

/// An element of a SymInts argument: a literal, or the name of a sym_int
/// value of the graph.
using SymIntElement = std::variant<int64_t, std::string>;

/// One argument or result of a node (the schema's Argument union). Only the
/// fields named for `kind` are meaningful.
struct Argument {
  enum Kind {
    None,            ///< as_none
    Tensor,          ///< tensor: the value name (also as_optional_tensor)
    Tensors,         ///< tensors
    OptionalTensors, ///< tensors, "" where the element is None
    Int,             ///< i (also a literal as_sym_int)
    Ints,            ///< ints
    Float,           ///< f (also a literal as_sym_float; may be inf/nan)
    Floats,          ///< floats
    Bool,            ///< b (also a literal as_sym_bool)
    Bools,           ///< bools
    String,          ///< s
    Strings,         ///< strings
    SymInt,          ///< s: the name of a sym_int value
    SymInts,         ///< symInts
    SymFloat,        ///< s: the name of a sym_float value
    SymBool,         ///< s: the name of a sym_bool value
    ScalarType,      ///< i: a ScalarType code (see ScalarType.h)
    MemoryFormat,    ///< i: schema MemoryFormat code (1 = contiguous, ...)
    Layout,          ///< i: schema Layout code (7 = strided)
    Device,          ///< s: "cpu", "cuda:0", ...
    Other,           ///< anything else; s: the union key, e.g. "as_graph"
  };

  Kind kind = None;
  std::string tensor;
  std::vector<std::string> tensors;
  int64_t i = 0;
  std::vector<int64_t> ints;
  double f = 0.0;
  std::vector<double> floats;
  bool b = false;
  std::vector<bool> bools;
  std::string s;
  std::vector<std::string> strings;
  std::vector<SymIntElement> symInts;
};

/// Spelling of an argument kind for messages ("Tensor", "Ints", ...).
const char *argumentKindName(Argument::Kind kind);

/// An operator argument with its schema name ("self", "weight", ...).
struct NamedArgument {
  std::string name;
  Argument arg;
};

/// One operator call of the graph.
struct Node {
  /// The operator, e.g. "torch.ops.aten.add.Tensor".
  std::string target;
  /// The node's name in the graph (unique), e.g. "linear".
  std::string name;
  std::vector<NamedArgument> inputs;
  std::vector<Argument> outputs;
  /// metadata.stack_trace as written, "" when absent.
  std::string stackTrace;
  /// The user's line from stackTrace (see StackTrace.h).
  SourceLocation loc;

  /// The input with schema name `name`, or nullptr when the node omits it
  /// (torch.export leaves out arguments that have their default value).
  const Argument *input(std::string_view name) const;
};

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

/// What a graph input stands for (schema InputSpec).
enum class InputKind {
  UserInput,
  Parameter,
  Buffer,
  TensorConstant,
  ConstantInput,
  CustomObj,
  Token
};

struct InputSpec {
  InputKind kind = InputKind::UserInput;
  /// The graph input's value name, e.g. "p_lin_weight" or "x" (for a
  /// ConstantInput, the input's name).
  std::string graphName;
  /// Parameter, buffer, constant or custom object name, e.g. "lin.weight";
  /// "" for user inputs and tokens.
  std::string target;
  /// Buffers only: false for a non-persistent buffer (stored with the
  /// constants of an archive rather than the weights).
  bool persistent = true;
  /// ConstantInput only: the constant (None, Int, Float, String or Bool); a
  /// non-tensor UserInput: its argument.
  Argument value;
};

/// What a graph output stands for (schema OutputSpec).
enum class OutputKind {
  UserOutput,
  LossOutput,
  BufferMutation,
  ParameterMutation,
  GradientToParameter,
  GradientToUserInput,
  UserInputMutation,
  Token
};

struct OutputSpec {
  OutputKind kind = OutputKind::UserOutput;
  /// The graph value returned; "" for a user output that is a constant.
  std::string graphName;
  /// Buffer, parameter or user input that is written; "" otherwise.
  std::string target;
  /// UserOutput only: the returned argument as written.
  Argument value;
};

/// Inclusive range of a symbol (schema RangeConstraint).
struct RangeConstraint {
  /// INT64_MIN when unbounded below.
  int64_t min = std::numeric_limits<int64_t>::min();
  /// INT64_MAX when unbounded above (torch writes int_oo as null, a string or
  /// a huge number; all read as INT64_MAX).
  int64_t max = std::numeric_limits<int64_t>::max();
};

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

/// A weight or constant: metadata and contiguous little-endian bytes
/// (bytes.size() == elements × dtypeSize(meta.dtype); views of a larger
/// storage are copied out, so meta.strides are row-major and
/// meta.storageOffset is 0).
struct TensorData {
  TensorMeta meta;
  std::vector<uint8_t> bytes;
};

struct ExportedProgram {
  int schemaMajor = 0;
  int schemaMinor = 0;
  std::string torchVersion;
  /// The file it was read from.
  std::string sourcePath;

  /// graph.inputs in order; Tensor arguments for tensors, SymInt for
  /// symbolic ints, others as written.
  std::vector<Argument> graphInputs;
  /// graph.outputs in order.
  std::vector<Argument> graphOutputs;
  /// In execution order; every value a node uses is a graph input or an
  /// output of an earlier node (checked while reading).
  std::vector<Node> nodes;
  /// Metadata of every tensor value, by value name.
  std::map<std::string, TensorMeta> tensorValues;
  /// sym_int values of the graph (e.g. results of sym_size), by name.
  std::map<std::string, SymDim> symIntValues;

  std::vector<InputSpec> inputSpecs;
  std::vector<OutputSpec> outputSpecs;
  /// By symbol name ("s77").
  std::map<std::string, RangeConstraint> rangeConstraints;
  /// "guards_code": Python expressions over the inputs' sizes under which
  /// the export is valid (tcc/Support/InputGuard.h), as written; empty when
  /// the export records none.
  std::vector<std::string> guardsCode;
  /// The conditions of the graph's aten._assert_scalar nodes (checks of
  /// values known only at run time, e.g. torch._check on .item()), each
  /// with its source line. `evaluated`: its condition is a tensor computed
  /// by the graph (tensorizeScalarValues), so the compiled code checks it
  /// on every call; otherwise tcc does not evaluate it, and says so.
  struct RuntimeAssertion {
    std::string text;
    bool evaluated = false;
  };
  std::vector<RuntimeAssertion> runtimeAssertions;

  /// Parameters and persistent buffers by name ("lin.weight"); empty for a
  /// bare model.json, whose weights are bound at run time by name.
  std::map<std::string, TensorData> weights;
  /// Lifted tensor constants and non-persistent buffers by name.
  std::map<std::string, TensorData> constants;
};

} // namespace tcc::frontend

#endif // TCC_FRONTEND_EXPORTEDPROGRAM_H
