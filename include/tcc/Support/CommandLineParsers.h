//===- CommandLineParsers.h - llvm::cl parsers for tcc's typed options ----===//
//
// Pass and pipeline options of type TargetSet or CpuIsa parse their text with
// the same function as tcc's own flags (TargetSet::parse, parseCpuIsa), so
// `tcc-opt -tcc-split-targets='targets=tpu'` fails with the message
// `tcc compile --target tpu` gives. Header-only: tcc_support stays free of
// LLVM; only MLIR code includes this.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_COMMANDLINEPARSERS_H
#define TCC_SUPPORT_COMMANDLINEPARSERS_H

#include "tcc/Support/CpuIsa.h"
#include "tcc/Support/TargetSet.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace tcc {
/// An llvm::cl parser of T through `Parse`, whose message is the option's
/// error.
template <typename T, std::optional<T> (*Parse)(std::string_view, std::string &)>
class ParsedOptionParser : public llvm::cl::basic_parser<T> {
public:
  using llvm::cl::basic_parser<T>::basic_parser;

  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef text, T &value) {
    std::string error;
    std::optional<T> parsed = Parse(text, error);
    if (!parsed)
      return option.error(error);
    value = *parsed;
    return false;
  }
  void printOptionDiff(const llvm::cl::Option &option, const T &,
                       const llvm::cl::OptionValue<T> &, size_t width) const {
    this->printOptionNoValue(option, width);
  }
};
} // namespace tcc

namespace llvm::cl {

template <>
class parser<tcc::TargetSet>
    : public tcc::ParsedOptionParser<tcc::TargetSet, &tcc::TargetSet::parse> {
public:
  using ParsedOptionParser::ParsedOptionParser;
  StringRef getValueName() const override { return "targets"; }
  /// How MLIR prints the option back (a pipeline's textual form).
  static void print(raw_ostream &os, const tcc::TargetSet &value) { os << value.str(); }
};

template <>
class parser<tcc::CpuIsa>
    : public tcc::ParsedOptionParser<tcc::CpuIsa, &tcc::parseCpuIsa> {
public:
  using ParsedOptionParser::ParsedOptionParser;
  StringRef getValueName() const override { return "isa"; }
  static void print(raw_ostream &os, tcc::CpuIsa value) { os << tcc::cpuIsaName(value); }
};

} // namespace llvm::cl

#endif // TCC_SUPPORT_COMMANDLINEPARSERS_H
