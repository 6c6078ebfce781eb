//===- KernelInventory.h - the kernels of a planned program, for the manifest ===//
#ifndef TCC_PIPELINES_KERNELINVENTORY_H
#define TCC_PIPELINES_KERNELINVENTORY_H

#include <nlohmann/json.hpp>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tcc {

/// One JSON object per kernel or library call of the planned entry, in
/// program order: "kind" (gemm, attention, row, conv, rnn, pointwise, reduction,
/// copy, fill), "detail", the "sources" fused into it (source op names, from
/// kernel formation's locations or the kernel's body) and their Python
/// "lines", and where the sizes are static its "flops" and "bytes"
/// (KernelCost.h). Written into the manifest's "kernels" for `tcc inspect`.
nlohmann::json describeKernels(mlir::ModuleOp planned);

/// The data flow between the kernels of describeKernels (same order), for a
/// picture: {"inputs": [names], "outputs": [names], "edges": [{"from", "to",
/// "shape", "dtype"}]} where a node is "k<i>" (kernel i), "in<i>" (input i)
/// or "out<i>" (output i), and an edge is a buffer one writes and the other
/// reads, with the type the reader sees. A buffer written in slices (a
/// concatenation's) has an edge from each writer of a slice.
nlohmann::json describeKernelEdges(mlir::ModuleOp planned);

} // namespace tcc

#endif // TCC_PIPELINES_KERNELINVENTORY_H
