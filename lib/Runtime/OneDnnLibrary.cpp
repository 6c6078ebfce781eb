//===- OneDnnLibrary.cpp - oneDNN's C API, opened with dlopen -------------===//
#include "OneDnnLibrary.h"

#include "tcc/Runtime/OneDnnConv.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace tcc::cpu::onednn;

namespace {

template <typename Fn> bool resolve(void *handle, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return fn != nullptr;
}

const OneDnn *load() {
  const char *name = std::getenv("TCC_DNNL_LIBRARY");
  if (!name || !*name)
    name = "libdnnl.so.2";
  // oneDNN's OpenMP runtime (libgomp) reads its settings when it loads, here.
  // Its default keeps idle threads spinning for a while after each parallel
  // region; beside another runtime's threads (PyTorch's own libgomp in the
  // same process) that spin takes the cores the other needs. Unless the user
  // chose, idle threads here wait passively; the process's environment is
  // left as it was.
  const char *policy = std::getenv("TCC_OMP_WAIT_POLICY");
  bool setPolicy = !std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT");
  if (setPolicy)
    setenv("OMP_WAIT_POLICY", policy ? policy : "PASSIVE", 1);
  void *handle = std::strcmp(name, "none") ? dlopen(name, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (setPolicy)
    unsetenv("OMP_WAIT_POLICY");
  auto *lib = new OneDnn();
  bool ok = handle && resolve(handle, "dnnl_engine_create", lib->engineCreate) &&
            resolve(handle, "dnnl_stream_create", lib->streamCreate) &&
            resolve(handle, "dnnl_stream_destroy", lib->streamDestroy) &&
            resolve(handle, "dnnl_stream_wait", lib->streamWait) &&
            resolve(handle, "dnnl_memory_desc_init_by_strides", lib->mdByStrides) &&
            resolve(handle, "dnnl_memory_desc_init_by_tag", lib->mdByTag) &&
            resolve(handle, "dnnl_memory_desc_get_size", lib->mdSize) &&
            resolve(handle, "dnnl_memory_desc_equal", lib->mdEqual) &&
            resolve(handle, "dnnl_dilated_convolution_forward_desc_init", lib->convDesc) &&
            resolve(handle, "dnnl_matmul_desc_init", lib->matmulDesc) &&
            resolve(handle, "dnnl_primitive_attr_create", lib->attrCreate) &&
            resolve(handle, "dnnl_primitive_attr_destroy", lib->attrDestroy) &&
            resolve(handle, "dnnl_primitive_attr_set_post_ops", lib->attrSetPostOps) &&
            resolve(handle, "dnnl_post_ops_create", lib->postOpsCreate) &&
            resolve(handle, "dnnl_post_ops_destroy", lib->postOpsDestroy) &&
            resolve(handle, "dnnl_post_ops_append_eltwise", lib->appendEltwise) &&
            resolve(handle, "dnnl_post_ops_append_binary", lib->appendBinary) &&
            resolve(handle, "dnnl_post_ops_append_sum", lib->appendSum) &&
            resolve(handle, "dnnl_primitive_desc_create", lib->pdCreate) &&
            resolve(handle, "dnnl_reorder_primitive_desc_create", lib->reorderPdCreate) &&
            resolve(handle, "dnnl_primitive_desc_destroy", lib->pdDestroy) &&
            resolve(handle, "dnnl_primitive_desc_query_md", lib->pdQueryMd) &&
            resolve(handle, "dnnl_primitive_create", lib->primitiveCreate) &&
            resolve(handle, "dnnl_primitive_destroy", lib->primitiveDestroy) &&
            resolve(handle, "dnnl_primitive_execute", lib->execute) &&
            resolve(handle, "dnnl_memory_create", lib->memoryCreate) &&
            resolve(handle, "dnnl_memory_destroy", lib->memoryDestroy) &&
            resolve(handle, "dnnl_primitive_attr_set_scratchpad_mode",
                    lib->attrSetScratchpadMode) &&
            resolve(handle, "dnnl_primitive_attr_set_output_scales", lib->attrSetOutputScales) &&
            resolve(handle, "dnnl_primitive_attr_set_zero_points", lib->attrSetZeroPoints) &&
            lib->engineCreate(&lib->engine, dnnl_cpu, 0) == dnnl_success;
  if (!ok) {
    const char *why = handle ? "a function or the CPU engine is missing" : dlerror();
    std::fprintf(stderr,
                 "tcc: %s not usable (%s); the CPU path's convolutions run on tcc's own "
                 "loops, much slower, and its matrix products on OpenBLAS alone. Install "
                 "oneDNN (Debian: libdnnl2).\n",
                 name, why ? why : "not opened");
    delete lib;
    return nullptr;
  }
  resolve(handle, "omp_set_num_threads", lib->setThreads);
  resolve(handle, "omp_get_max_threads", lib->getThreads);
  if (const char *threads = std::getenv("TCC_NUM_THREADS"); threads && std::atoi(threads) > 0)
    lib->threads = std::atoi(threads);
  return lib;
}


/// Bumped whenever bound weights change (boundWeightsChanged).
std::atomic<uint64_t> boundWeightsEpoch{1};

} // namespace

const OneDnn *tcc::cpu::onednn::library() {
  static const OneDnn *lib = load();
  return lib;
}

uint64_t tcc::cpu::onednn::weightsEpoch() { return boundWeightsEpoch.load(); }

void tcc::cpu::boundWeightsChanged() { boundWeightsEpoch.fetch_add(1); }

namespace {
thread_local int currentShare = 0; ///< ThreadShare's count on this thread, 0 outside one
} // namespace

void tcc::cpu::onednn::applyThreadCount(const OneDnn &lib) {
  const int threads = currentShare ? currentShare : lib.threads;
  if (threads && lib.setThreads)
    lib.setThreads(threads);
}

int tcc::cpu::onednn::threadShare() { return currentShare; }

tcc::cpu::onednn::ThreadShare::ThreadShare(int threads) : previousShare_(currentShare) {
  const OneDnn *lib = library();
  if (lib && lib->getThreads)
    previousThreads_ = lib->getThreads();
  currentShare = threads;
}

tcc::cpu::onednn::ThreadShare::~ThreadShare() {
  currentShare = previousShare_;
  const OneDnn *lib = library();
  if (lib && lib->setThreads && previousThreads_ > 0)
    lib->setThreads(previousThreads_);
}

/// A stream per calling thread (a stream is not for concurrent use).
dnnl_stream_t tcc::cpu::onednn::threadStream(const OneDnn &lib) {
  struct Holder {
    dnnl_stream_t stream = nullptr;
    ~Holder() {
      if (stream)
        library()->streamDestroy(stream);
    }
  };
  thread_local Holder holder;
  if (!holder.stream &&
      lib.streamCreate(&holder.stream, lib.engine, dnnl_stream_default_flags) != dnnl_success)
    holder.stream = nullptr;
  return holder.stream;
}


void WeightedPrimitive::create(const OneDnn &lib, const_dnnl_op_desc_t desc,
                               dnnl_post_ops_t ops, const dnnl_memory_desc_t &user,
                               bool userScratchpad) {
  userWeights = user;
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  bool built = ops && ok(lib.attrCreate(&attr)) && ok(lib.attrSetPostOps(attr, ops)) &&
               (!userScratchpad ||
                ok(lib.attrSetScratchpadMode(attr, dnnl_scratchpad_mode_user))) &&
               ok(lib.pdCreate(&pd, desc, attr, lib.engine, nullptr));
  if (ops)
    lib.postOpsDestroy(ops);
  if (attr)
    lib.attrDestroy(attr);
  if (!built)
    return;
  weights = *lib.pdQueryMd(pd, dnnl_query_weights_md, 0);
  weightFloats = lib.mdSize(&weights) / sizeof(float);
  if (userScratchpad) {
    scratchpad = *lib.pdQueryMd(pd, dnnl_query_scratchpad_md, 0);
    scratchpadBytes = lib.mdSize(&scratchpad);
  }
  if (!ok(lib.primitiveCreate(&primitive, pd)))
    primitive = nullptr;
  lib.pdDestroy(pd);
  if (!primitive || lib.mdEqual(&userWeights, &weights))
    return;
  reorder = createReorder(lib, userWeights, weights);
  if (!reorder)
    primitive = nullptr; // (kept: a primitive oneDNN made but that cannot be fed)
}

void tcc::cpu::onednn::destroyPrimitive(dnnl_primitive_t p) {
  if (p)
    library()->primitiveDestroy(p);
}

dnnl_primitive_t tcc::cpu::onednn::createReorder(const OneDnn &lib,
                                                 const dnnl_memory_desc_t &from,
                                                 const dnnl_memory_desc_t &to) {
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t reorder = nullptr;
  if (!ok(lib.reorderPdCreate(&pd, &from, lib.engine, &to, lib.engine, nullptr)) ||
      !ok(lib.primitiveCreate(&reorder, pd)))
    reorder = nullptr;
  if (pd)
    lib.pdDestroy(pd);
  return reorder;
}

bool tcc::cpu::onednn::runReorder(const OneDnn &lib, dnnl_stream_t stream,
                                  dnnl_primitive_t reorder, const dnnl_memory_desc_t &from,
                                  const void *in, const dnnl_memory_desc_t &to, void *out) {
  ExecArgs args(lib);
  args.add(DNNL_ARG_FROM, from, in);
  args.add(DNNL_ARG_TO, to, out);
  return args.complete() && args.run(stream, reorder);
}

ExecArgs::~ExecArgs() {
  for (const dnnl_exec_arg_t &a : args_)
    if (a.memory)
      lib_.memoryDestroy(a.memory);
}

void ExecArgs::add(int arg, const dnnl_memory_desc_t &md, const void *data) {
  dnnl_memory_t memory = nullptr;
  if (!ok(lib_.memoryCreate(&memory, &md, lib_.engine, const_cast<void *>(data)))) {
    memory = nullptr;
    complete_ = false;
  }
  args_.push_back({arg, memory});
}

bool ExecArgs::run(dnnl_stream_t stream, dnnl_primitive_t primitive) {
  return complete_ &&
         ok(lib_.execute(primitive, stream, static_cast<int>(args_.size()), args_.data())) &&
         ok(lib_.streamWait(stream));
}

const float *WeightedPrimitive::weightsFor(const OneDnn &lib, dnnl_stream_t stream,
                                           const float *user, bool bound,
                                           std::shared_ptr<std::vector<float>> &hold,
                                           std::vector<float> &scratch) const {
  if (!reorder)
    return user;
  if (bound)
    return keptWeights(lib, stream, reorder, userWeights, user, weights, weightFloats, hold);
  scratch.resize(weightFloats);
  return runReorder(lib, stream, reorder, userWeights, user, weights, scratch.data())
             ? scratch.data()
             : nullptr;
}

namespace {
struct KeptCopy {
  dnnl_memory_desc_t layout;
  std::shared_ptr<std::vector<float>> data;
};
std::mutex keptMutex;
std::map<const void *, std::vector<KeptCopy>> keptCopies;
uint64_t keptEpoch = 0; ///< the epoch the copies above were last swept at
} // namespace

const float *tcc::cpu::onednn::keptWeights(const OneDnn &lib, dnnl_stream_t stream,
                                           dnnl_primitive_t reorder,
                                           const dnnl_memory_desc_t &userLayout,
                                           const float *user, const dnnl_memory_desc_t &layout,
                                           size_t floats,
                                           std::shared_ptr<std::vector<float>> &hold) {
  std::lock_guard<std::mutex> lock(keptMutex);
  const uint64_t epoch = weightsEpoch();
  if (keptEpoch != epoch) { // weights were bound again: every copy is stale
    keptCopies.clear();
    keptEpoch = epoch;
  }
  std::vector<KeptCopy> &copies = keptCopies[user];
  for (const KeptCopy &c : copies)
    if (lib.mdEqual(&c.layout, &layout)) {
      hold = c.data;
      return hold->data();
    }
  auto data = std::make_shared<std::vector<float>>(floats);
  if (!runReorder(lib, stream, reorder, userLayout, user, layout, data->data()))
    return nullptr;
  copies.push_back({layout, data});
  hold = std::move(data);
  return hold->data();
}
