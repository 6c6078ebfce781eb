//===- CpuIsa.h - the x86-64 level of the CPU path's code -----------------===//
//
// `--cpu-isa` is read here and nowhere else (tcc compile, and tcc-opt's
// pipeline option through CommandLineParsers.h). A level's name is at once the
// flag's word, the CPU name LLVM compiles for and the manifest's "cpu_isa".
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_CPUISA_H
#define TCC_SUPPORT_CPUISA_H

#include <optional>
#include <string>
#include <string_view>

namespace tcc {

/// The x86-64 psABI's micro-architecture levels, and Native: the highest
/// level of the compiling machine, resolved before code is generated
/// (resolveCpuIsa, tcc/Target/HostObjectEmitter.h).
enum class CpuIsa {
  X86_64,   ///< the baseline (SSE2): what Native resolves to on old processors
  X86_64_V2, ///< SSE4.2, POPCNT
  X86_64_V3, ///< AVX2, FMA: the default
  X86_64_V4, ///< AVX-512
  Native,
};
/// What --cpu-isa takes, in the order its help lists them (the baseline only
/// ever comes from Native).
constexpr CpuIsa kCpuIsaChoices[] = {CpuIsa::X86_64_V2, CpuIsa::X86_64_V3, CpuIsa::X86_64_V4,
                                     CpuIsa::Native};

/// "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4" or "native".
const char *cpuIsaName(CpuIsa isa);

/// Parses one of kCpuIsaChoices' words; on any other, nullopt and `error`
/// names it and lists the valid words.
std::optional<CpuIsa> parseCpuIsa(std::string_view word, std::string &error);

/// Whether processors of `level` (not Native: resolve it first) have fused
/// multiply-add.
inline bool cpuIsaHasFma(CpuIsa level) {
  return level == CpuIsa::X86_64_V3 || level == CpuIsa::X86_64_V4;
}

} // namespace tcc

#endif // TCC_SUPPORT_CPUISA_H
