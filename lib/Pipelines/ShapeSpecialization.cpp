//===- ShapeSpecialization.cpp - the variants `--specialize` asks for -----===//
#include "tcc/Pipelines/ShapeSpecialization.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <limits>

using namespace tcc;

namespace {
std::string rangeText(const frontend::RangeConstraint &r) {
  auto bound = [](int64_t v) {
    return v == std::numeric_limits<int64_t>::max()   ? std::string("inf")
           : v == std::numeric_limits<int64_t>::min() ? std::string("-inf")
                                                      : std::to_string(v);
  };
  return "[" + bound(r.min) + ", " + bound(r.max) + "]";
}

std::string knownSymbols(const frontend::ExportedProgram &program) {
  std::string names;
  for (const auto &[name, range] : program.rangeConstraints)
    names += (names.empty() ? "" : ", ") + name + " in " + rangeText(range);
  return names;
}
} // namespace

std::string tcc::parseShapeSpecializations(const std::vector<std::string> &flags,
                                           const frontend::ExportedProgram &program,
                                           std::vector<ShapeSpecialization> &variants) {
  // Each dim with its values, in the order given.
  std::vector<std::pair<std::string, std::vector<int64_t>>> dims;
  for (const std::string &flag : flags)
    for (llvm::StringRef item : llvm::split(llvm::StringRef(flag), ';')) {
      item = item.trim();
      if (item.empty())
        continue;
      auto [name, list] = item.split('=');
      name = name.trim();
      if (name.empty() || list.trim().empty() || !item.contains('='))
        return "--specialize: expected NAME=V[,V...], got '" + item.str() + "'";
      if (program.rangeConstraints.empty())
        return "--specialize: the model has no symbolic dimensions (every input size is "
               "static), so there is nothing to specialize";
      auto range = program.rangeConstraints.find(name.str());
      if (range == program.rangeConstraints.end())
        return "--specialize: the model has no symbolic dimension named '" + name.str() +
               "' (its symbols: " + knownSymbols(program) + "; `tcc inspect` lists them)";
      for (const auto &dim : dims)
        if (dim.first == name)
          return "--specialize: dimension '" + name.str() + "' is given twice";
      std::vector<int64_t> values;
      for (llvm::StringRef v : llvm::split(list, ',')) {
        v = v.trim();
        int64_t value = 0;
        if (v.getAsInteger(10, value))
          return "--specialize: '" + v.str() + "' is not an integer (in '" + item.str() + "')";
        if (value < range->second.min || value > range->second.max)
          return "--specialize: " + name.str() + "=" + std::to_string(value) +
                 " is outside the range of " + name.str() + ", " + rangeText(range->second);
        if (llvm::is_contained(values, value))
          return "--specialize: " + name.str() + "=" + std::to_string(value) + " is given twice";
        values.push_back(value);
      }
      dims.push_back({name.str(), std::move(values)});
    }
  // The cartesian product, the first dim varying slowest.
  size_t count = dims.empty() ? 0 : 1;
  for (const auto &dim : dims) {
    count *= dim.second.size();
    if (count > kMaxSpecializations)
      return "--specialize: more than " + std::to_string(kMaxSpecializations) +
             " variants (each is a whole compile); give fewer values";
  }
  for (size_t k = 0; k < count; ++k) {
    ShapeSpecialization s;
    size_t rest = k;
    for (size_t d = dims.size(); d-- > 0;) {
      const auto &[name, values] = dims[d];
      s.values[name] = values[rest % values.size()];
      rest /= values.size();
    }
    for (const auto &[name, values] : dims)
      s.name += (s.name.empty() ? "" : ",") + name + "=" + std::to_string(s.values.at(name));
    variants.push_back(std::move(s));
  }
  return "";
}
