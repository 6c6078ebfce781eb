//===- OneDnnGemm.cpp - the CPU path's products with weights on oneDNN ----===//
#include "tcc/Runtime/OneDnnGemm.h"

#include "tcc/Runtime/CublasLtGemm.h"

#include "OneDnnLibrary.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

using namespace tcc::cpu::onednn;

namespace {

/// One product shape's primitive (none where oneDNN has none: OpenBLAS runs).
struct GemmPrimitive {
  WeightedPrimitive matmul;
  dnnl_memory_desc_t a{}, bias{}, c{}, residual{};
  bool residualIsSum = false;
};

PrimitiveCache<GemmPrimitive> primitives;

void create(const OneDnn &lib, const tcc::cpu::GemmArgs &g, GemmPrimitive &p) {
  dnnl_dims_t aDims = {g.m, g.k}, bDims = {g.k, g.n}, cDims = {g.m, g.n}, biasDims = {1, g.n};
  dnnl_dims_t aStrides = {g.transA ? 1 : g.lda, g.transA ? g.lda : 1};
  dnnl_dims_t bStrides = {g.transB ? 1 : g.ldb, g.transB ? g.ldb : 1};
  dnnl_dims_t cStrides = {g.ldc, 1}, biasStrides = {g.n, 1};
  dnnl_memory_desc_t b, anyB;
  if (!ok(lib.mdByStrides(&p.a, 2, aDims, dnnl_f32, aStrides)) ||
      !ok(lib.mdByStrides(&b, 2, bDims, dnnl_f32, bStrides)) ||
      !ok(lib.mdByTag(&anyB, 2, bDims, dnnl_f32, dnnl_format_tag_any)) ||
      !ok(lib.mdByStrides(&p.c, 2, cDims, dnnl_f32, cStrides)) ||
      !ok(lib.mdByStrides(&p.bias, 2, biasDims, dnnl_f32, biasStrides)))
    return;
  dnnl_matmul_desc_t desc;
  // A bound weight in the layout oneDNN picks (packed once per binding); any
  // other b as it is (a reorder per call would cost more than it saves).
  if (!ok(lib.matmulDesc(&desc, &p.a, g.bIsBoundWeight ? &anyB : &b,
                         g.bias ? &p.bias : nullptr, &p.c)))
    return;
  // tcc_gemm's order: the activation on a·b + bias, then the residual.
  dnnl_post_ops_t ops = nullptr;
  bool built = ok(lib.postOpsCreate(&ops));
  if (built && (g.activation & tcc::kGemmEpilogueRelu))
    built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
  else if (built && (g.activation & tcc::kGemmEpilogueGelu))
    built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_gelu_tanh, 0.0f, 0.0f));
  else if (built && (g.activation & tcc::kGemmEpilogueGeluErf))
    built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_gelu_erf, 0.0f, 0.0f));
  if (built && g.residual) {
    p.residualIsSum = g.residual == g.c && g.ldr == g.ldc;
    dnnl_dims_t rStrides = {g.ldr, 1};
    built = p.residualIsSum ? ok(lib.appendSum(ops, 1.0f))
                            : ok(lib.mdByStrides(&p.residual, 2, cDims, dnnl_f32, rStrides)) &&
                                  ok(lib.appendBinary(ops, dnnl_binary_add, &p.residual));
  }
  if (!built) {
    if (ops)
      lib.postOpsDestroy(ops);
    return;
  }
  // Under a ThreadShare, other threads may run products at the same time:
  // each run gets a scratchpad of its thread's own.
  p.matmul.create(lib, &desc, ops, b, threadShare() != 0);
}

} // namespace

bool tcc::cpu::oneDnnGemm(const GemmArgs &g) {
  const OneDnn *lib = library();
  if (!lib || g.m <= 0 || g.n <= 0 || g.k <= 0)
    return false;
  dnnl_stream_t stream = threadStream(*lib);
  if (!stream)
    return false;
  std::vector<int64_t> key = {g.m,      g.n,      g.k,           g.lda,
                              g.transA, g.ldb,    g.transB,      g.ldc,
                              g.ldr,    g.bias != nullptr, g.activation, g.bIsBoundWeight,
                              g.residual == nullptr ? 0 : g.residual == g.c ? 1 : 2,
                              threadShare()};
  std::shared_ptr<GemmPrimitive> p =
      primitives.get(key, [&](GemmPrimitive &made) { create(*lib, g, made); });
  if (!p->matmul.primitive)
    return false;
  std::shared_ptr<std::vector<float>> kept;
  thread_local std::vector<float> scratch;
  const float *packed =
      p->matmul.weightsFor(*lib, stream, g.b, g.bIsBoundWeight, kept, scratch);
  if (!packed)
    return false;
  applyThreadCount(*lib);
  ExecArgs args(*lib);
  args.add(DNNL_ARG_SRC, p->a, g.a);
  args.add(DNNL_ARG_WEIGHTS, p->matmul.weights, packed);
  args.add(DNNL_ARG_DST, p->c, g.c);
  if (g.bias)
    args.add(DNNL_ARG_BIAS, p->bias, g.bias);
  // The residual follows the activation's post-op, if any.
  if (g.residual && !p->residualIsSum)
    args.add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(g.activation ? 1 : 0) | DNNL_ARG_SRC_1, p->residual,
             g.residual);
  thread_local std::vector<char> scratchpad;
  if (p->matmul.scratchpadBytes) {
    scratchpad.resize(p->matmul.scratchpadBytes);
    args.add(DNNL_ARG_SCRATCHPAD, p->matmul.scratchpad, scratchpad.data());
  }
  if (!args.complete())
    return false;
  if (!args.run(stream, p->matmul.primitive)) {
    std::fprintf(stderr, "tcc: internal error: oneDNN failed to run a %lldx%lldx%lld product "
                         "it accepted\n",
                 (long long)g.m, (long long)g.n, (long long)g.k);
    std::abort();
  }
  return true;
}
