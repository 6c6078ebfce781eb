//===- InspectCommand.cpp - `tcc inspect model.so|model.guards.json` ------===//
//
// Prints what a compiled model expects and holds: inputs with their symbolic
// sizes and ranges, outputs, weights, the arena and its memory plan, and the
// checks made on every call. The manifest comes from the model's C ABI (so
// this shows exactly what the runtime sees) or from a .guards.json file.
// --html writes the page of tcc explain --html for the artifact.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "ExplainHtml.h"
#include "tcc/Support/ElfSection.h"
#include "tcc/Support/EntrySymbols.h"

#include "tcc/Pipelines/ArenaPlan.h"

#include "tcc/Runtime/GuardManifest.h"
#include "tcc/Runtime/RuntimeError.h"

#include <cstdio>
#include <fstream>

#include <sys/stat.h>
#include <iterator>
#include <sstream>

namespace tcc {

namespace {

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A manifest larger than this is damage, not a model.
constexpr uint64_t kMaxManifestBytes = 64u << 20;

/// The manifest of a guards.json, or of a model.so read from its
/// .tcc.manifest section: never by loading the library, which would run its
/// code.
std::string readManifest(const std::string &path) {
  if (endsWith(path, ".json")) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
      throw std::runtime_error(path + ": cannot open file");
    if (!S_ISREG(st.st_mode))
      throw std::runtime_error(path + ": not a regular file");
    if (static_cast<uint64_t>(st.st_size) > kMaxManifestBytes)
      throw std::runtime_error(path + ": " + std::to_string(st.st_size) +
                               " bytes, more than a manifest's " +
                               std::to_string(kMaxManifestBytes));
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw std::runtime_error(path + ": cannot open file");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  try {
    std::string text = readElfSection(path, kManifestSectionName, kMaxManifestBytes);
    while (!text.empty() && text.back() == '\0')
      text.pop_back();
    return text;
  } catch (const ElfError &e) {
    std::string why = e.what();
    if (why.find("no " + std::string(kManifestSectionName)) != std::string::npos)
      why += " (not a model tcc compiled, or one compiled by a tcc before the section existed: "
             "inspect the .guards.json written beside it)";
    throw std::runtime_error(why);
  }
}

std::string symbolText(const SymbolRange &s) {
  std::string text = s.name + " in [" + std::to_string(s.min) + ", " +
                     (s.max == INT64_MAX ? std::string("inf") : std::to_string(s.max)) + "]";
  if (s.hint)
    text += " (hint " + std::to_string(*s.hint) + ")";
  return text;
}

std::string bytesText(int64_t bytes) {
  char buf[64];
  if (bytes >= (1 << 20))
    std::snprintf(buf, sizeof buf, "%lld bytes (%.1f MiB)", static_cast<long long>(bytes),
                  bytes / 1048576.0);
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%lld bytes (%.1f KiB)", static_cast<long long>(bytes),
                  bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(bytes));
  return buf;
}

/// `s` with control characters (a terminal's escape sequences among them)
/// shown as \xNN: names come from the model file and reach the terminal.
std::string printable(const std::string &s) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

/// `n` with a decimal prefix and three significant digits ("1.23 G").
std::string siAmount(int64_t n) {
  static const char *prefixes[] = {"", "k", "M", "G", "T", "P"};
  double v = static_cast<double>(n);
  size_t p = 0;
  while (v >= 1000.0 && p + 1 < std::size(prefixes)) {
    v /= 1000.0;
    ++p;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, p ? "%.3g %s" : "%.0f %s", v, prefixes[p]);
  return buf;
}

/// A kernel's roofline numbers ("4.72 GFLOP, 9.44 MB"), the known ones.
std::string costText(const KernelInfo &k) {
  std::string text;
  if (k.flops >= 0)
    text = siAmount(k.flops) + "FLOP";
  if (k.bytes >= 0)
    text += (text.empty() ? "" : ", ") + siAmount(k.bytes) + "B";
  return text;
}

void printSummary(const GuardManifest &m, const std::string &path) {
  std::printf("model: %s\n", m.model.empty() ? "(unnamed)" : printable(m.model).c_str());
  std::printf("file: %s\n", path.c_str());
  if (!m.source.empty())
    std::printf("source: %s\n", printable(m.source).c_str());
  std::string targets;
  for (const std::string &t : m.targets)
    targets += (targets.empty() ? "" : ", ") + t;
  std::printf("targets: %s\n", targets.empty() ? "(none listed)" : targets.c_str());
  if (!m.precision.empty())
    std::printf("cuda precision: %s\n", m.precision.c_str());

  std::printf("\nsymbols (%zu):\n", m.symbols.size());
  for (const SymbolRange &s : m.symbols)
    std::printf("  %s\n", symbolText(s).c_str());

  std::printf("\ninputs (%zu):\n", m.inputs.size());
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    const TensorSpec &t = m.inputs[i];
    std::printf("  #%zu %-20s %-8s %s on %s%s\n", i, printable(t.name).c_str(), dtypeName(t.dtype),
                t.shapeText().c_str(), t.device == TCC_DEVICE_CUDA ? "cuda" : "cpu",
                t.written ? ", written in place" : "");
  }
  std::printf("\noutputs (%zu):\n", m.outputs.size());
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    const TensorSpec &t = m.outputs[i];
    std::printf("  #%zu %-20s %-8s %s\n", i, printable(t.name).c_str(), dtypeName(t.dtype),
                t.shapeText().c_str());
  }

  // Derived weights are computed by the runtime from the others; host-only
  // ones are read only by derived weights and never copied to the device.
  uint64_t total = 0, derivedBytes = 0, hostOnlyBytes = 0;
  size_t numEmbedded = 0, numDerived = 0, numHostOnly = 0;
  for (const WeightSpec &w : m.weights) {
    if (w.isDerived()) {
      derivedBytes += w.bytes;
      ++numDerived;
      continue;
    }
    total += w.bytes;
    numEmbedded += w.embedded;
    if (w.hostOnly) {
      hostOnlyBytes += w.bytes;
      ++numHostOnly;
    }
  }
  std::printf("\nweights (%zu, %s; %zu embedded, %zu external", m.weights.size() - numDerived,
              bytesText(static_cast<int64_t>(total)).c_str(), numEmbedded,
              m.weights.size() - numDerived - numEmbedded);
  if (numHostOnly)
    std::printf("; %zu host-only, %s", numHostOnly,
                bytesText(static_cast<int64_t>(hostOnlyBytes)).c_str());
  std::printf("):\n");
  for (size_t i = 0; i < m.weights.size(); ++i) {
    const WeightSpec &w = m.weights[i];
    if (w.isDerived())
      continue;
    std::printf("  #%zu %-28s %-9s %-8s %-14s %10llu bytes @%-10llu %s%s\n", i, printable(w.name).c_str(),
                w.kind.c_str(), dtypeName(w.dtype), w.shapeText().c_str(),
                static_cast<unsigned long long>(w.bytes),
                static_cast<unsigned long long>(w.offset), w.embedded ? "embedded" : "external",
                w.hostOnly ? ", host-only" : "");
  }
  if (numDerived) {
    std::printf("\nderived weights (%zu, %s; computed by the runtime when a weight is bound):\n",
                numDerived, bytesText(static_cast<int64_t>(derivedBytes)).c_str());
    for (size_t i = 0; i < m.weights.size(); ++i) {
      const WeightSpec &w = m.weights[i];
      if (!w.isDerived())
        continue;
      std::string program;
      for (const std::string &token : w.program)
        program += (program.empty() ? "" : " ") + token;
      std::printf("  #%zu %-28s %-8s %-14s %10llu bytes = %s\n", i, printable(w.name).c_str(),
                  dtypeName(w.dtype), w.shapeText().c_str(),
                  static_cast<unsigned long long>(w.bytes), program.c_str());
    }
  }

  if (!m.states.empty()) {
    uint64_t stateBytes = 0;
    for (const WeightSpec &st : m.states)
      stateBytes += st.bytes;
    std::printf("\nstates (%zu, %s; written by every call, kept per instance from one call to "
                "the next):\n",
                m.states.size(), bytesText(static_cast<int64_t>(stateBytes)).c_str());
    for (size_t i = 0; i < m.states.size(); ++i) {
      const WeightSpec &st = m.states[i];
      std::printf("  #%zu %-28s %-9s %-8s %-14s %10llu bytes @%-10llu initial value %s\n", i,
                  printable(st.name).c_str(), st.kind.c_str(), dtypeName(st.dtype), st.shapeText().c_str(),
                  static_cast<unsigned long long>(st.bytes),
                  static_cast<unsigned long long>(st.offset),
                  st.embedded ? "embedded" : "external (zeros until loaded)");
    }
  }

  std::printf("\narena: %s", bytesText(m.arena.bytes).c_str());
  if (!m.arena.plannedAt.empty()) {
    std::string at;
    for (const auto &[name, value] : m.arena.plannedAt)
      at += (at.empty() ? "" : ", ") + name + "=" + std::to_string(value);
    std::printf(", planned at %s", at.c_str());
  }
  std::printf("\n");
  if (!m.arena.buffers.empty()) {
    std::printf("  %-6s %12s %12s %7s %7s\n", "buffer", "offset", "bytes", "first", "last");
    for (size_t i = 0; i < m.arena.buffers.size(); ++i) {
      const ArenaBuffer &b = m.arena.buffers[i];
      std::printf("  #%-5zu %12lld %12lld %7lld %7lld\n", i, static_cast<long long>(b.offset),
                  static_cast<long long>(b.bytes), static_cast<long long>(b.first),
                  static_cast<long long>(b.last));
    }
  }

  std::printf("\nentry: %s(", m.entrySymbol.c_str());
  for (size_t i = 0; i < m.entryArgs.size(); ++i) {
    const EntryArg &a = m.entryArgs[i];
    const char *role = a.role == EntryArgRole::Input    ? "input"
                       : a.role == EntryArgRole::Weight ? "weight"
                       : a.role == EntryArgRole::State  ? "state"
                       : a.role == EntryArgRole::Output ? "output"
                                                        : "arena";
    std::printf("%s%s#%d", i ? ", " : "", role, a.index);
  }
  std::printf(")\n");

  if (!m.kernels.empty()) {
    std::printf("\nkernels (%zu):\n", m.kernels.size());
    for (size_t i = 0; i < m.kernels.size(); ++i) {
      const KernelInfo &k = m.kernels[i];
      auto join = [](const std::vector<std::string> &v) {
        std::string s;
        for (const std::string &x : v)
          s += (s.empty() ? "" : " ") + x;
        return s;
      };
      std::printf("  #%-4zu %-10s %-34s %-22s %s%s%s\n", i, printable(k.kind).c_str(),
                  printable(k.detail).c_str(), costText(k).c_str(),
                  printable(join(k.sources)).c_str(), k.lines.empty() ? "" : "  at ",
                  printable(join(k.lines)).c_str());
    }
  }

  if (!m.checks.empty()) {
    std::printf("\nchecks (%zu):\n", m.checks.size());
    for (const std::string &c : m.checks)
      std::printf("  %s\n", printable(c).c_str());
  }
  // The export's guards_code: checked on every call, or not (and why).
  if (!m.inputGuards.empty() || !m.unenforcedGuards.empty()) {
    std::printf("\nexport guards (%zu enforced, %zu not):\n", m.inputGuards.size(),
                m.unenforcedGuards.size());
    for (const InputGuard &g : m.inputGuards)
      std::printf("  %s\n", printable(g.text()).c_str());
    for (const auto &[text, reason] : m.unenforcedGuards)
      std::printf("  not enforced: %s (%s)\n", printable(text).c_str(), printable(reason).c_str());
  }
  if (!m.valueChecks.empty()) {
    std::printf("\nvalue checks, evaluated by the compiled code on every call (%zu):\n",
                m.valueChecks.size());
    for (const std::string &c : m.valueChecks)
      std::printf("  %s\n", printable(c).c_str());
  }
  // Each variant with the guard that selects it (the most specific whose
  // guard passes; the generic one otherwise), its entry and its arena.
  std::printf("\nspecializations (%zu):\n", m.specializations.size());
  for (size_t i = 0; i < m.specializations.size(); ++i) {
    const Specialization &s = m.specializations[i];
    std::string ranges;
    for (const auto &[name, range] : s.symbols)
      ranges += (ranges.empty() ? "" : ", ") + name + " in [" + std::to_string(range.first) +
                ", " + std::to_string(range.second) + "]";
    std::string entries = s.entrySymbol + (s.cudaSymbol.empty() ? "" : ", " + s.cudaSymbol);
    std::printf("  #%zu %s%s%s\n", i, printable(s.name).c_str(), ranges.empty() ? "" : ": ", ranges.c_str());
    std::printf("     selected when %s; entry %s; arena %s\n",
                i == 0 ? "no other variant's guard passes" : s.guardText().c_str(),
                entries.c_str(), bytesText(s.arenaBytes).c_str());
  }
}

/// A manifest's "kernel_graph", as explain's report shapes it, where every
/// field has the type the page reads: {inputs: [string], outputs: [string],
/// edges: [{from, to: string, shape: [int or string], dtype: string}]}. Anything else
/// is an error (the page is built only from what was checked).
nlohmann::json checkedKernelGraph(const nlohmann::json &g) {
  using nlohmann::json;
  auto fail = [](const std::string &why) {
    throw std::runtime_error("kernel_graph: " + why);
  };
  if (!g.is_object())
    fail("not an object");
  auto strings = [&](const char *key) {
    json out = json::array();
    if (!g.contains(key))
      return out;
    if (!g[key].is_array())
      fail(std::string(key) + " is not an array");
    for (const json &x : g[key]) {
      if (!x.is_string())
        fail(std::string(key) + " holds a non-string");
      out.push_back(x);
    }
    return out;
  };
  json graph = {{"inputs", strings("inputs")}, {"outputs", strings("outputs")},
                {"edges", json::array()}};
  if (g.contains("edges")) {
    if (!g["edges"].is_array())
      fail("edges is not an array");
    for (const json &e : g["edges"]) {
      if (!e.is_object() || !e.contains("from") || !e["from"].is_string() || !e.contains("to") ||
          !e["to"].is_string())
        fail("an edge lacks its from/to names");
      json shape = json::array();
      if (e.contains("shape")) {
        if (!e["shape"].is_array())
          fail("an edge's shape is not an array");
        for (const json &d : e["shape"]) {
          if (!d.is_number_integer() && !d.is_string())
            fail("an edge's shape holds something that is no size (an integer or a symbolic "
                 "expression)");
          shape.push_back(d);
        }
      }
      std::string dtype = e.contains("dtype") && e["dtype"].is_string() ? e["dtype"].get<std::string>()
                                                                        : std::string();
      graph["edges"].push_back({{"from", e["from"]}, {"to", e["to"]}, {"shape", shape},
                                {"dtype", dtype}});
    }
  }
  return graph;
}

/// The manifest in the shape of tcc explain's report (docs/EXPLAIN.md), for
/// its HTML page: the kernels and their graph, the memory plan, the guards.
/// Built from the manifest as GuardManifest::parse validated it (and the
/// kernel graph as checkedKernelGraph checks it), never from raw fields.
nlohmann::json manifestReport(const GuardManifest &m, const nlohmann::json &raw,
                              const std::string &path) {
  using nlohmann::json;
  std::string targets;
  for (const std::string &t : m.targets)
    targets += (targets.empty() ? "" : ",") + t;
  json kernels = json::array();
  for (const KernelInfo &k : m.kernels) {
    json entry = {{"kind", k.kind}, {"detail", k.detail}, {"sources", k.sources}, {"lines", k.lines}};
    if (k.flops >= 0)
      entry["flops"] = k.flops;
    if (k.bytes >= 0)
      entry["bytes"] = k.bytes;
    kernels.push_back(std::move(entry));
  }
  json report = {{"source", path},
                 {"title", "tcc inspect: " + path},
                 {"verdict", "compiled model '" + m.model + "'"},
                 {"target", targets},
                 {"precision", m.precision.empty() ? std::string("fp32") : m.precision},
                 {"supported", true},
                 {"errors", json::array()},
                 {"kernels", {{"count", kernels.size()}, {"list", kernels}}}};
  if (raw.contains("kernel_graph"))
    report["kernels"]["graph"] = checkedKernelGraph(raw["kernel_graph"]);
  if (raw.contains("torch_version") && raw["torch_version"].is_string())
    report["torch_version"] = raw["torch_version"];
  PlannedArena plan;
  plan.bytes = m.arena.bytes;
  json buffers = json::array();
  for (const ArenaBuffer &b : m.arena.buffers) {
    plan.buffers.push_back({b.offset, b.bytes, b.first, b.last});
    buffers.push_back({{"offset", b.offset}, {"bytes", b.bytes}, {"first", b.first},
                       {"last", b.last}});
  }
  json plannedAt = json::object();
  for (const auto &[name, value] : m.arena.plannedAt)
    plannedAt[name] = value;
  report["memory"] = {{"arena_bytes", plan.bytes},
                      {"peak_bytes", peakLiveBytes(plan)},
                      {"buffers", buffers.size()},
                      {"planned_at", plannedAt},
                      {"plan", buffers}};
  auto tensors = [](const std::vector<TensorSpec> &specs) {
    json list = json::array();
    for (const TensorSpec &t : specs) {
      json sizes = json::array();
      for (const SymbolicExpr &e : t.sizes)
        sizes.push_back(e.text());
      list.push_back({{"name", t.name}, {"dtype", dtypeName(t.dtype)}, {"sizes", sizes}});
    }
    return list;
  };
  json symbols = json::object();
  for (const SymbolRange &sym : m.symbols)
    symbols[sym.name] = {{"min", sym.min}, {"max", sym.max}};
  report["guards"] = {{"inputs", tensors(m.inputs)},
                      {"outputs", tensors(m.outputs)},
                      {"symbols", symbols},
                      {"checks", m.checks}};
  json enforced = json::array(), unenforced = json::array();
  for (const InputGuard &g : m.inputGuards)
    enforced.push_back(g.text());
  for (const auto &[text, reason] : m.unenforcedGuards)
    unenforced.push_back({{"text", text}, {"reason", reason}});
  report["guards"]["export_guards"] = {{"enforced", enforced}, {"not_enforced", unenforced}};
  report["guards"]["value_checks"] = m.valueChecks;
  return report;
}

} // namespace

int runInspectCommand(const InspectOptions &opts) {
  if (!opts.profile.empty() && opts.html.empty()) {
    std::fprintf(stderr, "tcc inspect: error: --profile draws the times in the --html page; "
                         "give --html FILE too\n");
    return kExitUsage;
  }
  std::string json;
  try {
    json = readManifest(opts.model);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tcc inspect: error: %s\n", e.what());
    return kExitUserError;
  }
  if (!opts.html.empty()) {
    std::string page;
    nlohmann::json report;
    try {
      // The one schema first: nothing of the page is built from a manifest
      // that does not pass it.
      GuardManifest manifest = GuardManifest::parse(json);
      report = manifestReport(manifest, nlohmann::json::parse(json), opts.model);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "tcc inspect: error: %s: not a valid manifest: %s\n",
                   opts.model.c_str(), e.what());
      return kExitUserError;
    }
    // --profile: the kernels' times (tcc run --profile-json) as a bar chart.
    if (!opts.profile.empty()) {
      if (std::string why = addProfile(report, opts.profile); !why.empty()) {
        std::fprintf(stderr, "tcc inspect: error: --profile %s: %s\n", opts.profile.c_str(),
                     why.c_str());
        return kExitUserError;
      }
    }
    page = explainHtml(report);
    std::ofstream out(opts.html, std::ios::binary);
    out << page;
    if (!out.flush()) {
      std::fprintf(stderr, "tcc inspect: error: cannot write %s\n", opts.html.c_str());
      return kExitUserError;
    }
  }
  if (opts.json) {
    std::fwrite(json.data(), 1, json.size(), stdout);
    if (json.empty() || json.back() != '\n')
      std::fputc('\n', stdout);
    return kExitOk;
  }
  try {
    printSummary(GuardManifest::parse(json), opts.model);
  } catch (const RuntimeError &e) {
    std::fprintf(stderr, "tcc inspect: error: %s: %s\n", opts.model.c_str(), e.what());
    return kExitUserError;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tcc inspect: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitOk;
}

} // namespace tcc
