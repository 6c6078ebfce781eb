//===- GuardManifest.cpp - what a compiled model assumes about its inputs -===//
//
// Parsing validates everything the runtime later relies on (indices, ranks,
// weight ranges), so a call never reaches undefined behaviour because of a
// bad manifest. Guard messages are part of the user interface and tested word
// for word (test/unit/GuardManifestTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/GuardManifest.h"
#include "tcc/Support/SizeChecks.h"
#include "tcc/Support/InputGuard.h"

#include "tcc/Support/EntrySymbols.h"

#include "tcc/Runtime/RuntimeError.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

using nlohmann::json;

namespace tcc {

namespace {

[[noreturn]] void invalidManifest(const std::string &why) {
  throw RuntimeError(TCC_ERROR_INVALID_MANIFEST, "invalid guard manifest: " + why);
}

[[noreturn]] void guardViolation(const std::string &message) {
  throw RuntimeError(TCC_ERROR_GUARD_VIOLATION, message);
}

const char *deviceName(int32_t device) {
  switch (device) {
  case TCC_DEVICE_CPU: return "cpu";
  case TCC_DEVICE_CUDA: return "cuda";
  default: return nullptr;
  }
}

std::string dtypeText(int32_t code) {
  if (code >= 0 && code <= static_cast<int32_t>(kLastDType))
    return dtypeName(static_cast<DType>(code));
  return "dtype code " + std::to_string(code);
}

const json &member(const json &object, const char *key, const std::string &where) {
  auto it = object.find(key);
  if (it == object.end())
    invalidManifest(where + " lacks '" + key + "'");
  return *it;
}

std::string stringMember(const json &object, const char *key, const std::string &where) {
  const json &v = member(object, key, where);
  if (!v.is_string())
    invalidManifest(where + "." + key + " is not a string");
  return v.get<std::string>();
}

int64_t intMember(const json &object, const char *key, const std::string &where) {
  const json &v = member(object, key, where);
  if (!v.is_number_integer())
    invalidManifest(where + "." + key + " is not an integer");
  return v.get<int64_t>();
}

const json &arrayMember(const json &object, const char *key, const std::string &where) {
  const json &v = member(object, key, where);
  if (!v.is_array())
    invalidManifest(where + "." + key + " is not an array");
  return v;
}

void parseTensor(const json &j, const std::string &where, TensorSpec &spec) {
  if (!j.is_object())
    invalidManifest(where + " is not an object");
  spec.name = stringMember(j, "name", where);
  std::string dtype = stringMember(j, "dtype", where);
  std::optional<DType> parsed = parseDType(dtype);
  if (!parsed)
    invalidManifest(where + " has unknown dtype '" + dtype + "'");
  spec.dtype = *parsed;
  if (j.contains("device")) {
    std::string device = stringMember(j, "device", where);
    if (device == "cpu")
      spec.device = TCC_DEVICE_CPU;
    else if (device == "cuda")
      spec.device = TCC_DEVICE_CUDA;
    else
      invalidManifest(where + " has unknown device '" + device + "'");
  }
  for (const json &size : arrayMember(j, "sizes", where)) {
    if (size.is_number_integer()) {
      if (size.get<int64_t>() < 0)
        invalidManifest(where + " has a negative size");
      spec.sizes.push_back(SymbolicExpr::constant(size.get<int64_t>()));
    } else if (size.is_string()) {
      try {
        spec.sizes.push_back(SymbolicExpr::parse(size.get<std::string>()));
      } catch (const SymbolicExprError &e) {
        invalidManifest(where + ": " + e.what());
      }
    } else {
      invalidManifest(where + " has a size that is neither integer nor string");
    }
  }
}

/// A weight or state: a tensor of static sizes with a `bytes` size that
/// matches them and, where `inImage`, an `offset` into the weights image
/// (a derived weight has none). Returns the sizes.
std::vector<int64_t> parseStoredTensor(const json &j, const std::string &where,
                                       const char *defaultKind, bool inImage, WeightSpec &w) {
  parseTensor(j, where, w);
  w.kind = j.value("kind", std::string(defaultKind));
  int64_t offset = inImage ? intMember(j, "offset", where) : 0;
  int64_t bytes = intMember(j, "bytes", where);
  if (offset < 0 || bytes < 0)
    invalidManifest(where + " has a negative offset or byte size");
  w.offset = static_cast<uint64_t>(offset);
  w.bytes = static_cast<uint64_t>(bytes);
  if (j.contains("embedded") && !j["embedded"].is_boolean())
    invalidManifest(where + ".embedded is not a boolean");
  w.embedded = j.value("embedded", inImage);
  std::vector<int64_t> sizes;
  uint64_t elements = 1;
  for (const SymbolicExpr &size : w.sizes) {
    std::optional<int64_t> c = size.asConstant();
    if (!c)
      invalidManifest(where + " ('" + w.name + "') has a symbolic size");
    sizes.push_back(*c);
    elements *= static_cast<uint64_t>(*c);
  }
  if (elements * dtypeSize(w.dtype) != w.bytes)
    invalidManifest(where + " ('" + w.name + "'): " + std::to_string(w.bytes) +
                    " bytes do not match " + dtypeName(w.dtype) + " " + w.shapeText());
  return sizes;
}

/// "s77 in [1, 1024]" for a bare symbol, the expression text otherwise.
std::string expectedText(const SymbolicExpr &expr, const GuardManifest &manifest) {
  if (std::optional<std::string> sym = expr.asSymbol())
    if (const SymbolRange *range = manifest.findSymbol(*sym))
      return *sym + " in [" + std::to_string(range->min) + ", " +
             std::to_string(range->max) + "]";
  return expr.text();
}

std::string inputPrefix(const TensorSpec &spec, size_t index) {
  return "input '" + spec.name + "' (#" + std::to_string(index) + ")";
}

} // namespace

std::string TensorSpec::shapeText() const {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    text += (i ? ", " : "") + sizes[i].text();
  return text + "]";
}

const SymbolRange *GuardManifest::findSymbol(std::string_view name) const {
  for (const SymbolRange &s : symbols)
    if (s.name == name)
      return &s;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {
GuardManifest parseManifest(std::string_view text);
} // namespace

GuardManifest GuardManifest::parse(std::string_view text) {
  // Accessors such as json::value throw on a member of the wrong type.
  try {
    return parseManifest(text);
  } catch (const json::exception &e) {
    invalidManifest(e.what());
  }
}

namespace {
/// "specializations": the generic variant first, then the static ones
/// (docs/ARTIFACT.md). Each names only symbols the manifest has, within
/// their ranges; its entry and arena default to the top-level ones, so a
/// manifest from before `--specialize` reads as one generic variant.
void parseSpecializations(const json &j, GuardManifest &m) {
  json list = j.contains("specializations") ? arrayMember(j, "specializations", "manifest")
                                            : json::array({{{"name", kGenericSpecializationName}}});
  if (list.empty())
    invalidManifest("'specializations' is empty (it lists at least the generic variant)");
  for (size_t i = 0; i < list.size(); ++i) {
    const json &s = list[i];
    std::string where = "specializations[" + std::to_string(i) + "]";
    Specialization spec;
    spec.name = stringMember(s, "name", where);
    if ((i == 0) != (spec.name == kGenericSpecializationName))
      invalidManifest(where + " ('" + spec.name + "'): the generic variant comes first, once");
    if (s.contains("symbols")) {
      if (!s["symbols"].is_object())
        invalidManifest(where + ".symbols is not an object");
      for (const auto &[name, range] : s["symbols"].items()) {
        const SymbolRange *sym = m.findSymbol(name);
        if (!range.is_array() || range.size() != 2 || !range[0].is_number_integer() ||
            !range[1].is_number_integer())
          invalidManifest(where + ".symbols." + name + " is not [min, max]");
        int64_t lo = range[0].get<int64_t>(), hi = range[1].get<int64_t>();
        if (!sym || lo > hi || lo < sym->min || hi > sym->max)
          invalidManifest(where + ".symbols." + name + ": [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "] is no range of a symbol of the manifest");
        if (i == 0 && (lo != sym->min || hi != sym->max))
          invalidManifest(where + ": the generic variant covers only part of " + name + "'s range");
        spec.symbols.push_back({name, {lo, hi}});
      }
    }
    const json noEntry = json::object();
    const json &entry = s.contains("entry") ? s["entry"] : noEntry;
    spec.entrySymbol = entry.value("symbol", i == 0 ? m.entrySymbol : entrySymbol(i, false));
    spec.cudaSymbol = entry.value("cuda_symbol", std::string());
    spec.arenaBytes = s.contains("arena") ? intMember(s["arena"], "bytes", where + ".arena")
                                          : m.arena.bytes;
    if (spec.arenaBytes < 0)
      invalidManifest(where + ".arena.bytes is negative");
    m.specializations.push_back(std::move(spec));
  }
}

GuardManifest parseManifest(std::string_view text) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception &e) {
    invalidManifest(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object())
    invalidManifest("not a JSON object");
  if (j.value("format", std::string()) != "tcc-guard-manifest")
    invalidManifest("'format' is not \"tcc-guard-manifest\"");
  if (intMember(j, "version", "manifest") != 1)
    invalidManifest("unsupported version " + j["version"].dump() + " (this runtime reads 1)");

  GuardManifest m;
  try {
    m.model = j.value("model", std::string());
    m.source = j.value("source", std::string());
    m.precision = j.value("precision", std::string());
    if (j.contains("targets"))
      m.targets = j["targets"].get<std::vector<std::string>>();
    if (j.contains("checks"))
      m.checks = j["checks"].get<std::vector<std::string>>();
    if (j.contains("kernels"))
      for (const json &k : j["kernels"]) {
        KernelInfo info{k.value("kind", std::string()), k.value("detail", std::string()),
                        k.value("sources", std::vector<std::string>()),
                        k.value("lines", std::vector<std::string>())};
        // The roofline's numbers: non-negative integers when present.
        for (auto [key, field] : {std::pair{"flops", &info.flops}, std::pair{"bytes", &info.bytes}})
          if (k.contains(key)) {
            int64_t v = intMember(k, key, "kernel");
            if (v < 0)
              invalidManifest(std::string("kernel.") + key + " is negative");
            *field = v;
          }
        m.kernels.push_back(std::move(info));
      }
  } catch (const json::exception &e) {
    invalidManifest(e.what());
  }

  if (j.contains("symbols")) {
    if (!j["symbols"].is_object())
      invalidManifest("'symbols' is not an object");
    for (const auto &[name, range] : j["symbols"].items()) {
      std::string where = "symbol '" + name + "'";
      SymbolRange s;
      s.name = name;
      if (range.contains("min") && !range["min"].is_null())
        s.min = intMember(range, "min", where);
      if (range.contains("max") && !range["max"].is_null())
        s.max = intMember(range, "max", where);
      if (range.contains("hint") && range["hint"].is_number_integer())
        s.hint = range["hint"].get<int64_t>();
      if (s.min > s.max)
        invalidManifest(where + " has min > max");
      m.symbols.push_back(std::move(s));
    }
  }

  if (j.contains("size_checks")) {
    const json &checks = arrayMember(j, "size_checks", "manifest");
    for (size_t i = 0; i < checks.size(); ++i) {
      std::string where = "size_checks[" + std::to_string(i) + "]";
      const json &c = checks[i];
      if (!c.is_object())
        invalidManifest(where + " is not an object");
      SizeCheck check;
      check.op = stringMember(c, "operator", where);
      check.where = stringMember(c, "where", where);
      check.dim = intMember(c, "dim", where);
      try {
        check.size = SymbolicExpr::parse(stringMember(c, "size", where));
        check.input = SymbolicExpr::parse(stringMember(c, "input", where));
      } catch (const SymbolicExprError &e) {
        invalidManifest(where + ": " + e.what());
      }
      check.kernel = intMember(c, "kernel", where);
      check.stride = intMember(c, "stride", where);
      check.padding = intMember(c, "padding", where);
      check.dilation = intMember(c, "dilation", where);
      const json &ceil = member(c, "ceil_mode", where);
      if (!ceil.is_boolean())
        invalidManifest(where + ".ceil_mode is not a boolean");
      check.ceilMode = ceil.get<bool>();
      if (check.kernel < 1 || check.stride < 1 || check.padding < 0 || check.dilation < 1 ||
          check.kernel > (int64_t(1) << 30) || check.stride > (int64_t(1) << 30) ||
          check.padding > (int64_t(1) << 30) || check.dilation > (int64_t(1) << 30))
        invalidManifest(where + ": a window of kernel " + std::to_string(check.kernel) +
                        ", stride " + std::to_string(check.stride) + ", padding " +
                        std::to_string(check.padding) + ", dilation " +
                        std::to_string(check.dilation) + " is out of range");
      for (const SymbolicExpr *e : {&check.size, &check.input})
        for (const std::string &name : e->symbols())
          if (!m.findSymbol(name))
            invalidManifest(where + " names the unknown symbol '" + name + "'");
      m.sizeChecks.push_back(std::move(check));
    }
  }

  const json &inputs = arrayMember(j, "inputs", "manifest");
  for (size_t i = 0; i < inputs.size(); ++i) {
    TensorSpec spec;
    std::string where = "inputs[" + std::to_string(i) + "]";
    parseTensor(inputs[i], where, spec);
    if (inputs[i].contains("written")) {
      if (!inputs[i]["written"].is_boolean())
        invalidManifest(where + ".written is not a boolean");
      spec.written = inputs[i]["written"].get<bool>();
    }
    m.inputs.push_back(std::move(spec));
  }
  const json &outputs = arrayMember(j, "outputs", "manifest");
  for (size_t i = 0; i < outputs.size(); ++i) {
    TensorSpec spec;
    parseTensor(outputs[i], "outputs[" + std::to_string(i) + "]", spec);
    m.outputs.push_back(std::move(spec));
  }
  if (j.contains("input_guards")) {
    std::vector<GuardInput> guardInputs;
    for (const TensorSpec &in : m.inputs)
      guardInputs.push_back({in.name, in.sizes.size()});
    const json &guards = arrayMember(j, "input_guards", "manifest");
    for (size_t i = 0; i < guards.size(); ++i) {
      std::string where = "input_guards[" + std::to_string(i) + "]";
      const json &g = guards[i];
      if (!g.is_object())
        invalidManifest(where + " is not an object");
      std::string text = stringMember(g, "text", where);
      const json &enforced = member(g, "enforced", where);
      if (!enforced.is_boolean())
        invalidManifest(where + ".enforced is not a boolean");
      if (!enforced.get<bool>()) {
        m.unenforcedGuards.push_back({text, g.value("reason", std::string())});
        continue;
      }
      // The compiler parsed it against these inputs; failing now means the
      // manifest was altered, and dropping the guard would be silent.
      try {
        m.inputGuards.push_back(InputGuard::parse(text, guardInputs));
      } catch (const InputGuardError &e) {
        invalidManifest(where + ": " + e.what());
      }
    }
  }
  if (j.contains("value_checks")) {
    const json &checks = arrayMember(j, "value_checks", "manifest");
    for (size_t i = 0; i < checks.size(); ++i) {
      if (!checks[i].is_string())
        invalidManifest("value_checks[" + std::to_string(i) + "] is not a string");
      m.valueChecks.push_back(checks[i].get<std::string>());
    }
  }
  if (j.contains("weights")) {
    const json &weights = arrayMember(j, "weights", "manifest");
    for (size_t i = 0; i < weights.size(); ++i) {
      std::string where = "weights[" + std::to_string(i) + "]";
      WeightSpec w;
      bool derived = weights[i].contains("derived");
      m.weightSizes.push_back(parseStoredTensor(weights[i], where, "parameter", !derived, w));
      w.hostOnly = weights[i].value("host_only", false);
      if (derived && (w.embedded || w.hostOnly))
        invalidManifest(where + " ('" + w.name + "') is derived, so neither embedded nor host-only");
      m.weights.push_back(std::move(w));
    }
    // Programs name their sources, which may come later in the list.
    for (size_t i = 0; i < weights.size(); ++i) {
      if (!weights[i].contains("derived"))
        continue;
      WeightSpec &w = m.weights[i];
      const json &program = weights[i]["derived"];
      if (!program.is_array() ||
          !std::all_of(program.begin(), program.end(), [](const json &t) { return t.is_string(); }))
        invalidManifest("weights[" + std::to_string(i) + "].derived is not an array of strings");
      auto lookup = [&](std::string_view name) -> std::optional<DerivedProgram::Source> {
        for (size_t k = 0; k < m.weights.size(); ++k)
          if (m.weights[k].name == name)
            return DerivedProgram::Source{k, m.weights[k].dtype, m.weightSizes[k],
                                          weights[k].contains("derived")};
        return std::nullopt;
      };
      w.program = program.get<std::vector<std::string>>();
      w.derived = std::make_shared<const DerivedProgram>(
          DerivedProgram::parse(w.name, w.dtype, m.weightSizes[i], w.program, lookup));
    }
  }

  if (j.contains("weights_file")) {
    const json &w = j["weights_file"];
    if (!w.is_object())
      invalidManifest("'weights_file' is not an object");
    int64_t bytes = intMember(w, "bytes", "weights_file");
    std::string hash = stringMember(w, "sha256", "weights_file");
    if (bytes < 0 || hash.size() != 64 ||
        hash.find_first_not_of("0123456789abcdef") != std::string::npos)
      invalidManifest("'weights_file' needs bytes >= 0 and a sha256 of 64 hex digits");
    m.weightsImageBytes = static_cast<uint64_t>(bytes);
    m.weightsImageSha256 = hash;
  }

  // States: stored like weights (an initial value in the image), never
  // derived, and written by every call.
  if (j.contains("states")) {
    const json &states = arrayMember(j, "states", "manifest");
    for (size_t i = 0; i < states.size(); ++i) {
      WeightSpec st;
      m.stateSizes.push_back(
          parseStoredTensor(states[i], "states[" + std::to_string(i) + "]", "buffer", true, st));
      m.states.push_back(std::move(st));
    }
  }

  if (j.contains("arena")) {
    const json &arena = j["arena"];
    m.arena.bytes = intMember(arena, "bytes", "arena");
    if (m.arena.bytes < 0)
      invalidManifest("arena.bytes is negative");
    if (arena.contains("planned_at") && arena["planned_at"].is_object())
      for (const auto &[name, value] : arena["planned_at"].items())
        if (value.is_number_integer())
          m.arena.plannedAt[name] = value.get<int64_t>();
    if (arena.contains("buffers"))
      for (const json &b : arrayMember(arena, "buffers", "arena")) {
        ArenaBuffer buffer;
        buffer.offset = intMember(b, "offset", "arena buffer");
        buffer.bytes = intMember(b, "bytes", "arena buffer");
        buffer.first = b.contains("first") ? intMember(b, "first", "arena buffer") : 0;
        buffer.last = b.contains("last") ? intMember(b, "last", "arena buffer") : 0;
        if (buffer.offset < 0 || buffer.bytes < 0 || buffer.bytes > m.arena.bytes ||
            buffer.offset > m.arena.bytes - buffer.bytes)
          invalidManifest("arena buffer at offset " + std::to_string(buffer.offset) +
                          " lies outside the arena");
        // Steps of the program, in order: at most one per op of the entry.
        constexpr int64_t kMaxSteps = 1 << 24;
        if (buffer.first < 0 || buffer.last < buffer.first || buffer.last > kMaxSteps)
          invalidManifest("arena buffer at offset " + std::to_string(buffer.offset) +
                          " is live from step " + std::to_string(buffer.first) + " to " +
                          std::to_string(buffer.last));
        m.arena.buffers.push_back(buffer);
      }
  }

  if (j.contains("entry")) {
    const json &entry = j["entry"];
    m.entrySymbol = entry.value("symbol", m.entrySymbol);
    for (const json &arg : arrayMember(entry, "args", "entry")) {
      std::string role = stringMember(arg, "role", "entry argument");
      EntryArg a;
      if (role == "input")
        a.role = EntryArgRole::Input;
      else if (role == "weight")
        a.role = EntryArgRole::Weight;
      else if (role == "state")
        a.role = EntryArgRole::State;
      else if (role == "output")
        a.role = EntryArgRole::Output;
      else if (role == "arena")
        a.role = EntryArgRole::Arena;
      else
        invalidManifest("entry argument has unknown role '" + role + "'");
      a.index = static_cast<int32_t>(intMember(arg, "index", "entry argument"));
      a.rank = static_cast<int32_t>(intMember(arg, "rank", "entry argument"));
      m.entryArgs.push_back(a);
    }
  } else {
    // No explicit entry: the documented order, inputs, weights, outputs, arena.
    for (size_t i = 0; i < m.inputs.size(); ++i)
      m.entryArgs.push_back(
          {EntryArgRole::Input, int32_t(i), entryRank(m.inputs[i].dtype, m.inputs[i].rank())});
    for (size_t i = 0; i < m.weights.size(); ++i)
      m.entryArgs.push_back({EntryArgRole::Weight, int32_t(i), m.weights[i].rank()});
    for (size_t i = 0; i < m.states.size(); ++i)
      m.entryArgs.push_back({EntryArgRole::State, int32_t(i), m.states[i].rank()});
    for (size_t i = 0; i < m.outputs.size(); ++i)
      m.entryArgs.push_back(
          {EntryArgRole::Output, int32_t(i), entryRank(m.outputs[i].dtype, m.outputs[i].rank())});
    m.entryArgs.push_back({EntryArgRole::Arena, 0, 1});
  }
  for (const EntryArg &a : m.entryArgs) {
    const char *what = "arena";
    size_t count = 1;
    const TensorSpec *spec = nullptr;
    switch (a.role) {
    case EntryArgRole::Input:
      what = "input", count = m.inputs.size();
      if (a.index >= 0 && size_t(a.index) < count)
        spec = &m.inputs[a.index];
      break;
    case EntryArgRole::Weight:
      what = "weight", count = m.weights.size();
      if (a.index >= 0 && size_t(a.index) < count)
        spec = &m.weights[a.index];
      break;
    case EntryArgRole::State:
      what = "state", count = m.states.size();
      if (a.index >= 0 && size_t(a.index) < count)
        spec = &m.states[a.index];
      break;
    case EntryArgRole::Output:
      what = "output", count = m.outputs.size();
      if (a.index >= 0 && size_t(a.index) < count)
        spec = &m.outputs[a.index];
      break;
    case EntryArgRole::Arena:
      break;
    }
    std::string arg = std::string("entry argument ") + what + " #" + std::to_string(a.index);
    if (a.index < 0 || size_t(a.index) >= count)
      invalidManifest(arg + " does not exist");
    int32_t rank = spec ? entryRank(spec->dtype, spec->rank()) : 1;
    if (a.rank != rank)
      invalidManifest(arg + " has rank " + std::to_string(a.rank) + ", expected " +
                      std::to_string(rank));
  }

  // Every symbol in any size must have a range (or be bindable).
  std::set<std::string> bindable;
  for (const TensorSpec &in : m.inputs)
    for (const SymbolicExpr &size : in.sizes)
      if (std::optional<std::string> sym = size.asSymbol())
        bindable.insert(*sym);
  auto checkSymbols = [&](const TensorSpec &spec, const char *what) {
    for (const SymbolicExpr &size : spec.sizes)
      for (const std::string &sym : size.symbols())
        if (!bindable.count(sym))
          invalidManifest(std::string(what) + " '" + spec.name + "' uses symbol '" + sym +
                          "', which no input dimension binds");
  };
  for (const TensorSpec &in : m.inputs)
    checkSymbols(in, "input");
  for (const TensorSpec &out : m.outputs)
    checkSymbols(out, "output");
  for (const std::string &sym : bindable)
    if (!m.findSymbol(sym))
      m.symbols.push_back({sym, 0, INT64_MAX, std::nullopt});

  parseSpecializations(j, m);

  if (j.contains("cuda_graphs")) {
    if (!j["cuda_graphs"].is_boolean())
      invalidManifest("'cuda_graphs' is not a boolean");
    m.cudaGraphs = j["cuda_graphs"].get<bool>();
  }
  if (j.contains("profile")) {
    if (!j["profile"].is_boolean())
      invalidManifest("'profile' is not a boolean");
    m.profile = j["profile"].get<bool>();
  }
  if (j.contains("cpu_isa")) {
    if (!j["cpu_isa"].is_string())
      invalidManifest("'cpu_isa' is not a string");
    m.cpuIsa = j["cpu_isa"].get<std::string>();
    if (m.cpuIsa != "x86-64" && m.cpuIsa != "x86-64-v2" && m.cpuIsa != "x86-64-v3" &&
        m.cpuIsa != "x86-64-v4")
      invalidManifest("'cpu_isa' is '" + m.cpuIsa +
                      "', not one of x86-64, x86-64-v2, x86-64-v3, x86-64-v4");
  }

  // What the per-call checks need, computed once.
  auto hasTarget = [&](const char *t) {
    return std::find(m.targets.begin(), m.targets.end(), t) != m.targets.end();
  };
  m.anyDevice = hasTarget("cpu") && hasTarget("cuda");
  auto isStatic = [](const TensorSpec &spec) {
    return std::all_of(spec.sizes.begin(), spec.sizes.end(),
                       [](const SymbolicExpr &e) { return e.asConstant().has_value(); });
  };
  // A guard is checked by bindInputs, which the static fast path skips.
  m.allStatic = std::all_of(m.inputs.begin(), m.inputs.end(), isStatic) &&
                std::all_of(m.outputs.begin(), m.outputs.end(), isStatic) &&
                m.inputGuards.empty();
  if (m.allStatic) {
    for (const TensorSpec &in : m.inputs) {
      std::vector<int64_t> sizes;
      for (const SymbolicExpr &e : in.sizes)
        sizes.push_back(*e.asConstant());
      m.staticInputSizes.push_back(std::move(sizes));
    }
    m.staticOutputSizes = m.outputSizes({});
  }
  return m;
}
} // namespace

//===----------------------------------------------------------------------===//
// Specializations
//===----------------------------------------------------------------------===//

size_t Specialization::pinnedSymbols() const {
  return static_cast<size_t>(std::count_if(symbols.begin(), symbols.end(), [](const auto &s) {
    return s.second.first == s.second.second;
  }));
}

bool Specialization::covers(const SymbolBindings &values) const {
  for (const auto &[name, range] : symbols) {
    auto it = values.find(name);
    if (it == values.end() || it->second < range.first || it->second > range.second)
      return false;
  }
  return true;
}

std::string Specialization::guardText() const {
  std::string text;
  for (const auto &[name, range] : symbols)
    if (range.first == range.second)
      text += (text.empty() ? "" : " && ") + name + " == " + std::to_string(range.first);
  return text.empty() ? "any" : text;
}

size_t GuardManifest::selectSpecialization(const SymbolBindings &values) const {
  size_t best = 0, bestPinned = specializations.empty() ? 0 : specializations[0].pinnedSymbols();
  for (size_t i = 1; i < specializations.size(); ++i) {
    size_t pinned = specializations[i].pinnedSymbols();
    if (pinned > bestPinned && specializations[i].covers(values)) {
      best = i;
      bestPinned = pinned;
    }
  }
  return best;
}

int64_t GuardManifest::maxArenaBytes() const {
  int64_t bytes = arena.bytes;
  for (const Specialization &s : specializations)
    bytes = std::max(bytes, s.arenaBytes);
  return bytes;
}

//===----------------------------------------------------------------------===//
// Guards
//===----------------------------------------------------------------------===//

bool GuardManifest::matchesStatic(const tcc_tensor *tensors, size_t count) const {
  if (!allStatic || count != inputs.size() || (count && !tensors))
    return false;
  for (size_t i = 0; i < count; ++i) {
    const TensorSpec &spec = inputs[i];
    const tcc_tensor &t = tensors[i];
    if (t.dtype != static_cast<int32_t>(spec.dtype) || t.rank != spec.rank() ||
        (t.rank > 0 && !t.sizes))
      return false;
    bool deviceOk = anyDevice ? (t.device == TCC_DEVICE_CPU || t.device == TCC_DEVICE_CUDA)
                              : t.device == spec.device;
    if (!deviceOk)
      return false;
    for (size_t d = 0; d < spec.sizes.size(); ++d)
      if (t.sizes[d] != staticInputSizes[i][d])
        return false;
  }
  return true;
}

SymbolBindings GuardManifest::bindInputs(const tcc_tensor *tensors, size_t count) const {
  if (matchesStatic(tensors, count))
    return {};
  if (count != inputs.size())
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT,
                       "expected " + std::to_string(inputs.size()) + " input(s), got " +
                           std::to_string(count));
  if (count && !tensors)
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "inputs is NULL");

  SymbolBindings bound;
  struct Deferred {
    size_t input, dim;
  };
  std::vector<Deferred> deferred;

  auto checkDim = [&](size_t i, size_t d) {
    const SymbolicExpr &expr = inputs[i].sizes[d];
    int64_t actual = tensors[i].sizes[d];
    int64_t expected;
    try {
      expected = expr.evaluate(bound);
    } catch (const SymbolicExprError &e) {
      guardViolation(inputPrefix(inputs[i], i) + " dimension " + std::to_string(d) + ": " +
                     e.what());
    }
    if (actual == expected)
      return;
    std::string prefix = inputPrefix(inputs[i], i) + " dimension " + std::to_string(d);
    if (expr.asConstant())
      guardViolation(prefix + ": expected " + std::to_string(expected) + ", got " +
                     std::to_string(actual));
    guardViolation(prefix + ": expected " + expr.text() + " (= " + std::to_string(expected) +
                   "), got " + std::to_string(actual));
  };

  for (size_t i = 0; i < count; ++i) {
    const TensorSpec &spec = inputs[i];
    const tcc_tensor &t = tensors[i];
    if (t.dtype != static_cast<int32_t>(spec.dtype))
      guardViolation(inputPrefix(spec, i) + ": expected dtype " + dtypeName(spec.dtype) + ", got " +
                     dtypeText(t.dtype));
    // A model with both paths takes either device (all inputs on one, which
    // Model::run checks); otherwise the manifest's device.
    bool eitherDevice =
        anyDevice && (t.device == TCC_DEVICE_CPU || t.device == TCC_DEVICE_CUDA);
    if (!eitherDevice && t.device != spec.device) {
      const char *actual = deviceName(t.device);
      guardViolation(inputPrefix(spec, i) + ": expected device " + deviceName(spec.device) + ", got " +
                     (actual ? actual : "device code " + std::to_string(t.device)));
    }
    if (t.rank != spec.rank())
      guardViolation(inputPrefix(spec, i) + ": expected rank " + std::to_string(spec.rank()) + ", got " +
                     std::to_string(t.rank));
    if (t.rank > 0 && !t.sizes)
      throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, inputPrefix(spec, i) + ": sizes is NULL");
    for (size_t d = 0; d < spec.sizes.size(); ++d) {
      const SymbolicExpr &expr = spec.sizes[d];
      int64_t actual = t.sizes[d];
      std::optional<std::string> sym = expr.asSymbol();
      if (sym && !bound.count(*sym)) {
        const SymbolRange *range = findSymbol(*sym);
        if (actual < range->min || actual > range->max)
          guardViolation(inputPrefix(spec, i) + " dimension " + std::to_string(d) + ": expected " +
                         expectedText(expr, *this) + ", got " + std::to_string(actual));
        bound[*sym] = actual;
        continue;
      }
      bool ready = true;
      for (const std::string &s : expr.symbols())
        ready &= bound.count(s) != 0;
      if (ready)
        checkDim(i, d);
      else
        deferred.push_back({i, d});
    }
  }
  for (const Deferred &d : deferred)
    checkDim(d.input, d.dim);
  checkInputGuards(tensors);
  checkSizes(bound);
  return bound;
}

namespace {
/// The sizes of one call's inputs, as InputGuard reads them.
class TensorSizes : public GuardInputSizes {
public:
  explicit TensorSizes(const tcc_tensor *tensors) : tensors_(tensors) {}
  int64_t size(size_t input, size_t dim) const override { return tensors_[input].sizes[dim]; }

private:
  const tcc_tensor *tensors_;
};
} // namespace

void GuardManifest::checkInputGuards(const tcc_tensor *tensors) const {
  TensorSizes sizes(tensors);
  for (const InputGuard &guard : inputGuards) {
    std::string failure;
    try {
      if (guard.holds(sizes))
        continue;
    } catch (const InputGuardError &e) {
      failure = std::string(" (") + e.what() + ")";
    }
    // Name the first input it reads and every size it read.
    size_t first = guard.dims().empty() ? 0 : guard.dims().front().input;
    bool oneInput = std::all_of(guard.dims().begin(), guard.dims().end(),
                                [&](const GuardDimRef &r) { return r.input == first; });
    std::string got;
    for (const GuardDimRef &r : guard.dims()) {
      got += got.empty() ? "; got " : ", ";
      if (!oneInput)
        got += "L['" + inputs[r.input].name + "'].";
      got += "size()[" + std::to_string(r.dim) + "] = " + std::to_string(sizes.size(r.input, r.dim));
    }
    std::string subject = guard.dims().empty() || inputs.empty()
                              ? std::string("the inputs")
                              : inputPrefix(inputs[first], first);
    guardViolation(subject + ": the export holds only where " + guard.text() + failure + got);
  }
}

void GuardManifest::checkSizes(const SymbolBindings &symbols) const {
  for (const SizeCheck &c : sizeChecks) {
    int64_t expected, in;
    try {
      expected = c.size.evaluate(symbols);
      in = c.input.evaluate(symbols);
    } catch (const SymbolicExprError &e) {
      guardViolation("operator " + c.op + (c.where.empty() ? "" : " at " + c.where) + ": " +
                     e.what());
    }
    int64_t windows =
        slidingWindowCount(in, c.kernel, c.padding, c.stride, c.dilation, c.ceilMode);
    if (windows == expected)
      continue;
    guardViolation("operator " + c.op + (c.where.empty() ? "" : " at " + c.where) +
                   ": result dimension " + std::to_string(c.dim) + " has " +
                   std::to_string(windows) + " windows over an input of size " +
                   std::to_string(in) + " (" + c.input.text() + "), but the export sized it " +
                   c.size.text() + " = " + std::to_string(expected) +
                   "; these input sizes break a guard torch.export recorded for this operator "
                   "(its result size expression holds only where they hold)");
  }
}

std::vector<std::vector<int64_t>>
GuardManifest::outputSizes(const SymbolBindings &symbols) const {
  std::vector<std::vector<int64_t>> result;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::vector<int64_t> sizes;
    for (const SymbolicExpr &expr : outputs[i].sizes) {
      int64_t v;
      try {
        v = expr.evaluate(symbols);
      } catch (const SymbolicExprError &e) {
        throw RuntimeError(TCC_ERROR_INVALID_MANIFEST,
                           "output '" + outputs[i].name + "': " + e.what());
      }
      if (v < 0)
        throw RuntimeError(TCC_ERROR_GUARD_VIOLATION,
                           "output '" + outputs[i].name + "' (#" + std::to_string(i) +
                               "): size " + expr.text() + " evaluates to " +
                               std::to_string(v) + " for these inputs");
      sizes.push_back(v);
    }
    result.push_back(std::move(sizes));
  }
  return result;
}

} // namespace tcc

bool tcc::GuardManifest::hostSupportsCpuIsa(std::string_view isa) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (isa == "x86-64-v2")
    return __builtin_cpu_supports("x86-64-v2");
  if (isa == "x86-64-v3")
    return __builtin_cpu_supports("x86-64-v3");
  if (isa == "x86-64-v4")
    return __builtin_cpu_supports("x86-64-v4");
  return true; // x86-64 itself
#else
  return isa.empty();
#endif
}
