//===- GpuCompactKernelArguments.cpp - a pointer per buffer, not a descriptor =//
//
// A memref kernel argument is passed as its whole descriptor (allocated and
// aligned pointers, offset, sizes, strides), and PTX allows 4352 bytes of
// parameters: a fused kernel over ~110 rank-1 buffers is refused by ptxas,
// which the driver runs only when the model loads. Each strided memref in the
// default memory space becomes its aligned pointer plus its dynamic offset,
// sizes and strides; the kernel rebuilds the descriptor, taking the static
// values from the memref type (as MLIR's bare-pointer convention does for
// fully static memrefs, but per argument and for dynamic shapes too).
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/GpuConventions.h"
#include "tcc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"

#define DEBUG_TYPE "tcc-gpu-compact-kernel-arguments"

namespace tcc {
#define GEN_PASS_DEF_GPUCOMPACTKERNELARGUMENTSPASS
#include "tcc/Transforms/Passes.h.inc"
} // namespace tcc

using namespace mlir;

namespace {

/// The static layout of a memref argument that can travel as a pointer:
/// strided, in the default memory space. Dynamic entries are passed.
struct CompactLayout {
  MemRefType type;
  int64_t offset;
  SmallVector<int64_t> strides;

  unsigned numDynamic() const {
    unsigned n = ShapedType::isDynamic(offset);
    for (int64_t s : type.getShape())
      n += ShapedType::isDynamic(s);
    for (int64_t s : strides)
      n += ShapedType::isDynamic(s);
    return n;
  }
};

std::optional<CompactLayout> compactLayout(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getMemorySpace())
    return std::nullopt;
  CompactLayout layout{memref, 0, {}};
  if (failed(memref.getStridesAndOffset(layout.strides, layout.offset)))
    return std::nullopt;
  return layout;
}

/// Bytes of a kernel parameter of this type (pointers and indices 8).
int64_t parameterBytes(Type type) {
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  if (auto memref = dyn_cast<MemRefType>(type)) // the whole descriptor
    return 8 * (3 + 2 * memref.getRank());
  return 8; // index, pointers
}

/// MLIR's memref descriptor in LLVM (64-bit indices, as convert-gpu-to-nvvm
/// derives them from the data layout).
LLVM::LLVMStructType descriptorType(MLIRContext *ctx, int64_t rank) {
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> fields{ptr, ptr, i64};
  if (rank > 0) {
    auto array = LLVM::LLVMArrayType::get(i64, rank);
    fields.append({array, array});
  }
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

/// In the kernel: the descriptor from the pointer, the passed dynamic values
/// and the static ones of the type, seen as the memref again.
Value rebuildMemRef(OpBuilder &b, Location loc, const CompactLayout &layout, Value pointer,
                    ValueRange dynamic) {
  MLIRContext *ctx = b.getContext();
  auto i64 = b.getI64Type();
  auto structTy = descriptorType(ctx, layout.type.getRank());
  unsigned next = 0;
  auto field = [&](int64_t value) -> Value {
    if (!ShapedType::isDynamic(value))
      return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(value));
    return arith::IndexCastOp::create(b, loc, i64, dynamic[next++]);
  };
  Value desc = LLVM::PoisonOp::create(b, loc, structTy);
  desc = LLVM::InsertValueOp::create(b, loc, desc, pointer, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, pointer, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, field(layout.offset), ArrayRef<int64_t>{2});
  for (auto [i, size] : llvm::enumerate(layout.type.getShape()))
    desc = LLVM::InsertValueOp::create(b, loc, desc, field(size),
                                       ArrayRef<int64_t>{3, int64_t(i)});
  for (auto [i, stride] : llvm::enumerate(layout.strides))
    desc = LLVM::InsertValueOp::create(b, loc, desc, field(stride),
                                       ArrayRef<int64_t>{4, int64_t(i)});
  return UnrealizedConversionCastOp::create(b, loc, layout.type, desc).getResult(0);
}

/// At the launch: the aligned pointer of `memref` and its dynamic values,
/// in the order rebuildMemRef reads them.
void compactOperand(OpBuilder &b, Location loc, const CompactLayout &layout, Value memref,
                    SmallVectorImpl<Value> &operands) {
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  operands.push_back(
      LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), asInt));
  if (layout.numDynamic() == 0)
    return;
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  if (ShapedType::isDynamic(layout.offset))
    operands.push_back(meta.getOffset());
  for (auto [size, value] : llvm::zip(layout.type.getShape(), meta.getSizes()))
    if (ShapedType::isDynamic(size))
      operands.push_back(value);
  for (auto [stride, value] : llvm::zip(layout.strides, meta.getStrides()))
    if (ShapedType::isDynamic(stride))
      operands.push_back(value);
}

struct GpuCompactKernelArgumentsPass
    : tcc::impl::GpuCompactKernelArgumentsPassBase<GpuCompactKernelArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Every launch of each kernel (outlining makes one; keep any number).
    llvm::DenseMap<Operation *, SmallVector<gpu::LaunchFuncOp>> launches;
    WalkResult walk = module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(launch,
                                                                         launch.getKernel());
      if (!kernel)
        return launch.emitError() << "launches an unknown kernel", WalkResult::interrupt();
      launches[kernel].push_back(launch);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    bool failedAny = false;
    module.walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return;
      compact(kernel, launches.lookup(kernel));
      if (failed(checkParameterSpace(kernel)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  void compact(gpu::GPUFuncOp kernel, ArrayRef<gpu::LaunchFuncOp> uses) {
    MLIRContext *ctx = &getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto indexTy = IndexType::get(ctx);
    Block &entry = kernel.getBody().front();
    // Back to front, so the indices of the arguments not yet seen hold.
    for (int index = int(kernel.getNumArguments()) - 1; index >= 0; --index) {
      std::optional<CompactLayout> layout = compactLayout(kernel.getArgumentTypes()[index]);
      if (!layout)
        continue;
      Location loc = kernel.getArgument(index).getLoc();
      unsigned numNew = 1 + layout->numDynamic();
      SmallVector<unsigned> positions(numNew, unsigned(index) + 1);
      SmallVector<Type> types{ptrTy};
      types.append(numNew - 1, indexTy);
      SmallVector<DictionaryAttr> attrs(numNew, DictionaryAttr::get(ctx));
      SmallVector<Location> locs(numNew, loc);
      if (failed(kernel.insertArguments(positions, types, attrs, locs)))
        return signalPassFailure();
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      ValueRange added = entry.getArguments().slice(index + 1, numNew);
      Value memref = rebuildMemRef(b, loc, *layout, added.front(), added.drop_front());
      kernel.getArgument(index).replaceAllUsesWith(memref);
      if (failed(kernel.eraseArgument(index)))
        return signalPassFailure();
      for (gpu::LaunchFuncOp launch : uses) {
        OpBuilder hb(launch);
        SmallVector<Value> operands(launch.getKernelOperands());
        SmallVector<Value> replacement;
        compactOperand(hb, launch.getLoc(), *layout, operands[index], replacement);
        operands.erase(operands.begin() + index);
        operands.insert(operands.begin() + index, replacement.begin(), replacement.end());
        launch.getKernelOperandsMutable().assign(operands);
      }
    }
  }

  /// Past PTX's limit the model could not load; say so here instead.
  LogicalResult checkParameterSpace(gpu::GPUFuncOp kernel) {
    int64_t bytes = 0;
    for (Type type : kernel.getArgumentTypes()) {
      int64_t size = parameterBytes(type);
      bytes = (bytes + size - 1) / size * size + size; // each aligned to its size
    }
    if (bytes <= tcc::kCudaKernelParamBytes)
      return success();
    return kernel.emitError() << "--target cuda: kernel '" << kernel.getName() << "' takes "
                              << bytes << " bytes of parameters (" << kernel.getNumArguments()
                              << " arguments); a CUDA kernel may take "
                              << tcc::kCudaKernelParamBytes;
  }
};

} // namespace
