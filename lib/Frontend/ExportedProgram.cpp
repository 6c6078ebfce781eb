//===- ExportedProgram.cpp - a torch.export program as plain C++ data -----===//
#include "tcc/Frontend/ExportedProgram.h"

namespace tcc::frontend {

std::string formatTensorType(const TensorMeta &meta) {
  std::string text = "[";
  for (size_t k = 0; k < meta.sizes.size(); ++k) {
    if (k)
      text += ", ";
    text += meta.sizes[k].isStatic() ? std::to_string(*meta.sizes[k].value)
                                     : meta.sizes[k].expr;
  }
  return text + "] " + dtypeName(meta.dtype);
}

const char *argumentKindName(Argument::Kind kind) {
  switch (kind) {
  case Argument::None: return "None";
  case Argument::Tensor: return "Tensor";
  case Argument::Tensors: return "Tensors";
  case Argument::OptionalTensors: return "OptionalTensors";
  case Argument::Int: return "Int";
  case Argument::Ints: return "Ints";
  case Argument::Float: return "Float";
  case Argument::Floats: return "Floats";
  case Argument::Bool: return "Bool";
  case Argument::Bools: return "Bools";
  case Argument::String: return "String";
  case Argument::Strings: return "Strings";
  case Argument::SymInt: return "SymInt";
  case Argument::SymInts: return "SymInts";
  case Argument::SymFloat: return "SymFloat";
  case Argument::SymBool: return "SymBool";
  case Argument::ScalarType: return "ScalarType";
  case Argument::MemoryFormat: return "MemoryFormat";
  case Argument::Layout: return "Layout";
  case Argument::Device: return "Device";
  case Argument::Other: return "Other";
  }
  return "unknown";
}

const Argument *Node::input(std::string_view argName) const {
  for (const NamedArgument &named : inputs)
    if (named.name == argName)
      return &named.arg;
  return nullptr;
}

} // namespace tcc::frontend
