//===- ScalarValues.cpp - Python numbers as rank-0 tensors ----------------===//
#include "ScalarValues.h"

#include <map>
#include <set>

namespace tcc::frontend {

namespace {

/// Schema ScalarType codes (torch/_export/serde/schema.py).
constexpr int64_t kScalarLong = 5, kScalarDouble = 8, kScalarBool = 12;

/// Metadata of a rank-0 tensor holding a Python number of `kind`.
TensorMeta scalarMeta(Argument::Kind kind) {
  TensorMeta meta;
  meta.dtype = kind == Argument::Float || kind == Argument::SymFloat ? DType::Float64
               : kind == Argument::Bool || kind == Argument::SymBool ? DType::Bool
                                                                     : DType::Int64;
  meta.device = "cpu";
  return meta;
}

/// The ATen operator computing Python arithmetic `target` on tensors, or "".
std::string atenArithmetic(const std::string &target) {
  static const std::map<std::string, std::string> ops = {
      {"_operator.add", "torch.ops.aten.add.Tensor"},
      {"_operator.sub", "torch.ops.aten.sub.Tensor"},
      {"_operator.mul", "torch.ops.aten.mul.Tensor"},
      {"_operator.truediv", "torch.ops.aten.div.Tensor"},
      {"_operator.floordiv", "torch.ops.aten.floor_divide.default"},
      {"_operator.neg", "torch.ops.aten.neg.default"}};
  auto it = ops.find(target);
  return it == ops.end() ? std::string() : it->second;
}

/// The ATen operator computing Python comparison or logic `target` (the
/// conditions of torch._check, RuntimeAssertions.h), or "". Taken only where
/// every symbolic operand is tensorized or an input's size (read again as a
/// tensor): a comparison with an expression of sizes (u0 <= 2*s0) stays a
/// symbol, and its check is listed as not evaluated.
std::string atenCondition(const std::string &target) {
  static const std::map<std::string, std::string> ops = {
      {"_operator.ge", "torch.ops.aten.ge.Tensor"},
      {"_operator.gt", "torch.ops.aten.gt.Tensor"},
      {"_operator.le", "torch.ops.aten.le.Tensor"},
      {"_operator.lt", "torch.ops.aten.lt.Tensor"},
      {"_operator.eq", "torch.ops.aten.eq.Tensor"},
      {"_operator.ne", "torch.ops.aten.ne.Tensor"},
      {"_operator.and_", "torch.ops.aten.logical_and.default"},
      {"_operator.or_", "torch.ops.aten.logical_or.default"},
      {"torch.sym_not", "torch.ops.aten.logical_not.default"}};
  auto it = ops.find(target);
  return it == ops.end() ? std::string() : it->second;
}

bool isSymbolic(Argument::Kind kind) {
  return kind == Argument::SymInt || kind == Argument::SymFloat || kind == Argument::SymBool;
}

/// A fresh value name starting with `stem`.
std::string freshName(const ExportedProgram &program, const std::string &stem) {
  std::string name = stem;
  for (int i = 1; program.tensorValues.count(name) || program.symIntValues.count(name); ++i)
    name = stem + "_" + std::to_string(i);
  return name;
}

} // namespace

void tensorizeScalarValues(ExportedProgram &program) {
  // .item() and the Python arithmetic on its result, in graph order.
  std::set<std::string> tensorized;
  // sym_size.int results by name: (tensor, dim), read again as a tensor
  // where a condition compares one with a tensorized value (u0 <= s77).
  std::map<std::string, std::pair<std::string, int64_t>> sizeReads;
  for (size_t position = 0; position < program.nodes.size(); ++position) {
    Node &read = program.nodes[position];
    if (read.target == "torch.ops.aten.sym_size.int" && read.outputs.size() == 1 &&
        read.outputs[0].kind == Argument::SymInt) {
      const Argument *self = read.input("self");
      const Argument *dim = read.input("dim");
      if (self && self->kind == Argument::Tensor && dim && dim->kind == Argument::Int)
        sizeReads[read.outputs[0].s] = {self->tensor, dim->i};
    }
    bool item = read.target == "torch.ops.aten.item.default" ||
                read.target == "torch.ops.aten._local_scalar_dense.default";
    std::string aten = atenArithmetic(read.target);
    bool readsTensorized = false, readsOtherSymbols = false, readsOnlySizes = true;
    for (const NamedArgument &in : read.inputs) {
      bool symbolic = isSymbolic(in.arg.kind);
      readsTensorized |= symbolic && tensorized.count(in.arg.s);
      bool other = symbolic && !tensorized.count(in.arg.s);
      readsOtherSymbols |= other;
      readsOnlySizes &= !other || sizeReads.count(in.arg.s);
    }
    if (aten.empty() && !atenCondition(read.target).empty() && readsTensorized &&
        readsOtherSymbols && readsOnlySizes) {
      // A condition on an .item() value and input sizes: each size read
      // again, as a rank-0 tensor, just before it.
      std::vector<Node> reads;
      for (NamedArgument &in : read.inputs) {
        if (!isSymbolic(in.arg.kind) || tensorized.count(in.arg.s))
          continue;
        const auto &[tensor, dim] = sizeReads.at(in.arg.s);
        std::string name = freshName(program, in.arg.s + "_tensor");
        program.tensorValues[name] = scalarMeta(Argument::SymInt);
        Node size;
        size.target = "torch.ops.aten.sym_size.int";
        size.name = name;
        size.loc = read.loc;
        Argument self, d, result;
        self.kind = result.kind = Argument::Tensor;
        self.tensor = tensor;
        result.tensor = name;
        d.kind = Argument::Int;
        d.i = dim;
        size.inputs = {NamedArgument{"self", self}, NamedArgument{"dim", d}};
        size.outputs = {result};
        in.arg.kind = Argument::Tensor;
        in.arg.tensor = name;
        reads.push_back(std::move(size));
      }
      program.nodes.insert(program.nodes.begin() + static_cast<std::ptrdiff_t>(position),
                           reads.begin(), reads.end());
      position += reads.size();
      readsOtherSymbols = false;
    }
    Node &node = program.nodes[position];
    if (aten.empty() && !readsOtherSymbols)
      aten = atenCondition(node.target);
    if (!item && !(readsTensorized && !aten.empty())) {
      for (NamedArgument &in : node.inputs)
        if (isSymbolic(in.arg.kind) && tensorized.count(in.arg.s)) {
          in.arg.kind = Argument::Tensor;
          in.arg.tensor = in.arg.s;
        }
      continue;
    }
    if (node.outputs.size() != 1 || !isSymbolic(node.outputs[0].kind))
      continue;
    if (!item) {
      // Python's operands a, b as ATen's self, other.
      node.target = aten;
      if (node.inputs.size() >= 1)
        node.inputs[0].name = "self";
      if (node.inputs.size() >= 2)
        node.inputs[1].name = "other";
      for (NamedArgument &in : node.inputs)
        if (isSymbolic(in.arg.kind) && tensorized.count(in.arg.s)) {
          in.arg.kind = Argument::Tensor;
          in.arg.tensor = in.arg.s;
        }
    }
    Argument &out = node.outputs[0];
    std::string name = out.s;
    // symIntValues keeps the name: a size computed from it (a data-dependent
    // shape) still reads as the export's unbacked symbol, refused later.
    program.tensorValues[name] = scalarMeta(out.kind);
    out.kind = Argument::Tensor;
    out.tensor = name;
    tensorized.insert(name);
  }
  for (Argument &out : program.graphOutputs)
    if (isSymbolic(out.kind) && tensorized.count(out.s)) {
      out.kind = Argument::Tensor;
      out.tensor = out.s;
    }

  // Constant user outputs: scalar_tensor(s, dtype) nodes at the end.
  for (size_t position = 0; position < program.outputSpecs.size(); ++position) {
    OutputSpec &spec = program.outputSpecs[position];
    if (spec.kind != OutputKind::UserOutput)
      continue;
    if (spec.graphName.empty() && (spec.value.kind == Argument::Int ||
                                   spec.value.kind == Argument::Float ||
                                   spec.value.kind == Argument::Bool)) {
      std::string name = freshName(program, "constant_output_" + std::to_string(position));
      TensorMeta meta = scalarMeta(spec.value.kind);
      Argument dtype;
      dtype.kind = Argument::ScalarType;
      dtype.i = meta.dtype == DType::Float64 ? kScalarDouble
                : meta.dtype == DType::Bool  ? kScalarBool
                                             : kScalarLong;
      Argument result;
      result.kind = Argument::Tensor;
      result.tensor = name;
      Node node;
      node.target = "torch.ops.aten.scalar_tensor.default";
      node.name = name;
      node.inputs = {NamedArgument{"s", spec.value}, NamedArgument{"dtype", dtype}};
      node.outputs = {result};
      program.nodes.push_back(std::move(node));
      program.tensorValues[name] = meta;
      if (position < program.graphOutputs.size())
        program.graphOutputs[position] = result;
      spec.graphName = name;
      spec.value = result;
    } else if (isSymbolic(spec.value.kind) && tensorized.count(spec.value.s)) {
      spec.value.kind = Argument::Tensor;
      spec.value.tensor = spec.value.s;
    }
  }
}

} // namespace tcc::frontend
