//===- CpuIsa.cpp - the one reader of --cpu-isa ---------------------------===//
#include "tcc/Support/CpuIsa.h"

using namespace tcc;

const char *tcc::cpuIsaName(CpuIsa isa) {
  switch (isa) {
  case CpuIsa::X86_64:
    return "x86-64";
  case CpuIsa::X86_64_V2:
    return "x86-64-v2";
  case CpuIsa::X86_64_V3:
    return "x86-64-v3";
  case CpuIsa::X86_64_V4:
    return "x86-64-v4";
  case CpuIsa::Native:
    return "native";
  }
  return "x86-64-v3";
}

std::optional<CpuIsa> tcc::parseCpuIsa(std::string_view word, std::string &error) {
  std::string valid;
  for (CpuIsa isa : kCpuIsaChoices) {
    if (word == cpuIsaName(isa))
      return isa;
    valid += std::string(valid.empty() ? "" : ", ") + cpuIsaName(isa);
  }
  error = "unknown CPU ISA '" + std::string(word) + "'; expected one of " + valid;
  return std::nullopt;
}
