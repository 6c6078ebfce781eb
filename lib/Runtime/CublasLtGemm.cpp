//===- CublasLtGemm.cpp - tcc_gemm on cuBLASLt, opened with dlopen --------===//
//
// Row-major tensors in a column-major library. PyTorch stores C (m×n)
// row-major; the same bytes read column-major are C^T (n×m, leading dimension
// ldc). Since C^T = op(B)^T · op(A)^T, cuBLASLt is asked for
//
//   D' (n×m, ld ldc) = opA'(B') (n×k) · opB'(A') (k×m)
//
// with the operands swapped, and each one's transpose flag carried over:
//   cuBLASLt's A is our B: row-major k×n (ldb) read column-major is n×k, op N;
//                          with transB it is stored n×k, read as k×n, op T;
//   cuBLASLt's B is our A: row-major m×k (lda) read column-major is k×m, op N;
//                          with transA it is stored k×m, read as m×k, op T.
// cuBLASLt's bias is a vector over the rows of D', i.e. our n: exactly
// PyTorch's bias[n] of a linear layer. A residual is cuBLASLt's C (beta 1)
// with the output as D. No data is moved or transposed.
//
// State: the library is loaded once per process; a handle, a 32 MiB
// workspace and the per-shape plans (matmul descriptor, layouts, heuristic
// result) are created lazily per (thread, CUDA context), so a GEMM call after
// the first of its shape only sets the bias pointer and enqueues
// cublasLtMatmul: nothing allocates or synchronizes, and the call can be
// captured in a CUDA graph (the first call of each shape must run outside
// capture, as it allocates the workspace).
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/GemvKernels.h"
#include "tcc/Runtime/CudaLibraryLoader.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/RuntimeError.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <algorithm>
#include <vector>

using namespace tcc;

namespace {

//===----------------------------------------------------------------------===//
// The subset of cublasLt.h used here (CUDA 13 values), without the header
//===----------------------------------------------------------------------===//

using cublasStatus_t = int;
using cublasLtHandle_t = struct cublasLtContext *;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque *;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque *;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque *;
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr int CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14;
constexpr int CUBLAS_COMPUTE_32F = 68;
constexpr int CUBLAS_COMPUTE_32F_FAST_16BF = 75;
constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
constexpr int32_t CUBLAS_OP_N = 0, CUBLAS_OP_T = 1;
// cublasLtMatmulDescAttributes_t
constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE = 7;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26;
// cublasLtMatrixLayoutAttribute_t
constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;
constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;
// cublasLtMatmulPreferenceAttributes_t
constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;
constexpr int CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8;
// cublasLtEpilogue_t
constexpr uint32_t CUBLASLT_EPILOGUE_DEFAULT = 1;
constexpr uint32_t CUBLASLT_EPILOGUE_RELU = 2;
constexpr uint32_t CUBLASLT_EPILOGUE_BIAS = 4;
constexpr uint32_t CUBLASLT_EPILOGUE_GELU = 32;

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

/// Below this many terms per output, split-K is refused (see splitKAllowed):
/// its second kernel (the reduction, ~2.5 µs on an H200) costs more than one
/// block's K loop saves. MyModule's 10×10×100 GEMM took 5 µs as split-K, 2
/// kernels.
constexpr uint64_t kMinSplitKTerms = 2048;

/// Whether cuBLASLt may split K (its heuristic then decides). Always from
/// kMinSplitKTerms terms per output; below that only for outputs of few
/// tiles to spread over the SMs (up to 2^22, 256 tiles of 128x128: under two
/// waves of an H100's or H200's 132 SMs) with deep enough K. Without a
/// split, the fp32 1024x256x1024 product (LLaMA's grouped key and value
/// projections) ran 64 blocks over 132 SMs in 207 us on an H100, where
/// cuBLAS's split-K takes 51 us; Swin-T's stage-3 fc2 (3136x384x1536, 74
/// tiles) took 138 us unsplit where split-K takes 94 us (H200). That
/// exception is not for fp32 products of at most kFewRows rows (a classifier
/// over a small batch): cuBLASLt's kernel for them streams the weight once,
/// and a split only adds its reduction kernel (H200: ViT-B/16's head,
/// 8x1000x768, 8.9 us in two kernels split against 5.4 us whole; 8x1024x1024
/// 8.8 against 6.7; 16 rows, 16x1000x768, 9.0 against 15.4, so they keep
/// it; from kMinSplitKTerms terms, 4x256x8192 needs it: 13.4 against 143.6).
/// TCC_CUBLASLT_SPLIT_K_OUTPUTS=N replaces the 2^22 (for A/B benchmarks of
/// this rule; read once).
bool splitKAllowed(int32_t dtype, int32_t compute, int64_t batch, int64_t m, int64_t n,
                   int64_t k) {
  constexpr int64_t kMinNarrowTerms = 512, kFewRows = 8;
  static const int64_t narrowOutputs = [] {
    const char *env = std::getenv("TCC_CUBLASLT_SPLIT_K_OUTPUTS");
    return env && *env ? std::atoll(env) : int64_t(1) << 22;
  }();
  if (uint64_t(k) >= kMinSplitKTerms)
    return true;
  if (dtype == kKernelF32 && compute == kGemmComputeF32 && m <= kFewRows)
    return false;
  return batch * m * n <= narrowOutputs && k >= kMinNarrowTerms;
}

/// The reduction schemes (cublasLtReductionScheme_t bits: 1 in place, 2 and
/// 4 a second kernel over partial sums in the workspace) cuBLASLt may pick
/// from where split-K is allowed; 0 when TCC_CUBLASLT_REDUCTION_SCHEMES is
/// unset: no preference, the heuristic's choice (for A/B benchmarks; read
/// once).
uint32_t splitKReductionSchemes() {
  static const uint32_t mask = [] {
    const char *env = std::getenv("TCC_CUBLASLT_REDUCTION_SCHEMES");
    return env && *env ? static_cast<uint32_t>(std::atoi(env)) : 0u;
  }();
  return mask;
}

/// cublasStatus_t names, for a library too old to have cublasLtGetStatusName.
const char *fallbackStatusName(cublasStatus_t s) {
  switch (s) {
  case 0: return "CUBLAS_STATUS_SUCCESS";
  case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
  case 7: return "CUBLAS_STATUS_INVALID_VALUE";
  case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
  case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
  case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
  case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
  case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
  default: return nullptr;
  }
}

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

/// libcublasLt's entry points, resolved once per process.
struct CublasLt {
  cublasStatus_t (*create)(cublasLtHandle_t *);
  cublasStatus_t (*destroy)(cublasLtHandle_t);
  const char *(*getStatusName)(cublasStatus_t); // optional
  cublasStatus_t (*matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                           cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t,
                           const void *, const void *, cublasLtMatrixLayout_t, void *,
                           cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t,
                           void *);
  cublasStatus_t (*descCreate)(cublasLtMatmulDesc_t *, int, int);
  cublasStatus_t (*descDestroy)(cublasLtMatmulDesc_t);
  cublasStatus_t (*descSetAttribute)(cublasLtMatmulDesc_t, int, const void *, size_t);
  cublasStatus_t (*layoutCreate)(cublasLtMatrixLayout_t *, int, uint64_t, uint64_t, int64_t);
  cublasStatus_t (*layoutDestroy)(cublasLtMatrixLayout_t);
  cublasStatus_t (*layoutSetAttribute)(cublasLtMatrixLayout_t, int, const void *, size_t);
  cublasStatus_t (*preferenceCreate)(cublasLtMatmulPreference_t *);
  cublasStatus_t (*preferenceDestroy)(cublasLtMatmulPreference_t);
  cublasStatus_t (*preferenceSetAttribute)(cublasLtMatmulPreference_t, int, const void *,
                                           size_t);
  cublasStatus_t (*algoGetHeuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t,
                                     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                     cublasLtMatmulPreference_t, int,
                                     cublasLtMatmulHeuristicResult_t *, int *);

  /// The library, loaded on first use. Throws RuntimeError(UNSUPPORTED)
  /// "cuBLASLt not found (...)" naming every place tried.
  static const CublasLt &get();

  std::string statusText(cublasStatus_t s) const {
    const char *name = getStatusName ? getStatusName(s) : nullptr;
    if (!name)
      name = fallbackStatusName(s);
    return name ? std::string(name) : "cuBLAS status " + std::to_string(s);
  }

  /// Throws RuntimeError naming `what` and the status unless it is SUCCESS.
  void check(cublasStatus_t s, const std::string &what) const {
    if (s == CUBLAS_STATUS_SUCCESS)
      return;
    // 3 is CUBLAS_STATUS_ALLOC_FAILED.
    throw RuntimeError(s == 3 ? TCC_ERROR_OUT_OF_MEMORY : TCC_ERROR_INTERNAL,
                       "cublasLt: " + what + " failed: " + statusText(s));
  }
};

struct LoadedCublasLt {
  CublasLt lib{};
  std::string error; // empty when usable

  LoadedCublasLt() {
    // Search order: see CudaLibraryLoader.h.
    std::string tried;
    void *handle = openCudaLibrary("libcublasLt.so.13", "cublasLtMatmul", tried);
    if (!handle) {
      error = "cuBLASLt not found (libcublasLt.so.13, needed for the model's matrix "
              "multiplications on the GPU; install CUDA 13's cuBLAS, add its lib64 to "
              "LD_LIBRARY_PATH, or import torch first). Tried:" +
              tried;
      return;
    }
    bool ok = resolve(handle, "cublasLtCreate", lib.create) &&
              resolve(handle, "cublasLtDestroy", lib.destroy) &&
              resolve(handle, "cublasLtMatmul", lib.matmul) &&
              resolve(handle, "cublasLtMatmulDescCreate", lib.descCreate) &&
              resolve(handle, "cublasLtMatmulDescDestroy", lib.descDestroy) &&
              resolve(handle, "cublasLtMatmulDescSetAttribute", lib.descSetAttribute) &&
              resolve(handle, "cublasLtMatrixLayoutCreate", lib.layoutCreate) &&
              resolve(handle, "cublasLtMatrixLayoutDestroy", lib.layoutDestroy) &&
              resolve(handle, "cublasLtMatrixLayoutSetAttribute", lib.layoutSetAttribute) &&
              resolve(handle, "cublasLtMatmulPreferenceCreate", lib.preferenceCreate) &&
              resolve(handle, "cublasLtMatmulPreferenceDestroy", lib.preferenceDestroy) &&
              resolve(handle, "cublasLtMatmulPreferenceSetAttribute",
                      lib.preferenceSetAttribute) &&
              resolve(handle, "cublasLtMatmulAlgoGetHeuristic", lib.algoGetHeuristic);
    if (!ok)
      return;
    lib.getStatusName = reinterpret_cast<const char *(*)(cublasStatus_t)>(
        dlsym(handle, "cublasLtGetStatusName"));
  }

  template <typename Fn> bool resolve(void *handle, const char *name, Fn &fn) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    if (!fn)
      error = std::string("cuBLASLt found, but it lacks '") + name +
              "' (a cuBLAS older than 13?)";
    return fn != nullptr;
  }
};

const CublasLt &CublasLt::get() {
  static LoadedCublasLt loaded; // thread-safe, once per process
  if (!loaded.error.empty())
    throw RuntimeError(TCC_ERROR_UNSUPPORTED, loaded.error);
  return loaded.lib;
}

//===----------------------------------------------------------------------===//
// Plans and per-(thread, context) state
//===----------------------------------------------------------------------===//

/// Everything that selects descriptors and an algorithm. Pointer alignments
/// are part of it: the heuristic may pick kernels that assume them.
struct PlanKey {
  int64_t batch, m, n, k, lda, ldb, ldc, ldr, strideA, strideB, strideC, strideR;
  int32_t dtype, transA, transB, residual, epilogue, compute;
  int32_t alignA, alignB, alignC, alignR;
  auto tie() const {
    return std::tie(batch, m, n, k, lda, ldb, ldc, ldr, strideA, strideB, strideC, strideR, dtype,
                    transA, transB, residual, epilogue, compute, alignA, alignB, alignC, alignR);
  }
  bool operator<(const PlanKey &o) const { return tie() < o.tie(); }
};

/// The descriptors and algorithm of one GEMM shape.
struct Plan {
  const CublasLt *lib = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr, layoutB = nullptr, layoutC = nullptr,
                         layoutD = nullptr;
  cublasLtMatmulAlgo_t algo{};
  size_t workspaceBytes = 0;

  Plan() = default;
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;
  ~Plan() {
    if (!lib)
      return;
    if (layoutD && layoutD != layoutC) (void)lib->layoutDestroy(layoutD);
    if (layoutC) (void)lib->layoutDestroy(layoutC);
    if (layoutB) (void)lib->layoutDestroy(layoutB);
    if (layoutA) (void)lib->layoutDestroy(layoutA);
    if (desc) (void)lib->descDestroy(desc);
  }
};

/// One thread's cuBLASLt handle, workspace and plans in one CUDA context.
struct ContextState {
  const CublasLt *lib = nullptr;
  cuda::CUcontext context = nullptr;
  cublasLtHandle_t handle = nullptr;
  cuda::DeviceBuffer workspace;
  cuda::DeviceBuffer zeros;  // the zero operand of empty reductions (k = 0)
  std::map<PlanKey, std::unique_ptr<Plan>> plans;

  /// At least `bytes` of zeros on the device. Grown on a shape's first call,
  /// which is never captured into a CUDA graph (plans are built there too).
  const void *zeroBytes(size_t bytes) {
    if (zeros.bytes() < bytes) {
      zeros = cuda::DeviceBuffer(bytes);
      std::vector<char> host(bytes, 0);
      const cuda::Driver &d = cuda::Driver::get();
      d.check(d.cuMemcpyHtoD(zeros.get(), host.data(), bytes), "cuMemcpyHtoD(zeros)");
    }
    return zeros.data();
  }

  ContextState(const CublasLt &l, cuda::CUcontext ctx) : lib(&l), context(ctx) {
    lib->check(lib->create(&handle), "cublasLtCreate");
    workspace = cuda::DeviceBuffer(kWorkspaceBytes);
  }
  ContextState(const ContextState &) = delete;
  ContextState &operator=(const ContextState &) = delete;
  ~ContextState() {
    // At thread or process exit; errors of a driver shutting down are moot.
    plans.clear();
    if (handle)
      (void)lib->destroy(handle);
  }
};

thread_local std::vector<std::unique_ptr<ContextState>> threadStates;

ContextState &stateForCurrentContext(const CublasLt &lib) {
  cuda::CUcontext ctx = cuda::ensureContext();
  for (auto &s : threadStates)
    if (s->context == ctx)
      return *s;
  threadStates.push_back(std::make_unique<ContextState>(lib, ctx));
  return *threadStates.back();
}

/// The largest power of two up to 256 that divides the address.
int32_t alignmentOf(const void *p) {
  auto address = reinterpret_cast<uintptr_t>(p);
  int32_t align = 256;
  while (align > 2 && address % static_cast<uintptr_t>(align))
    align /= 2;
  return align;
}

const char *dtypeName(int32_t dtype) {
  return dtype == kKernelF16 ? "f16" : dtype == kKernelBF16 ? "bf16" : "f32";
}

std::string shapeText(const PlanKey &key) {
  return std::string(dtypeName(key.dtype)) + " " + std::to_string(key.batch) + "x[" +
         std::to_string(key.m) + "x" + std::to_string(key.k) + (key.transA ? "^T" : "") + " · " +
         std::to_string(key.k) + "x" + std::to_string(key.n) + (key.transB ? "^T" : "") +
         "], epilogue " + std::to_string(key.epilogue) + (key.residual ? " + residual" : "");
}

std::unique_ptr<Plan> makePlan(const CublasLt &lib, ContextState &state, const PlanKey &key) {
  auto plan = std::make_unique<Plan>();
  plan->lib = &lib;
  int dataType = key.dtype == kKernelF16 ? CUDA_R_16F : key.dtype == kKernelBF16 ? CUDA_R_16BF
                                                                               : CUDA_R_32F;
  // Half types always accumulate in fp32 on tensor cores; fp32 as asked.
  int compute = key.dtype != kKernelF32                ? CUBLAS_COMPUTE_32F
                : key.compute == kGemmComputeTf32   ? CUBLAS_COMPUTE_32F_FAST_TF32
                : key.compute == kGemmComputeBf16   ? CUBLAS_COMPUTE_32F_FAST_16BF
                                                    : CUBLAS_COMPUTE_32F;
  lib.check(lib.descCreate(&plan->desc, compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
  auto setDesc = [&](int attr, const auto &value, const char *name) {
    lib.check(lib.descSetAttribute(plan->desc, attr, &value, sizeof value),
              std::string("cublasLtMatmulDescSetAttribute(") + name + ")");
  };
  // Operands swapped (file comment): cuBLASLt's A is our B, its B our A.
  int32_t opA = key.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t opB = key.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  setDesc(CUBLASLT_MATMUL_DESC_TRANSA, opA, "TRANSA");
  setDesc(CUBLASLT_MATMUL_DESC_TRANSB, opB, "TRANSB");
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  bool bias = key.epilogue & kGemmEpilogueBias;
  if ((key.epilogue & ~kGemmEpilogueBias) == kGemmEpilogueRelu)
    epilogue = CUBLASLT_EPILOGUE_RELU | (bias ? CUBLASLT_EPILOGUE_BIAS : 0);
  else if ((key.epilogue & ~kGemmEpilogueBias) == kGemmEpilogueGelu)
    epilogue = CUBLASLT_EPILOGUE_GELU | (bias ? CUBLASLT_EPILOGUE_BIAS : 0);
  else if (bias)
    epilogue = CUBLASLT_EPILOGUE_BIAS;
  setDesc(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue, "EPILOGUE");
  if (bias) {
    int32_t biasType = dataType;
    int64_t biasBatchStride = 0; // one bias for every batch
    setDesc(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, biasType, "BIAS_DATA_TYPE");
    setDesc(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, biasBatchStride, "BIAS_BATCH_STRIDE");
  }

  // Column-major views (file comment): rows, cols, ld.
  auto layout = [&](cublasLtMatrixLayout_t &l, uint64_t rows, uint64_t cols, int64_t ld,
                    int64_t batchStride, const char *name) {
    lib.check(lib.layoutCreate(&l, dataType, rows, cols, ld),
              std::string("cublasLtMatrixLayoutCreate(") + name + ")");
    if (key.batch > 1) {
      int32_t count = static_cast<int32_t>(key.batch);
      lib.check(lib.layoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                       sizeof count),
                std::string("cublasLtMatrixLayoutSetAttribute(") + name + ", BATCH_COUNT)");
      lib.check(lib.layoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                       &batchStride, sizeof batchStride),
                std::string("cublasLtMatrixLayoutSetAttribute(") + name +
                    ", STRIDED_BATCH_OFFSET)");
    }
  };
  uint64_t m = key.m, n = key.n, k = key.k;
  if (key.transB)
    layout(plan->layoutA, k, n, key.ldb, key.strideB, "A"); // stored n×k row-major
  else
    layout(plan->layoutA, n, k, key.ldb, key.strideB, "A"); // stored k×n row-major
  if (key.transA)
    layout(plan->layoutB, m, k, key.lda, key.strideA, "B"); // stored k×m row-major
  else
    layout(plan->layoutB, k, m, key.lda, key.strideA, "B"); // stored m×k row-major
  layout(plan->layoutD, n, m, key.ldc, key.strideC, "D");
  if (key.residual)
    layout(plan->layoutC, n, m, key.ldr, key.strideR, "C");
  else
    plan->layoutC = plan->layoutD;

  cublasLtMatmulPreference_t preference = nullptr;
  lib.check(lib.preferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  struct PreferenceGuard {
    const CublasLt &lib;
    cublasLtMatmulPreference_t p;
    ~PreferenceGuard() { (void)lib.preferenceDestroy(p); }
  } guard{lib, preference};
  auto setPreference = [&](int attr, auto value, const char *name) {
    lib.check(lib.preferenceSetAttribute(preference, attr, &value, sizeof value),
              std::string("cublasLtMatmulPreferenceSetAttribute(") + name + ")");
  };
  setPreference(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, static_cast<uint64_t>(state.workspace.bytes()),
                "MAX_WORKSPACE_BYTES");
  // Mask 0: only REDUCTION_SCHEME_NONE, one kernel.
  if (!splitKAllowed(key.dtype, key.compute, key.batch, m, n, k))
    setPreference(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, static_cast<uint32_t>(0),
                  "REDUCTION_SCHEME_MASK");
  else if (uint32_t schemes = splitKReductionSchemes())
    setPreference(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, schemes, "REDUCTION_SCHEME_MASK");
  // Swapped too: cuBLASLt's A is our B.
  setPreference(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, static_cast<uint32_t>(key.alignB),
                "MIN_ALIGNMENT_A_BYTES");
  setPreference(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, static_cast<uint32_t>(key.alignA),
                "MIN_ALIGNMENT_B_BYTES");
  setPreference(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                static_cast<uint32_t>(key.residual ? key.alignR : key.alignC),
                "MIN_ALIGNMENT_C_BYTES");
  setPreference(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, static_cast<uint32_t>(key.alignC),
                "MIN_ALIGNMENT_D_BYTES");

  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  lib.check(lib.algoGetHeuristic(state.handle, plan->desc, plan->layoutA, plan->layoutB,
                                 plan->layoutC, plan->layoutD, preference, 1, &result, &found),
            "cublasLtMatmulAlgoGetHeuristic for " + shapeText(key));
  if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS)
    throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                       "cublasLt: no algorithm for the GEMM " + shapeText(key) +
                           (found ? " (" + lib.statusText(result.state) + ")" : ""));
  plan->algo = result.algo;
  plan->workspaceBytes = result.workspaceSize;
  return plan;
}

void runGemm(const PlanKey &key, const void *a, const void *b, void *c, const void *residual,
             const void *bias, float alpha, void *stream) {
  const CublasLt &lib = CublasLt::get();
  ContextState &state = stateForCurrentContext(lib);
  auto &slot = state.plans[key];
  if (!slot)
    slot = makePlan(lib, state, key);
  Plan &plan = *slot;
  if (key.epilogue & kGemmEpilogueBias) {
    // The plan is this thread's: setting the pointer races with nothing.
    const void *biasPointer = bias;
    lib.check(lib.descSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &biasPointer,
                                   sizeof biasPointer),
              "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
  }
  float beta = key.residual ? 1.0f : 0.0f;
  const void *cIn = key.residual ? residual : c;
  lib.check(lib.matmul(state.handle, plan.desc, &alpha, b, plan.layoutA, a, plan.layoutB, &beta,
                       cIn, plan.layoutC, c, plan.layoutD, &plan.algo, state.workspace.data(),
                       plan.workspaceBytes, stream),
            "cublasLtMatmul for " + shapeText(key));
}

/// Products at least this wide with a ragged n run their aligned columns
/// and the rest as two (see tcc_gemm): narrower, the second launch costs
/// more than the unaligned kernel loses.
constexpr int64_t kSplitColumnsFrom = 1024;

/// `p` advanced by `elements` of `dtype`.
const void *offset(const void *p, int64_t elements, int32_t dtype) {
  return p ? static_cast<const char *>(p) + elements * kernelDTypeBytes(dtype) : nullptr;
}

} // namespace

extern "C" void tcc_gemm(int32_t dtype, int32_t compute, int64_t batch0, int64_t batch1,
                         int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                         int64_t strideA0, int64_t strideA1, int32_t transA, const void *b,
                         int64_t ldb, int64_t strideB0, int64_t strideB1, int32_t transB, void *c,
                         int64_t ldc, int64_t strideC0, int64_t strideC1, const void *residual,
                         int64_t ldr, int64_t strideR0, int64_t strideR1, const void *bias,
                         int32_t epilogue, float alpha, void *stream) {
  // An earlier failure of this call: it is reported once, when it returns.
  if (hasKernelLaunchError())
    return;
  if (batch0 <= 0 || batch1 <= 0 || m <= 0 || n <= 0)
    return; // an empty result
  epilogue = gemmEpilogueBits(epilogue); // bit 16 is for the CPU path
  try {
    if (epilogue & kGemmEpilogueGeluErf)
      throw RuntimeError(TCC_ERROR_UNSUPPORTED,
                         "cublasLt: tcc_gemm called with the erf GELU epilogue, which only the "
                         "CPU path computes");
    if (dtype != kKernelF32 && dtype != kKernelF16 && dtype != kKernelBF16)
      throw RuntimeError(TCC_ERROR_INTERNAL,
                         "cublasLt: tcc_gemm called with unknown element type " +
                             std::to_string(dtype));
    if (k <= 0) {
      // An empty reduction (PyTorch: zeros, then bias, activation and
      // residual) is a product with one zero term: k = 1 over a zero vector
      // shared by all batches, so the epilogue runs as for any other shape.
      ContextState &state = stateForCurrentContext(CublasLt::get());
      a = b = state.zeroBytes(static_cast<size_t>(std::max(m, n)) * kernelDTypeBytes(dtype));
      k = 1;
      lda = transA ? m : 1;
      ldb = transB ? 1 : n;
      strideA0 = strideA1 = strideB0 = strideB1 = 0;
    }
    // Row-major leading dimensions cover a row of the stored matrix.
    int64_t rowA = transA ? m : k, rowB = transB ? k : n;
    if (lda < rowA || ldb < rowB || ldc < n || (residual && ldr < n))
      throw RuntimeError(TCC_ERROR_INTERNAL,
                         "cublasLt: GEMM operand with a leading dimension shorter than its rows "
                         "(lda " + std::to_string(lda) + ", ldb " + std::to_string(ldb) +
                             ", ldc " + std::to_string(ldc) + ")");
    // Two batch dims as one strided batch where the strides allow it (a
    // contiguous [B, H] pair), else one batched call per outer index.
    bool residualCollapses = !residual || strideR0 == batch1 * strideR1;
    int64_t outer = batch0, batch = batch1;
    if (batch1 == 1) {
      outer = 1;
      batch = batch0;
      strideA1 = strideA0, strideB1 = strideB0, strideC1 = strideC0, strideR1 = strideR0;
    } else if (batch0 == 1 ||
               (strideA0 == batch1 * strideA1 && strideB0 == batch1 * strideB1 &&
                strideC0 == batch1 * strideC1 && residualCollapses)) {
      outer = 1;
      batch = batch0 * batch1;
    }
    // A weight shared by all batches of a contiguous non-transposed A: one
    // GEMM of batch·m rows instead of a batched one.
    if (outer == 1 && batch > 1 && strideB1 == 0 && !transA && strideA1 == m * lda &&
        strideC1 == m * ldc && (!residual || strideR1 == m * ldr)) {
      m *= batch;
      batch = 1;
    }
    if (batch == 1)
      strideA1 = strideB1 = strideC1 = strideR1 = 0;
    // Columns [n0, n0 + cols) of every product: B, C, R and the bias from
    // column n0 on.
    auto runColumns = [&](int64_t n0, int64_t cols) {
      const void *b0 = offset(b, transB ? n0 * ldb : n0, dtype);
      void *c0 = const_cast<void *>(offset(c, n0, dtype));
      const void *r0 = offset(residual, n0, dtype), *bias0 = offset(bias, n0, dtype);
      for (int64_t i = 0; i < outer; ++i) {
        const void *ai = offset(a, i * strideA0, dtype), *bi = offset(b0, i * strideB0, dtype);
        void *ci = const_cast<void *>(offset(c0, i * strideC0, dtype));
        const void *ri = offset(r0, i * strideR0, dtype);
        PlanKey key{batch,       m,           cols,      k,        lda,      ldb,
                    ldc,         residual ? ldr : 0,     strideA1, strideB1, strideC1,
                    residual ? strideR1 : 0,  dtype,     transA != 0, transB != 0,
                    residual != nullptr,      epilogue,  compute,
                    alignmentOf(ai), alignmentOf(bi), alignmentOf(ci),
                    residual ? alignmentOf(ri) : 0};
        runGemm(key, ai, bi, ci, ri, bias0, alpha, stream);
        if (hasKernelLaunchError())
          return;
      }
    };
    // A few rows times a linear layer's weight (a decode step): tcc's GEMV
    // kernels, where the product has their form (GemvKernels.h).
    if (outer == 1 && batch == 1 && !transA && transB &&
        tryGemv(dtype, m, n, k, a, lda, b, ldb, c, ldc, residual, ldr, bias, epilogue, alpha,
                stream))
      return;
    // cuBLASLt's tensor-core kernels want the contiguous extent of C, n, a
    // multiple of 16 bytes as well as its row stride: with an aligned
    // stride (rows padded by the compiler, FormGemm.cpp) but n = 50257
    // (GPT-2's vocabulary), the heuristic still picks an align-1 kernel,
    // 827 us for GPT-2's bf16 LM head on an H100. The aligned columns go
    // to the fast kernels, the few left over to a second, narrow product.
    const int64_t perVector = 16 / kernelDTypeBytes(dtype);
    const int64_t tail = n % perVector;
    const bool rowsAligned = (ldc % perVector) == 0 && (!residual || ldr % perVector == 0);
    if (tail != 0 && n >= kSplitColumnsFrom && rowsAligned) {
      runColumns(0, n - tail);
      if (!hasKernelLaunchError())
        runColumns(n - tail, tail);
    } else {
      runColumns(0, n);
    }
  } catch (const std::exception &e) {
    recordKernelLaunchError(e.what());
  }
}
