//===- GraphImporter.cpp - an ExportedProgram into tcc_graph --------------===//
#include "tcc/Import/GraphImporter.h"

#include "StridedStorage.h"

#include "dialects/TccGraph/IR/ComplexForm.h"
#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;
using namespace tcc;
using namespace tcc::frontend;

Type tcc::elementTypeFor(MLIRContext &ctx, DType dtype) {
  switch (dtype) {
  case DType::Float32: return Float32Type::get(&ctx);
  case DType::Float64: return Float64Type::get(&ctx);
  case DType::Float16: return Float16Type::get(&ctx);
  case DType::BFloat16: return BFloat16Type::get(&ctx);
  case DType::Int64: return IntegerType::get(&ctx, 64);
  case DType::Int32: return IntegerType::get(&ctx, 32);
  case DType::Int16: return IntegerType::get(&ctx, 16);
  case DType::Int8: return IntegerType::get(&ctx, 8);
  case DType::UInt8: return IntegerType::get(&ctx, 8, IntegerType::Unsigned);
  case DType::Bool: return IntegerType::get(&ctx, 1);
  // A complex tensor is carried as its parts (a last dim of 2).
  case DType::Complex64: return Float32Type::get(&ctx);
  case DType::Complex128: return Float64Type::get(&ctx);
  }
  return Float32Type::get(&ctx);
}

namespace {
class Importer {
public:
  Importer(MLIRContext &ctx, const ExportedProgram &program, ImportedSignature &sig)
      : ctx(ctx), program(program), sig(sig), b(&ctx) {}

  OwningOpRef<ModuleOp> run();

private:
  Location locationOf(const Node &node) {
    if (node.loc.known())
      return FileLineColLoc::get(&ctx, node.loc.file, node.loc.line, 0);
    return NameLoc::get(b.getStringAttr(node.name));
  }
  FailureOr<RankedTensorType> tensorType(const std::string &name, Location loc);
  ArrayAttr sizesAttr(const TensorMeta &meta);
  LogicalResult importNode(const Node &node);
  FailureOr<Value> lookup(const std::string &name, Location loc, const Node &node);
  /// An integer, or the symbolic expression string of a sym_int value.
  FailureOr<Attribute> symIntAttr(const SymIntElement &e, Location loc, const Node &node,
                                  const std::string &argName);

  MLIRContext &ctx;
  const ExportedProgram &program;
  ImportedSignature &sig;
  OpBuilder b;
  llvm::StringMap<Value> values;
  /// Carries an in-place write into the chain `chain` of writable views
  /// (the written view first) back to the tensor it views: slice_scatter /
  /// select_scatter for slices and selects, the inverse reshape or
  /// permutation for the others.
  void writeBack(ArrayRef<std::string> chain, Value written, Location loc, const Node &node);
  /// Takes the writable view `view` again from its base's current value
  /// (the base refreshed first if it is a stale view itself).
  Value refreshView(const std::string &view);
  /// The `tcc.sizes` of a value (argument or operator result), or null.
  Attribute sizesOf(Value v);
  /// Points an aten.as_strided at the tensor holding the storage it reads
  /// (StridedStorage.h): its operand, storage_offset and tcc.storage_order;
  /// or, where no tensor holds it, tcc.storage_error for the legalizer.
  LogicalResult resolveAsStrided(const Node &node, Location loc,
                                 SmallVectorImpl<Value> &operands,
                                 SmallVectorImpl<NamedAttribute> &args,
                                 SmallVectorImpl<NamedAttribute> &attrs);

  /// The name every later use of `name` reads: values that are the same
  /// tensor as another (an in-place operator's result is its operand; alias,
  /// detach, `to` without a conversion) stand for the first of them.
  std::string canonical(const std::string &name) const {
    auto it = sameTensorAs.find(name);
    return it == sameTensorAs.end() ? name : it->second;
  }
  /// Whether `node` returns its tensor operand itself (no new tensor).
  bool returnsOperandItself(const Node &node) const;
  llvm::StringMap<std::string> sameTensorAs;

  /// Values that are views, or have views taken of them (see importNode).
  llvm::StringSet<> aliased;
  /// Outputs of view operators, and the views taken of each value.
  llvm::StringSet<> viewOutputs;
  llvm::StringMap<SmallVector<std::string>> viewsOf;
  /// The tensor each view operator's output views (by graph name).
  llvm::StringMap<std::string> viewedBy;
  /// Views a write can be carried back through to the tensor they view
  /// (slice, select, and views that only reshape or permute it): the viewed
  /// value's name and the imported op.
  struct WritableView {
    std::string base;
    tcc::graph::OperatorOp op;
    /// Which result of `op` the view is: a split's or unbind's piece (-1:
    /// the op has one result).
    int64_t piece = -1;
  };
  llvm::StringMap<WritableView> writableViews;
  /// Views whose base was written in place after they were taken.
  llvm::StringSet<> stale;
  /// The last in-place node that wrote each value (training IR: the writes
  /// into graph inputs that the signature does not list).
  llvm::StringMap<const Node *> lastWriter;
  /// The node that computes `value`, or null for a graph input.
  const Node *producerOf(const std::string &value) const;
  /// What the program writes into its inputs, buffers and parameters:
  /// in-place writes (training IR, the graph input's value rebound) and
  /// mutation outputs (functional IR). Buffers and parameters become state
  /// arguments, user inputs are written through; each gets a result holding
  /// its value after the call. Refuses what cannot be honoured.
  LogicalResult collectWrites(func::FuncOp func, ArrayRef<std::string> argValueNames,
                              SmallVectorImpl<Value> &results);
};
} // namespace

FailureOr<RankedTensorType> Importer::tensorType(const std::string &name, Location loc) {
  auto it = program.tensorValues.find(name);
  if (it == program.tensorValues.end())
    return emitError(loc, "no tensor metadata for value '") << name << "'", failure();
  SmallVector<int64_t> shape;
  for (const SymDim &d : it->second.sizes)
    shape.push_back(d.isStatic() ? *d.value : ShapedType::kDynamic);
  // A complex tensor: its (re, im) pairs as a last dim of 2, the bytes of
  // PyTorch's storage (torch.view_as_real).
  if (isComplex(it->second.dtype))
    shape.push_back(2);
  return RankedTensorType::get(shape, elementTypeFor(ctx, it->second.dtype));
}

ArrayAttr Importer::sizesAttr(const TensorMeta &meta) {
  SmallVector<Attribute> sizes;
  for (const SymDim &d : meta.sizes)
    sizes.push_back(d.isStatic() ? Attribute(b.getI64IntegerAttr(*d.value))
                                 : Attribute(b.getStringAttr(d.expr)));
  if (isComplex(meta.dtype))
    sizes.push_back(b.getI64IntegerAttr(2));
  return b.getArrayAttr(sizes);
}

Value Importer::refreshView(const std::string &view) {
  WritableView v = writableViews.find(view)->second;
  Value base = stale.count(v.base) && writableViews.count(v.base) ? refreshView(v.base)
                                                                  : values[canonical(v.base)];
  Operation *again = b.clone(*v.op.getOperation());
  again->setOperand(0, base);
  Value fresh = again->getResult(v.piece >= 0 ? v.piece : 0);
  values[canonical(view)] = fresh;
  stale.erase(view);
  return fresh;
}

FailureOr<Value> Importer::lookup(const std::string &name, Location loc, const Node &node) {
  // A view taken before its base was written in place sees the write, as
  // in PyTorch: a writable view is taken again from the base's value now.
  if (stale.count(name) && writableViews.count(name))
    return refreshView(name);
  if (stale.count(name) || stale.count(canonical(name)))
    return emitError(loc, "node '") << node.name << "' reads '" << name
                                    << "', a view of a tensor that was written in place "
                                    << "after the view was taken; this is not supported yet",
           failure();
  auto it = values.find(canonical(name));
  if (it == values.end())
    return emitError(loc, "node '") << node.name << "' uses undefined value '" << name << "'",
           failure();
  return it->second;
}

/// The functional form of an in-place ATen target ("torch.ops.aten.silu_.default"
/// becomes "torch.ops.aten.silu.default"), or "" when `target` is not in-place.
/// Dunder names such as `__and__` end in `_` but are not in-place.
static std::string functionalTarget(StringRef target) {
  SmallVector<StringRef> parts;
  target.split(parts, '.');
  if (parts.size() < 2)
    return "";
  StringRef &name = parts[parts.size() - 2];
  if (!name.ends_with("_") || name.ends_with("__"))
    return "";
  name = name.drop_back();
  return llvm::join(parts, ".");
}

/// A node computing sizes (sym_size, arithmetic on sizes) has only symbolic
/// outputs; their expressions are in the graph's sym_int_values already.
static bool onlySymbolicOutputs(const Node &node) {
  bool any = false;
  for (const Argument &out : node.outputs) {
    if (out.kind == Argument::None)
      continue;
    if (out.kind != Argument::SymInt && out.kind != Argument::SymFloat &&
        out.kind != Argument::SymBool)
      return false;
    any = true;
  }
  return any;
}

FailureOr<Attribute> Importer::symIntAttr(const SymIntElement &e, Location loc,
                                          const Node &node, const std::string &argName) {
  if (std::holds_alternative<int64_t>(e))
    return Attribute(b.getI64IntegerAttr(std::get<int64_t>(e)));
  const std::string &name = std::get<std::string>(e);
  auto it = program.symIntValues.find(name);
  if (it == program.symIntValues.end())
    return emitError(loc, "node '") << node.name << "' (" << node.target << "): argument '"
                                    << argName << "' uses symbolic value '" << name
                                    << "', which the graph does not define",
           failure();
  if (it->second.isStatic())
    return Attribute(b.getI64IntegerAttr(*it->second.value));
  return Attribute(b.getStringAttr(it->second.expr));
}

/// ATen operators whose outputs alias their first input (PyTorch views).
static bool isViewTarget(StringRef target) {
  target.consume_front("torch.ops.aten.");
  StringRef name = target.split('.').first;
  static const char *const views[] = {
      "slice", "select", "view", "_unsafe_view", "reshape", "expand", "expand_as",
      "permute", "transpose", "swapaxes", "swapdims", "t", "unsqueeze", "squeeze",
      "as_strided", "alias",
      "diagonal", "narrow", "unflatten", "flatten", "split", "split_with_sizes",
      "chunk", "unbind", "view_as", "detach", "unfold", "movedim", "contiguous"};
  return llvm::is_contained(views, name);
}

/// Whether the input of a reshape or contiguous `node` is row-major (the
/// export's strides): then the result is a view of it, else a copy.
static bool readsContiguousInput(const Node &node, const ExportedProgram &program) {
  const Argument *self = node.input("self");
  auto meta = self ? program.tensorValues.find(self->tensor) : program.tensorValues.end();
  return meta != program.tensorValues.end() && meta->second.contiguous;
}

/// reshape and contiguous of a tensor that is not row-major (a permute's
/// output) copy it, as PyTorch does: writes into the copy stay there, and
/// later writes into the input do not reach it.
static bool copiesItsInput(const Node &node, const ExportedProgram &program) {
  StringRef target = node.target;
  target.consume_front("torch.ops.aten.");
  StringRef name = target.split('.').first;
  return (name == "reshape" || name == "contiguous") && !readsContiguousInput(node, program);
}

/// Whether a write into the output of view `node` can be carried back to
/// the tensor it views (Importer::writeBack): slices, selects and diagonals,
/// and views that only reshape or permute it. reshape and contiguous are views only of
/// a contiguous tensor (copiesItsInput).
static bool isWritableView(const Node &node, const ExportedProgram &program) {
  StringRef target = node.target;
  target.consume_front("torch.ops.aten.");
  StringRef name = target.split('.').first;
  static const char *const writable[] = {"slice", "select", "diagonal", "view",
                                         "_unsafe_view", "unsqueeze", "squeeze", "flatten",
                                         "unflatten", "view_as", "transpose", "permute", "t"};
  if (llvm::is_contained(writable, name))
    return true;
  return (name == "reshape" || name == "contiguous") && readsContiguousInput(node, program);
}

/// Whether a write into one result of the view `op` can be carried back
/// (pieceWriteBack): split and split_with_sizes of static sizes, unbind.
static bool hasStaticPieces(tcc::graph::OperatorOp op) {
  StringRef target = op.getName();
  DictionaryAttr args = op.getArgs();
  if (target == "torch.ops.aten.split.Tensor")
    return isa_and_nonnull<IntegerAttr>(args.get("split_size"));
  if (target == "torch.ops.aten.split_with_sizes.default")
    return isa_and_nonnull<DenseI64ArrayAttr>(args.get("split_sizes"));
  return target == "torch.ops.aten.unbind.int";
}

/// The scatter that writes piece `piece` of the split or unbind `op` back
/// into its input of rank `rank`: slice_scatter over the piece's keys
/// along the dim, or select_scatter of one index.
static std::pair<std::string, DictionaryAttr> pieceWriteBack(OpBuilder &b,
                                                             tcc::graph::OperatorOp op,
                                                             int64_t piece, int64_t rank) {
  StringRef target = op.getName();
  DictionaryAttr args = op.getArgs();
  int64_t dim = 0;
  if (auto d = dyn_cast_or_null<IntegerAttr>(args.get("dim")))
    dim = d.getInt();
  if (dim < 0)
    dim += rank;
  auto named = [&](StringRef name, int64_t v) { return b.getNamedAttr(name, b.getI64IntegerAttr(v)); };
  if (target == "torch.ops.aten.unbind.int")
    return {"torch.ops.aten.select_scatter.default",
            b.getDictionaryAttr({named("dim", dim), named("index", piece)})};
  int64_t start = 0, length = 0;
  if (auto size = dyn_cast_or_null<IntegerAttr>(args.get("split_size"))) {
    start = piece * size.getInt();
    length = size.getInt();
  } else {
    ArrayRef<int64_t> sizes = cast<DenseI64ArrayAttr>(args.get("split_sizes")).asArrayRef();
    for (int64_t i = 0; i < piece; ++i)
      start += sizes[i];
    length = sizes[piece];
  }
  // The last piece of a split may be shorter: slice_scatter clamps the end.
  return {"torch.ops.aten.slice_scatter.default",
          b.getDictionaryAttr({named("dim", dim), named("start", start),
                               named("end", start + length), named("step", 1)})};
}

bool Importer::returnsOperandItself(const Node &node) const {
  StringRef target = node.target;
  if (!target.consume_front("torch.ops.aten.") || node.outputs.size() != 1 ||
      node.outputs[0].kind != Argument::Tensor)
    return false;
  const Argument *self = node.input("self");
  if (!self || self->kind != Argument::Tensor)
    return false;
  StringRef name = target.split('.').first;
  if (name == "alias" || name == "detach")
    return true;
  if (name != "to")
    return false;
  // `to` returns its operand when nothing changes: the dtype, the device,
  // and no copy=True or memory format asked for.
  if (const Argument *copy = node.input("copy"); copy && copy->kind == Argument::Bool && copy->b)
    return false;
  if (const Argument *format = node.input("memory_format"); format && format->kind != Argument::None)
    return false;
  auto in = program.tensorValues.find(self->tensor);
  auto out = program.tensorValues.find(node.outputs[0].tensor);
  if (in == program.tensorValues.end() || out == program.tensorValues.end())
    return false;
  auto deviceType = [](const std::string &d) { return d.substr(0, d.find(':')); };
  return in->second.dtype == out->second.dtype &&
         deviceType(in->second.device) == deviceType(out->second.device);
}

LogicalResult Importer::importNode(const Node &node) {
  Location loc = locationOf(node);
  if (onlySymbolicOutputs(node))
    return success();
  std::string functional = functionalTarget(node.target);
  // A write through a view must reach the viewed tensor (and a view taken
  // before a write must see it). The functional rewrite below cannot carry
  // that, so refuse rather than compute a wrong answer.
  // dropout_ in eval mode writes nothing (the value passes through).
  bool writes = !functional.empty();
  if (StringRef(functional).starts_with("torch.ops.aten.dropout."))
    if (const Argument *train = node.input("train"); !train || !train->b)
      writes = false;
  // A write into a chain of writable views of a tensor that is no view
  // itself (m[1:3, :2] = 5, m[1] = 5, m.view(16)[2:5] = 1) is carried back
  // to that tensor after the op. A write into a tensor that has views makes
  // them stale: reading one later is refused.
  SmallVector<std::string> writeBackChain;
  if (writes) {
    for (const NamedArgument &in : node.inputs) {
      if (in.arg.kind != Argument::Tensor)
        continue;
      std::string cur = canonical(in.arg.tensor);
      if (aliased.count(cur)) {
        while (writableViews.count(cur)) {
          writeBackChain.push_back(cur);
          cur = writableViews.find(cur)->second.base;
        }
        if (viewOutputs.count(cur))
          return emitError(loc, "in-place operator '")
                 << node.target << "' (node '" << node.name << "') writes into '"
                 << in.arg.tensor << "', which shares memory with another tensor through "
                 << "a view tcc cannot carry the write back through (expand, as_strided, "
                 << "unfold, ...); this is not supported yet. Export the core ATen form "
                 << "(ep.run_decompositions()), which makes such writes explicit",
                 failure();
        if (writeBackChain.empty())
          for (const std::string &view : viewsOf[cur])
            stale.insert(view);
      }
      break;
    }
  }
  // An operator that returns its operand itself (alias, detach, `to`
  // without a conversion) imports as nothing: its result is the operand.
  if (returnsOperandItself(node)) {
    const std::string &in = node.input("self")->tensor, &out = node.outputs[0].tensor;
    sameTensorAs[out] = canonical(in);
    viewedBy[out] = in;
    return success();
  }
  std::string viewedBase;
  if (isViewTarget(node.target) && !copiesItsInput(node, program)) {
    for (const NamedArgument &in : node.inputs)
      if (in.arg.kind == Argument::Tensor) {
        viewedBase = canonical(in.arg.tensor);
        aliased.insert(viewedBase);
        break;
      }
    for (const Argument &out : node.outputs) {
      SmallVector<std::string> names(out.tensors.begin(), out.tensors.end());
      if (out.kind == Argument::Tensor)
        names.push_back(out.tensor);
      for (const std::string &t : names) {
        aliased.insert(t);
        viewOutputs.insert(t);
        viewsOf[viewedBase].push_back(t);
        viewedBy[t] = viewedBase;
      }
    }
  }
  // An in-place op mutates its first tensor argument; later readers of that
  // value (and of the op's result, the same tensor) must see the result.
  // What it writes into graph inputs is collected at the end (collectWrites).
  std::string mutated;
  SmallVector<Value> operands;
  SmallVector<Attribute> operandNames;
  SmallVector<int64_t> complexOperands; // positions in `operands`
  SmallVector<NamedAttribute> args;
  SmallVector<Attribute> symbolicArgs;  // names of arguments given as expressions
  for (const NamedArgument &in : node.inputs) {
    const Argument &a = in.arg;
    auto addOperand = [&](const std::string &value, const std::string &name) -> LogicalResult {
      FailureOr<Value> v = lookup(value, loc, node);
      if (failed(v))
        return failure();
      if (auto meta = program.tensorValues.find(value);
          meta != program.tensorValues.end() && isComplex(meta->second.dtype))
        complexOperands.push_back(static_cast<int64_t>(operands.size()));
      operands.push_back(*v);
      operandNames.push_back(b.getStringAttr(name));
      return success();
    };
    switch (a.kind) {
    case Argument::None:
      break;
    case Argument::Tensor:
      if (failed(addOperand(a.tensor, in.name)))
        return failure();
      if (!functional.empty() && mutated.empty())
        mutated = canonical(a.tensor);
      break;
    case Argument::Tensors:
    case Argument::OptionalTensors:
      for (auto [i, t] : llvm::enumerate(a.tensors))
        if (!t.empty() && failed(addOperand(t, in.name + "." + std::to_string(i))))
          return failure();
      break;
    case Argument::Int:
    case Argument::MemoryFormat:
    case Argument::Layout:
      args.push_back(b.getNamedAttr(in.name, b.getI64IntegerAttr(a.i)));
      break;
    case Argument::ScalarType:
      args.push_back(b.getNamedAttr(in.name, b.getI64IntegerAttr(a.i)));
      break;
    case Argument::Ints:
      args.push_back(b.getNamedAttr(in.name, b.getDenseI64ArrayAttr(a.ints)));
      break;
    case Argument::Float:
      args.push_back(b.getNamedAttr(in.name, b.getF64FloatAttr(a.f)));
      break;
    case Argument::Floats:
      args.push_back(b.getNamedAttr(in.name, b.getDenseF64ArrayAttr(a.floats)));
      break;
    case Argument::Bool:
      args.push_back(b.getNamedAttr(in.name, b.getBoolAttr(a.b)));
      break;
    case Argument::Bools: {
      SmallVector<bool> bools(a.bools.begin(), a.bools.end());
      args.push_back(b.getNamedAttr(in.name, b.getDenseBoolArrayAttr(bools)));
      break;
    }
    case Argument::String:
    case Argument::Device:
      args.push_back(b.getNamedAttr(in.name, b.getStringAttr(a.s)));
      break;
    case Argument::Strings: {
      SmallVector<Attribute> strs;
      for (const std::string &s : a.strings)
        strs.push_back(b.getStringAttr(s));
      args.push_back(b.getNamedAttr(in.name, b.getArrayAttr(strs)));
      break;
    }
    case Argument::SymInts: {
      // Literal sizes stay a dense array; with a symbolic element, an array
      // of integers and expression strings ("s70", "2*s70").
      SmallVector<int64_t> ints;
      SmallVector<Attribute> mixed;
      bool symbolic = false;
      for (const SymIntElement &e : a.symInts) {
        FailureOr<Attribute> v = symIntAttr(e, loc, node, in.name);
        if (failed(v))
          return failure();
        mixed.push_back(*v);
        if (auto i = dyn_cast<IntegerAttr>(*v))
          ints.push_back(i.getInt());
        else
          symbolic = true;
      }
      args.push_back(b.getNamedAttr(in.name, symbolic ? Attribute(b.getArrayAttr(mixed))
                                                      : Attribute(b.getDenseI64ArrayAttr(ints))));
      if (symbolic)
        symbolicArgs.push_back(b.getStringAttr(in.name));
      break;
    }
    case Argument::SymInt: {
      FailureOr<Attribute> v = symIntAttr(a.s, loc, node, in.name);
      if (failed(v))
        return failure();
      args.push_back(b.getNamedAttr(in.name, *v));
      if (isa<StringAttr>(*v))
        symbolicArgs.push_back(b.getStringAttr(in.name));
      break;
    }
    case Argument::SymFloat:
    case Argument::SymBool:
      // Only the export's runtime assertions take these; the guards check
      // the same facts.
      args.push_back(b.getNamedAttr(in.name, b.getStringAttr(a.s)));
      symbolicArgs.push_back(b.getStringAttr(in.name));
      break;
    case Argument::Other:
      return emitError(loc, "node '") << node.name << "' (" << node.target << "): argument '"
                                      << in.name << "' of kind '" << a.s
                                      << "' is not supported";
    }
  }

  SmallVector<Type> resultTypes;
  SmallVector<std::string> resultNames;
  for (const Argument &out : node.outputs) {
    SmallVector<std::string> names;
    if (out.kind == Argument::Tensor)
      names.push_back(out.tensor);
    else if (out.kind == Argument::Tensors || out.kind == Argument::OptionalTensors)
      names.assign(out.tensors.begin(), out.tensors.end());
    else if (out.kind == Argument::None)
      continue;
    else
      return emitError(loc, "node '") << node.name << "' (" << node.target
                                      << ") has a non-tensor output, not supported yet";
    for (const std::string &n : names) {
      if (n.empty())
        return emitError(loc, "node '") << node.name << "' has an unnamed output";
      FailureOr<RankedTensorType> t = tensorType(n, loc);
      if (failed(t))
        return failure();
      resultTypes.push_back(*t);
      resultNames.push_back(n);
    }
  }

  SmallVector<NamedAttribute> extraAttrs;
  if ((StringRef(node.target) == "torch.ops.aten.as_strided.default" ||
       StringRef(node.target) == "torch.ops.aten.as_strided_copy.default") &&
      failed(resolveAsStrided(node, loc, operands, args, extraAttrs)))
    return failure();
  // as_strided_scatter writes into a clone of self, which keeps self's
  // strides: its storage is self's elements in row-major order only when
  // self is contiguous.
  if (StringRef(node.target) == "torch.ops.aten.as_strided_scatter.default")
    if (const Argument *self = node.input("self"); self && self->kind == Argument::Tensor) {
      auto meta = program.tensorValues.find(self->tensor);
      if (meta != program.tensorValues.end() && !meta->second.contiguous)
        extraAttrs.push_back(b.getNamedAttr(
            graph::TccGraphDialect::getStorageErrorAttrName(),
            b.getStringAttr("self is not contiguous (its clone's storage is not row-major)")));
    }

  auto op = b.create<tcc::graph::OperatorOp>(
      loc, resultTypes, b.getStringAttr(functional.empty() ? node.target : functional),
      operands,
      b.getArrayAttr(operandNames), b.getDictionaryAttr(args));
  op->setAttr("tcc.node", b.getStringAttr(node.name));
  for (NamedAttribute a : extraAttrs)
    op->setAttr(a.getName(), a.getValue());
  if (!symbolicArgs.empty())
    op->setAttr(graph::TccGraphDialect::getSymbolicArgsAttrName(), b.getArrayAttr(symbolicArgs));
  // Each result's sizes, symbolic ones as expressions ("s70", "2*s70"): what
  // a legalizer needs to create a tensor of symbolic shape.
  SmallVector<Attribute> resultSizes;
  for (const std::string &n : resultNames)
    resultSizes.push_back(sizesAttr(program.tensorValues.at(n)));
  op->setAttr(graph::TccGraphDialect::getSizesAttrName(), b.getArrayAttr(resultSizes));
  // Complex operands and results, for the legalizers (only those that know
  // the (re, im) form may take them).
  SmallVector<int64_t> complexResults;
  for (auto [i, n] : llvm::enumerate(resultNames))
    if (isComplex(program.tensorValues.at(n).dtype))
      complexResults.push_back(static_cast<int64_t>(i));
  if (!complexOperands.empty())
    op->setAttr(tcc::graph::kComplexOperandsAttrName,
                b.getDenseI64ArrayAttr(complexOperands));
  if (!complexResults.empty())
    op->setAttr(tcc::graph::kComplexResultsAttrName,
                b.getDenseI64ArrayAttr(complexResults));
  for (auto [name, result] : llvm::zip(resultNames, op.getResults()))
    values[name] = result;
  if (!mutated.empty() && op.getNumResults() > 0) {
    values[mutated] = op.getResult(0);
    lastWriter[mutated] = &node;
    if (!resultNames.empty())
      sameTensorAs[resultNames[0]] = mutated;
  }
  if (!viewedBase.empty() && resultNames.size() == 1 && isWritableView(node, program))
    writableViews[resultNames[0]] = WritableView{viewedBase, op};
  if (!viewedBase.empty() && resultNames.size() > 1 && hasStaticPieces(op))
    for (auto [i, name] : llvm::enumerate(resultNames))
      writableViews[name] = WritableView{viewedBase, op, static_cast<int64_t>(i)};
  if (!writeBackChain.empty())
    writeBack(writeBackChain, op.getResult(0), loc, node);
  return success();
}

void Importer::writeBack(ArrayRef<std::string> chain, Value written, Location loc,
                         const Node &node) {
  // Up the chain: each base gets the written view's value carried into it.
  std::string base;
  for (const std::string &view : chain) {
    WritableView v = writableViews.find(view)->second;
    base = v.base;
    Value self = values[base];
    const TensorMeta &baseMeta = program.tensorValues.at(base);
    StringRef target = v.op.getName();
    std::string inverse;
    SmallVector<Value> operands{written};
    SmallVector<StringRef> names{"self"};
    DictionaryAttr args = v.op.getArgs();
    SmallVector<Attribute> symbolic;
    if (v.piece >= 0) {
      std::tie(inverse, args) =
          pieceWriteBack(b, v.op, v.piece, static_cast<int64_t>(baseMeta.sizes.size()));
      operands = {self, written};
      names = {"self", "src"};
    } else if (target == "torch.ops.aten.select.int" || target == "torch.ops.aten.slice.Tensor" ||
        target == "torch.ops.aten.diagonal.default") {
      // select(dim, index), slice(dim, start, end, step) and
      // diagonal(offset, dim1, dim2) have the arguments of their scatters.
      inverse = target == "torch.ops.aten.select.int"  ? "torch.ops.aten.select_scatter.default"
                : target == "torch.ops.aten.slice.Tensor" ? "torch.ops.aten.slice_scatter.default"
                                                          : "torch.ops.aten.diagonal_scatter.default";
      operands = {self, written};
      names = {"self", "src"};
    } else if (target == "torch.ops.aten.transpose.int" || target == "torch.ops.aten.t.default") {
      inverse = target.str(); // its own inverse
    } else if (target == "torch.ops.aten.permute.default") {
      inverse = target.str();
      ArrayRef<int64_t> dims = cast<DenseI64ArrayAttr>(args.get("dims")).asArrayRef();
      SmallVector<int64_t> back(dims.size());
      for (auto [i, d] : llvm::enumerate(dims))
        back[d < 0 ? d + static_cast<int64_t>(dims.size()) : d] = static_cast<int64_t>(i);
      args = b.getDictionaryAttr(b.getNamedAttr("dims", b.getDenseI64ArrayAttr(back)));
    } else {
      // A reshape of the base: reshaped back to the base's sizes.
      inverse = "torch.ops.aten.view.default";
      SmallVector<Attribute> sizes;
      SmallVector<int64_t> ints;
      for (const SymDim &d : baseMeta.sizes) {
        sizes.push_back(d.isStatic() ? Attribute(b.getI64IntegerAttr(*d.value))
                                     : Attribute(b.getStringAttr(d.expr)));
        if (d.isStatic())
          ints.push_back(*d.value);
      }
      bool dynamic = ints.size() != sizes.size();
      args = b.getDictionaryAttr(b.getNamedAttr(
          "size", dynamic ? Attribute(b.getArrayAttr(sizes)) : Attribute(b.getDenseI64ArrayAttr(ints))));
      if (dynamic)
        symbolic.push_back(b.getStringAttr("size"));
    }
    auto back = b.create<tcc::graph::OperatorOp>(loc, TypeRange{self.getType()},
                                                 b.getStringAttr(inverse), operands,
                                                 b.getStrArrayAttr(names), args);
    back->setAttr("tcc.node", b.getStringAttr(node.name + ".write_back"));
    if (!symbolic.empty())
      back->setAttr(graph::TccGraphDialect::getSymbolicArgsAttrName(), b.getArrayAttr(symbolic));
    if (isComplex(baseMeta.dtype)) {
      // Refused at legalization: the write-backs do not take the (re, im) form.
      SmallVector<int64_t> complexOperands;
      for (size_t i = 0; i < operands.size(); ++i)
        complexOperands.push_back(static_cast<int64_t>(i));
      back->setAttr(tcc::graph::kComplexOperandsAttrName, b.getDenseI64ArrayAttr(complexOperands));
      back->setAttr(tcc::graph::kComplexResultsAttrName, b.getDenseI64ArrayAttr({0}));
    }
    back->setAttr(graph::TccGraphDialect::getSizesAttrName(), b.getArrayAttr({sizesAttr(baseMeta)}));
    values[base] = written = back.getResult(0);
    lastWriter[base] = &node;
  }
  // Other views of these tensors still hold the old values.
  llvm::StringSet<> rebound;
  for (const std::string &view : chain)
    rebound.insert(view);
  rebound.insert(base);
  for (const auto &name : rebound.keys())
    for (const std::string &view : viewsOf[name])
      if (!rebound.count(view))
        stale.insert(view);
}

LogicalResult Importer::resolveAsStrided(const Node &node, Location loc,
                                         SmallVectorImpl<Value> &operands,
                                         SmallVectorImpl<NamedAttribute> &args,
                                         SmallVectorImpl<NamedAttribute> &attrs) {
  const Argument *self = node.input("self");
  auto intsArg = [&](StringRef name) -> std::optional<ArrayRef<int64_t>> {
    for (NamedAttribute a : args)
      if (a.getName() == name)
        if (auto ints = dyn_cast<DenseI64ArrayAttr>(a.getValue()))
          return ints.asArrayRef();
    return std::nullopt;
  };
  std::optional<ArrayRef<int64_t>> sizes = intsArg("size"), strides = intsArg("stride");
  // Symbolic sizes or strides: the legalizer refuses them by name.
  if (!self || self->kind != Argument::Tensor || !sizes || !strides || operands.empty())
    return success();
  std::optional<int64_t> offset;
  auto offsetArg = llvm::find_if(args, [](NamedAttribute a) { return a.getName() == "storage_offset"; });
  if (offsetArg != args.end()) {
    auto i = dyn_cast<IntegerAttr>(offsetArg->getValue());
    if (!i)
      return success();
    offset = i.getInt();
  }
  auto viewBase = [&](const std::string &name) {
    auto it = viewedBy.find(name);
    return it == viewedBy.end() ? std::string() : it->second;
  };
  llvm::Expected<StridedSource> source = resolveStridedSource(
      program.tensorValues, viewBase, self->tensor, *sizes, *strides, offset);
  // Refused by the legalizer, which lists it with the other unsupported ops.
  if (!source) {
    attrs.push_back(b.getNamedAttr(graph::TccGraphDialect::getStorageErrorAttrName(),
                                   b.getStringAttr(llvm::toString(source.takeError()))));
    return success();
  }
  FailureOr<Value> tensor = lookup(source->tensor, loc, node);
  if (failed(tensor))
    return failure();
  operands.front() = *tensor;
  auto offsetAttr = b.getNamedAttr("storage_offset", b.getI64IntegerAttr(source->offset));
  if (offsetArg != args.end())
    *offsetArg = offsetAttr;
  else
    args.push_back(offsetAttr);
  if (!source->storageOrder.empty())
    attrs.push_back(
        b.getNamedAttr(graph::TccGraphDialect::getStorageOrderAttrName(), b.getDenseI64ArrayAttr(source->storageOrder)));
  return success();
}

Attribute Importer::sizesOf(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      return func.getArgAttr(arg.getArgNumber(), graph::TccGraphDialect::getSizesAttrName());
  if (Operation *def = v.getDefiningOp())
    if (auto all = def->getAttrOfType<ArrayAttr>(graph::TccGraphDialect::getSizesAttrName()))
      return all[cast<OpResult>(v).getResultNumber()];
  return nullptr;
}

const Node *Importer::producerOf(const std::string &value) const {
  for (const Node &node : program.nodes)
    for (const Argument &out : node.outputs)
      if ((out.kind == Argument::Tensor && out.tensor == value) ||
          ((out.kind == Argument::Tensors || out.kind == Argument::OptionalTensors) &&
           llvm::is_contained(out.tensors, value)))
        return &node;
  return nullptr;
}

LogicalResult Importer::collectWrites(func::FuncOp func, ArrayRef<std::string> argValueNames,
                                      SmallVectorImpl<Value> &results) {
  Location unknown = FileLineColLoc::get(&ctx, program.sourcePath, 0, 0);
  struct Write {
    unsigned arg;
    Value value;
    const Node *writer;
  };
  std::map<unsigned, Write> writes;
  // Training IR: an in-place operator rebound the graph input's value.
  for (auto [i, name] : llvm::enumerate(argValueNames)) {
    auto it = values.find(name);
    if (it != values.end() && it->second != func.getArgument(i))
      writes[i] = Write{static_cast<unsigned>(i), it->second, lastWriter.lookup(name)};
  }
  // Functional IR: the signature lists the writes.
  for (const OutputSpec &spec : program.outputSpecs) {
    if (spec.kind != OutputKind::BufferMutation && spec.kind != OutputKind::ParameterMutation &&
        spec.kind != OutputKind::UserInputMutation)
      continue;
    auto written = llvm::find_if(program.inputSpecs, [&](const InputSpec &in) {
      switch (spec.kind) {
      case OutputKind::BufferMutation:
        return in.kind == InputKind::Buffer && in.target == spec.target;
      case OutputKind::ParameterMutation:
        return in.kind == InputKind::Parameter && in.target == spec.target;
      default:
        return in.kind == InputKind::UserInput && in.graphName == spec.target;
      }
    });
    auto at = written == program.inputSpecs.end() ? argValueNames.end()
                                                  : llvm::find(argValueNames, written->graphName);
    if (at == argValueNames.end())
      return emitError(unknown, "graph output '")
             << spec.graphName << "' writes '" << spec.target
             << "', which is no tensor input, buffer or parameter of the graph";
    auto value = values.find(canonical(spec.graphName));
    if (value == values.end())
      return emitError(unknown, "output '") << spec.graphName << "' is never computed";
    unsigned i = static_cast<unsigned>(at - argValueNames.begin());
    writes[i] = Write{i, value->second, producerOf(spec.graphName)};
  }

  sig.states.clear();
  std::vector<frontend::InputSpec> weights;
  for (const InputSpec &w : sig.weights) {
    auto at = llvm::find(argValueNames, w.graphName);
    unsigned i = static_cast<unsigned>(at - argValueNames.begin());
    (writes.count(i) ? sig.states : weights).push_back(w);
  }
  for (auto &[i, w] : writes) {
    Location loc = w.writer ? locationOf(*w.writer) : unknown;
    const std::string &name = argValueNames[i];
    auto role = func.getArgAttrOfType<StringAttr>(i, graph::TccGraphDialect::getRoleAttrName());
    auto publicName =
        func.getArgAttrOfType<StringAttr>(i, graph::TccGraphDialect::getPublicNameAttrName());
    auto type = cast<RankedTensorType>(func.getArgument(i).getType());
    bool input = role && role.getValue() == "input";
    auto describe = [&](InFlightDiagnostic d) -> InFlightDiagnostic {
      if (w.writer)
        d << "node '" << w.writer->name << "' (" << w.writer->target << ") ";
      d << "writes " << (input ? "input" : "buffer") << " '" << publicName.getValue() << "'";
      return d;
    };
    if (w.value.getType() != type)
      return describe(emitError(loc)) << " with a value of type " << w.value.getType()
                                      << ", not its own " << type
                                      << "; tcc keeps a written tensor's type";
    if (!input && !type.hasStaticShape())
      return describe(emitError(loc))
             << " of symbolic shape " << type
             << "; state carried between calls needs a static shape";
    if (!input)
      func.setArgAttr(i, graph::TccGraphDialect::getRoleAttrName(),
                      b.getStringAttr(graph::TccGraphDialect::kStateRole));
    else
      sig.writtenInputs.push_back(static_cast<size_t>(
          llvm::find(sig.inputs, name) - sig.inputs.begin()));
    func.setArgAttr(i, graph::TccGraphDialect::getWrittenByAttrName(),
                    b.getI64IntegerAttr(static_cast<int64_t>(results.size())));
    results.push_back(w.value);
  }
  sig.weights = std::move(weights);
  return success();
}

OwningOpRef<ModuleOp> Importer::run() {
  Location unknown = FileLineColLoc::get(&ctx, program.sourcePath, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(unknown);

  // Symbols and their ranges, for guards and memory planning.
  SmallVector<NamedAttribute> symbols;
  for (const auto &[name, range] : program.rangeConstraints)
    symbols.push_back(b.getNamedAttr(
        name, b.getArrayAttr({b.getI64IntegerAttr(range.min), b.getI64IntegerAttr(range.max)})));
  (*module)->setAttr(graph::TccGraphDialect::getSymbolsAttrName(), b.getDictionaryAttr(symbols));
  (*module)->setAttr("tcc.source", b.getStringAttr(program.sourcePath));

  // Signature: user inputs, then weights.
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<std::string> argValueNames;
  auto addArg = [&](const std::string &valueName, StringRef role,
                    const std::string &publicName) -> LogicalResult {
    FailureOr<RankedTensorType> t = tensorType(valueName, unknown);
    if (failed(t))
      return failure();
    argTypes.push_back(*t);
    argValueNames.push_back(valueName);
    argAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr(graph::TccGraphDialect::getSizesAttrName(), sizesAttr(program.tensorValues.at(valueName))),
         b.getNamedAttr(graph::TccGraphDialect::getRoleAttrName(), b.getStringAttr(role)),
         b.getNamedAttr(graph::TccGraphDialect::getPublicNameAttrName(), b.getStringAttr(publicName))}));
    return success();
  };
  for (const InputSpec &spec : program.inputSpecs) {
    if (spec.kind != InputKind::UserInput)
      continue;
    if (spec.graphName.empty() || !program.tensorValues.count(spec.graphName))
      return emitError(unknown, "user input '")
             << spec.graphName << "' is not a tensor; only tensor inputs are supported",
             nullptr;
    if (failed(addArg(spec.graphName, "input", spec.graphName)))
      return nullptr;
    sig.inputs.push_back(spec.graphName);
  }
  for (const InputSpec &spec : program.inputSpecs) {
    switch (spec.kind) {
    case InputKind::UserInput:
      continue;
    case InputKind::Parameter:
    case InputKind::Buffer:
    case InputKind::TensorConstant:
      if (auto meta = program.tensorValues.find(spec.graphName);
          meta != program.tensorValues.end() && isComplex(meta->second.dtype))
        return emitError(unknown, "weight '")
               << spec.target << "' is a " << dtypeName(meta->second.dtype)
               << " tensor; tcc takes complex inputs and outputs, not complex weights",
               nullptr;
      if (failed(addArg(spec.graphName, "weight", spec.target)))
        return nullptr;
      sig.weights.push_back(spec);
      continue;
    default:
      return emitError(unknown, "graph input '")
             << spec.graphName << "' is a kind of input tcc does not support "
             << "(constant, custom object or token)",
             nullptr;
    }
  }

  SmallVector<Type> resultTypes;
  for (const OutputSpec &spec : program.outputSpecs) {
    if (spec.kind == OutputKind::BufferMutation || spec.kind == OutputKind::ParameterMutation ||
        spec.kind == OutputKind::UserInputMutation)
      continue; // collectWrites, once the nodes are imported
    if (spec.kind != OutputKind::UserOutput)
      return emitError(unknown, "graph output '")
             << spec.graphName << "' is a kind of output tcc does not support (a loss, a "
             << "gradient or a token): export the model for inference", nullptr;
    if (spec.graphName.empty())
      // Int, float and bool constants are scalar_tensor nodes already
      // (ScalarValues.h): what is left is None or a string.
      return emitError(unknown, "a user output is a constant other than a number (None or a "
                                "string), not supported yet"),
             nullptr;
    FailureOr<RankedTensorType> t = tensorType(spec.graphName, unknown);
    if (failed(t))
      return nullptr;
    resultTypes.push_back(*t);
    sig.outputs.push_back(spec.graphName);
  }

  b.setInsertionPointToEnd(module->getBody());
  auto func = b.create<func::FuncOp>(unknown, "forward",
                                     b.getFunctionType(argTypes, resultTypes));
  func.setAllArgAttrs(argAttrs);
  for (auto [i, name] : llvm::enumerate(sig.outputs))
    func.setResultAttr(i, graph::TccGraphDialect::getSizesAttrName(), sizesAttr(program.tensorValues.at(name)));
  Block *entry = func.addEntryBlock();
  for (auto [name, arg] : llvm::zip(argValueNames, entry->getArguments()))
    values[name] = arg;
  b.setInsertionPointToEnd(entry);
  for (const Node &node : program.nodes)
    if (failed(importNode(node)))
      return nullptr;
  SmallVector<Value> results;
  for (const std::string &name : sig.outputs) {
    auto it = values.find(canonical(name));
    if (it == values.end())
      return emitError(unknown, "output '") << name << "' is never computed", nullptr;
    results.push_back(it->second);
  }
  // The tensors the call writes: their values after it, as extra results.
  if (failed(collectWrites(func, argValueNames, results)))
    return nullptr;
  SmallVector<Type> allResultTypes;
  for (Value r : results)
    allResultTypes.push_back(r.getType());
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0; i < results.size(); ++i)
    resultAttrs.push_back(i < sig.outputs.size() ? func.getResultAttrDict(i)
                                                 : DictionaryAttr::get(&ctx));
  func.setType(b.getFunctionType(argTypes, allResultTypes));
  func.setAllResultAttrs(resultAttrs);
  b.create<func::ReturnOp>(unknown, results);
  return module;
}

OwningOpRef<ModuleOp> tcc::importExportedProgram(MLIRContext &ctx,
                                                 const ExportedProgram &program,
                                                 ImportedSignature &signature) {
  Importer importer(ctx, program, signature);
  return importer.run();
}
