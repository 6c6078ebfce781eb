//===- GemvEmulation.h - Gemv.cu's CUDA primitives on the host -------------===//
//
// Kernels/Gemv.cu includes this header in place of CUDA's when
// TCC_GEMV_EMULATION names it: the kernels become host functions, and
// runWarp() runs one warp of a launch as 32 std::threads with their
// threadIdx/blockIdx, so __shfl_xor_sync exchanges values through a barrier.
// bf16 and f16 are their bits with the conversions the kernels use
// (round to nearest even); loads are plain reads (checked 16-byte aligned);
// the grid-dependency calls do nothing.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TEST_UNIT_GEMVEMULATION_H
#define TCC_TEST_UNIT_GEMVEMULATION_H

#include "EmulationBarrier.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(n)

struct uint4 {
  uint32_t x, y, z, w;
};
struct float2 {
  float x, y;
};
struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline uint4 make_uint4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return {a, b, c, d}; }
inline float2 make_float2(float a, float b) { return {a, b}; }
inline float __uint_as_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint4 __ldg(const uint4 *p) {
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
    std::abort(); // a 16-byte load needs a 16-byte aligned address
  uint4 v;
  std::memcpy(&v, p, 16);
  return v;
}
using std::min;

struct __nv_bfloat16 {
  uint16_t bits;
};
struct __half {
  uint16_t bits;
};
struct __half2 {
  __half lo, hi;
};
inline float __bfloat162float(__nv_bfloat16 x) { return __uint_as_float(uint32_t(x.bits) << 16); }
inline __nv_bfloat16 __float2bfloat16_rn(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return {0x7fc0};
  return {uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};
}
inline float __half2float(__half x) {
  _Float16 h;
  std::memcpy(&h, &x.bits, 2);
  return static_cast<float>(h);
}
inline __half __float2half_rn(float x) {
  _Float16 h = static_cast<_Float16>(x);
  __half r;
  std::memcpy(&r.bits, &h, 2);
  return r;
}
inline float2 __half22float2(__half2 h) { return {__half2float(h.lo), __half2float(h.hi)}; }

namespace tcc_gemv_emulation {

struct Warp {
  tcc_emulation::Barrier barrier{32};
  float values[32];
};
inline Warp *&currentWarp() {
  static Warp *w = nullptr;
  return w;
}
inline Dim3 &threadIndex() {
  static thread_local Dim3 t;
  return t;
}
inline Dim3 &blockIndex() {
  static thread_local Dim3 b;
  return b;
}
inline Dim3 &gridSize() {
  static Dim3 g;
  return g;
}

/// Runs body() as warp `warp` of block `block` of a launch of `blocks`
/// blocks: 32 threads, threadIdx.x = warp * 32 + lane.
inline void runWarp(unsigned blocks, unsigned block, unsigned warp,
                    const std::function<void()> &body) {
  Warp w;
  currentWarp() = &w;
  gridSize().x = blocks;
  std::vector<std::thread> threads;
  for (unsigned lane = 0; lane < 32; ++lane)
    threads.emplace_back([&, lane] {
      threadIndex().x = warp * 32 + lane;
      blockIndex().x = block;
      body();
    });
  for (std::thread &t : threads)
    t.join();
  currentWarp() = nullptr;
}

} // namespace tcc_gemv_emulation

#define threadIdx (::tcc_gemv_emulation::threadIndex())
#define blockIdx (::tcc_gemv_emulation::blockIndex())
#define gridDim (::tcc_gemv_emulation::gridSize())

/// Lane L gets lane (L ^ laneMask)'s value; every lane of the warp calls it.
inline float __shfl_xor_sync(unsigned, float v, int laneMask) {
  tcc_gemv_emulation::Warp &w = *tcc_gemv_emulation::currentWarp();
  const int lane = static_cast<int>(threadIdx.x % 32);
  w.values[lane] = v;
  w.barrier.wait();
  const float r = w.values[lane ^ laneMask];
  w.barrier.wait();
  return r;
}

namespace tcc_grid {
inline void awaitPreviousGrid() {}
inline void allowNextGrid() {}
inline void prefetchToL2(const void *, uint32_t) {}
} // namespace tcc_grid

#endif // TCC_TEST_UNIT_GEMVEMULATION_H
