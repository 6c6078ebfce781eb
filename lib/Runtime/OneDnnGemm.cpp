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

/// One product shape's primitive (null where oneDNN has none: OpenBLAS runs).
struct GemmPrimitive {
  dnnl_primitive_t matmul = nullptr, reorder = nullptr; ///< reorder: b → packed
  dnnl_memory_desc_t a{}, b{}, packedB{}, bias{}, c{}, residual{};
  size_t packedFloats = 0;
  bool residualIsSum = false;
  struct Kept {
    uint64_t epoch = 0;
    std::shared_ptr<std::vector<float>> data;
  };
  std::map<const void *, Kept> kept; ///< by bound weight
};

std::mutex cacheMutex;
std::map<std::vector<int64_t>, std::unique_ptr<GemmPrimitive>> primitives;

void create(const OneDnn &lib, const tcc::cpu::GemmArgs &g, GemmPrimitive &p) {
  dnnl_dims_t aDims = {g.m, g.k}, bDims = {g.k, g.n}, cDims = {g.m, g.n}, biasDims = {1, g.n};
  dnnl_dims_t aStrides = {g.transA ? 1 : g.lda, g.transA ? g.lda : 1};
  dnnl_dims_t bStrides = {g.transB ? 1 : g.ldb, g.transB ? g.ldb : 1};
  dnnl_dims_t cStrides = {g.ldc, 1}, biasStrides = {g.n, 1};
  dnnl_memory_desc_t anyB;
  if (!ok(lib.mdByStrides(&p.a, 2, aDims, dnnl_f32, aStrides)) ||
      !ok(lib.mdByStrides(&p.b, 2, bDims, dnnl_f32, bStrides)) ||
      !ok(lib.mdByTag(&anyB, 2, bDims, dnnl_f32, dnnl_format_tag_any)) ||
      !ok(lib.mdByStrides(&p.c, 2, cDims, dnnl_f32, cStrides)) ||
      !ok(lib.mdByStrides(&p.bias, 2, biasDims, dnnl_f32, biasStrides)))
    return;
  dnnl_matmul_desc_t desc;
  if (!ok(lib.matmulDesc(&desc, &p.a, &anyB, g.bias ? &p.bias : nullptr, &p.c)))
    return;
  // tcc_gemm's order: the activation on a·b + bias, then the residual.
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_post_ops_t ops = nullptr;
  bool built = ok(lib.attrCreate(&attr)) && ok(lib.postOpsCreate(&ops));
  if (built && (g.activation & tcc::kGemmEpilogueRelu))
    built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
  else if (built && (g.activation & tcc::kGemmEpilogueGelu))
    built = ok(lib.appendEltwise(ops, 1.0f, dnnl_eltwise_gelu_tanh, 0.0f, 0.0f));
  if (built && g.residual) {
    p.residualIsSum = g.residual == g.c && g.ldr == g.ldc;
    dnnl_dims_t rStrides = {g.ldr, 1};
    built = p.residualIsSum ? ok(lib.appendSum(ops, 1.0f))
                            : ok(lib.mdByStrides(&p.residual, 2, cDims, dnnl_f32, rStrides)) &&
                                  ok(lib.appendBinary(ops, dnnl_binary_add, &p.residual));
  }
  dnnl_primitive_desc_t pd = nullptr;
  built = built && ok(lib.attrSetPostOps(attr, ops)) &&
          ok(lib.pdCreate(&pd, &desc, attr, lib.engine, nullptr));
  if (ops)
    lib.postOpsDestroy(ops);
  if (attr)
    lib.attrDestroy(attr);
  if (!built)
    return;
  p.packedB = *lib.pdQueryMd(pd, dnnl_query_weights_md, 0);
  p.packedFloats = lib.mdSize(&p.packedB) / sizeof(float);
  bool primitive = ok(lib.primitiveCreate(&p.matmul, pd));
  lib.pdDestroy(pd);
  if (!primitive) {
    p.matmul = nullptr;
    return;
  }
  if (!lib.mdEqual(&p.b, &p.packedB)) {
    dnnl_primitive_desc_t rpd = nullptr;
    if (!ok(lib.reorderPdCreate(&rpd, &p.b, lib.engine, &p.packedB, lib.engine, nullptr)) ||
        !ok(lib.primitiveCreate(&p.reorder, rpd)))
      p.matmul = nullptr;
    if (rpd)
      lib.pdDestroy(rpd);
  }
}

bool pack(const OneDnn &lib, dnnl_stream_t stream, const GemmPrimitive &p, const float *b,
          float *out) {
  Memory from(lib, p.b, b), to(lib, p.packedB, out);
  if (!from.memory || !to.memory)
    return false;
  dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from.memory}, {DNNL_ARG_TO, to.memory}};
  return ok(lib.execute(p.reorder, stream, 2, args)) && ok(lib.streamWait(stream));
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
                              g.ldr,    g.bias != nullptr, g.activation,
                              g.residual == nullptr ? 0 : g.residual == g.c ? 1 : 2};
  GemmPrimitive *p;
  std::shared_ptr<std::vector<float>> packed;
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    std::unique_ptr<GemmPrimitive> &slot = primitives[key];
    if (!slot) {
      slot = std::make_unique<GemmPrimitive>();
      create(*lib, g, *slot);
    }
    p = slot.get();
    if (!p->matmul)
      return false;
    if (p->reorder) {
      GemmPrimitive::Kept &kept = p->kept[g.b];
      uint64_t epoch = weightsEpoch();
      if (kept.epoch != epoch) {
        auto data = std::make_shared<std::vector<float>>(p->packedFloats);
        if (!pack(*lib, stream, *p, g.b, data->data()))
          return false;
        kept = {epoch, std::move(data)};
      }
      packed = kept.data;
    }
  }
  applyThreadCount(*lib);
  Memory a(*lib, p->a, g.a), b(*lib, p->packedB, packed ? packed->data() : g.b),
      c(*lib, p->c, g.c);
  std::vector<dnnl_exec_arg_t> args = {
      {DNNL_ARG_SRC, a.memory}, {DNNL_ARG_WEIGHTS, b.memory}, {DNNL_ARG_DST, c.memory}};
  std::unique_ptr<Memory> bias, residual;
  if (g.bias) {
    bias = std::make_unique<Memory>(*lib, p->bias, g.bias);
    args.push_back({DNNL_ARG_BIAS, bias->memory});
  }
  if (g.residual && !p->residualIsSum) {
    residual = std::make_unique<Memory>(*lib, p->residual, g.residual);
    // The residual follows the activation's post-op, if any.
    int index = g.activation ? 1 : 0;
    args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1, residual->memory});
  }
  for (const dnnl_exec_arg_t &arg : args)
    if (!arg.memory)
      return false;
  if (!ok(lib->execute(p->matmul, stream, static_cast<int>(args.size()), args.data())) ||
      !ok(lib->streamWait(stream))) {
    std::fprintf(stderr, "tcc: internal error: oneDNN failed to run a %lldx%lldx%lld product "
                         "it accepted\n",
                 (long long)g.m, (long long)g.n, (long long)g.k);
    std::abort();
  }
  return true;
}
