//===- ScatterLoops.cpp - tcc_kernel.scatter as one parallel loop nest ----===//
//
// Both paths lower a scatter here: one scf.parallel over the sources'
// elements (one shape), each stored at its index's position of its init. The CPU path
// runs the nest on its thread pool (tcc-parallelize-cpu-loops), the CUDA
// path makes it a kernel (tcc-gpu-map-parallel-loops), as any loop nest.
//
//===----------------------------------------------------------------------===//
#include "KernelLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

void tcc::loops::lowerScatter(OpBuilder &b, kernel::ScatterOp op) {
  Location loc = op.getLoc();
  Emitter e{b, loc};
  SmallVector<Value> sources(op.getSources()), inits(op.getInits());
  Value index = op.getIndex();
  int64_t rank = cast<MemRefType>(sources.front().getType()).getRank();
  int64_t dim = op.getDim();
  SmallVector<Value> lbs(rank, e.index(0)), steps(rank, e.index(1)), ubs;
  for (int64_t d = 0; d < rank; ++d)
    ubs.push_back(e.dim(sources.front(), d));
  // Every init has the size of the first along dim (the verifier's shapes).
  Value size = e.dim(inits.front(), dim);
  std::string message = op.getMessage().str();
  scf::ParallelOp::create(
      b, loc, lbs, ubs, steps, [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        Emitter n{nb, nloc};
        Value raw = n.load(index, ValueRange{ivs[dim]});
        Value at = arith::IndexCastOp::create(nb, nloc, nb.getIndexType(), raw);
        // A negative index counts from the end; outside [-size, size) the
        // call fails and nothing is written.
        Value zero = n.index(0);
        Value negative = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt, at, zero);
        Value wrapped = arith::AddIOp::create(nb, nloc, at, size);
        at = arith::SelectOp::create(nb, nloc, negative, wrapped, at);
        Value notBelow = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::sge, at, zero);
        Value below = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt, at, size);
        Value inRange = arith::AndIOp::create(nb, nloc, notBelow, below);
        cf::AssertOp::create(nb, nloc, inRange, message);
        scf::IfOp::create(nb, nloc, inRange, [&](OpBuilder &tb, Location tloc) {
          Emitter t{tb, tloc};
          SmallVector<Value> to(ivs.begin(), ivs.end());
          to[dim] = at;
          for (auto [source, init] : llvm::zip(sources, inits))
            t.store(t.load(source, ivs), init, to);
          scf::YieldOp::create(tb, tloc);
        });
      });
}
