//===- ExportSchemaReader.cpp - model.json into ExportedProgram -----------===//
//
// Walks ExportedProgram -> GraphModule -> Graph / GraphSignature of
// torch/_export/serde/schema.py (8.x). Operators stay generic: a node is its
// target string and named arguments.
//
//===----------------------------------------------------------------------===//
#include "ExportSchemaReader.h"

#include "tcc/Frontend/FrontendError.h"

#include <limits>
#include <map>

namespace tcc::frontend {

namespace {

constexpr int kSupportedSchemaMajor = 8;

std::string elementPath(const std::string &where, size_t k) {
  return where + "[" + std::to_string(k) + "]";
}

void checkSchemaVersion(const Json &root, ExportedProgram &program) {
  const Json &version = requireField(root, "schema_version", "");
  program.schemaMajor = static_cast<int>(
      asInt(requireField(version, "major", "schema_version"),
            "schema_version.major"));
  program.schemaMinor = static_cast<int>(
      asInt(requireField(version, "minor", "schema_version"),
            "schema_version.minor"));
  if (program.schemaMajor != kSupportedSchemaMajor)
    throw FrontendError("schema version " + std::to_string(program.schemaMajor) +
                        "." + std::to_string(program.schemaMinor) +
                        " is not supported (tcc reads " +
                        std::to_string(kSupportedSchemaMajor) + ".x)");
}

Node parseNode(const Json &v, size_t index, const std::string &listPath) {
  std::string where = elementPath(listPath, index);
  Node node;
  if (const Json *name = optionalField(v, "name", where))
    node.name = asString(*name, fieldPath(where, "name"));
  // Name the node in every message below once its name is known.
  if (!node.name.empty())
    where += " (node '" + node.name + "')";
  node.target =
      asString(requireField(v, "target", where), fieldPath(where, "target"));

  std::string inputsPath = fieldPath(where, "inputs");
  const Json &inputs = asArray(requireField(v, "inputs", where), inputsPath);
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::string at = elementPath(inputsPath, k);
    NamedArgument named;
    named.name =
        asString(requireField(inputs[k], "name", at), fieldPath(at, "name"));
    named.arg = parseArgument(requireField(inputs[k], "arg", at),
                              fieldPath(at, "arg"));
    node.inputs.push_back(std::move(named));
  }

  std::string outputsPath = fieldPath(where, "outputs");
  const Json &outputs = asArray(requireField(v, "outputs", where), outputsPath);
  for (size_t k = 0; k < outputs.size(); ++k)
    node.outputs.push_back(parseArgument(outputs[k], elementPath(outputsPath, k)));

  if (const Json *metadata = optionalField(v, "metadata", where)) {
    std::string metaPath = fieldPath(where, "metadata");
    if (const Json *trace = optionalField(*metadata, "stack_trace", metaPath)) {
      node.stackTrace = asString(*trace, fieldPath(metaPath, "stack_trace"));
      node.loc = userSourceLocation(node.stackTrace);
    }
  }

  // Pre-2.5 exports may lack names; the first output's name stands in.
  if (node.name.empty() && !node.outputs.empty() &&
      node.outputs[0].kind == Argument::Tensor)
    node.name = node.outputs[0].tensor;
  if (node.name.empty())
    node.name = "#" + std::to_string(index);
  return node;
}

/// {"name": "x"} under `key` of `spec`.
std::string argName(const Json &spec, const std::string &where) {
  std::string at = fieldPath(where, "arg");
  const Json &arg = requireField(spec, "arg", where);
  return asString(requireField(arg, "name", at), fieldPath(at, "name"));
}

std::string stringField(const Json &v, const char *key,
                        const std::string &where) {
  return asString(requireField(v, key, where), fieldPath(where, key));
}

/// Name a graph value argument refers to: a tensor or a symbolic int.
std::string valueName(const Argument &arg) {
  if (arg.kind == Argument::Tensor)
    return arg.tensor;
  if (arg.kind == Argument::SymInt || arg.kind == Argument::SymFloat ||
      arg.kind == Argument::SymBool)
    return arg.s;
  return "";
}

InputSpec parseInputSpec(const Json &v, const std::string &where) {
  auto [key, value] = unionMember(v, where);
  const Json &spec = *value;
  std::string at = fieldPath(where, key.c_str());
  InputSpec in;
  if (key == "user_input") {
    in.kind = InputKind::UserInput;
    in.value = parseArgument(requireField(spec, "arg", at), fieldPath(at, "arg"));
    in.graphName = valueName(in.value);
  } else if (key == "parameter") {
    in.kind = InputKind::Parameter;
    in.graphName = argName(spec, at);
    in.target = stringField(spec, "parameter_name", at);
  } else if (key == "buffer") {
    in.kind = InputKind::Buffer;
    in.graphName = argName(spec, at);
    in.target = stringField(spec, "buffer_name", at);
    if (const Json *persistent = optionalField(spec, "persistent", at))
      in.persistent = asBool(*persistent, fieldPath(at, "persistent"));
  } else if (key == "tensor_constant") {
    in.kind = InputKind::TensorConstant;
    in.graphName = argName(spec, at);
    in.target = stringField(spec, "tensor_constant_name", at);
  } else if (key == "custom_obj") {
    in.kind = InputKind::CustomObj;
    in.graphName = argName(spec, at);
    in.target = stringField(spec, "custom_obj_name", at);
  } else if (key == "token") {
    in.kind = InputKind::Token;
    in.graphName = argName(spec, at);
  } else if (key == "constant_input") {
    in.kind = InputKind::ConstantInput;
    in.graphName = stringField(spec, "name", at);
    // ConstantValue shares its member names with Argument.
    in.value =
        parseArgument(requireField(spec, "value", at), fieldPath(at, "value"));
  } else {
    throw FrontendError(where + ": unknown input spec '" + key + "'");
  }
  return in;
}

OutputSpec parseOutputSpec(const Json &v, const std::string &where) {
  auto [key, value] = unionMember(v, where);
  const Json &spec = *value;
  std::string at = fieldPath(where, key.c_str());
  OutputSpec out;
  if (key == "user_output") {
    out.kind = OutputKind::UserOutput;
    out.value =
        parseArgument(requireField(spec, "arg", at), fieldPath(at, "arg"));
    out.graphName = valueName(out.value);
    return out;
  }
  struct Known {
    const char *key;
    OutputKind kind;
    const char *targetField; // nullptr: none
  };
  static const Known known[] = {
      {"loss_output", OutputKind::LossOutput, nullptr},
      {"buffer_mutation", OutputKind::BufferMutation, "buffer_name"},
      {"parameter_mutation", OutputKind::ParameterMutation, "parameter_name"},
      {"gradient_to_parameter", OutputKind::GradientToParameter,
       "parameter_name"},
      {"gradient_to_user_input", OutputKind::GradientToUserInput,
       "user_input_name"},
      {"user_input_mutation", OutputKind::UserInputMutation, "user_input_name"},
      {"token", OutputKind::Token, nullptr},
  };
  for (const Known &k : known) {
    if (key != k.key)
      continue;
    out.kind = k.kind;
    out.graphName = argName(spec, at);
    if (k.targetField)
      out.target = stringField(spec, k.targetField, at);
    return out;
  }
  throw FrontendError(where + ": unknown output spec '" + key + "'");
}

/// A range bound: an integer, or null / a string / a huge or non-finite
/// number for an infinite bound (torch has written int_oo all these ways).
int64_t rangeBound(const Json *v, bool upper, const std::string &where) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  int64_t unbounded = upper ? kMax : kMin;
  if (!v)
    return unbounded;
  if (v->is_number_unsigned() &&
      v->get<uint64_t>() > static_cast<uint64_t>(kMax))
    return kMax;
  if (v->is_number_integer())
    return asInt(*v, where);
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (d != d)
      throw FrontendError(where + ": range bound is NaN");
    if (d >= 9.2e18)
      return kMax;
    if (d <= -9.2e18)
      return kMin;
    return static_cast<int64_t>(d);
  }
  if (v->is_string()) {
    const std::string &s = v->get_ref<const std::string &>();
    static const char *const infinities[] = {"inf", "Infinity", "oo", "int_oo"};
    for (const char *inf : infinities) {
      if (s == inf)
        return kMax;
      if (s == std::string("-") + inf)
        return kMin;
    }
    throw FrontendError(where + ": unexpected range bound '" + s + "'");
  }
  throw FrontendError(where + ": expected an integer range bound, got " +
                      v->type_name());
}

/// Renames a subgraph's values as it is inlined: its inputs become the
/// caller's arguments, its outputs the caller's results, and everything else
/// gets the subgraph's name as a prefix so that it cannot collide.
struct ValueRenaming {
  std::map<std::string, std::string> names;
  std::string prefix;
  void apply(std::string &name) const {
    if (name.empty())
      return;
    auto it = names.find(name);
    name = it != names.end() ? it->second : prefix + name;
  }
  void apply(Argument &a) const {
    if (a.kind == Argument::Tensor)
      apply(a.tensor);
    if (a.kind == Argument::Tensors || a.kind == Argument::OptionalTensors)
      for (std::string &t : a.tensors)
        apply(t);
  }
  void apply(Node &node) const {
    for (NamedArgument &in : node.inputs)
      apply(in.arg);
    for (Argument &out : node.outputs)
      apply(out);
    if (!prefix.empty())
      node.name = prefix + node.name;
  }
};

std::vector<std::string> tensorNames(const std::vector<Argument> &args) {
  std::vector<std::string> names;
  for (const Argument &a : args) {
    if (a.kind == Argument::Tensor)
      names.push_back(a.tensor);
    else if (a.kind == Argument::Tensors || a.kind == Argument::OptionalTensors)
      names.insert(names.end(), a.tensors.begin(), a.tensors.end());
  }
  return names;
}

void appendNodes(const Json &graph, const std::string &where, ExportedProgram &program,
                 const ValueRenaming &renaming, const std::string &subgraphPrefix);

/// torch.no_grad()/enable_grad() regions (transformers' rotary embeddings)
/// export as a higher-order op around a subgraph. Grad mode means nothing to
/// an inference compiler, so the subgraph's nodes are inlined in its place.
bool inlineGradModeRegion(const Json &v, const Node &call, const std::string &where,
                          ExportedProgram &program) {
  if (call.target != "torch.ops.higher_order.wrap_with_set_grad_enabled")
    return false;
  const Json *subgraph = nullptr;
  std::string subgraphName = "subgraph";
  for (const Json &input : v.at("inputs"))
    if (const Json *arg = optionalField(input, "arg", where))
      if (const Json *g = optionalField(*arg, "as_graph", where)) {
        subgraph = &requireField(*g, "graph", where);
        if (const Json *name = optionalField(*g, "name", where))
          subgraphName = asString(*name, where);
      }
  if (!subgraph)
    throw FrontendError(where + ": " + call.target + " has no subgraph argument");
  std::vector<Argument> actuals;
  for (const NamedArgument &in : call.inputs)
    if (in.arg.kind == Argument::Tensor)
      actuals.push_back(in.arg);
  std::string at = where + " (" + subgraphName + ")";
  std::vector<Argument> formals, results;
  for (const Json &in : asArray(requireField(*subgraph, "inputs", at), at))
    formals.push_back(parseArgument(in, at));
  for (const Json &out : asArray(requireField(*subgraph, "outputs", at), at))
    results.push_back(parseArgument(out, at));
  std::vector<std::string> formalNames = tensorNames(formals), actualNames = tensorNames(actuals);
  std::vector<std::string> resultNames = tensorNames(results);
  std::vector<std::string> callResults = tensorNames(call.outputs);
  if (formalNames.size() != actualNames.size() || resultNames.size() != callResults.size())
    throw FrontendError(at + ": the subgraph's inputs or outputs do not match the call's");
  ValueRenaming inner;
  inner.prefix = call.name + "." + subgraphName + ".";
  for (size_t i = 0; i < formalNames.size(); ++i)
    inner.names[formalNames[i]] = actualNames[i];
  for (size_t i = 0; i < resultNames.size(); ++i) {
    if (inner.names.count(resultNames[i]))
      throw FrontendError(at + ": a subgraph output that is one of its inputs is not supported");
    inner.names[resultNames[i]] = callResults[i];
  }
  appendNodes(*subgraph, at, program, inner, inner.prefix);
  return true;
}

/// The graph's nodes (renamed, for an inlined subgraph) and tensor metadata.
void appendNodes(const Json &graph, const std::string &where, ExportedProgram &program,
                 const ValueRenaming &renaming, const std::string &subgraphPrefix) {
  std::string nodesPath = fieldPath(where, "nodes");
  const Json &nodes = asArray(requireField(graph, "nodes", where), nodesPath);
  for (size_t k = 0; k < nodes.size(); ++k) {
    Node node = parseNode(nodes[k], k, nodesPath);
    renaming.apply(node);
    if (!inlineGradModeRegion(nodes[k], node, elementPath(nodesPath, k), program))
      program.nodes.push_back(std::move(node));
  }
  if (subgraphPrefix.empty())
    return;  // the top-level graph's tensor_values are read by parseGraph
  std::string valuesPath = fieldPath(where, "tensor_values");
  if (const Json *values = optionalField(graph, "tensor_values", where))
    for (auto it = asObject(*values, valuesPath).begin(); it != values->end(); ++it) {
      std::string name = it.key();
      renaming.apply(name);
      program.tensorValues.emplace(
          name, parseTensorMeta(it.value(), fieldPath(valuesPath, it.key().c_str()), name));
    }
}

void parseGraph(const Json &graph, const std::string &where,
                ExportedProgram &program) {
  std::string inputsPath = fieldPath(where, "inputs");
  const Json &inputs = asArray(requireField(graph, "inputs", where), inputsPath);
  for (size_t k = 0; k < inputs.size(); ++k)
    program.graphInputs.push_back(
        parseArgument(inputs[k], elementPath(inputsPath, k)));

  std::string outputsPath = fieldPath(where, "outputs");
  const Json &outputs =
      asArray(requireField(graph, "outputs", where), outputsPath);
  for (size_t k = 0; k < outputs.size(); ++k)
    program.graphOutputs.push_back(
        parseArgument(outputs[k], elementPath(outputsPath, k)));

  appendNodes(graph, where, program, {}, "");

  std::string valuesPath = fieldPath(where, "tensor_values");
  const Json &values =
      asObject(requireField(graph, "tensor_values", where), valuesPath);
  for (auto it = values.begin(); it != values.end(); ++it)
    program.tensorValues.emplace(
        it.key(), parseTensorMeta(it.value(), fieldPath(valuesPath, it.key().c_str()),
                                  it.key()));

  std::string symPath = fieldPath(where, "sym_int_values");
  if (const Json *syms = optionalField(graph, "sym_int_values", where))
    for (auto it = asObject(*syms, symPath).begin(); it != syms->end(); ++it)
      program.symIntValues.emplace(
          it.key(), parseSymInt(it.value(), fieldPath(symPath, it.key().c_str())));
}

void parseSignature(const Json &signature, const std::string &where,
                    ExportedProgram &program) {
  std::string inPath = fieldPath(where, "input_specs");
  const Json &ins = asArray(requireField(signature, "input_specs", where), inPath);
  for (size_t k = 0; k < ins.size(); ++k)
    program.inputSpecs.push_back(parseInputSpec(ins[k], elementPath(inPath, k)));

  std::string outPath = fieldPath(where, "output_specs");
  const Json &outs =
      asArray(requireField(signature, "output_specs", where), outPath);
  for (size_t k = 0; k < outs.size(); ++k)
    program.outputSpecs.push_back(
        parseOutputSpec(outs[k], elementPath(outPath, k)));
}

void parseRangeConstraints(const Json &ranges, ExportedProgram &program) {
  const std::string where = "range_constraints";
  for (auto it = asObject(ranges, where).begin(); it != ranges.end(); ++it) {
    std::string at = fieldPath(where, it.key().c_str());
    asObject(it.value(), at);
    RangeConstraint range;
    range.min = rangeBound(optionalField(it.value(), "min_val", at), false,
                           fieldPath(at, "min_val"));
    range.max = rangeBound(optionalField(it.value(), "max_val", at), true,
                           fieldPath(at, "max_val"));
    // The guards check every call against the range: an empty one would
    // make every load of the artifact fail.
    if (range.min > range.max)
      throw FrontendError(at + ": symbol '" + it.key() + "' has an empty range [" +
                          std::to_string(range.min) + ", " + std::to_string(range.max) + "]");
    program.rangeConstraints.emplace(it.key(), range);
  }
}

} // namespace

ExportedProgram parseExportedProgram(const Json &root) {
  ExportedProgram program;
  asObject(root, "");
  checkSchemaVersion(root, program);
  if (const Json *version = optionalField(root, "torch_version", ""))
    program.torchVersion = asString(*version, "torch_version");

  const Json &module = requireField(root, "graph_module", "");
  parseGraph(requireField(module, "graph", "graph_module"),
             "graph_module.graph", program);
  parseSignature(requireField(module, "signature", "graph_module"),
                 "graph_module.signature", program);
  if (const Json *ranges = optionalField(root, "range_constraints", ""))
    parseRangeConstraints(*ranges, program);
  // Kept as text: the compiler parses them against the inputs it compiles
  // (ManifestBuilder), warning about those it cannot enforce.
  if (const Json *guards = optionalField(root, "guards_code", "")) {
    const Json &list = asArray(*guards, "guards_code");
    for (size_t k = 0; k < list.size(); ++k)
      program.guardsCode.push_back(asString(list[k], elementPath("guards_code", k)));
  }
  return program;
}

} // namespace tcc::frontend
