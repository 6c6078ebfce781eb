//===- WidenSharedStateProducers.cpp - one output per written argument ----===//
#include "WidenSharedStateProducers.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace {

/// `v`'s producer, if it can yield `v` into more outputs: a linalg.generic
/// of one result, every loop parallel, whose body does not read its output
/// (a fresh init per added output is then the same computation).
linalg::GenericOp widenableProducer(Value v) {
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic->getNumResults() != 1 || !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return nullptr;
  OpOperand *init = generic.getDpsInitOperand(0);
  if (generic.payloadUsesValueFromOperand(init))
    return nullptr;
  return generic;
}

/// `generic` rebuilt with `extra` more outputs, each a fresh tensor of its
/// result's type written through the same indexing map with the same value.
linalg::GenericOp widen(linalg::GenericOp generic, unsigned extra) {
  OpBuilder b(generic);
  Location loc = generic.getLoc();
  Value init = generic.getDpsInitOperand(0)->get();
  auto type = cast<RankedTensorType>(generic->getResult(0).getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, init, d));
  SmallVector<Value> inits{init};
  for (unsigned i = 0; i < extra; ++i)
    inits.push_back(tensor::EmptyOp::create(b, loc, type, dynamicSizes));
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  AffineMap outMap = maps.back();
  maps.append(extra, outMap);
  SmallVector<Type> resultTypes(1 + extra, type);
  auto wide = linalg::GenericOp::create(b, loc, resultTypes, generic.getInputs(), inits, maps,
                                        generic.getIteratorTypesArray());
  // The body, with a block argument per added output that it never reads.
  Region &region = wide.getRegion();
  IRMapping mapping;
  generic.getRegion().cloneInto(&region, mapping);
  Block &body = region.front();
  for (unsigned i = 0; i < extra; ++i)
    body.addArgument(type.getElementType(), loc);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  SmallVector<Value> values(1 + extra, yield.getOperand(0));
  yield->setOperands(values);
  // Fusion provenance and other marks go with it.
  for (NamedAttribute attr : generic->getDiscardableAttrs())
    wide->setAttr(attr.getName(), attr.getValue());
  generic->getResult(0).replaceAllUsesWith(wide->getResult(0));
  generic->erase();
  return wide;
}

} // namespace

void tcc::widenSharedStateProducers(func::FuncOp func) {
  if (func.isExternal())
    return;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  StringRef writtenBy = graph::TccGraphDialect::getWrittenByAttrName();
  // The written arguments' result operands, by the value they return.
  llvm::MapVector<Value, SmallVector<unsigned>> byValue;
  for (BlockArgument arg : func.getArguments()) {
    auto result = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), writtenBy);
    if (!result || !isa<TensorType>(arg.getType()))
      continue;
    unsigned r = static_cast<unsigned>(result.getInt());
    Value v = ret.getOperand(r);
    if (v != arg)
      byValue[v].push_back(r);
  }
  for (auto &[value, results] : byValue) {
    if (results.size() < 2)
      continue;
    linalg::GenericOp producer = widenableProducer(value);
    if (!producer)
      continue;
    linalg::GenericOp wide = widen(producer, static_cast<unsigned>(results.size() - 1));
    // The first argument keeps result 0 (as every other user does), each
    // further one reads its own output.
    for (unsigned i = 1; i < results.size(); ++i)
      ret.setOperand(results[i], wide->getResult(i));
  }
}
