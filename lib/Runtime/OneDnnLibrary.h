//===- OneDnnLibrary.h - oneDNN's C API, opened with dlopen ---------------===//
//
// What the CPU path's oneDNN calls share (OneDnnConv.cpp, OneDnnGemm.cpp,
// OneDnnQConv.cpp):
// the library, opened once (TCC_DNNL_LIBRARY; "none" takes none), a stream
// per calling thread, memory objects over caller pointers, and the epoch of
// bound weights that kept (reordered) weights are checked against.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_ONEDNNLIBRARY_H
#define TCC_LIB_RUNTIME_ONEDNNLIBRARY_H

// Declarations and types only: every function is resolved with dlsym, so
// model.so neither links nor needs oneDNN to load.
#include <oneapi/dnnl/dnnl.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace tcc::cpu::onednn {

/// oneDNN's C API as opened with dlopen (2.x: Debian 12's libdnnl2).
struct OneDnn {
  decltype(&dnnl_engine_create) engineCreate;
  decltype(&dnnl_stream_create) streamCreate;
  decltype(&dnnl_stream_destroy) streamDestroy;
  decltype(&dnnl_stream_wait) streamWait;
  decltype(&dnnl_memory_desc_init_by_strides) mdByStrides;
  decltype(&dnnl_memory_desc_init_by_tag) mdByTag;
  decltype(&dnnl_memory_desc_get_size) mdSize;
  decltype(&dnnl_memory_desc_equal) mdEqual;
  decltype(&dnnl_dilated_convolution_forward_desc_init) convDesc;
  decltype(&dnnl_matmul_desc_init) matmulDesc;
  decltype(&dnnl_primitive_attr_create) attrCreate;
  decltype(&dnnl_primitive_attr_destroy) attrDestroy;
  decltype(&dnnl_primitive_attr_set_post_ops) attrSetPostOps;
  decltype(&dnnl_post_ops_create) postOpsCreate;
  decltype(&dnnl_post_ops_destroy) postOpsDestroy;
  decltype(&dnnl_post_ops_append_eltwise) appendEltwise;
  decltype(&dnnl_post_ops_append_binary) appendBinary;
  decltype(&dnnl_post_ops_append_sum) appendSum;
  decltype(&dnnl_primitive_desc_create) pdCreate;
  decltype(&dnnl_reorder_primitive_desc_create) reorderPdCreate;
  decltype(&dnnl_primitive_desc_destroy) pdDestroy;
  decltype(&dnnl_primitive_desc_query_md) pdQueryMd;
  decltype(&dnnl_primitive_create) primitiveCreate;
  decltype(&dnnl_primitive_destroy) primitiveDestroy;
  decltype(&dnnl_primitive_execute) execute;
  decltype(&dnnl_memory_create) memoryCreate;
  decltype(&dnnl_memory_destroy) memoryDestroy;
  decltype(&dnnl_primitive_attr_set_scratchpad_mode) attrSetScratchpadMode;
  decltype(&dnnl_primitive_attr_set_output_scales) attrSetOutputScales; ///< int8 (OneDnnQConv.cpp)
  decltype(&dnnl_primitive_attr_set_zero_points) attrSetZeroPoints;
  void (*setThreads)(int) = nullptr; ///< OpenMP's omp_set_num_threads, if oneDNN uses it
  int (*getThreads)() = nullptr;     ///< OpenMP's omp_get_max_threads, likewise
  int threads = 0;                   ///< TCC_NUM_THREADS, 0 when unset
  dnnl_engine_t engine = nullptr;
};

/// The library, or null where it is missing (said once on stderr).
const OneDnn *library();

/// The current epoch of bound weights (boundWeightsChanged advances it).
uint64_t weightsEpoch();

/// This thread's stream (a stream is not for concurrent use), or null.
dnnl_stream_t threadStream(const OneDnn &lib);

inline bool ok(dnnl_status_t s) { return s == dnnl_success; }

/// Sets oneDNN's thread count to TCC_NUM_THREADS (if set) for this thread.
void applyThreadCount(const OneDnn &lib);

/// While alive, oneDNN's products called from this thread run on `threads`
/// OpenMP threads, on primitives made for that count (a primitive sizes its
/// team when it is made): the recurrent layers run their two directions side
/// by side on the runtime's pool, each direction's products on its share of
/// the cores. The thread's OpenMP count is restored at the end.
class ThreadShare {
public:
  explicit ThreadShare(int threads);
  ThreadShare(const ThreadShare &) = delete;
  ThreadShare &operator=(const ThreadShare &) = delete;
  ~ThreadShare();

private:
  int previousShare_, previousThreads_ = 0;
};

/// This thread's ThreadShare count, 0 outside one.
int threadShare();

/// The arguments of one execution: memory objects over the caller's
/// pointers, destroyed with it.
class ExecArgs {
public:
  explicit ExecArgs(const OneDnn &lib) : lib_(lib) {}
  ExecArgs(const ExecArgs &) = delete;
  ExecArgs &operator=(const ExecArgs &) = delete;
  ~ExecArgs();

  /// Adds `data`, laid out as `md`, as argument `arg` (DNNL_ARG_*).
  void add(int arg, const dnnl_memory_desc_t &md, const void *data);
  /// Whether every memory object could be made (else nothing may run).
  bool complete() const { return complete_; }
  /// Runs `primitive` on these arguments and waits for it.
  bool run(dnnl_stream_t stream, dnnl_primitive_t primitive);

private:
  const OneDnn &lib_;
  std::vector<dnnl_exec_arg_t> args_;
  bool complete_ = true;
};

/// Destroys `p` (null: nothing).
void destroyPrimitive(dnnl_primitive_t p);

/// Primitives of one kind (convolutions, products) by shape key, created on
/// a key's first call and kept for the process. Past kMaxEntries shapes (a
/// model called with ever new shapes) the cache starts afresh; calls in
/// flight keep theirs (shared_ptr).
template <typename T> class PrimitiveCache {
public:
  static constexpr size_t kMaxEntries = 512;

  /// The entry for `key`; `create(T &)` fills a new one (under the lock).
  template <typename Create>
  std::shared_ptr<T> get(const std::vector<int64_t> &key, Create &&create) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= kMaxEntries && !entries_.count(key))
      entries_.clear();
    std::shared_ptr<T> &slot = entries_[key];
    if (!slot) {
      slot = std::make_shared<T>();
      create(*slot);
    }
    return slot;
  }

private:
  std::mutex mutex_;
  std::map<std::vector<int64_t>, std::shared_ptr<T>> entries_;
};

/// A reorder primitive from `from` to `to` (layouts of one shape), or null.
dnnl_primitive_t createReorder(const OneDnn &lib, const dnnl_memory_desc_t &from,
                               const dnnl_memory_desc_t &to);

/// Runs `reorder` on `in` (described by `from`) into `out` (by `to`).
bool runReorder(const OneDnn &lib, dnnl_stream_t stream, dnnl_primitive_t reorder,
                const dnnl_memory_desc_t &from, const void *in, const dnnl_memory_desc_t &to,
                void *out);

/// A primitive whose weights oneDNN wants in a layout of its own (blocked
/// filters, packed matrices), the reorder into that layout, and the weights
/// kept in it per bound weight until weights are bound again.
struct WeightedPrimitive {
  WeightedPrimitive() = default;
  WeightedPrimitive(const WeightedPrimitive &) = delete;
  WeightedPrimitive &operator=(const WeightedPrimitive &) = delete;
  ~WeightedPrimitive() {
    destroyPrimitive(primitive);
    destroyPrimitive(reorder);
  }

  dnnl_primitive_t primitive = nullptr; ///< null: oneDNN has none for the shape
  dnnl_primitive_t reorder = nullptr;   ///< caller's layout → primitive's; null if equal
  dnnl_memory_desc_t userWeights{}, weights{};
  size_t weightFloats = 0;
  /// With `userScratchpad`: the scratchpad each run must be given
  /// (DNNL_ARG_SCRATCHPAD), `scratchpadBytes` of it (0: none needed).
  dnnl_memory_desc_t scratchpad{};
  size_t scratchpadBytes = 0;

  /// Creates the primitive for `desc` with the post-ops `ops` (destroyed
  /// here), weights as `userWeights` describes them. Leaves `primitive`
  /// null where oneDNN cannot. `userScratchpad`: the caller passes the
  /// scratchpad of each run. Without it oneDNN's library-managed scratchpad
  /// is shared by the primitives (libdnnl2 is built without
  /// DNNL_ENABLE_CONCURRENT_EXEC), so two threads running products at once
  /// write over each other's packed operands: measured on the recurrent
  /// layers' directions side by side, 3.6e-2 relative error.
  void create(const OneDnn &lib, const_dnnl_op_desc_t desc, dnnl_post_ops_t ops,
              const dnnl_memory_desc_t &userWeights, bool userScratchpad = false);

  /// The weights at `user` in the primitive's layout: for a bound weight,
  /// the copy kept for it (keptWeights), otherwise reordered into `scratch`.
  /// Null on failure. Safe to call from several threads at once.
  const float *weightsFor(const OneDnn &lib, dnnl_stream_t stream, const float *user,
                          bool bound, std::shared_ptr<std::vector<float>> &hold,
                          std::vector<float> &scratch) const;
};

/// The bound weight at `user` in the layout `layout` (reordered by
/// `reorder` from `userLayout`), kept for the process and shared by every
/// primitive that wants it so (the products of a model with a dynamic
/// sequence length: one copy, not one per length). Reordered again once the
/// weights epoch moved on; copies of an older epoch are dropped then (`hold`
/// keeps the caller's alive). Null on failure.
const float *keptWeights(const OneDnn &lib, dnnl_stream_t stream, dnnl_primitive_t reorder,
                         const dnnl_memory_desc_t &userLayout, const float *user,
                         const dnnl_memory_desc_t &layout, size_t floats,
                         std::shared_ptr<std::vector<float>> &hold);

} // namespace tcc::cpu::onednn

#endif // TCC_LIB_RUNTIME_ONEDNNLIBRARY_H
