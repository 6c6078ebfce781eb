//===- FuzzKernelProfile.cpp - libFuzzer: a kernel profile in the page ----===//
//
// tcc inspect/explain --html --profile FILE read a JSON profile that anyone
// can hand them (tcc run --profile-json wrote it, or someone else did). The
// first byte picks how many kernels the model has (1 to 8); the rest is the
// profile. profileMismatch must refuse what does not fit, and explainHtml
// must draw what does without throwing.
//
//===----------------------------------------------------------------------===//
#include "ExplainHtml.h"

#include <cstddef>
#include <cstdint>
#include <string>

using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t kernels = 1 + data[0] % 8;
  json list = json::array();
  for (size_t i = 0; i < kernels; ++i)
    list.push_back({{"kind", i % 2 ? "gemm" : "pointwise"},
                    {"detail", "kernel " + std::to_string(i)},
                    {"sources", json::array({"aten.add"})},
                    {"lines", json::array({"model.py:" + std::to_string(i + 1)})}});
  json report = {{"title", "fuzz"},
                 {"source", "model.pt2"},
                 {"target", "cpu"},
                 {"precision", "fp32"},
                 {"supported", true},
                 {"errors", json::array()},
                 {"kernels", {{"count", kernels}, {"list", list}}}};
  json profile = json::parse(data + 1, data + size, nullptr, /*allow_exceptions=*/false);
  if (profile.is_discarded())
    return 0;
  if (!tcc::profileMismatch(report, profile).empty())
    return 0;
  report["profile"] = std::move(profile);
  (void)tcc::explainHtml(report);
  return 0;
}
