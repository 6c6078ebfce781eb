//===- ExplainCommand.cpp - `tcc explain model.pt2 [--json]` --------------===//
//
// Prints the report of tcc/Pipelines/Explain.h: as text for a person (the
// operator table, each refusal at its Python line, the kernels by kind and
// by fusion group, the guards, the arena) or, with --json, as the one JSON
// object docs/EXPLAIN.md describes; with --html, also as one self-contained
// page (ExplainHtml.h). The exit code says whether tcc supports
// the model: 0 yes, 1 no (or unreadable), 3 internal error.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#include "ExplainHtml.h"

#include "tcc/Pipelines/Explain.h"

#include <cstdio>
#include <fstream>
#include <string>

using nlohmann::json;

namespace tcc {

namespace {

std::string bytesText(int64_t bytes) {
  char buf[64];
  if (bytes >= (1 << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB (%lld bytes)", bytes / 1048576.0,
                  static_cast<long long>(bytes));
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB (%lld bytes)", bytes / 1024.0,
                  static_cast<long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(bytes));
  return buf;
}

std::string joined(const json &strings, const char *separator = ", ") {
  std::string s;
  for (const json &x : strings)
    s += (s.empty() ? "" : separator) + (x.is_string() ? x.get<std::string>() : x.dump());
  return s;
}

std::string sizesText(const json &sizes) { return "[" + joined(sizes) + "]"; }

void printOperators(const json &report) {
  const json &operators = report["operators"];
  int64_t nodes = 0;
  for (const json &op : operators)
    nodes += op["count"].get<int64_t>();
  std::printf("\noperators (%zu kinds, %lld nodes):\n", operators.size(),
              static_cast<long long>(nodes));
  std::printf("  %7s  %-9s %s\n", "count", "status", "operator");
  for (const json &op : operators) {
    int64_t count = op["count"], refused = op["refused"];
    std::string status = refused == 0 ? "supported"
                         : refused == count ? "REFUSED"
                                            : "REFUSED " + std::to_string(refused);
    std::printf("  %7lld  %-9s %s\n", static_cast<long long>(count), status.c_str(),
                op["name"].get<std::string>().c_str());
  }
  const json &refusals = report["refusals"];
  if (refusals.empty())
    return;
  std::printf("\nrefused (%zu):\n", refusals.size());
  for (const json &r : refusals)
    std::printf("  %s: %s\n", r["location"].get<std::string>().c_str(),
                r["reason"].get<std::string>().c_str());
}

void printKernels(const json &report, const TargetSet &targets) {
  const json &kernels = report["kernels"];
  bool cuda = targets.has(Target::Cuda), cpu = targets.has(Target::Cpu);
  std::printf("\nkernels (%lld):\n", static_cast<long long>(kernels["count"].get<int64_t>()));
  for (const json &k : kernels["by_kind"]) {
    std::string runsAs;
    if (cuda && k.contains("cuda"))
      runsAs += "cuda: " + k["cuda"].get<std::string>();
    if (cpu && k.contains("cpu"))
      runsAs += (runsAs.empty() ? "" : "; ") + ("cpu: " + k["cpu"].get<std::string>());
    std::printf("  %-10s %6lld  %-9s %s\n", k["kind"].get<std::string>().c_str(),
                static_cast<long long>(k["count"].get<int64_t>()),
                k["call"].get<std::string>().c_str(), runsAs.c_str());
  }
  std::printf("\nfusion groups (%zu; kernels of one kind, detail and source ops):\n",
              kernels["groups"].size());
  for (const json &g : kernels["groups"]) {
    std::string detail = g["detail"];
    std::string lines = joined(g["lines"], " ");
    std::printf("  %5lld x %-9s %s%s%s%s%s\n", static_cast<long long>(g["count"].get<int64_t>()),
                g["kind"].get<std::string>().c_str(), detail.empty() ? "" : "[",
                detail.c_str(), detail.empty() ? "" : "] ", joined(g["sources"], " ").c_str(),
                lines.empty() ? "" : ("  at " + lines).c_str());
  }
}

void printGuards(const json &report) {
  const json &guards = report["guards"];
  std::printf("\nguards (checked on every call):\n");
  std::printf("  symbols:%s\n", guards["symbols"].empty() ? " none (all sizes static)" : "");
  for (const auto &[name, s] : guards["symbols"].items()) {
    std::string max = s["max"].get<int64_t>() == INT64_MAX ? "inf" : s["max"].dump();
    std::printf("    %s in [%s, %s]%s\n", name.c_str(), s["min"].dump().c_str(), max.c_str(),
                s["hint"].get<int64_t>() ? (" (hint " + s["hint"].dump() + ")").c_str() : "");
  }
  const char *groups[] = {"inputs", "outputs"};
  for (const char *group : groups) {
    std::printf("  %s:\n", group);
    size_t i = 0;
    for (const json &t : guards[group])
      std::printf("    #%zu %-20s %-8s %s\n", i++, t["name"].get<std::string>().c_str(),
                  t["dtype"].get<std::string>().c_str(), sizesText(t["sizes"]).c_str());
  }
  if (!guards.contains("specializations"))
    return;
  // --specialize: the guard that selects each variant (the generic one runs
  // when none passes).
  std::printf("  specializations:\n");
  const json &variants = guards["specializations"];
  for (size_t i = 0; i < variants.size(); ++i) {
    std::string guard = i == 0 ? "any other sizes" : "";
    for (const auto &[name, range] : variants[i]["symbols"].items())
      if (i > 0 && range[0] == range[1])
        guard += (guard.empty() ? "" : " && ") + name + " == " + range[0].dump();
    std::printf("    #%zu %-20s %s\n", i, variants[i]["name"].get<std::string>().c_str(),
                guard.c_str());
  }
}

void printReport(const json &report, const TargetSet &targets) {
  std::string torch = report.contains("torch_version")
                          ? "torch " + report["torch_version"].get<std::string>() + "; "
                          : "";
  std::printf("tcc explain: %s (%starget %s, precision %s)\n",
              report["source"].get<std::string>().c_str(), torch.c_str(),
              report["target"].get<std::string>().c_str(),
              report["precision"].get<std::string>().c_str());
  if (report.contains("operators"))
    printOperators(report);
  if (report.contains("kernels"))
    printKernels(report, targets);
  if (report.contains("guards"))
    printGuards(report);
  if (report.contains("memory")) {
    const json &m = report["memory"];
    std::string at;
    for (const auto &[name, value] : m["planned_at"].items())
      at += (at.empty() ? "" : ", ") + name + "=" + value.dump();
    int64_t buffers = m["buffers"];
    std::printf("\nmemory: arena %s, peak live %s, %lld buffer%s%s\n",
                bytesText(m["arena_bytes"]).c_str(), bytesText(m["peak_bytes"]).c_str(),
                static_cast<long long>(buffers), buffers == 1 ? "" : "s",
                at.empty() ? "" : (" (planned at " + at + ")").c_str());
  }
  if (report.contains("weights"))
    std::printf("weights: %lld tensors, %s\n",
                static_cast<long long>(report["weights"]["count"].get<int64_t>()),
                bytesText(report["weights"]["bytes"]).c_str());
  std::string phases;
  double total = 0;
  for (const json &p : report["phases"]) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %.0f ms", p["phase"].get<std::string>().c_str(),
                  p["ms"].get<double>());
    phases += (phases.empty() ? "" : ", ") + std::string(buf);
    total += p["ms"].get<double>();
  }
  std::printf("time: %s (total %.2f s)\n", phases.c_str(), total / 1000);
}

} // namespace

int runExplainCommand(const ExplainCommandOptions &opts) {
  if (!opts.profile.empty() && opts.html.empty()) {
    std::fprintf(stderr, "tcc explain: error: --profile draws the times in the --html page; "
                         "give --html FILE too\n");
    return kExitUsage;
  }
  json report;
  int rc = explainModel(opts.options, report);
  if (!opts.html.empty()) {
    json page = report;
    // --profile: times of an artifact compiled from this model with the same
    // --target and --precision (so the same kernels) as a bar chart.
    if (!opts.profile.empty()) {
      if (std::string why = addProfile(page, opts.profile); !why.empty()) {
        std::fprintf(stderr, "tcc explain: error: --profile %s: %s\n", opts.profile.c_str(),
                     why.c_str());
        return kExitUserError;
      }
    }
    std::ofstream out(opts.html, std::ios::binary);
    out << explainHtml(page);
    if (!out.flush()) {
      std::fprintf(stderr, "tcc explain: error: cannot write %s\n", opts.html.c_str());
      return kExitUserError;
    }
  }
  if (opts.json) {
    std::printf("%s\n", report.dump(2).c_str());
    return rc;
  }
  printReport(report, opts.options.targets);
  std::fflush(stdout);
  // Errors other than refusals (an unreadable model, a later pass's
  // message) on stderr, as tcc compile prints them.
  for (const json &e : report["errors"]) {
    std::string loc = e["location"];
    std::string message = e["message"];
    std::fprintf(stderr, "%s: error: %s\n", loc.empty() ? "tcc" : loc.c_str(), message.c_str());
  }
  size_t refused = report.contains("refusals") ? report["refusals"].size() : 0;
  if (rc == kExitOk)
    std::printf("\nresult: supported: tcc compiles every operator of this model (exit 0)\n");
  else if (refused)
    std::printf("\nresult: not supported: %zu operator node%s refused (exit %d)\n", refused,
                refused == 1 ? "" : "s", rc);
  else if (rc == kExitInternal)
    std::printf("\nresult: internal error in tcc (exit 3); please report it with the model\n");
  else if (rc == kExitUsage)
    std::printf("\nresult: usage error (exit 2)\n");
  else
    std::printf("\nresult: not supported: %s (exit %d)\n",
                report.contains("failed_phase")
                    ? ("the " + report["failed_phase"].get<std::string>() +
                       " phase refused the model (the error above)")
                          .c_str()
                    : "the model could not be read",
                rc);
  return rc;
}

} // namespace tcc
