//===- CudaGraphCacheTest.cpp - graph capture/replay policy, no GPU -------===//
//
// CudaGraphCache talks to the driver only through a Driver's function
// pointers, so a fake driver (below) records what it is asked to do: which
// stream a run launched on, how many graphs were captured, instantiated,
// updated and destroyed. Also the lock-free kernel lookup of the mgpu* layer
// and the static guard fast path, and the C ABI options, all without a GPU.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/CudaGraphCache.h"
#include "tcc/Runtime/GuardManifest.h"
#include "tcc/Runtime/MlirGpuRuntime.h"
#include "tcc/Runtime/Model.h"
#include "tcc/Runtime/RuntimeError.h"
#include "tcc/runtime.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <thread>
#include <vector>

using namespace tcc;
using namespace tcc::cuda;

extern "C" void *mgpuModuleGetFunction(void *module, const char *name);

namespace {

/// What the fake driver saw and how it should fail.
struct FakeDriverState {
  int streamsLive = 0;
  int graphsLive = 0;
  int execsLive = 0;
  int instantiations = 0;
  int beginCaptures = 0;
  bool capturing = false;
  bool callerCapturing = false; ///< cuStreamIsCapturing reports ACTIVE
  bool failUpdate = false;
  bool invalidateCapture = false; ///< cuStreamEndCapture fails
  uintptr_t nextHandle = 0x1000;
  std::vector<std::pair<CUgraphExec, CUstream>> graphLaunches;
};
FakeDriverState fake;

template <typename T> T newHandle() { return reinterpret_cast<T>(fake.nextHandle += 0x10); }

Driver fakeDriver(bool withGraphs = true) {
  Driver d{};
  d.cuStreamCreate = [](CUstream *s, unsigned) {
    *s = newHandle<CUstream>();
    ++fake.streamsLive;
    return 0;
  };
  d.cuStreamDestroy = [](CUstream) {
    --fake.streamsLive;
    return 0;
  };
  d.cuGetErrorName = [](CUresult, const char **name) {
    *name = "CUDA_ERROR_FAKE";
    return 0;
  };
  d.cuGetErrorString = [](CUresult, const char **text) {
    *text = "fake failure";
    return 0;
  };
  if (!withGraphs)
    return d;
  d.cuStreamBeginCapture = [](CUstream, int mode) {
    CHECK(mode == kCaptureModeThreadLocal);
    fake.capturing = true;
    ++fake.beginCaptures;
    return 0;
  };
  d.cuStreamEndCapture = [](CUstream, CUgraph *graph) {
    fake.capturing = false;
    if (fake.invalidateCapture) {
      *graph = nullptr;
      return 901; // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
    }
    *graph = newHandle<CUgraph>();
    ++fake.graphsLive;
    return 0;
  };
  d.cuStreamIsCapturing = [](CUstream, int *status) {
    *status = fake.callerCapturing ? 1 : kCaptureStatusNone;
    return 0;
  };
  d.cuGraphInstantiateWithFlags = [](CUgraphExec *exec, CUgraph, unsigned long long) {
    *exec = newHandle<CUgraphExec>();
    ++fake.execsLive;
    ++fake.instantiations;
    return 0;
  };
  d.cuGraphExecUpdate = [](CUgraphExec, CUgraph, void *) { return fake.failUpdate ? 910 : 0; };
  d.cuGraphLaunch = [](CUgraphExec exec, CUstream stream) {
    fake.graphLaunches.push_back({exec, stream});
    return 0;
  };
  d.cuGraphExecDestroy = [](CUgraphExec) {
    --fake.execsLive;
    return 0;
  };
  d.cuGraphDestroy = [](CUgraph) {
    --fake.graphsLive;
    return 0;
  };
  return d;
}

CUstream callerStream() { return reinterpret_cast<CUstream>(uintptr_t(0x77)); }

/// A run that records the streams it launched on; throws while capturing
/// when `failInCapture`.
struct RecordingLaunch {
  std::vector<CUstream> streams;
  bool failInCapture = false;
  void operator()(CUstream s) {
    streams.push_back(s);
    if (failInCapture && fake.capturing)
      throw RuntimeError(TCC_ERROR_INTERNAL, "cuda: cuMemAlloc is not allowed while capturing");
  }
};

/// Packed words standing in for descriptors: a pointer and a size.
std::vector<int64_t> key(int64_t pointer, int64_t size = 10) { return {pointer, pointer, 0, size, 1}; }

} // namespace

TEST_CASE("CudaGraphCache captures a key on its second run and replays it after",
          "[cuda]") {
  fake = {};
  Driver d = fakeDriver();
  {
    CudaGraphCache cache(d);
    RecordingLaunch launch;
    std::vector<int64_t> k = key(0x5000);
    CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Direct);
    REQUIRE(launch.streams.size() == 1);
    CHECK(launch.streams[0] == callerStream());
    CHECK(fake.beginCaptures == 0);

    CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Captured);
    REQUIRE(launch.streams.size() == 2);
    CHECK(launch.streams[1] != callerStream()); // captured on the cache's own stream
    REQUIRE(fake.graphLaunches.size() == 1);
    CHECK(fake.graphLaunches[0].second == callerStream()); // replayed on the caller's
    CHECK(fake.graphsLive == 0);                           // the graph went, the exec stays
    CHECK(fake.execsLive == 1);

    for (int i = 0; i < 3; ++i)
      CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Replayed);
    CHECK(launch.streams.size() == 2); // no more launches through the host code
    CHECK(fake.graphLaunches.size() == 4);
    CHECK(cache.stats().replays == 3);
    CHECK(cache.stats().captures == 1);
    CHECK(cache.stats().direct == 1);
  }
  CHECK(fake.execsLive == 0);
  CHECK(fake.streamsLive == 0);
}

TEST_CASE("CudaGraphCache keys on every packed word: pointers and sizes", "[cuda]") {
  fake = {};
  Driver d = fakeDriver();
  CudaGraphCache cache(d);
  RecordingLaunch launch;
  // Outputs that alternate between two buffers (torch's allocator in a loop).
  std::vector<int64_t> a = key(0x5000), b = key(0x6000), c = key(0x5000, 11);
  for (int i = 0; i < 2; ++i) {
    cache.run(a.data(), a.size(), callerStream(), launch);
    cache.run(b.data(), b.size(), callerStream(), launch);
  }
  CHECK(cache.size() == 2);
  CHECK(cache.run(a.data(), a.size(), callerStream(), launch) == GraphRun::Replayed);
  CHECK(cache.run(b.data(), b.size(), callerStream(), launch) == GraphRun::Replayed);
  CHECK(cache.run(c.data(), c.size(), callerStream(), launch) == GraphRun::Direct);
  std::vector<int64_t> shorter(a.begin(), a.end() - 1);
  CHECK(cache.run(shorter.data(), shorter.size(), callerStream(), launch) == GraphRun::Direct);
}

TEST_CASE("CudaGraphCache replays a graph only on the thread that captured it", "[cuda]") {
  fake = {};
  Driver d = fakeDriver();
  CudaGraphCache cache(d);
  RecordingLaunch launch;
  std::vector<int64_t> k = key(0x5000);
  cache.run(k.data(), k.size(), callerStream(), launch);
  CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Captured);
  std::vector<GraphRun> elsewhere;
  std::thread other([&] {
    for (int i = 0; i < 3; ++i)
      elsewhere.push_back(cache.run(k.data(), k.size(), callerStream(), launch));
  });
  other.join();
  CHECK(elsewhere ==
        std::vector<GraphRun>{GraphRun::Direct, GraphRun::Captured, GraphRun::Replayed});
  CHECK(cache.size() == 2);
  CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Replayed);
}

TEST_CASE("CudaGraphCache evicts the least recently used graph, reusing its executable",
          "[cuda]") {
  fake = {};
  Driver d = fakeDriver();
  CudaGraphCache cache(d, /*capacity=*/2);
  RecordingLaunch launch;
  auto twice = [&](const std::vector<int64_t> &k) {
    cache.run(k.data(), k.size(), callerStream(), launch);
    return cache.run(k.data(), k.size(), callerStream(), launch);
  };
  std::vector<int64_t> a = key(0xa000), b = key(0xb000), c = key(0xc000);
  CHECK(twice(a) == GraphRun::Captured);
  CHECK(twice(b) == GraphRun::Captured);
  CHECK(cache.run(a.data(), a.size(), callerStream(), launch) == GraphRun::Replayed);
  CHECK(twice(c) == GraphRun::Captured); // evicts b, the least recently used
  CHECK(cache.size() == 2);
  CHECK(cache.stats().updates == 1);     // b's executable took c's graph
  CHECK(fake.instantiations == 2);
  CHECK(fake.execsLive == 2);
  CHECK(cache.run(a.data(), a.size(), callerStream(), launch) == GraphRun::Replayed);
  CHECK(cache.run(c.data(), c.size(), callerStream(), launch) == GraphRun::Replayed);
  CHECK(cache.run(b.data(), b.size(), callerStream(), launch) == GraphRun::Direct);

  // An update that fails (another topology) instantiates instead.
  fake.failUpdate = true;
  CHECK(cache.run(b.data(), b.size(), callerStream(), launch) == GraphRun::Captured);
  CHECK(fake.instantiations == 3);
  CHECK(fake.execsLive == 2);
  CHECK(cache.stats().updates == 1);
}

TEST_CASE("CudaGraphCache falls back to direct launches when a capture fails", "[cuda]") {
  fake = {};
  Driver d = fakeDriver();
  CudaGraphCache cache(d);
  RecordingLaunch launch;
  launch.failInCapture = true;
  std::vector<int64_t> k = key(0x5000);
  CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Direct);
  // The capture throws inside; the run is repeated directly, without error.
  CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Direct);
  CHECK(fake.beginCaptures == 1);
  CHECK_FALSE(fake.capturing); // the capture was ended
  CHECK(launch.streams.back() == callerStream());
  CHECK(cache.stats().captureFailures == 1);
  CHECK(cache.lastCaptureError() == "cuda: cuMemAlloc is not allowed while capturing");
  // The key is remembered: no second attempt.
  CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Direct);
  CHECK(fake.beginCaptures == 1);
  CHECK(cache.enabled());

  // An invalidated capture counts too; enough failures turn graphs off.
  launch.failInCapture = false;
  fake.invalidateCapture = true;
  for (int64_t p = 1; p < static_cast<int64_t>(CudaGraphCache::kMaxCaptureFailures); ++p) {
    std::vector<int64_t> other = key(0x9000 + p);
    cache.run(other.data(), other.size(), callerStream(), launch);
    CHECK(cache.run(other.data(), other.size(), callerStream(), launch) == GraphRun::Direct);
  }
  CHECK_FALSE(cache.enabled());
  CHECK(fake.graphsLive == 0);
}

TEST_CASE("CudaGraphCache launches directly into a stream the caller is capturing",
          "[cuda]") {
  fake = {};
  Driver d = fakeDriver();
  CudaGraphCache cache(d);
  RecordingLaunch launch;
  std::vector<int64_t> k = key(0x5000);
  fake.callerCapturing = true;
  for (int i = 0; i < 3; ++i)
    CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Direct);
  CHECK(fake.beginCaptures == 0);
  CHECK(launch.streams == std::vector<CUstream>(3, callerStream()));
}

TEST_CASE("CudaGraphCache can be turned off, and is off without graph entry points",
          "[cuda]") {
  fake = {};
  Driver d = fakeDriver();
  CudaGraphCache cache(d);
  RecordingLaunch launch;
  std::vector<int64_t> k = key(0x5000);
  cache.run(k.data(), k.size(), callerStream(), launch);
  cache.run(k.data(), k.size(), callerStream(), launch);
  CHECK(fake.execsLive == 1);
  cache.setEnabled(false);
  CHECK(fake.execsLive == 0);
  CHECK(cache.size() == 0);
  for (int i = 0; i < 3; ++i)
    CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Direct);
  cache.setEnabled(true);
  cache.run(k.data(), k.size(), callerStream(), launch);
  CHECK(cache.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Captured);

  Driver old = fakeDriver(/*withGraphs=*/false);
  CHECK_FALSE(old.hasGraphs());
  CudaGraphCache none(old);
  CHECK_FALSE(none.enabled());
  none.setEnabled(true);
  CHECK_FALSE(none.enabled());
  CHECK(none.run(k.data(), k.size(), callerStream(), launch) == GraphRun::Direct);
}

TEST_CASE("mgpuModuleGetFunction answers from the running instance's KernelTable",
          "[cuda]") {
  // A hit never reaches the module or the driver, so any address will do.
  static const char kName[] = "forward_kernel_0";
  int moduleStandIn = 0, functionStandIn = 0;
  KernelTable table;
  table.add(&moduleStandIn, kName, &functionStandIn);
  {
    ScopedKernelTable scope(&table);
    CHECK(mgpuModuleGetFunction(&moduleStandIn, kName) == &functionStandIn);
  }
  CHECK(table.find(&moduleStandIn, kName) == &functionStandIn);
  CHECK(table.find(&moduleStandIn, "forward_kernel_1") == nullptr);
  CHECK(takeKernelLaunchError().empty());
}

TEST_CASE("GuardManifest precomputes a fast path for static shapes", "[cuda][runtime]") {
  GuardManifest m = GuardManifest::parse(R"json({
    "format": "tcc-guard-manifest", "version": 1, "model": "foo",
    "targets": ["cpu", "cuda"], "cuda_graphs": false,
    "inputs":  [ { "name": "x", "dtype": "float32", "device": "cpu", "sizes": [10, 10] },
                 { "name": "y", "dtype": "float32", "device": "cpu", "sizes": [10, 10] } ],
    "outputs": [ { "name": "add", "dtype": "float32", "sizes": [10, 10] } ],
    "arena":   { "bytes": 0 }
  })json");
  CHECK(m.allStatic);
  CHECK(m.anyDevice);
  CHECK_FALSE(m.cudaGraphs);
  CHECK(m.staticOutputSizes == std::vector<std::vector<int64_t>>{{10, 10}});
  int64_t sizes[2] = {10, 10}, wrong[2] = {10, 9};
  tcc_tensor in[2] = {{nullptr, TCC_DTYPE_FLOAT32, TCC_DEVICE_CUDA, 2, sizes},
                      {nullptr, TCC_DTYPE_FLOAT32, TCC_DEVICE_CUDA, 2, sizes}};
  CHECK(m.matchesStatic(in, 2));
  CHECK(m.bindInputs(in, 2).empty());
  in[1].sizes = wrong;
  CHECK_FALSE(m.matchesStatic(in, 2));
  try {
    m.bindInputs(in, 2);
    FAIL("no guard violation");
  } catch (const RuntimeError &e) {
    CHECK(e.status() == TCC_ERROR_GUARD_VIOLATION);
    CHECK(std::string(e.what()) == "input 'y' (#1) dimension 1: expected 10, got 9");
  }
  CHECK(GuardManifest::parse(R"json({"format": "tcc-guard-manifest", "version": 1,
    "inputs": [], "outputs": []})json").cudaGraphs);
}

TEST_CASE("C ABI options: cuda_graphs and the graph counters", "[cuda][runtime]") {
  const char *manifest = R"json({
    "format": "tcc-guard-manifest", "version": 1, "model": "id",
    "inputs":  [ { "name": "x", "dtype": "float32", "sizes": [4] } ],
    "outputs": [ { "name": "y", "dtype": "float32", "sizes": [4] } ],
    "arena":   { "bytes": 0 }
  })json";
  ForwardFn forward = [](int64_t *) {};
  tcc_model *m = new tcc_model(std::make_unique<Model>(manifest, nullptr, 0, forward));
  int64_t value = -1;
  REQUIRE(tcc_model_get_option(m, "cuda_graphs", &value) == TCC_OK);
  const char *env = std::getenv("TCC_CUDA_GRAPHS");
  CHECK(value == (env && std::string(env) == "0" ? 0 : 1));
  REQUIRE(tcc_model_set_option(m, "cuda_graphs", 0) == TCC_OK);
  REQUIRE(tcc_model_get_option(m, "cuda_graphs", &value) == TCC_OK);
  CHECK(value == 0);
  REQUIRE(tcc_model_get_option(m, "cuda_graph_replays", &value) == TCC_OK);
  CHECK(value == 0);
  CHECK(tcc_model_set_option(m, "cuda_graphs", 2) == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(tcc_last_error()) == "option 'cuda_graphs' takes 0 or 1, got 2");
  CHECK(tcc_model_set_option(m, "cuda_graph_replays", 1) == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(tcc_model_get_option(m, "colour", &value) == TCC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(tcc_last_error()) == "unknown option 'colour'");
  CHECK(tcc_model_set_option(nullptr, "cuda_graphs", 0) == TCC_ERROR_INVALID_ARGUMENT);
  tcc_model_destroy(m);
}
