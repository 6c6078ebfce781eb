//===- Options.h - options of tcc's compile pipeline ----------------------===//
//
// Plain structs with defaults; tools/tcc/main.cpp binds them to CLI11 in one
// place (IREE's Pipelines/Options.h).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_OPTIONS_H
#define TCC_PIPELINES_OPTIONS_H

#include "tcc/Support/CpuIsa.h"
#include "tcc/Support/TargetSet.h"

#include <string>
#include <vector>

namespace tcc {

/// Where the pipeline stops, in order.
enum class CompilePhase { Graph, Kernel, Linalg, Bufferized, Planned, LLVM, Output };

/// Parses "graph", "kernel", "linalg", "bufferized", "planned", "llvm", "so"; false if unknown.
bool parseCompilePhase(const std::string &name, CompilePhase &phase);

enum class OutputKind { SharedObject, Object, MLIR, LLVMIR, PTX };

/// --precision: the arithmetic of the CUDA path's f32 matrix products and
/// convolutions (tensors stay fp32; the CPU path is always fp32).
enum class Precision { Fp32, Tf32, Bf16 };
/// Every precision, in the order the flag's help lists them.
constexpr Precision kPrecisions[] = {Precision::Fp32, Precision::Tf32, Precision::Bf16};

/// The flag's words and the manifest's "precision": "fp32", "tf32", "bf16".
const char *precisionName(Precision precision);
/// Parses one of precisionName's words; false if unknown.
bool parsePrecision(const std::string &name, Precision &precision);
/// Whether f32 products run on tensor cores (tf32 or bf16 inputs).
inline bool onTensorCores(Precision precision) { return precision != Precision::Fp32; }

struct CompileOptions {
  std::string input;                    ///< model.pt2 or model.json
  std::string output;                   ///< model.so / model.o / .mlir / .ll
  std::string name;                     ///< --name: the model's symbol name ("" = from output)
  OutputKind emit = OutputKind::SharedObject;
  CompilePhase compileTo = CompilePhase::Output;
  bool externalWeights = false;         ///< leave weight bytes out of the object
  /// --target (default: one artifact with both paths)
  TargetSet targets{Target::Cpu, Target::Cuda};
  std::string arch = "sm_90";           ///< CUDA target chip (sm_80, sm_90)
  Precision precision = Precision::Fp32;
  /// --cpu-isa: the x86-64 level of the CPU path's code, x86-64-v2 | x86-64-v3
  /// | x86-64-v4 (AVX-512) | native (this machine's highest); the manifest's
  /// "cpu_isa", checked when a CPU run starts. By default AVX2 and FMA (every
  /// x86-64 server since 2013-2015): LLVM vectorizes 8 floats wide and the
  /// approximations of exp, erf, ... run on fused multiply-adds.
  CpuIsa cpuIsa = CpuIsa::X86_64_V3;
  bool cudaGraphs = true;               ///< manifest "cuda_graphs": replay CUDA runs as graphs
  bool profile = false;                 ///< --profile: per-kernel marks (tcc-instrument-kernels)
  std::string dumpIRAfterAll;           ///< directory for numbered .mlir files
  std::vector<std::string> printIRAfter;///< pass arguments to print after
  bool timing = false;                  ///< per-pass and per-phase timing
  bool quiet = false;                   ///< no progress line, even on a terminal
  bool verifyEach = true;
  int optLevel = 2;                     ///< LLVM optimization level for host code
  std::string cxx;                      ///< C++ driver used to link model.so ("" = find one)
  /// --specialize NAME=V[,V...][;NAME=...]: static variants beside the generic one
  std::vector<std::string> specialize;
  // TorchScript input only (see docs/TORCHSCRIPT.md):
  std::string weights;                  ///< --weights: the module's torch.jit.save archive
  std::vector<std::string> inputShapes; ///< --input-shape NAME=DIMS[:DTYPE]
  std::vector<std::string> symbols;     ///< --symbol NAME=MIN:MAX
};

} // namespace tcc

#endif // TCC_PIPELINES_OPTIONS_H
