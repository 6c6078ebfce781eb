//===- OpTable.cpp - TorchScript operators tcc takes, as schemas ----------===//
//
// One line per TorchScript overload: the schema of native_functions.yaml
// (argument names are the ones the export path and the legalization use),
// then "->" and the torch.export target it becomes. Arguments written
// "~name" are accepted but not passed on (the cuDNN flags of _convolution).
// Overloads of a kind are tried in the order written.
//
//===----------------------------------------------------------------------===//
#include "Conversion.h"

#include "tcc/Frontend/FrontendError.h"

#include <map>
#include <memory>

using namespace tcc;
using namespace tcc::frontend;
using namespace tcc::frontend::torchscript;

namespace {
const char *const kTable[] = {
    // Linear algebra
    "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> linear.default",
    "aten::matmul(Tensor self, Tensor other) -> matmul.default",
    "aten::mm(Tensor self, Tensor mat2) -> mm.default",
    "aten::bmm(Tensor self, Tensor mat2) -> bmm.default",
    "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> "
    "addmm.default",
    // Convolution, normalization, pooling
    "aten::_convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
    "int[] dilation, bool transposed, int[] output_padding, int groups, bool ~benchmark, "
    "bool ~deterministic, bool ~cudnn_enabled, bool ~allow_tf32) -> convolution.default",
    "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[] stride=1, "
    "int[] padding=0, int[] dilation=1, int groups=1) -> conv2d.default",
    "aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> "
    "batch_norm.default",
    "aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> layer_norm.default",
    "aten::max_pool2d(Tensor self, int[] kernel_size, int[] stride=[], int[] padding=0, "
    "int[] dilation=1, bool ceil_mode=False) -> max_pool2d.default",
    "aten::avg_pool2d(Tensor self, int[] kernel_size, int[] stride=[], int[] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> "
    "avg_pool2d.default",
    "aten::adaptive_avg_pool2d(Tensor self, int[] output_size) -> adaptive_avg_pool2d.default",
    "aten::softmax(Tensor self, int dim, ScalarType? dtype=None) -> softmax.int",
    "aten::dropout(Tensor input, float p, bool train) -> dropout.default",
    // Elementwise
    "aten::relu(Tensor self) -> relu.default",
    "aten::relu_(Tensor self) -> relu.default",
    "aten::sin(Tensor self) -> sin.default",
    "aten::cos(Tensor self) -> cos.default",
    "aten::exp(Tensor self) -> exp.default",
    "aten::sqrt(Tensor self) -> sqrt.default",
    "aten::rsqrt(Tensor self) -> rsqrt.default",
    "aten::neg(Tensor self) -> neg.default",
    "aten::add(Tensor self, Tensor other, *, Scalar alpha=1) -> add.Tensor",
    "aten::add(Tensor self, Scalar other, Scalar alpha=1) -> add.Tensor",
    "aten::add_(Tensor self, Tensor other, *, Scalar alpha=1) -> add.Tensor",
    "aten::add_(Tensor self, Scalar other, Scalar alpha=1) -> add.Tensor",
    "aten::sub(Tensor self, Tensor other, *, Scalar alpha=1) -> sub.Tensor",
    "aten::sub(Tensor self, Scalar other, Scalar alpha=1) -> sub.Tensor",
    "aten::mul(Tensor self, Tensor other) -> mul.Tensor",
    "aten::mul(Tensor self, Scalar other) -> mul.Tensor",
    "aten::mul_(Tensor self, Tensor other) -> mul.Tensor",
    "aten::mul_(Tensor self, Scalar other) -> mul.Tensor",
    "aten::div(Tensor self, Tensor other) -> div.Tensor",
    "aten::div(Tensor self, Scalar other) -> div.Tensor",
    "aten::div(Tensor self, Tensor other, *, str? rounding_mode) -> div.Tensor_mode",
    "aten::maximum(Tensor self, Tensor other) -> maximum.default",
    // Reductions
    "aten::sum(Tensor self, *, ScalarType? dtype=None) -> sum.default",
    "aten::sum(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> "
    "sum.dim_IntList",
    "aten::mean(Tensor self, *, ScalarType? dtype=None) -> mean.default",
    "aten::mean(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> "
    "mean.dim",
    // Views and data movement
    "aten::t(Tensor self) -> t.default",
    "aten::transpose(Tensor self, int dim0, int dim1) -> transpose.int",
    "aten::permute(Tensor self, int[] dims) -> permute.default",
    "aten::view(Tensor self, int[] size) -> view.default",
    "aten::reshape(Tensor self, int[] shape) -> reshape.default",
    "aten::flatten(Tensor self, int start_dim=0, int end_dim=-1) -> flatten.using_ints",
    "aten::unsqueeze(Tensor self, int dim) -> unsqueeze.default",
    "aten::squeeze(Tensor self, int dim) -> squeeze.dim",
    "aten::squeeze(Tensor self) -> squeeze.default",
    "aten::select(Tensor self, int dim, int index) -> select.int",
    "aten::slice(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> "
    "slice.Tensor",
    "aten::cat(Tensor[] tensors, int dim=0) -> cat.default",
    "aten::chunk(Tensor self, int chunks, int dim=0) -> chunk.default",
    "aten::split(Tensor self, int split_size, int dim=0) -> split.Tensor",
    "aten::contiguous(Tensor self, *, MemoryFormat? memory_format=0) -> contiguous.default",
    "aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> clone.default",
    "aten::detach(Tensor self) -> detach.default",
};

std::string trimmed(std::string s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct Table {
  std::vector<std::unique_ptr<OpSchema>> all;
  std::map<std::string, std::vector<const OpSchema *>> byKind;
  Table() {
    for (const char *line : kTable) {
      all.push_back(std::make_unique<OpSchema>(parseSchemaLine(line)));
      byKind[all.back()->kind].push_back(all.back().get());
    }
  }
};

const Table &table() {
  static const Table t;
  return t;
}
} // namespace

OpSchema torchscript::parseSchemaLine(const std::string &line) {
  OpSchema s;
  size_t open = line.find('('), close = line.rfind(')'), arrow = line.find("->", close);
  if (open == std::string::npos || close == std::string::npos || arrow == std::string::npos)
    throw FrontendError("bad operator table line: " + line);
  s.kind = trimmed(line.substr(0, open));
  s.target = "torch.ops.aten." + trimmed(line.substr(arrow + 2));
  s.inPlace = s.kind.back() == '_';
  s.listOutput = s.kind == "aten::chunk" || s.kind == "aten::split";
  std::string params = line.substr(open + 1, close - open - 1);
  bool kwOnly = false;
  size_t start = 0;
  while (start <= params.size()) {
    size_t comma = params.find(',', start);
    std::string p = trimmed(params.substr(start, comma == std::string::npos ? std::string::npos
                                                                            : comma - start));
    start = comma == std::string::npos ? params.size() + 1 : comma + 1;
    if (p.empty())
      continue;
    if (p == "*") {
      kwOnly = true;
      continue;
    }
    SchemaArg a;
    a.kwOnly = kwOnly;
    size_t sp = p.find(' ');
    a.type = p.substr(0, sp);
    std::string rest = p.substr(sp + 1);
    size_t eq = rest.find('=');
    a.name = rest.substr(0, eq);
    if (eq != std::string::npos)
      a.defaultText = rest.substr(eq + 1);
    if (!a.name.empty() && a.name[0] == '~') {
      a.dropped = true;
      a.name = a.name.substr(1);
    }
    s.args.push_back(a);
  }
  return s;
}

const std::vector<const OpSchema *> &torchscript::schemasFor(const std::string &kind) {
  static const std::vector<const OpSchema *> none;
  auto it = table().byKind.find(kind);
  return it == table().byKind.end() ? none : it->second;
}

std::vector<std::string> torchscript::supportedKinds() {
  std::vector<std::string> out;
  for (const auto &[k, v] : table().byKind)
    out.push_back(k);
  return out;
}
