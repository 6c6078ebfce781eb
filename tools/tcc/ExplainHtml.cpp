//===- ExplainHtml.cpp - the explain report as one self-contained HTML page ===//
//
// Pure string building from the report's JSON: no MLIR, no external files,
// fonts, scripts or styles. The kernel graph is laid out in layers by the
// longest path from the inputs (parallel branches side by side), each layer
// in program order; edges are curves from a writer's bottom to a reader's top.
//
//===----------------------------------------------------------------------===//
#include "ExplainHtml.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <sys/stat.h>

using nlohmann::json;

namespace tcc {

namespace {

std::string escape(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string str(const json &j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

std::string joined(const json &items, const char *separator) {
  std::string s;
  for (const json &x : items)
    s += (s.empty() ? "" : separator) + str(x);
  return s;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string mib(int64_t bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / 1048576.0);
  return buf;
}

/// `s` cut to at most n bytes with an ellipsis, on a code point boundary
/// (never inside a UTF-8 sequence: the SVG stays well-formed).
std::string truncated(const std::string &s, size_t n) {
  if (s.size() <= n)
    return s;
  size_t cut = n - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return s.substr(0, cut) + "\xe2\x80\xa6";
}

const char *kindColour(const std::string &kind) {
  static const std::map<std::string, const char *> colours = {
      {"gemm", "#4e79a7"},      {"conv", "#f28e2b"}, {"attention", "#e15759"},
      {"row", "#76b7b2"},       {"pool", "#59a14f"}, {"pointwise", "#edc948"},
      {"reduction", "#b07aa1"}, {"copy", "#9c755f"}, {"fill", "#bab0ac"}};
  auto it = colours.find(kind);
  return it == colours.end() ? "#cccccc" : it->second;
}

//===----------------------------------------------------------------------===//
// The kernel graph
//===----------------------------------------------------------------------===//

constexpr int kBoxWidth = 230, kBoxHeight = 42, kColumn = 260, kRow = 78, kMargin = 20;

struct Node {
  std::string id, kind, title, line1, line2;
  int layer = 0, column = 0;
  double x() const { return kMargin + column * kColumn; }
  double y() const { return kMargin + layer * kRow; }
};

std::string kernelGraphSvg(const json &kernels) {
  // An artifact compiled before manifests had a kernel graph: no edges, the
  // kernels one under the other in program order.
  static const json noGraph = {{"inputs", json::array()}, {"outputs", json::array()},
                               {"edges", json::array()}};
  bool hasGraph = kernels.contains("graph");
  const json &graph = hasGraph ? kernels["graph"] : noGraph;
  std::vector<Node> nodes;
  std::map<std::string, size_t> index;
  auto add = [&](Node n) {
    index[n.id] = nodes.size();
    nodes.push_back(std::move(n));
  };
  size_t i = 0;
  for (const json &name : graph["inputs"]) {
    Node n;
    n.id = "in" + std::to_string(i++);
    n.kind = "input";
    n.line1 = "input " + str(name);
    n.title = n.line1;
    add(n);
  }
  i = 0;
  for (const json &k : kernels["list"]) {
    Node n;
    n.id = "k" + std::to_string(i);
    n.kind = str(k["kind"]);
    std::string detail = str(k["detail"]);
    n.line1 = "#" + std::to_string(i) + " " + n.kind + (detail.empty() ? "" : " [" + detail + "]");
    n.line2 = joined(k["sources"], " ");
    n.title = "kernel #" + std::to_string(i) + ": " + n.kind +
              (detail.empty() ? "" : " [" + detail + "]") + "\nsource ops: " + n.line2 +
              "\nat: " + joined(k["lines"], " ");
    ++i;
    add(n);
  }
  i = 0;
  for (const json &name : graph["outputs"]) {
    Node n;
    n.id = "out" + std::to_string(i++);
    n.kind = "output";
    n.line1 = str(name);
    n.title = n.line1;
    add(n);
  }
  // Layers: the longest path from a source. Edges go forward in program
  // order, so one pass in node order settles them.
  std::vector<std::vector<size_t>> preds(nodes.size());
  for (const json &e : graph["edges"]) {
    auto from = index.find(str(e["from"])), to = index.find(str(e["to"]));
    if (from != index.end() && to != index.end())
      preds[to->second].push_back(from->second);
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (!hasGraph)
      nodes[n].layer = static_cast<int>(n);
    for (size_t p : preds[n])
      nodes[n].layer = std::max(nodes[n].layer, nodes[p].layer + 1);
  }
  std::map<int, int> used;
  int columns = 1, layers = 1;
  for (Node &n : nodes) {
    n.column = used[n.layer]++;
    columns = std::max(columns, n.column + 1);
    layers = std::max(layers, n.layer + 1);
  }
  // Room on the right for the arcs of the last column.
  int width = 2 * kMargin + (columns - 1) * kColumn + kBoxWidth + (kColumn - kBoxWidth + 80);
  int height = 2 * kMargin + (layers - 1) * kRow + kBoxHeight;

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"kernel-graph\" width=\"" +
                    std::to_string(width) + "\" height=\"" + std::to_string(height) +
                    "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                    "\" font-family=\"sans-serif\">\n";
  // Edges under the boxes.
  for (const json &e : graph["edges"]) {
    auto from = index.find(str(e["from"])), to = index.find(str(e["to"]));
    if (from == index.end() || to == index.end())
      continue;
    const Node &a = nodes[from->second], &b = nodes[to->second];
    std::string label = joined(e["shape"], "x") + " " + str(e["dtype"]);
    std::string path;
    double labelX, labelY;
    int span = b.layer - a.layer;
    if (span > 1 && a.column == b.column) {
      // Past the boxes between them: an arc on the right, wider the longer
      // it is (DenseNet's concatenations feed every later layer of a block).
      double x = a.x() + kBoxWidth, y1 = a.y() + kBoxHeight / 2.0, y2 = b.y() + kBoxHeight / 2.0;
      double dx = std::min(kColumn - kBoxWidth + 80.0, 8.0 + 4.0 * span);
      path = "M" + number(x) + "," + number(y1) + " C" + number(x + dx) + "," + number(y1) + " " +
             number(x + dx) + "," + number(y2) + " " + number(x) + "," + number(y2);
      labelX = x + dx * 0.75 + 2;
      labelY = (y1 + y2) / 2;
    } else {
      double x1 = a.x() + kBoxWidth / 2.0, y1 = a.y() + kBoxHeight;
      double x2 = b.x() + kBoxWidth / 2.0, y2 = b.y();
      double bend = std::max(20.0, (y2 - y1) / 2);
      path = "M" + number(x1) + "," + number(y1) + " C" + number(x1) + "," + number(y1 + bend) +
             " " + number(x2) + "," + number(y2 - bend) + " " + number(x2) + "," + number(y2);
      labelX = (x1 + x2) / 2 + 4;
      labelY = (y1 + y2) / 2;
    }
    svg += "<g class=\"edge\" data-from=\"" + a.id + "\" data-to=\"" + b.id + "\"><title>" +
           escape(a.id + " \xe2\x86\x92 " + b.id + ": " + label) + "</title><path d=\"" + path +
           "\" fill=\"none\" stroke=\"#888\" stroke-width=\"1.2\"/><text x=\"" + number(labelX) +
           "\" y=\"" + number(labelY) + "\" font-size=\"9\" fill=\"#555\">" + escape(label) +
           "</text></g>\n";
  }
  for (const Node &n : nodes) {
    bool kernel = n.id[0] == 'k';
    const char *fill = kernel ? kindColour(n.kind) : "#ffffff";
    svg += "<g class=\"" + std::string(kernel ? "kernel" : "io") + "\" id=\"" + n.id +
           "\" data-kind=\"" + escape(n.kind) + "\"><title>" + escape(n.title) +
           "</title><rect x=\"" + number(n.x()) + "\" y=\"" + number(n.y()) + "\" width=\"" +
           std::to_string(kBoxWidth) + "\" height=\"" + std::to_string(kBoxHeight) +
           "\" rx=\"5\" fill=\"" + fill + "\" stroke=\"#333\"/><text x=\"" + number(n.x() + 6) +
           "\" y=\"" + number(n.y() + 16) + "\" font-size=\"11\" font-weight=\"bold\">" +
           escape(truncated(n.line1, 36)) + "</text><text x=\"" + number(n.x() + 6) + "\" y=\"" +
           number(n.y() + 32) + "\" font-size=\"10\">" + escape(truncated(n.line2, 40)) +
           "</text></g>\n";
  }
  svg += "</svg>\n";
  return svg;
}

//===----------------------------------------------------------------------===//
// The memory plan
//===----------------------------------------------------------------------===//

std::string memoryPlanSvg(const json &memory) {
  const json &plan = memory["plan"];
  int64_t arena = memory["arena_bytes"], steps = 1;
  for (const json &b : plan)
    steps = std::max<int64_t>(steps, b["last"].get<int64_t>() + 1);
  // The step where the most bytes are live.
  std::vector<int64_t> live(static_cast<size_t>(steps) + 1, 0);
  for (const json &b : plan)
    for (int64_t s = b["first"]; s <= b["last"].get<int64_t>(); ++s)
      live[static_cast<size_t>(s)] += b["bytes"].get<int64_t>();
  int64_t peakStep = std::max_element(live.begin(), live.end()) - live.begin();
  const double left = 70, top = 20, width = 860, height = 360;
  double xs = width / static_cast<double>(steps);
  double ys = height / static_cast<double>(std::max<int64_t>(arena, 1));
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"memory-plan\" width=\"" +
                    number(left + width + 20) + "\" height=\"" + number(top + height + 50) +
                    "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  svg += "<rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(width) +
         "\" height=\"" + number(height) + "\" fill=\"#f7f7f7\" stroke=\"#999\"/>\n";
  size_t i = 0;
  for (const json &b : plan) {
    int64_t first = b["first"], last = b["last"], offset = b["offset"], bytes = b["bytes"];
    svg += "<rect class=\"buffer\" x=\"" + number(left + first * xs) + "\" y=\"" +
           number(top + height - (offset + bytes) * ys) + "\" width=\"" +
           number(std::max(1.0, (last - first + 1) * xs)) + "\" height=\"" +
           number(std::max(1.0, bytes * ys)) + "\" fill=\"#4e79a7\" fill-opacity=\"0.6\" " +
           "stroke=\"#1f3b5a\" stroke-width=\"0.5\"><title>" +
           escape("buffer #" + std::to_string(i) + ": " + std::to_string(bytes) + " bytes at " +
                  std::to_string(offset) + ", live in steps " + std::to_string(first) + "-" +
                  std::to_string(last)) +
           "</title></rect>\n";
    ++i;
  }
  double px = left + (peakStep + 0.5) * xs;
  svg += "<line id=\"peak\" x1=\"" + number(px) + "\" y1=\"" + number(top) + "\" x2=\"" +
         number(px) + "\" y2=\"" + number(top + height) +
         "\" stroke=\"#e15759\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n";
  svg += "<text x=\"" + number(std::min(px + 4, left + width - 220)) + "\" y=\"" +
         number(top + 14) + "\" fill=\"#e15759\">" +
         escape("peak: " + mib(live[static_cast<size_t>(peakStep)]) + " live at step " +
                std::to_string(peakStep)) +
         "</text>\n";
  svg += "<text x=\"" + number(left) + "\" y=\"" + number(top + height + 18) + "\">step 0</text>";
  svg += "<text x=\"" + number(left + width - 60) + "\" y=\"" + number(top + height + 18) +
         "\">step " + std::to_string(steps - 1) + "</text>";
  svg += "<text x=\"" + number(left + width / 2 - 60) + "\" y=\"" + number(top + height + 36) +
         "\">program steps \xe2\x86\x92</text>";
  svg += "<text x=\"4\" y=\"" + number(top + 10) + "\">" + escape(mib(arena)) + "</text>";
  svg += "<text x=\"4\" y=\"" + number(top + height) + "\">0</text>\n";
  svg += "</svg>\n";
  return svg;
}

//===----------------------------------------------------------------------===//
// Kernel times (tcc run --profile-json, scripts/gpu_kernel_times.py)
//===----------------------------------------------------------------------===//

/// One horizontal bar per kernel, most expensive first: length the kernel's
/// share of the time in kernels, coloured by kind; its hover title gives the
/// kind, detail, times, source ops and Python lines.
std::string kernelTimesSvg(const json &profile, const json &kernelList) {
  struct Bar {
    int64_t index;
    double mean, total;
    std::string kind, detail, sources, lines;
    int64_t calls;
  };
  std::vector<Bar> bars;
  double sum = 0, most = 0;
  for (const json &k : profile["kernels"]) {
    Bar b;
    b.index = k.value("index", int64_t(0));
    b.mean = k.value("mean_ms", 0.0);
    b.total = k.value("total_ms", 0.0);
    b.calls = k.value("calls", int64_t(0));
    b.kind = k.value("kind", std::string());
    b.detail = k.value("detail", std::string());
    // Sources from the profile, else from the report's kernel of that index.
    const json *src = k.contains("sources") ? &k : nullptr;
    if (!src && kernelList.is_array() && b.index >= 0 &&
        static_cast<size_t>(b.index) < kernelList.size())
      src = &kernelList[static_cast<size_t>(b.index)];
    if (src) {
      b.sources = joined(src->value("sources", json::array()), " ");
      b.lines = joined(src->value("lines", json::array()), " ");
    }
    sum += b.total;
    most = std::max(most, b.total);
    bars.push_back(std::move(b));
  }
  std::stable_sort(bars.begin(), bars.end(),
                   [](const Bar &a, const Bar &b) { return a.total > b.total; });
  const double labelWidth = 260, barArea = 520, rowHeight = 18, top = 10;
  double height = top + rowHeight * static_cast<double>(bars.size()) + 10;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"kernel-times\" width=\"" +
                    number(labelWidth + barArea + 170) + "\" height=\"" + number(height) +
                    "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  double y = top;
  for (const Bar &b : bars) {
    double share = sum > 0 ? 100.0 * b.total / sum : 0.0;
    double w = most > 0 ? std::max(1.0, barArea * b.total / most) : 1.0;
    std::string label = "#" + std::to_string(b.index) + " " + b.kind +
                        (b.detail.empty() ? "" : " [" + b.detail + "]");
    char times[96];
    std::snprintf(times, sizeof(times), "%.1f us (%.1f%%)", b.mean * 1000.0, share);
    std::string title = "kernel #" + std::to_string(b.index) + ": " + b.kind +
                        (b.detail.empty() ? "" : " [" + b.detail + "]") + "\nmean " + times +
                        ", " + std::to_string(b.calls) + " calls, total " +
                        number(b.total) + " ms\nsource ops: " + b.sources + "\nat: " + b.lines;
    svg += "<g class=\"time-bar\" data-index=\"" + std::to_string(b.index) + "\" data-kind=\"" +
           escape(b.kind) + "\" data-share=\"" + number(share) + "\"><title>" + escape(title) +
           "</title><text x=\"4\" y=\"" + number(y + 12) + "\">" +
           escape(truncated(label, 40)) + "</text><rect x=\"" + number(labelWidth) +
           "\" y=\"" + number(y + 2) + "\" width=\"" + number(w) + "\" height=\"" +
           number(rowHeight - 4) + "\" fill=\"" + kindColour(b.kind) +
           "\" stroke=\"#333\" stroke-width=\"0.5\"/><text x=\"" +
           number(labelWidth + w + 6) + "\" y=\"" + number(y + 12) + "\">" + escape(times) +
           "</text></g>\n";
    y += rowHeight;
  }
  svg += "</svg>\n";
  return svg;
}

//===----------------------------------------------------------------------===//
// Tables
//===----------------------------------------------------------------------===//

std::string operatorTable(const json &report) {
  std::string t = "<table id=\"operators\"><tr><th>count</th><th>status</th><th>operator</th>"
                  "<th>reasons</th></tr>\n";
  for (const json &op : report["operators"]) {
    bool refused = op["refused"].get<int64_t>() > 0;
    t += std::string("<tr class=\"") + (refused ? "refused" : "supported") + "\"><td>" +
         str(op["count"]) + "</td><td>" + (refused ? "refused " + str(op["refused"]) : "supported") +
         "</td><td>" + escape(str(op["name"])) + "</td><td>" +
         escape(joined(op["reasons"], "; ")) + "</td></tr>\n";
  }
  return t + "</table>\n";
}

std::string refusalList(const json &report) {
  std::string t = "<ul id=\"refusals\">\n";
  for (const json &r : report["refusals"])
    t += "<li><code>" + escape(str(r["location"])) + "</code>: " + escape(str(r["reason"])) +
         "</li>\n";
  return t + "</ul>\n";
}

std::string guardTable(const json &guards) {
  std::string t = "<table id=\"guards\"><tr><th></th><th>name</th><th>dtype</th><th>sizes</th></tr>\n";
  for (const char *group : {"inputs", "outputs"})
    for (const json &x : guards[group])
      t += std::string("<tr><td>") + group + "</td><td>" + escape(str(x["name"])) + "</td><td>" +
           escape(str(x["dtype"])) + "</td><td>[" + escape(joined(x["sizes"], ", ")) +
           "]</td></tr>\n";
  for (const auto &[name, s] : guards["symbols"].items())
    t += "<tr><td>symbol</td><td>" + escape(name) + "</td><td></td><td>[" +
         escape(str(s["min"])) + ", " + escape(str(s["max"])) + "]</td></tr>\n";
  return t + "</table>\n";
}

std::string legend() {
  std::string t = "<p class=\"legend\">";
  for (const char *kind : {"gemm", "conv", "attention", "row", "pool", "pointwise", "reduction",
                           "copy", "fill"})
    t += std::string("<span style=\"background:") + kindColour(kind) + "\">" + kind + "</span> ";
  return t + "</p>\n";
}

// Checks, once the page has loaded, that what the report describes is
// there, and records it (or any script error) on <body> for a test to read.
const char *kCheckScript = R"(
window.onerror = function (message) { document.body.setAttribute('data-error', String(message)); };
window.addEventListener('load', function () {
  var body = document.body;
  var kernels = document.querySelectorAll('#kernel-graph g.kernel').length;
  var edges = document.querySelectorAll('#kernel-graph g.edge').length;
  var buffers = document.querySelectorAll('#memory-plan rect.buffer').length;
  body.setAttribute('data-kernels', String(kernels));
  body.setAttribute('data-edges', String(edges));
  body.setAttribute('data-buffers', String(buffers));
  var timeBars = document.querySelectorAll('#kernel-times g.time-bar').length;
  body.setAttribute('data-time-bars', String(timeBars));
  var expected = Number(body.getAttribute('data-expected-kernels'));
  var expectedBars = Number(body.getAttribute('data-expected-time-bars') || '0');
  body.setAttribute('data-rendered', kernels !== expected ? 'missing kernels'
                                     : timeBars !== expectedBars ? 'missing time bars' : 'ok');
  body.setAttribute('data-load-ms', String(Math.round(performance.now())));
});
)";

} // namespace

namespace {

/// Why `profile` is not shaped as tcc run --profile-json writes it, or "".
/// The page reads every member it draws with these types; a file of another
/// shape is the user's mistake (or a planted file), not tcc's failure.
std::string profileShapeError(const json &profile) {
  if (!profile.is_object() || !profile.contains("kernels") || !profile["kernels"].is_array())
    return "not a kernel profile (tcc run --profile-json writes one): no \"kernels\" list";
  auto count = [](const json &o, const char *key) {
    return !o.contains(key) || (o[key].is_number_integer() && o[key].get<int64_t>() >= 0);
  };
  auto time = [](const json &o, const char *key) {
    // A kernel's milliseconds: finite, not negative, below a year.
    return !o.contains(key) || (o[key].is_number() && o[key].get<double>() >= 0 &&
                                o[key].get<double>() < 3.2e10);
  };
  auto text = [](const json &o, const char *key) {
    return !o.contains(key) || o[key].is_string();
  };
  auto texts = [](const json &o, const char *key) {
    if (!o.contains(key))
      return true;
    if (!o[key].is_array())
      return false;
    return std::all_of(o[key].begin(), o[key].end(), [](const json &x) { return x.is_string(); });
  };
  if (!count(profile, "calls") || !text(profile, "device") || !text(profile, "model"))
    return "not a kernel profile: \"calls\" must be a count, \"device\" and \"model\" text";
  size_t i = 0;
  for (const json &k : profile["kernels"]) {
    if (!k.is_object() || !count(k, "calls") || !time(k, "mean_ms") || !time(k, "total_ms") ||
        !text(k, "kind") || !text(k, "detail") || !texts(k, "sources") || !texts(k, "lines"))
      return "not a kernel profile: kernel entry " + std::to_string(i) +
             " needs \"calls\" as a count, \"mean_ms\" and \"total_ms\" as times in ms, "
             "\"kind\" and \"detail\" as text, \"sources\" and \"lines\" as lists of text";
    ++i;
  }
  return "";
}

} // namespace

std::string profileMismatch(const json &report, const json &profile) {
  if (std::string why = profileShapeError(profile); !why.empty())
    return why;
  size_t expected = report.contains("kernels") ? report["kernels"]["count"].get<size_t>() : 0;
  for (const json &k : profile["kernels"])
    if (!k.is_object() || !k.contains("index") || !k["index"].is_number_integer() ||
        k["index"].get<int64_t>() < 0 || k["index"].get<size_t>() >= expected)
      return "its kernel indices do not fit the " + std::to_string(expected) +
             " kernels of this model: it is another model's profile";
  if (profile["kernels"].size() != expected)
    return "it times " + std::to_string(profile["kernels"].size()) + " kernels, this model has " +
           std::to_string(expected) + ": it is another model's profile";
  return "";
}

std::string addProfile(json &report, const std::string &path) {
  // A regular file of a profile's size only: a FIFO would block, a device
  // or a huge file would be read without end.
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return "cannot read it";
  if (!S_ISREG(info.st_mode))
    return S_ISDIR(info.st_mode) ? "a directory, not a profile" : "not a regular file";
  if (info.st_size > kMaxProfileBytes)
    return "larger than a kernel profile can be (" + std::to_string(kMaxProfileBytes >> 20) +
           " MiB)";
  std::ifstream in(path);
  if (!in)
    return "cannot read it";
  json times = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (times.is_discarded())
    return "not JSON";
  if (std::string why = profileMismatch(report, times); !why.empty())
    return why;
  report["profile"] = std::move(times);
  return "";
}

std::string explainHtml(const json &report) {
  bool supported = report.value("supported", false);
  int64_t kernelCount = report.contains("kernels") ? report["kernels"]["count"].get<int64_t>() : 0;
  std::string title = report.value("title", "tcc explain: " + str(report["source"]));
  std::string h = "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
                  "<head>\n<meta charset=\"utf-8\"/>\n<title>" +
                  escape(title) + "</title>\n<style>\n"
                  "body { font-family: sans-serif; margin: 1.5em; color: #222; }\n"
                  "table { border-collapse: collapse; margin: 0.5em 0; }\n"
                  "td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }\n"
                  "tr.refused td { background: #fde0dc; }\n"
                  ".verdict-ok { color: #2a7a2a; } .verdict-no { color: #b22222; }\n"
                  ".legend span { padding: 1px 6px; border: 1px solid #333; border-radius: 3px; }\n"
                  ".scroll { overflow: auto; max-height: 80vh; border: 1px solid #ddd; }\n"
                  "</style>\n</head>\n<body data-expected-kernels=\"" +
                  std::to_string(kernelCount) + "\" data-expected-time-bars=\"" +
                  std::to_string(report.contains("profile") ? report["profile"]["kernels"].size()
                                                            : 0) +
                  "\">\n";
  h += "<h1>" + escape(title) + "</h1>\n";
  h += "<p>target " + escape(str(report["target"])) + ", precision " +
       escape(str(report["precision"])) +
       (report.contains("torch_version") ? ", exported by torch " + escape(str(report["torch_version"]))
                                         : std::string()) +
       "</p>\n";
  size_t refused = report.contains("refusals") ? report["refusals"].size() : 0;
  h += std::string("<p id=\"verdict\" class=\"") + (supported ? "verdict-ok" : "verdict-no") +
       "\">" +
       (report.contains("verdict") ? escape(str(report["verdict"]))
        : supported ? "supported: tcc compiles every operator of this model"
                  : refused ? "not supported: " + std::to_string(refused) + " operator node" +
                                  (refused == 1 ? "" : "s") + " refused"
                            : std::string("not supported")) +
       "</p>\n";
  for (const json &e : report["errors"])
    h += "<p class=\"verdict-no\">error: " + escape(str(e["location"])) + " " +
         escape(str(e["message"])) + "</p>\n";
  if (report.contains("operators")) {
    h += "<h2>Operators</h2>\n" + operatorTable(report);
    if (refused)
      h += "<h2>Refused</h2>\n" + refusalList(report);
  }
  if (report.contains("kernels")) {
    h += "<h2>Kernels (" + std::to_string(kernelCount) + ")</h2>\n";
    h += "<p>Boxes are kernels in layers by their longest path from the inputs; hover for "
         "the source ops and Python lines. Edges are the buffers between them, with the "
         "shape and dtype the reader sees.</p>\n" +
         legend();
    h += "<div class=\"scroll\">\n" + kernelGraphSvg(report["kernels"]) + "</div>\n";
  }
  if (report.contains("profile")) {
    const json &p = report["profile"];
    double sum = 0;
    for (const json &k : p["kernels"])
      sum += k.value("total_ms", 0.0);
    int64_t calls = p.value("calls", int64_t(0));
    char per[64];
    std::snprintf(per, sizeof(per), "%.1f us", calls ? sum * 1000.0 / calls : 0.0);
    h += "<h2>Kernel times</h2>\n<p id=\"profile-summary\">measured on " +
         escape(p.value("device", std::string("?"))) + " over " + std::to_string(calls) +
         " calls: " + per +
         " per call in kernels. One bar per kernel, most expensive first, its length the "
         "kernel's time (the label: mean per call and share); hover for the source ops and "
         "Python lines.</p>\n" +
         legend() + "<div class=\"scroll\">\n" +
         kernelTimesSvg(p, report.contains("kernels") ? report["kernels"].value("list", json::array())
                                                      : json::array()) +
         "</div>\n";
  }
  if (report.contains("memory")) {
    const json &m = report["memory"];
    h += "<h2>Memory plan</h2>\n<p>arena " + mib(m["arena_bytes"]) + ", peak live " +
         mib(m["peak_bytes"]) + ", " + str(m["buffers"]) +
         " buffers: each bar is one buffer, over the program steps it is live in, at its "
         "offset in the arena.</p>\n" +
         memoryPlanSvg(m);
  }
  if (report.contains("guards"))
    h += "<h2>Guards</h2>\n" + guardTable(report["guards"]);
  h += "<script>//<![CDATA[" + std::string(kCheckScript) + "//]]></script>\n</body>\n</html>\n";
  return h;
}

} // namespace tcc
