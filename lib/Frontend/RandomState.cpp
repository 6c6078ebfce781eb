//===- RandomState.cpp - the state random operators draw from -------------===//
#include "RandomState.h"

#include "tcc/Support/RandomState.h"

#include <algorithm>
#include <set>

namespace tcc::frontend {

namespace {

bool isRandom(const std::string &target) {
  static const std::set<std::string> random = {
      "torch.ops.aten.rand.default",       "torch.ops.aten.rand_like.default",
      "torch.ops.aten.randn.default",      "torch.ops.aten.randn_like.default",
      "torch.ops.aten.randint.default",    "torch.ops.aten.randint.low",
      "torch.ops.aten.randint_like.default", "torch.ops.aten.randint_like.low_dtype",
      "torch.ops.aten.bernoulli.default",  "torch.ops.aten.bernoulli.p"};
  return random.count(target) != 0;
}

/// A value name not used by the graph, starting with `stem`.
std::string unusedName(const ExportedProgram &program, const std::string &stem) {
  std::string name = stem;
  for (int i = 1; program.tensorValues.count(name) || program.symIntValues.count(name); ++i)
    name = stem + "_" + std::to_string(i);
  return name;
}

Argument tensorArgument(const std::string &name) {
  Argument a;
  a.kind = Argument::Tensor;
  a.tensor = name;
  return a;
}

} // namespace

void attachRandomState(ExportedProgram &program) {
  if (std::none_of(program.nodes.begin(), program.nodes.end(),
                   [](const Node &n) { return isRandom(n.target); }))
    return;
  TensorMeta meta;
  meta.dtype = DType::Int64;
  SymDim one;
  one.value = 1;
  one.hint = 1;
  meta.sizes = {one};
  meta.strides = {one};
  meta.device = "cpu";

  // The buffer, before the user's inputs (where the export puts buffers).
  const std::string state = unusedName(program, "b_tcc_random_state");
  program.tensorValues[state] = meta;
  InputSpec in;
  in.kind = InputKind::Buffer;
  in.graphName = state;
  in.target = kRandomState;
  in.persistent = false;
  auto firstUser = std::find_if(program.inputSpecs.begin(), program.inputSpecs.end(),
                                [](const InputSpec &s) { return s.kind == InputKind::UserInput; });
  size_t at = static_cast<size_t>(firstUser - program.inputSpecs.begin());
  program.inputSpecs.insert(program.inputSpecs.begin() + at, in);
  program.graphInputs.insert(program.graphInputs.begin() +
                                 std::min(at, program.graphInputs.size()),
                             tensorArgument(state));
  TensorData data;
  data.meta = meta;
  data.bytes.assign(sizeof(int64_t), 0);
  program.constants[kRandomState] = std::move(data);

  int64_t stream = 0;
  for (Node &node : program.nodes) {
    if (!isRandom(node.target))
      continue;
    node.inputs.push_back({kRandomState, tensorArgument(state)});
    Argument s;
    s.kind = Argument::Int;
    s.i = stream++;
    node.inputs.push_back({kRandomStreamArgument, s});
  }

  // state + 1, written back: the next call draws other numbers.
  const std::string next = unusedName(program, "tcc_random_state_next");
  program.tensorValues[next] = meta;
  Node advance;
  advance.target = "torch.ops.aten.add.Tensor";
  advance.name = next;
  Argument step;
  step.kind = Argument::Int;
  step.i = 1;
  advance.inputs = {{"self", tensorArgument(state)}, {"other", step}};
  advance.outputs = {tensorArgument(next)};
  program.nodes.push_back(std::move(advance));
  OutputSpec out;
  out.kind = OutputKind::BufferMutation;
  out.graphName = next;
  out.target = kRandomState;
  out.value = tensorArgument(next);
  program.outputSpecs.insert(program.outputSpecs.begin(), out);
  program.graphOutputs.insert(program.graphOutputs.begin(), tensorArgument(next));
}

} // namespace tcc::frontend
