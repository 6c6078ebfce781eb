//===- KernelInventory.cpp - the kernels of a planned program -------------===//
//
// Runs on the planned module, before the target lowerings: every tcc_kernel
// op is one library or tcc kernel call on the GPU (a scatter: one generated
// kernel), every remaining linalg op one generated kernel (a convolution or
// pooling left in linalg too).
//
//===----------------------------------------------------------------------===//
#include "tcc/Pipelines/KernelInventory.h"
#include "tcc/Pipelines/KernelCost.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"
#include "dialects/TccKernel/IR/TccKernelOps.h"
#include "tcc/Transforms/PlannedEntry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>

using namespace mlir;
namespace kernel = tcc::kernel;

namespace {

/// Strings in first-seen order, each once.
struct OrderedSet {
  std::vector<std::string> items;
  void insert(std::string s) {
    if (!llvm::is_contained(items, s))
      items.push_back(std::move(s));
  }
  bool empty() const { return items.empty(); }
};

/// Source op names (formation's FusedLoc metadata) and `file:line`s.
void collectSources(Location loc, OrderedSet &names, OrderedSet &lines) {
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (auto meta = dyn_cast_or_null<ArrayAttr>(fused.getMetadata()))
      for (Attribute a : meta)
        if (auto s = dyn_cast<StringAttr>(a))
          names.insert(s.str());
    for (Location inner : fused.getLocations())
      collectSources(inner, names, lines);
  } else if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    if (file.getLine())
      lines.insert(file.getFilename().str() + ":" + std::to_string(file.getLine()));
  } else if (auto name = dyn_cast<NameLoc>(loc)) {
    collectSources(name.getChildLoc(), names, lines);
  }
}

std::string typeName(Value v) {
  Type t = cast<ShapedType>(v.getType()).getElementType();
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string join(ArrayRef<std::string> parts) {
  std::string s;
  for (const std::string &p : parts)
    s += (s.empty() ? "" : ", ") + p;
  return s;
}

/// Whether a generated kernel's body op computes on the tensors' values:
/// not an index, a position or an in-bounds test (index and i1 results, index
/// casts), not a load.
bool computesValues(Operation &op) {
  if (isa<linalg::IndexOp, arith::IndexCastOp, memref::LoadOp>(op))
    return false;
  return llvm::any_of(op.getResultTypes(),
                      [](Type t) { return !t.isIndex() && !t.isInteger(1); });
}

/// (kind, detail) of one kernel op of the entry (tcc::isKernelOp), or
/// nullopt for any other op.
std::optional<std::pair<std::string, std::string>> classify(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<std::pair<std::string, std::string>>>(op)
      .Case([](kernel::GemmOp g) -> std::optional<std::pair<std::string, std::string>> {
        SmallVector<std::string> parts = {typeName(g.getInit())};
        if (g.getNumBatchDims())
          parts.push_back("batched");
        if (g.getBias())
          parts.push_back("bias");
        if (g.getActivation() != kernel::Activation::none)
          parts.push_back(kernel::stringifyActivation(g.getActivation()).str());
        if (g.getResidual())
          parts.push_back("residual");
        return std::make_pair(std::string("gemm"), join(parts));
      })
      .Case([](kernel::ConvOp c) -> std::optional<std::pair<std::string, std::string>> {
        SmallVector<std::string> parts = {typeName(c.getInit())};
        if (c.getChannelsLast())
          parts.push_back("nhwc");
        if (c.getGroups() != 1)
          parts.push_back("groups " + std::to_string(c.getGroups()));
        if (c.getInputActivation() != kernel::Activation::none)
          parts.push_back(kernel::stringifyActivation(c.getInputActivation()).str() + " input");
        if (c.getBias())
          parts.push_back("bias");
        if (c.getResidual())
          parts.push_back("residual");
        if (c.getActivation() != kernel::Activation::none)
          parts.push_back(kernel::stringifyActivation(c.getActivation()).str());
        return std::make_pair(std::string("conv"), join(parts));
      })
      .Case([](kernel::QConvOp c) -> std::optional<std::pair<std::string, std::string>> {
        SmallVector<std::string> parts = {typeName(c.getInput()) + " x " + typeName(c.getWeight()) +
                                          " -> " + typeName(c.getInit())};
        if (c.getChannelsLast())
          parts.push_back("nhwc");
        if (c.getGroups() != 1)
          parts.push_back("groups " + std::to_string(c.getGroups()));
        if (c.getBias())
          parts.push_back("bias");
        if (c.getActivation() != kernel::Activation::none)
          parts.push_back(kernel::stringifyActivation(c.getActivation()).str());
        return std::make_pair(std::string("qconv"), join(parts));
      })
      .Case([](kernel::AttentionOp a) -> std::optional<std::pair<std::string, std::string>> {
        SmallVector<std::string> parts = {typeName(a.getInit())};
        if (a.getCausal())
          parts.push_back("causal");
        if (Value m = a.getMask())
          parts.push_back(typeName(m) == "i1" ? "bool mask" : "additive mask");
        return std::make_pair(std::string("attention"), join(parts));
      })
      .Case([](kernel::RowOp r) -> std::optional<std::pair<std::string, std::string>> {
        SmallVector<std::string> parts = {kernel::stringifyRowKind(r.getKind()).str(),
                                          typeName(r.getInput())};
        if (r.getResidual())
          parts.push_back(r.getSumInit() ? "residual (sum written)" : "residual");
        return std::make_pair(std::string("row"), join(parts));
      })
      .Case([](kernel::ScatterOp s) -> std::optional<std::pair<std::string, std::string>> {
        SmallVector<std::string> parts = {typeName(s.getInits().front()),
                                          "dim " + std::to_string(s.getDim())};
        if (s.getInits().size() > 1)
          parts.push_back(std::to_string(s.getInits().size()) + " tensors");
        return std::make_pair(std::string("scatter"), join(parts));
      })
      .Case([](kernel::RnnOp r) -> std::optional<std::pair<std::string, std::string>> {
        SmallVector<std::string> parts = {kernel::stringifyRnnMode(r.getMode()).str(),
                                          typeName(r.getInput()),
                                          std::to_string(r.getNumLayers()) +
                                              (r.getNumLayers() == 1 ? " layer" : " layers")};
        if (r.getBidirectional())
          parts.push_back("bidirectional");
        if (r.hasProjections())
          parts.push_back("projections");
        return std::make_pair(std::string("rnn"), join(parts));
      })
      .Case([](linalg::CopyOp) { return std::make_pair(std::string("copy"), std::string()); })
      .Case([](memref::CopyOp) { return std::make_pair(std::string("copy"), std::string()); })
      .Case([](linalg::FillOp) { return std::make_pair(std::string("fill"), std::string()); })
      .Case([](linalg::LinalgOp l) -> std::optional<std::pair<std::string, std::string>> {
        if (isa<linalg::ConvolutionOpInterface>(l.getOperation()))
          return std::make_pair(std::string(l->getName().getStringRef().starts_with("linalg.pooling")
                                                ? "pool"
                                                : "conv"),
                                std::string());
        bool pointwise = l.getNumLoops() == l.getNumParallelLoops();
        return std::make_pair(std::string(pointwise ? "pointwise" : "reduction"),
                              std::to_string(l.getNumLoops()) + (l.getNumLoops() == 1 ? " loop" : " loops"));
      })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace

nlohmann::json tcc::describeKernels(ModuleOp planned) {
  nlohmann::json kernels = nlohmann::json::array();
  for (auto f : planned.getOps<func::FuncOp>()) {
    if (!isPlannedEntry(f))
      continue;
    for (Operation &op : f.getBody().front()) {
      if (!isKernelOp(&op))
        continue;
      auto kind = classify(&op);
      assert(kind && "classify names every op isKernelOp accepts");
      OrderedSet names, lines;
      collectSources(op.getLoc(), names, lines);
      // Generated kernels name the arithmetic of their body: what it computes
      // on values, not the index arithmetic and loads of a window or gather.
      // (All of it where nothing computes values: a kernel of masks.)
      if (names.empty() && op.getNumRegions() == 1 && !op.getRegion(0).empty()) {
        for (Operation &inner : op.getRegion(0).front().without_terminator())
          if (computesValues(inner))
            names.insert(inner.getName().getStringRef().str());
        if (names.empty())
          for (Operation &inner : op.getRegion(0).front().without_terminator())
            names.insert(inner.getName().getStringRef().str());
      }
      nlohmann::json entry = {{"kind", kind->first},
                              {"detail", kind->second},
                              {"sources", names.items},
                              {"lines", lines.items}};
      // The roofline's numbers, where the sizes are known at compile time.
      KernelCost cost = kernelCost(&op);
      if (cost.flops >= 0)
        entry["flops"] = cost.flops;
      if (cost.bytes >= 0)
        entry["bytes"] = cost.bytes;
      kernels.push_back(std::move(entry));
    }
  }
  return kernels;
}

namespace {
/// The buffer a memref views: through subviews, reshapes and casts down to a
/// planned arena view (one buffer of the plan) or a function argument.
Value rootBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (isa<memref::ViewOp>(def))
      return v;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return v;
    v = view.getViewSource();
  }
  return v;
}

/// "2x16x8x8" and "f32" of a shaped value ("?" for a dynamic size).
std::pair<nlohmann::json, std::string> shapeAndType(Value v) {
  auto type = cast<ShapedType>(v.getType());
  nlohmann::json shape = nlohmann::json::array();
  for (int64_t d : type.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? nlohmann::json("?") : nlohmann::json(d));
  return {shape, typeName(v)};
}
} // namespace

nlohmann::json tcc::describeKernelEdges(ModuleOp planned) {
  using graph::TccGraphDialect;
  nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
  nlohmann::json edges = nlohmann::json::array();
  for (auto f : planned.getOps<func::FuncOp>()) {
    if (!isPlannedEntry(f))
      continue;
    // The kernels that wrote each buffer, since it was last written whole.
    llvm::DenseMap<Value, SmallVector<std::string>> writers;
    SmallVector<std::pair<Value, std::string>> outputOf;
    for (BlockArgument arg : f.getArguments()) {
      auto role = f.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                 TccGraphDialect::getRoleAttrName());
      auto name = f.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                 TccGraphDialect::getPublicNameAttrName());
      std::string label = name ? name.str() : "#" + std::to_string(arg.getArgNumber());
      if (role && role.getValue() == "input") {
        writers[arg].push_back("in" + std::to_string(inputs.size()));
        inputs.push_back(label);
      } else if (!role && arg.getArgNumber() + 1 < f.getNumArguments()) {
        // The outputs follow the weights and carry no role; the arena is last.
        label = "output #" + std::to_string(outputs.size());
        outputOf.push_back({arg, "out" + std::to_string(outputs.size())});
        outputs.push_back(label);
      }
    }
    std::set<std::pair<std::string, std::string>> joined;
    auto edge = [&](const std::string &from, const std::string &to, Value seen) {
      if (!joined.insert({from, to}).second)
        return;
      auto [shape, dtype] = shapeAndType(seen);
      edges.push_back({{"from", from}, {"to", to}, {"shape", shape}, {"dtype", dtype}});
    };
    int index = 0;
    for (Operation &op : f.getBody().front()) {
      if (!isKernelOp(&op))
        continue;
      std::string id = "k" + std::to_string(index++);
      // What it writes: destination operands (a copy's target).
      SmallVector<Value> written;
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(&op))
        for (OpOperand &init : dps.getDpsInitsMutable())
          written.push_back(init.get());
      else if (auto copy = dyn_cast<memref::CopyOp>(&op))
        written.push_back(copy.getTarget());
      // Everything it reads or updates in place comes from its writers; a
      // destination is read only by a linalg op whose body uses it (a
      // pooling's running maximum), not by one that writes a slice.
      llvm::SmallDenseSet<Value> read;
      auto reads = [&](OpOperand &use) {
        if (!isa<MemRefType>(use.get().getType()))
          return false;
        if (auto copy = dyn_cast<memref::CopyOp>(&op))
          return use.get() == copy.getSource();
        auto dps = dyn_cast<DestinationStyleOpInterface>(&op);
        if (!dps || !dps.isDpsInit(&use))
          return true;
        auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
        return linalgOp && linalgOp.payloadUsesValueFromOperand(&use);
      };
      for (OpOperand &use : op.getOpOperands()) {
        Value operand = use.get();
        if (!reads(use))
          continue;
        Value root = rootBuffer(operand);
        auto it = writers.find(root);
        if (it == writers.end())
          continue;
        read.insert(root);
        for (const std::string &from : it->second)
          edge(from, id, operand);
      }
      for (Value w : written) {
        Value root = rootBuffer(w);
        // Written whole, or after reading what was there: this kernel alone
        // stands for the buffer now; a slice joins the other writers.
        if (w == root || read.contains(root))
          writers[root] = {id};
        else
          writers[root].push_back(id);
      }
    }
    for (auto &[buffer, out] : outputOf)
      if (auto it = writers.find(buffer); it != writers.end())
        for (const std::string &from : it->second)
          edge(from, out, buffer);
  }
  return {{"inputs", inputs}, {"outputs", outputs}, {"edges", edges}};
}
