//===- SymbolBinding.cpp - an exported program with symbols made constants ===//
#include "tcc/Frontend/SymbolBinding.h"

#include <cctype>

using namespace tcc;
using namespace tcc::frontend;

namespace {
/// `text` with every identifier that `values` binds replaced by its value.
/// Values are sizes within the symbols' ranges; a negative one is
/// parenthesized so that the expression keeps its meaning.
std::string substitute(const std::string &text, const SymbolBindings &values) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (!std::isalpha(c) && c != '_') {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    std::string name = text.substr(i, end - i);
    auto it = values.find(name);
    if (it == values.end())
      out += name;
    else if (it->second < 0)
      out += "(" + std::to_string(it->second) + ")";
    else
      out += std::to_string(it->second);
    i = end;
  }
  return out;
}

void bindDim(SymDim &d, const SymbolBindings &values) {
  if (d.isStatic() || d.expr.empty())
    return;
  SymbolicExpr e = SymbolicExpr::parse(d.expr);
  bool all = true, any = false;
  for (const std::string &name : e.symbols()) {
    bool bound = values.count(name) != 0;
    all = all && bound;
    any = any || bound;
  }
  if (all) {
    d.value = e.evaluate(values);
    d.hint = *d.value;
    d.expr.clear();
  } else if (any) {
    d.expr = substitute(d.expr, values);
  }
}

void bindMeta(TensorMeta &meta, const SymbolBindings &values) {
  for (SymDim &d : meta.sizes)
    bindDim(d, values);
  for (SymDim &d : meta.strides)
    bindDim(d, values);
}
} // namespace

ScopedSymbolBinding::ScopedSymbolBinding(ExportedProgram &program, const SymbolBindings &values)
    : program(program), savedTensorValues(program.tensorValues),
      savedSymIntValues(program.symIntValues), savedRanges(program.rangeConstraints) {
  for (auto &[name, meta] : program.tensorValues)
    bindMeta(meta, values);
  for (auto &[name, dim] : program.symIntValues)
    bindDim(dim, values);
  // A bound symbol's range is its value: what the memory plan is made at.
  for (const auto &[name, value] : values)
    if (auto it = program.rangeConstraints.find(name); it != program.rangeConstraints.end())
      it->second = {value, value};
}

ScopedSymbolBinding::~ScopedSymbolBinding() {
  program.tensorValues = std::move(savedTensorValues);
  program.symIntValues = std::move(savedSymIntValues);
  program.rangeConstraints = std::move(savedRanges);
}
