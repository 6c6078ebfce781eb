//===- GraphVerifier.cpp - every value used is defined first --------------===//
#include "GraphVerifier.h"

#include "tcc/Frontend/FrontendError.h"

#include <functional>
#include <unordered_set>

namespace tcc::frontend {

namespace {

/// Calls `f(name, isTensor)` for each graph value `arg` names.
void forEachValue(const Argument &arg,
                  const std::function<void(const std::string &, bool)> &f) {
  switch (arg.kind) {
  case Argument::Tensor:
    f(arg.tensor, true);
    break;
  case Argument::Tensors:
  case Argument::OptionalTensors:
    for (const std::string &t : arg.tensors)
      if (!t.empty()) // None in an optional list
        f(t, true);
    break;
  case Argument::SymInt:
  case Argument::SymFloat:
  case Argument::SymBool:
    f(arg.s, false);
    break;
  case Argument::SymInts:
    for (const SymIntElement &e : arg.symInts)
      if (const std::string *name = std::get_if<std::string>(&e))
        f(*name, false);
    break;
  default:
    break;
  }
}

class ValueScope {
public:
  explicit ValueScope(const ExportedProgram &program) : program(program) {}

  void define(const Argument &arg, const std::string &definer) {
    forEachValue(arg, [&](const std::string &name, bool isTensor) {
      if (!defined.insert(name).second)
        throw FrontendError(definer + " defines value '" + name +
                            "', which is already defined");
      if (isTensor && !program.tensorValues.count(name))
        throw FrontendError(definer + " defines tensor '" + name +
                            "', which has no entry in tensor_values");
    });
  }

  void use(const Argument &arg, const std::string &user) const {
    forEachValue(arg, [&](const std::string &name, bool) {
      if (!defined.count(name))
        throw FrontendError(user + " uses value '" + name +
                            "', which no graph input or earlier node defines");
    });
  }

private:
  const ExportedProgram &program;
  std::unordered_set<std::string> defined;
};

} // namespace

void verifyGraph(const ExportedProgram &program) {
  ValueScope scope(program);
  for (size_t k = 0; k < program.graphInputs.size(); ++k)
    scope.define(program.graphInputs[k], "graph input " + std::to_string(k));
  for (const Node &node : program.nodes) {
    std::string who = "node '" + node.name + "' (" + node.target + ")";
    for (const NamedArgument &in : node.inputs)
      scope.use(in.arg, who + " argument '" + in.name + "'");
    for (const Argument &out : node.outputs)
      scope.define(out, who);
  }
  for (size_t k = 0; k < program.graphOutputs.size(); ++k)
    scope.use(program.graphOutputs[k], "graph output " + std::to_string(k));

  if (program.inputSpecs.size() != program.graphInputs.size())
    throw FrontendError("signature has " +
                        std::to_string(program.inputSpecs.size()) +
                        " input specs but the graph has " +
                        std::to_string(program.graphInputs.size()) + " inputs");
  if (program.outputSpecs.size() != program.graphOutputs.size())
    throw FrontendError("signature has " +
                        std::to_string(program.outputSpecs.size()) +
                        " output specs but the graph has " +
                        std::to_string(program.graphOutputs.size()) +
                        " outputs");
}

} // namespace tcc::frontend
