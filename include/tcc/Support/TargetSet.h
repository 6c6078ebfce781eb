//===- TargetSet.h - the code paths of an artifact: cpu, cuda -------------===//
//
// `--target` is read here and nowhere else: tcc compile and explain, tcc-opt's
// pipeline and pass options (CommandLineParsers.h) and the manifest's
// "targets" all go through TargetSet::parse and targetName, so a word means
// the same thing at every stage and an unknown one is an error everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_TARGETSET_H
#define TCC_SUPPORT_TARGETSET_H

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tcc {

/// One code path of an artifact.
enum class Target { Cpu, Cuda };
/// Every target, in the order names and messages list them.
constexpr Target kTargets[] = {Target::Cpu, Target::Cuda};

/// The word of `target`: "cpu" or "cuda". The same word is --target's, the
/// `tcc.target` attribute's value and an entry of the manifest's "targets".
const char *targetName(Target target);

/// "expected cpu, cuda or several of them separated by commas (cpu,cuda)":
/// the end of every parse error, and the message of an option not given.
std::string expectedTargets();

/// A non-empty set of targets once parsed; the empty set is "none given".
class TargetSet {
public:
  TargetSet() = default;
  TargetSet(std::initializer_list<Target> targets);

  /// Parses a comma-separated list of targetName words ("cpu", "cuda",
  /// "cpu,cuda", "cuda,cpu"; spaces around a word are ignored). On an
  /// unknown word, an empty word or list, or a word given twice: nullopt and
  /// `error` says which and lists the valid words.
  static std::optional<TargetSet> parse(std::string_view text, std::string &error);

  bool has(Target target) const { return bits & bit(target); }
  bool empty() const { return bits == 0; }
  /// The words, in kTargets order (the manifest's "targets").
  std::vector<std::string> names() const;
  /// The words joined by commas ("cpu,cuda"): what parse reads back.
  std::string str() const;

  bool operator==(const TargetSet &other) const { return bits == other.bits; }

private:
  static unsigned bit(Target target) { return 1u << static_cast<unsigned>(target); }
  unsigned bits = 0;
};

} // namespace tcc

#endif // TCC_SUPPORT_TARGETSET_H
