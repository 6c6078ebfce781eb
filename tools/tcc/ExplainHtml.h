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
std::string explainHtml(const nlohmann::json &report);

} // namespace tcc

#endif // TCC_TOOLS_TCC_EXPLAINHTML_H
