//===- ManifestBuilder.cpp - the guard manifest of a compiled model -------===//
#include "tcc/Target/ManifestBuilder.h"
#include "tcc/Support/InputGuard.h"

#include "tcc/Support/EntrySymbols.h"
#include "tcc/Support/Version.h"
#include "tcc/Support/WeightsFile.h"

#include <filesystem>

#include <algorithm>
#include <limits>
#include <set>

using nlohmann::json;
using namespace tcc;
using namespace tcc::frontend;

namespace {
constexpr int64_t kAlign = 64;

json sizesJson(const TensorMeta &meta) {
  json sizes = json::array();
  for (const SymDim &d : meta.sizes)
    sizes.push_back(d.isStatic() ? json(*d.value) : json(d.expr));
  return sizes;
}

const TensorData *findData(const ExportedProgram &p, const std::string &name) {
  if (auto it = p.weights.find(name); it != p.weights.end())
    return &it->second;
  if (auto it = p.constants.find(name); it != p.constants.end())
    return &it->second;
  return nullptr;
}

const char *kindName(InputKind k) {
  switch (k) {
  case InputKind::Parameter: return "parameter";
  case InputKind::Buffer: return "buffer";
  case InputKind::TensorConstant: return "constant";
  default: return "other";
  }
}

bool isBareSymbol(const std::string &e) {
  return !e.empty() && std::all_of(e.begin(), e.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }) && !std::isdigit(static_cast<unsigned char>(e[0]));
}
} // namespace

WeightLayout WeightLayout::build(const ExportedProgram &program,
                                 const ImportedSignature &signature, bool copyBytes) {
  WeightLayout layout;
  int64_t offset = 0;
  std::vector<InputSpec> specs(signature.weights);
  specs.insert(specs.end(), signature.states.begin(), signature.states.end());
  for (const InputSpec &spec : specs) {
    const TensorMeta &meta = program.tensorValues.at(spec.graphName);
    int64_t bytes = static_cast<int64_t>(dtypeSize(meta.dtype));
    for (const SymDim &d : meta.sizes)
      bytes *= d.value.value_or(0);
    Entry e{spec.target, offset, bytes, false};
    if (const TensorData *data = findData(program, spec.target)) {
      e.embedded = true;
      if (copyBytes) {
        layout.blob.resize(static_cast<size_t>(offset + bytes), 0);
        std::copy(data->bytes.begin(), data->bytes.end(), layout.blob.begin() + offset);
      }
    }
    layout.entries.push_back(e);
    offset = (offset + bytes + kAlign - 1) / kAlign * kAlign;
  }
  if (!layout.blob.empty())
    layout.blob.resize(static_cast<size_t>(offset), 0);
  return layout;
}

namespace {

/// `text` cut to InputGuard::kMaxTextLength bytes on a UTF-8 code point (the
/// manifest is JSON).
std::string guardText(const std::string &text) {
  size_t cut = std::min(text.size(), InputGuard::kMaxTextLength);
  while (cut < text.size() && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return text.substr(0, cut);
}

} // namespace

json tcc::inputGuardsJson(const ExportedProgram &program, const ImportedSignature &signature) {
  std::vector<GuardInput> inputs;
  for (const std::string &name : signature.inputs)
    inputs.push_back({name, program.tensorValues.at(name).sizes.size()});
  json guards = json::array();
  for (const std::string &text : program.guardsCode) {
    try {
      InputGuard::parse(text, inputs);
      guards.push_back({{"text", text}, {"enforced", true}});
    } catch (const InputGuardError &e) {
      // Many guards repeat the symbols' ranges, which are checked anyway:
      // compile, and say which ones the runtime does not check.
      guards.push_back({{"text", guardText(text)},
                        {"enforced", false},
                        {"reason", e.what()}});
    }
  }
  for (const ExportedProgram::RuntimeAssertion &check : program.runtimeAssertions)
    if (!check.evaluated)
      guards.push_back({{"text", guardText(check.text)},
                        {"enforced", false},
                        {"reason", "a check over an expression of input sizes and a value "
                                   "computed at run time (aten._assert_scalar), which tcc "
                                   "does not evaluate"}});
  return guards;
}

json tcc::buildManifest(const ExportedProgram &program, const ImportedSignature &signature,
                        const WeightLayout &weights, const PlannedArena &arena,
                        const ManifestInfo &info) {
  json m;
  m["format"] = "tcc-guard-manifest";
  m["version"] = 1;
  m["model"] = info.modelName;
  // The input's file name only: the same archive compiled through another
  // path must give the same bytes (CI caches key on them).
  m["source"] = std::filesystem::path(program.sourcePath).filename().string();
  m["compiler"] = versionLine();
  m["torch_version"] = program.torchVersion;
  m["targets"] = info.targets.names();

  // Symbols: range from range_constraints, hint from the first input that
  // carries the symbol as a bare dimension.
  json symbols = json::object();
  for (const auto &[name, range] : program.rangeConstraints) {
    json s;
    s["min"] = range.min;
    s["max"] = range.max;
    int64_t hint = 0;
    for (const std::string &in : signature.inputs)
      for (const SymDim &d : program.tensorValues.at(in).sizes)
        if (!d.isStatic() && d.expr == name && hint == 0)
          hint = d.hint;
    s["hint"] = hint;
    symbols[name] = s;
  }
  m["symbols"] = symbols;

  json checks = json::array();
  json inputs = json::array();
  for (const std::string &name : signature.inputs) {
    const TensorMeta &meta = program.tensorValues.at(name);
    inputs.push_back({{"name", name},
                      {"dtype", dtypeName(meta.dtype)},
                      {"device", "cpu"},
                      {"sizes", sizesJson(meta)}});
    checks.push_back(name + ": dtype == " + dtypeName(meta.dtype));
    checks.push_back(name + ": rank == " + std::to_string(meta.sizes.size()));
    for (size_t i = 0; i < meta.sizes.size(); ++i) {
      const SymDim &d = meta.sizes[i];
      std::string dim = name + ".size(" + std::to_string(i) + ") == ";
      if (d.isStatic()) {
        checks.push_back(dim + std::to_string(*d.value));
      } else if (auto it = program.rangeConstraints.find(d.expr);
                 isBareSymbol(d.expr) && it != program.rangeConstraints.end()) {
        std::string hi = it->second.max == std::numeric_limits<int64_t>::max()
                             ? "inf" : std::to_string(it->second.max);
        checks.push_back(dim + d.expr + ", " + std::to_string(it->second.min) + " <= " +
                         d.expr + " <= " + hi);
      } else {
        checks.push_back(dim + d.expr);
      }
    }
    checks.push_back(name + ": contiguous");
  }
  for (size_t i : signature.writtenInputs)
    inputs[i]["written"] = true;
  m["inputs"] = inputs;
  m["checks"] = checks;
  if (!info.sizeChecks.empty())
    m["size_checks"] = info.sizeChecks;
  bool unevaluated = false;
  json valueChecks = json::array();
  for (const ExportedProgram::RuntimeAssertion &check : program.runtimeAssertions) {
    unevaluated |= !check.evaluated;
    if (check.evaluated)
      valueChecks.push_back(guardText(check.text));
  }
  if (!program.guardsCode.empty() || unevaluated)
    m["input_guards"] = inputGuardsJson(program, signature);
  // The export's checks of .item() values, which the compiled code
  // evaluates on every call (a failed one fails the call).
  if (!valueChecks.empty())
    m["value_checks"] = valueChecks;

  json outputs = json::array();
  for (const std::string &name : signature.outputs) {
    const TensorMeta &meta = program.tensorValues.at(name);
    outputs.push_back({{"name", name}, {"dtype", dtypeName(meta.dtype)}, {"sizes", sizesJson(meta)}});
  }
  m["outputs"] = outputs;

  // A weight or state, with its place in the weights image.
  auto stored = [&](const InputSpec &spec, const WeightLayout::Entry &e) -> json {
    const TensorMeta &meta = program.tensorValues.at(spec.graphName);
    return {{"name", spec.target},
            {"kind", kindName(spec.kind)},
            {"dtype", dtypeName(meta.dtype)},
            {"sizes", sizesJson(meta)},
            {"offset", e.offset},
            {"bytes", e.bytes},
            {"embedded", e.embedded && info.weightsEmbedded}};
  };
  json ws = json::array();
  for (size_t i = 0; i < signature.weights.size(); ++i) {
    const InputSpec &spec = signature.weights[i];
    ws.push_back(stored(spec, weights.entries[i]));
    if (std::find(info.hostOnlyWeights.begin(), info.hostOnlyWeights.end(), spec.target) !=
        info.hostOnlyWeights.end())
      ws.back()["host_only"] = true;
  }
  // Derived weights take no bytes in the image: no offset, never embedded.
  for (const DerivedWeight &d : info.derivedWeights) {
    int64_t bytes = static_cast<int64_t>(dtypeSize(d.dtype));
    for (int64_t size : d.sizes)
      bytes *= size;
    ws.push_back({{"name", d.name},
                  {"kind", "derived"},
                  {"dtype", dtypeName(d.dtype)},
                  {"sizes", d.sizes},
                  {"bytes", bytes},
                  {"embedded", false},
                  {"derived", d.program}});
  }
  m["weights"] = ws;

  // State: what the forward writes into its buffers, carried by the model
  // instance from one call to the next; its initial value lies in the
  // weights image like a weight's.
  json states = json::array();
  for (size_t i = 0; i < signature.states.size(); ++i)
    states.push_back(stored(signature.states[i], weights.entries[signature.weights.size() + i]));
  if (!states.empty())
    m["states"] = states;

  json plannedAt = json::object();
  for (const auto &[name, range] : program.rangeConstraints)
    plannedAt[name] = range.max;
  json buffers = json::array();
  for (const PlannedBuffer &b : arena.buffers)
    buffers.push_back({{"offset", b.offset}, {"bytes", b.bytes}, {"first", b.first}, {"last", b.last}});
  m["arena"] = {{"bytes", arena.bytes}, {"planned_at", plannedAt}, {"buffers", buffers}};

  json args = json::array();
  if (!info.entryArgs.empty()) {
    for (const EntryArgument &a : info.entryArgs)
      args.push_back({{"role", a.role}, {"index", a.index}, {"rank", a.rank}});
  } else {
    // The compiled code's rank: a complex tensor's (re, im) pairs are one more dim.
    auto rankOf = [&](const std::string &value) {
      const frontend::TensorMeta &meta = program.tensorValues.at(value);
      return entryRank(meta.dtype, static_cast<int32_t>(meta.sizes.size()));
    };
    for (size_t i = 0; i < signature.inputs.size(); ++i)
      args.push_back({{"role", "input"}, {"index", i}, {"rank", rankOf(signature.inputs[i])}});
    for (size_t i = 0; i < signature.weights.size(); ++i)
      args.push_back({{"role", "weight"}, {"index", i},
                      {"rank", rankOf(signature.weights[i].graphName)}});
    for (size_t i = 0; i < signature.states.size(); ++i)
      args.push_back({{"role", "state"}, {"index", i},
                      {"rank", rankOf(signature.states[i].graphName)}});
    for (size_t i = 0; i < info.derivedWeights.size(); ++i)
      args.push_back({{"role", "weight"}, {"index", signature.weights.size() + i},
                      {"rank", info.derivedWeights[i].sizes.size()}});
    for (size_t i = 0; i < signature.outputs.size(); ++i)
      args.push_back({{"role", "output"}, {"index", i}, {"rank", rankOf(signature.outputs[i])}});
    args.push_back({{"role", "arena"}, {"index", 0}, {"rank", 1}});
  }
  m["entry"] = {{"symbol", entrySymbol(0, false)}, {"args", args}};

  // The generic variant, then each static one: the symbols it binds pinned
  // to their values, the others over their whole range. Every variant takes
  // the entry arguments above; only its sizes and arena differ.
  auto specialization = [&](const std::string &name, const SymbolBindings &values,
                            size_t variant, int64_t arenaBytes) {
    json spec = {{"name", name}, {"symbols", json::object()}};
    for (const auto &[symbol, range] : program.rangeConstraints) {
      auto bound = values.find(symbol);
      spec["symbols"][symbol] = bound == values.end() ? json{range.min, range.max}
                                                      : json{bound->second, bound->second};
    }
    spec["entry"] = {{"symbol", entrySymbol(variant, false)}};
    spec["arena"] = {{"bytes", arenaBytes}};
    return spec;
  };
  json specs = json::array({specialization(kGenericSpecializationName, {}, 0, arena.bytes)});
  for (size_t i = 0; i < info.specializations.size(); ++i)
    specs.push_back(specialization(info.specializations[i].name, info.specializations[i].values,
                                   i + 1, info.specializations[i].arenaBytes));
  m["specializations"] = specs;

  if (info.cpuIsa)
    m["cpu_isa"] = cpuIsaName(*info.cpuIsa);
  if (info.targets.has(Target::Cuda)) {
    // The CUDA entry takes the same packed arguments, as device pointers: a
    // symbol of its own beside the CPU entry, or the only one.
    bool cpuToo = info.targets.has(Target::Cpu);
    const char *key = cpuToo ? "cuda_symbol" : "symbol";
    if (!cpuToo)
      for (json &input : m["inputs"])
        input["device"] = "cuda";
    m["entry"][key] = entrySymbol(0, true);
    for (size_t i = 0; i < m["specializations"].size(); ++i)
      m["specializations"][i]["entry"][key] = entrySymbol(i, true);
    m["precision"] = info.precision;
    if (!info.cudaGraphs)
      m["cuda_graphs"] = false;
  }
  if (info.profile)
    m["profile"] = true;
  if (!info.kernels.is_null())
    m["kernels"] = info.kernels;
  if (!info.kernelGraph.is_null())
    m["kernel_graph"] = info.kernelGraph;
  if (!info.weightsFile.sha256.empty())
    m["weights_file"] = {{"format", weightsfile::kVersion},
                         {"bytes", info.weightsFile.bytes},
                         {"sha256", info.weightsFile.sha256}};
  return m;
}
