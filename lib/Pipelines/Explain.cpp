//===- Explain.cpp - what tcc would do with a model, without compiling it -===//
//
// read → import → tcc-legalize-graph recording every refusal → (all
// supported) graph passes, kernel formation, linalg, bufferization, memory
// planning → the report: operators, refusals, kernels, guards, arena. The
// passes are the ones `tcc compile` runs (Pipelines.cpp), phase by phase, so
// the kernels and the plan are the compile's own; the lowerings are not run.
//
//===----------------------------------------------------------------------===//
#include "tcc/Pipelines/Explain.h"
#include "tcc/Pipelines/CompileSession.h"
#include "tcc/Pipelines/ShapeSpecialization.h"

#include "dialects/TccGraph/IR/SourceLocation.h"
#include "dialects/TccGraph/IR/TccGraphOps.h"
#include "dialects/TccGraph/Transforms/Passes.h"

#include "tcc/Pipelines/ArenaPlan.h"
#include "tcc/Pipelines/KernelInventory.h"
#include "tcc/Pipelines/Pipelines.h"
#include "tcc/Target/ManifestBuilder.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>

using namespace mlir;
using namespace tcc;
using nlohmann::json;

namespace {

/// Every diagnostic of the context, kept for the report instead of printed.
class CollectedDiagnostics {
public:
  explicit CollectedDiagnostics(MLIRContext &ctx) : ctx(ctx) {
    id = ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        errors.push_back({{"location", tcc::graph::formatSourceLocation(d.getLocation())},
                          {"message", d.str()}});
      return success();
    });
  }
  ~CollectedDiagnostics() { ctx.getDiagEngine().eraseHandler(id); }

  json errors = json::array();

private:
  MLIRContext &ctx;
  DiagnosticEngine::HandlerID id;
};

/// Milliseconds per phase, in order.
class PhaseClock {
public:
  template <typename F> auto time(const char *phase, F &&f) {
    auto begin = std::chrono::steady_clock::now();
    auto result = f();
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - begin).count();
    phases.push_back({{"phase", phase}, {"ms", ms}});
    return result;
  }
  json phases = json::array();
};

/// The location as users read it, and its file and line when it has them.
json locationJson(Location loc) {
  json j = {{"location", tcc::graph::formatSourceLocation(loc)}};
  if (auto file = dyn_cast<FileLineColLoc>(loc); file && file.getLine()) {
    j["file"] = file.getFilename().str();
    j["line"] = file.getLine();
  }
  return j;
}

std::string operatorName(tcc::graph::OperatorOp op) {
  StringRef name = op.getName();
  name.consume_front("torch.ops.");
  return name.str();
}

/// How each kernel kind runs (KernelInventory.h's kinds): a library call
/// (cuBLASLt, cuDNN, tcc's kernel library, oneDNN) or code tcc generates.
json kernelKindJson(const std::string &kind, int64_t count) {
  struct RunsAs {
    const char *kind, *call, *cuda, *cpu;
  };
  static const RunsAs table[] = {
      {"gemm", "library", "cuBLASLt", "oneDNN matmul / OpenBLAS sgemm (f32; else loops)"},
      {"conv", "library", "cuDNN (depthwise: tcc's kernel)", "oneDNN (f32; else loops)"},
      {"attention", "library", "tcc kernel library", "tcc runtime (tcc_cpu_attention)"},
      {"row", "library", "tcc kernel library", "generated loops"},
      {"rnn", "library", "cuDNN (tcc_cuda_rnn: cudnnRNNForward)", "tcc runtime (tcc_cpu_rnn: oneDNN / OpenBLAS products)"},
      {"qconv", "library", "none (CPU path only)", "oneDNN int8 (tcc_cpu_qconv2d; else loops)"},
      {"pool", "generated", "generated", "generated loops"},
      {"pointwise", "generated", "generated", "generated loops"},
      {"reduction", "generated", "generated (warp per output)", "generated loops"},
      {"copy", "generated", "generated", "generated loops"},
      {"fill", "generated", "generated", "generated loops"},
  };
  json j = {{"kind", kind}, {"count", count}, {"call", "generated"}};
  for (const RunsAs &r : table)
    if (kind == r.kind) {
      j["call"] = r.call;
      j["cuda"] = r.cuda;
      j["cpu"] = r.cpu;
    }
  return j;
}

/// The kernels with their per-kind counts and their groups (same kind,
/// detail and fused source ops), each group's count and first lines.
json kernelsJson(ModuleOp planned) {
  json list = tcc::describeKernels(planned);
  std::map<std::string, int64_t> perKind;
  std::vector<std::string> kindOrder;
  json groups = json::array();
  std::map<std::string, size_t> groupIndex;
  for (const json &k : list) {
    std::string kind = k["kind"];
    if (perKind[kind]++ == 0)
      kindOrder.push_back(kind);
    std::string key = kind + "|" + k["detail"].get<std::string>() + "|" + k["sources"].dump();
    auto [it, inserted] = groupIndex.try_emplace(key, groups.size());
    if (inserted)
      groups.push_back({{"kind", kind},
                        {"detail", k["detail"]},
                        {"sources", k["sources"]},
                        {"count", 0},
                        {"lines", json::array()}});
    json &g = groups[it->second];
    g["count"] = g["count"].get<int64_t>() + 1;
    for (const json &line : k["lines"])
      if (g["lines"].size() < 3 && !std::count(g["lines"].begin(), g["lines"].end(), line))
        g["lines"].push_back(line);
  }
  std::stable_sort(kindOrder.begin(), kindOrder.end(),
                   [&](const std::string &a, const std::string &b) { return perKind[a] > perKind[b]; });
  json byKind = json::array();
  for (const std::string &kind : kindOrder)
    byKind.push_back(kernelKindJson(kind, perKind[kind]));
  std::stable_sort(groups.begin(), groups.end(), [](const json &a, const json &b) {
    return a["count"].get<int64_t>() > b["count"].get<int64_t>();
  });
  return {{"count", list.size()},
          {"by_kind", byKind},
          {"groups", groups},
          {"list", list},
          {"graph", tcc::describeKernelEdges(planned)}};
}

/// The operators as exported, in order of first appearance, each with its
/// count; `index` maps a name to its entry.
json operatorsJson(ModuleOp module, std::map<std::string, size_t> &index) {
  json operators = json::array();
  module->walk([&](graph::OperatorOp op) {
    auto [it, inserted] = index.try_emplace(operatorName(op), operators.size());
    if (inserted)
      operators.push_back({{"name", it->first},
                           {"count", 0},
                           {"refused", 0},
                           {"status", "supported"},
                           {"reasons", json::array()}});
    json &entry = operators[it->second];
    entry["count"] = entry["count"].get<int64_t>() + 1;
  });
  return operators;
}

/// Every refusal legalization recorded, at its operator's line; each also
/// counted on its operator's entry.
json refusalsJson(ModuleOp module, json &operators, const std::map<std::string, size_t> &index) {
  json refusals = json::array();
  module->walk([&](graph::OperatorOp op) {
    auto reason = op->getAttrOfType<StringAttr>(graph::TccGraphDialect::getRefusalAttrName());
    if (!reason)
      return;
    json r = locationJson(op.getLoc());
    r["operator"] = operatorName(op);
    r["reason"] = reason.str();
    refusals.push_back(r);
    json &entry = operators[index.at(operatorName(op))];
    entry["refused"] = entry["refused"].get<int64_t>() + 1;
    entry["status"] = "refused";
    if (!std::count(entry["reasons"].begin(), entry["reasons"].end(), r["reason"]))
      entry["reasons"].push_back(r["reason"]);
  });
  return refusals;
}

/// The guards every call of the compiled model checks, and the weights'
/// count and bytes, from the manifest a compile would write.
void guardsJson(CompileSession &session, const ImportedSignature &signature, json &report) {
  ManifestInfo info;
  for (const ShapeSpecialization &s : session.specializations())
    info.specializations.push_back({s.name, s.values, 0});
  const frontend::ExportedProgram &program = session.program();
  json manifest = buildManifest(program, signature,
                                WeightLayout::build(program, signature, /*copyBytes=*/false),
                                PlannedArena(), info);
  // Where inputs live depends on the path a call takes, not on the model.
  for (json &input : manifest["inputs"])
    input.erase("device");
  report["guards"] = {{"inputs", manifest["inputs"]},
                      {"outputs", manifest["outputs"]},
                      {"symbols", manifest["symbols"]},
                      {"checks", manifest["checks"]}};
  // Which variant each call would run: each static one's symbols pinned.
  if (!session.specializations().empty()) {
    json variants = json::array();
    for (const json &s : manifest["specializations"])
      variants.push_back({{"name", s["name"]}, {"symbols", s["symbols"]}});
    report["guards"]["specializations"] = variants;
  }
  int64_t weightBytes = 0;
  for (const json &w : manifest["weights"])
    weightBytes += w["bytes"].get<int64_t>();
  report["weights"] = {{"count", manifest["weights"].size()}, {"bytes", weightBytes}};
}

/// The memory plan as the report shows it.
json memoryJson(const PlannedArena &arena, const frontend::ExportedProgram &program) {
  json plannedAt = json::object();
  for (const auto &[name, range] : program.rangeConstraints)
    plannedAt[name] = range.max;
  json memory = {{"arena_bytes", arena.bytes},
                 {"peak_bytes", peakLiveBytes(arena)},
                 {"buffers", arena.buffers.size()},
                 {"planned_at", plannedAt},
                 {"plan", json::array()}};
  for (const PlannedBuffer &b : arena.buffers)
    memory["plan"].push_back(
        {{"offset", b.offset}, {"bytes", b.bytes}, {"first", b.first}, {"last", b.last}});
  return memory;
}

/// Legalization with every refusal recorded: the operators and refusals
/// into the report. 0 when all is supported, else the exit code (1: refused
/// operators, 3: a failure without a message, tcc's own).
int legalize(MLIRContext &ctx, ModuleOp module, PhaseClock &clock,
             const CollectedDiagnostics &diagnostics, json &report) {
  std::map<std::string, size_t> operatorIndex;
  json operators = operatorsJson(module, operatorIndex);
  bool legalized = clock.time("legalize", [&] {
    PassManager pm(&ctx);
    graph::LegalizeGraphPassOptions legalize;
    legalize.recordRefusals = true;
    pm.addPass(graph::createLegalizeGraphPass(legalize));
    return succeeded(pm.run(module));
  });
  json refusals = refusalsJson(module, operators, operatorIndex);
  report["operators"] = operators;
  report["refusals"] = refusals;
  if (legalized)
    return 0;
  // A failure with no refusal and no message is tcc's own.
  if (refusals.empty() && diagnostics.errors.empty()) {
    report["errors"] = diagnostics.errors;
    return 3;
  }
  // The refusals are the report; the rest are errors of another kind.
  json others = json::array();
  for (const json &e : diagnostics.errors) {
    bool isRefusal = false;
    for (const json &r : refusals)
      isRefusal |= r["reason"] == e["message"] && r["location"] == e["location"];
    if (!isRefusal)
      others.push_back(e);
  }
  report["errors"] = others;
  return 1;
}

/// The compile's own passes up to the memory plan, phase by phase: 0, or
/// the exit code with "failed_phase" in the report.
int runPhases(MLIRContext &ctx, ModuleOp module, const CompileOptions &options,
              PhaseClock &clock, const CollectedDiagnostics &diagnostics, json &report) {
  using Builder = std::function<void(OpPassManager &)>;
  const std::pair<const char *, Builder> phases[] = {
      {"graph", [&](OpPassManager &pm) { buildGraphPassPipeline(pm, options); }},
      {"kernel", [&](OpPassManager &pm) { buildKernelPassPipeline(pm, options); }},
      {"linalg", [&](OpPassManager &pm) { buildLinalgPassPipeline(pm, options); }},
      {"bufferize", [&](OpPassManager &pm) { buildBufferizePassPipeline(pm, options); }},
      {"plan", [&](OpPassManager &pm) { buildPlanningPassPipeline(pm, options); }},
  };
  for (const auto &[name, build] : phases) {
    bool ok = clock.time(name, [&] {
      PassManager pm(&ctx);
      build(pm);
      return succeeded(pm.run(module));
    });
    if (ok)
      continue;
    report["failed_phase"] = name;
    report["errors"] = diagnostics.errors;
    // As tcc compile: a failure without a message, or one that left IR
    // that does not verify, is tcc's bug, whatever the message reads like.
    bool valid = [&] {
      ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
      return succeeded(verify(module));
    }();
    return diagnostics.errors.empty() || !valid ? 3 : 1;
  }
  return 0;
}

} // namespace

int tcc::explainModel(const CompileOptions &options, json &report) {
  PhaseClock clock;
  report = json::object();
  report["format"] = "tcc-explain";
  report["version"] = 1;
  report["source"] = std::filesystem::path(options.input).filename().string();
  report["target"] = options.targets.str();
  report["precision"] = precisionName(options.precision);
  report["supported"] = false;
  report["errors"] = json::array();
  auto finish = [&](int rc) {
    report["phases"] = clock.phases;
    return rc;
  };

  // 1. Read and import, as tcc compile does.
  CompileSession session(options);
  std::string readError;
  if (int rc = clock.time("read", [&] { return session.read(readError); })) {
    report["errors"].push_back(
        {{"location", ""},
         {"message", rc == 1 ? readError : "internal error while reading: " + readError}});
    return finish(rc);
  }
  report["torch_version"] = session.program().torchVersion;
  MLIRContext &ctx = session.context();
  CollectedDiagnostics diagnostics(ctx);
  ImportedSignature signature;
  OwningOpRef<ModuleOp> module = clock.time("import", [&] { return session.import(signature); });
  if (!module) {
    report["errors"] = diagnostics.errors;
    return finish(1);
  }
  // --specialize: the variants a compile would add, read as tcc compile reads
  // them (a usage error, exit 2, before any pass runs).
  if (std::string error = session.parseSpecializations(); !error.empty()) {
    report["errors"].push_back({{"location", ""}, {"message", error}});
    return finish(2);
  }
  guardsJson(session, signature, report);

  // 2. Legalization, every refusal recorded on its operator; 3. the compile's
  // passes up to the memory plan.
  if (int rc = legalize(ctx, *module, clock, diagnostics, report))
    return finish(rc);
  if (int rc = runPhases(ctx, *module, options, clock, diagnostics, report))
    return finish(rc);

  // 4. What the plan says.
  report["kernels"] = clock.time("report", [&] { return kernelsJson(*module); });
  PlannedArena arena = readArenaPlan(*module);
  report["memory"] = memoryJson(arena, session.program());
  // As tcc compile, which would refuse it here.
  if (std::string error = arenaLimitError(arena, session.program()); !error.empty()) {
    report["failed_phase"] = "plan";
    report["errors"] = json::array({{{"location", ""}, {"message", error}}});
    return finish(1);
  }
  report["supported"] = true;
  report["errors"] = diagnostics.errors;
  return finish(0);
}
