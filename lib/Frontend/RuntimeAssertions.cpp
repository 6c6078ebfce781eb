//===- RuntimeAssertions.cpp - the export's checks of run-time values -----===//
#include "RuntimeAssertions.h"

namespace tcc::frontend {

namespace {

/// "Runtime assertion failed for expression u0 >= 1 on node 'ge'" as
/// "u0 >= 1"; any other message as written.
std::string conditionOf(const std::string &message) {
  static const std::string prefix = "Runtime assertion failed for expression ";
  if (message.compare(0, prefix.size(), prefix) != 0)
    return message;
  std::string condition = message.substr(prefix.size());
  size_t node = condition.rfind(" on node '");
  if (node != std::string::npos)
    condition.erase(node);
  return condition;
}

} // namespace

void collectRuntimeAssertions(ExportedProgram &program) {
  for (const Node &node : program.nodes) {
    if (node.target != "torch.ops.aten._assert_scalar.default")
      continue;
    const Argument *message = node.input("assert_msg");
    std::string text = message && message->kind == Argument::String
                           ? conditionOf(message->s)
                           : "the check of node '" + node.name + "'";
    if (node.loc.known())
      text += " (" + node.loc.file + ":" + std::to_string(node.loc.line) + ")";
    // A condition computed from .item() values is a rank-0 tensor by now;
    // the graph legalizer turns its node into a check of the call's result.
    const Argument *condition = node.input("self");
    bool evaluated = condition && condition->kind == Argument::Tensor && !program.outputSpecs.empty();
    program.runtimeAssertions.push_back({std::move(text), evaluated});
  }
}

} // namespace tcc::frontend
