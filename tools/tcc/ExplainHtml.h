//===- ExplainHtml.h - the explain report as one self-contained HTML page -===//
#ifndef TCC_TOOLS_TCC_EXPLAINHTML_H
#define TCC_TOOLS_TCC_EXPLAINHTML_H

#include <nlohmann/json.hpp>

#include <string>

namespace tcc {

/// The report of `tcc explain` (docs/EXPLAIN.md) as one HTML page that loads
/// nothing else: the verdict, the operator table and the refusals, the
/// kernel graph as an SVG (kernels as boxes coloured by kind, their source
/// ops and Python lines on hover, the buffers between them as edges labelled
/// with shape and dtype), the memory plan as an SVG plot (buffers as bars
/// over the program's steps against their arena offset, the peak marked) and
/// the guards. Well-formed XML, so that a test can parse it.
/// With a "profile" member (the JSON of tcc run --profile-json), the page
/// also has the kernels' times as a bar chart, most expensive first.
std::string explainHtml(const nlohmann::json &report);

/// Why `profile` (tcc run --profile-json) cannot be the report's kernels'
/// times (another model's, or not shaped as a profile), or "" when it fits:
/// explainHtml draws a profile that fits without failing.
std::string profileMismatch(const nlohmann::json &report, const nlohmann::json &profile);

/// The largest profile file read: ~200 bytes a kernel, so a million
/// kernels fit.
constexpr long long kMaxProfileBytes = 256ll << 20;

/// Reads the times at `path` into report["profile"] (--profile of tcc
/// inspect/explain --html), or says why not ("" when done).
std::string addProfile(nlohmann::json &report, const std::string &path);

} // namespace tcc

#endif // TCC_TOOLS_TCC_EXPLAINHTML_H
