//===- Conversion.h - TorchScript → ExportedProgram internals --------------===//
//
// Internal to lib/Frontend/TorchScript: the operator table (TorchScript
// overloads → torch.export targets with schema argument names), shape
// inference on export-level nodes, and the graph converter.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_FRONTEND_TORCHSCRIPT_CONVERSION_H
#define TCC_LIB_FRONTEND_TORCHSCRIPT_CONVERSION_H

#include "tcc/Frontend/ExportedProgram.h"
#include "tcc/Frontend/TorchScript/TorchScriptArchive.h"
#include "tcc/Frontend/TorchScript/TorchScriptGraph.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tcc::frontend::torchscript {

//===----------------------------------------------------------------------===//
// Operator table
//===----------------------------------------------------------------------===//

struct SchemaArg {
  std::string name;
  /// "Tensor", "Tensor?", "Tensor[]", "int", "int?", "int[]", "int[]?",
  /// "float", "float?", "Scalar", "bool", "ScalarType?", "MemoryFormat?",
  /// "str?", ...
  std::string type;
  bool kwOnly = false;
  /// Default as written in the schema ("None", "1", "[]", "False"); empty
  /// when the argument is required.
  std::string defaultText;
  /// Not passed on to the export node (extra arguments of _convolution).
  bool dropped = false;
};

struct OpSchema {
  std::string kind;   ///< "aten::add"
  std::string target; ///< "torch.ops.aten.add.Tensor"
  std::vector<SchemaArg> args;
  bool listOutput = false; ///< returns Tensor[] (chunk, split)
  bool inPlace = false;    ///< relu_, add_: functionalized
};

/// All overloads of a TorchScript kind, in resolution order; empty if the
/// kind is not in the table.
const std::vector<const OpSchema *> &schemasFor(const std::string &kind);

/// Parses one table line, e.g.
/// "aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> add.Tensor".
OpSchema parseSchemaLine(const std::string &line);

/// Kinds in the table, for docs and messages.
std::vector<std::string> supportedKinds();

//===----------------------------------------------------------------------===//
// Shape inference
//===----------------------------------------------------------------------===//

/// The metadata of the tensor values a node reads.
using MetaLookup = std::function<const TensorMeta &(const std::string &)>;

/// Infers the output metadata of an export-level node (one entry per
/// output tensor; several for chunk/split). Throws FrontendError with a
/// message (no location; the caller adds it) when the operator has no rule or
/// the shapes do not fit.
std::vector<TensorMeta> inferShapes(const Node &node, const MetaLookup &meta);

/// Static dimension (or symbolic expression) helpers.
SymDim staticDim(int64_t v);

//===----------------------------------------------------------------------===//
// Conversion
//===----------------------------------------------------------------------===//

struct ConversionInput {
  const TsGraph *graph = nullptr;
  std::string sourceName;
  /// Weights by parameter name (from --weights or the archive itself).
  const TorchScriptArchive *archive = nullptr;
  /// Shapes of user inputs by name (base name "x" or full "x.1"); override
  /// what the graph says.
  std::map<std::string, std::vector<SymDim>> inputShapes;
  std::map<std::string, DType> inputDTypes;
  std::map<std::string, RangeConstraint> symbols;
  /// Input shapes by position (traced_inputs.pkl), used where no name matches.
  std::vector<TensorMeta> positionalInputs;
};

ExportedProgram convertTorchScriptGraph(const ConversionInput &input);

} // namespace tcc::frontend::torchscript

#endif // TCC_LIB_FRONTEND_TORCHSCRIPT_CONVERSION_H
