//===- TargetSet.cpp - the one reader of --target -------------------------===//
#include "tcc/Support/TargetSet.h"

using namespace tcc;

const char *tcc::targetName(Target target) {
  switch (target) {
  case Target::Cpu:
    return "cpu";
  case Target::Cuda:
    return "cuda";
  }
  return "cpu";
}

TargetSet::TargetSet(std::initializer_list<Target> targets) {
  for (Target t : targets)
    bits |= bit(t);
}

std::string tcc::expectedTargets() {
  std::string listed, joined;
  for (Target t : kTargets) {
    listed += std::string(listed.empty() ? "" : ", ") + targetName(t);
    joined += std::string(joined.empty() ? "" : ",") + targetName(t);
  }
  return "expected " + listed + " or several of them separated by commas (" + joined + ")";
}

static std::string_view trimSpaces(std::string_view s) {
  size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos)
    return {};
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

std::optional<TargetSet> TargetSet::parse(std::string_view text, std::string &error) {
  if (trimSpaces(text).empty()) {
    error = "no target given; " + expectedTargets();
    return std::nullopt;
  }
  const std::string_view whole = text;
  TargetSet set;
  while (true) {
    size_t comma = text.find(',');
    std::string_view word = trimSpaces(text.substr(0, comma));
    if (word.empty()) {
      error = "empty target in '" + std::string(whole) + "'; " + expectedTargets();
      return std::nullopt;
    }
    const Target *found = nullptr;
    for (const Target &t : kTargets)
      if (word == targetName(t))
        found = &t;
    if (!found) {
      error = "unknown target '" + std::string(word) + "'; " + expectedTargets();
      return std::nullopt;
    }
    if (set.has(*found)) {
      error = "target '" + std::string(word) + "' given twice";
      return std::nullopt;
    }
    set.bits |= bit(*found);
    if (comma == std::string_view::npos)
      return set;
    text = text.substr(comma + 1);
  }
}

std::vector<std::string> TargetSet::names() const {
  std::vector<std::string> out;
  for (Target t : kTargets)
    if (has(t))
      out.push_back(targetName(t));
  return out;
}

std::string TargetSet::str() const {
  std::string out;
  for (const std::string &name : names())
    out += (out.empty() ? "" : ",") + name;
  return out;
}
