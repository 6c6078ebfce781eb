//===- GridDependency.h - kernels that may start before the previous ends -===//
//
// On sm_90+ a kernel launched with programmatic stream serialization may
// begin while the kernel before it on the stream is still running; it must
// then execute `griddepcontrol.wait` (which returns once the previous grid
// has finished and its writes are visible) before it touches memory that
// kernel writes. A kernel image (PTX or fatbin) that defines the global
// below promises that every kernel in it does so; the runtime launches the
// kernels of such images that way (KernelLaunch.h) and all others as usual.
// The compiler's generated kernels (tcc-gpu-await-previous-grid) and the
// kernel library's images (Kernels/GridDependency.cuh) both define it.
//
// This header is the contract between the compiler, the runtime and the
// kernels: all three include it.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_GRIDDEPENDENCY_H
#define TCC_RUNTIME_GRIDDEPENDENCY_H

/// The global's name, as an identifier (for the .cu files' definition).
#define TCC_AWAITS_PREVIOUS_GRID_SYMBOL tcc_awaits_previous_grid

#ifdef __cplusplus
namespace tcc {
/// The global's name, as a string (cuModuleGetGlobal, the compiler's pass).
inline constexpr const char kAwaitsPreviousGridSymbol[] = "tcc_awaits_previous_grid";
} // namespace tcc
#endif

#endif // TCC_RUNTIME_GRIDDEPENDENCY_H
