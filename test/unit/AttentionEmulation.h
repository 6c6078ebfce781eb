//===- AttentionEmulation.h - Attention.cu's device primitives on the host -===//
//
// Kernels/Attention.cu includes this header in place of its device
// primitives when TCC_ATTENTION_EMULATION names it (see that file's
// comment): one block of 128 std::threads, each with its thread index, a
// shared-memory array, barriers for the block and for each warp, and the
// warp reductions and shared atomics of the mask scan, and the global
// atomics, fences and L2 loads of the split merge, the warp shuffles and
// (synchronous) cp.async copies of the decode kernels. What scanMaskTiles,
// mergeSplits and the decode kernels use runs; the tensor-core and
// ldmatrix primitives abort (AttentionScanEmulationTest.cpp never runs a
// flash key loop), and TCC_ATTENTION_KERNEL defines no entry points.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TEST_UNIT_ATTENTIONEMULATION_H
#define TCC_TEST_UNIT_ATTENTIONEMULATION_H

#include "EmulationBarrier.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#define TCC_DEVICE inline
#define TCC_ATTENTION_KERNEL(NAME, KIND, D, VEC, MT, STAGES)

struct uint4 {
  uint32_t x, y, z, w;
};
struct int2 {
  int x, y;
};
struct float4 {
  float x, y, z, w;
};
struct float2 {
  float x, y;
};
inline uint4 make_uint4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return {a, b, c, d}; }
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
inline float2 make_float2(float a, float b) { return {a, b}; }
inline int __ffs(unsigned x) { return x ? __builtin_ctz(x) + 1 : 0; }
inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
inline float __uint_as_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

namespace tcc_attn_emulation {

using tcc_emulation::Barrier;

/// The block being emulated (one at a time).
struct Block {
  alignas(16) unsigned char shared[64 * 1024];
  Barrier block{128};
  Barrier warps[4] = {Barrier(32), Barrier(32), Barrier(32), Barrier(32)};
  int warpSlots[4][32];
  float warpFloats[4][32];
  int andCount = 0;
  std::mutex atomics;
};
inline Block *&currentBlock() {
  static Block *b = nullptr;
  return b;
}
/// The emulated block's index (blocks run one at a time).
inline int &blockId() {
  static int b = 0;
  return b;
}
inline int &threadId() {
  static thread_local int tid = 0;
  return tid;
}

/// Runs body(t) on 128 threads as one block (the current block index is
/// blockId(), set by the caller), in a block of its own shared memory.
inline void runBlock(const std::function<void(int)> &body) {
  Block block;
  currentBlock() = &block;
  std::vector<std::thread> threads;
  for (int t = 0; t < 128; ++t)
    threads.emplace_back([&, t] {
      threadId() = t;
      body(t);
    });
  for (std::thread &t : threads)
    t.join();
  currentBlock() = nullptr;
}

} // namespace tcc_attn_emulation

namespace tcc_attn {
namespace emu = tcc_attn_emulation;

inline unsigned char *sharedBasePtr() { return emu::currentBlock()->shared; }
#define sharedBase (::tcc_attn::sharedBasePtr())
inline int threadIndex() { return emu::threadId(); }
inline int blockIndex() { return emu::blockId(); }
inline int blockIndexReread() { return emu::blockId(); }
inline int threadIndexReread() { return emu::threadId(); }
inline void syncThreads() { emu::currentBlock()->block.wait(); }
inline void syncWarp() { emu::currentBlock()->warps[emu::threadId() >> 5].wait(); }
/// Lane L gets lane L ^ laneMask's value (every lane of the warp calls it).
inline float shflXor(float v, int laneMask) {
  emu::Block &b = *emu::currentBlock();
  const int w = emu::threadId() >> 5, lane = emu::threadId() & 31;
  b.warpFloats[w][lane] = v;
  b.warps[w].wait();
  const float r = b.warpFloats[w][lane ^ laneMask];
  b.warps[w].wait();
  return r;
}
inline uint32_t dynamicSharedBytes() { return sizeof(emu::Block::shared); }
inline void trapKernel() { std::abort(); }
template <class V> inline V lds(uint32_t offset) {
  V v;
  std::lock_guard<std::mutex> lock(emu::currentBlock()->atomics);
  std::memcpy(&v, sharedBase + offset, sizeof(V));
  return v;
}
template <class V> inline void sts(uint32_t offset, V value) {
  std::lock_guard<std::mutex> lock(emu::currentBlock()->atomics);
  std::memcpy(sharedBase + offset, &value, sizeof(V));
}
inline uint32_t sharedAddress(uint32_t offset) { return offset; }
inline float ldg(const float *p) { return *p; }
inline uint16_t ldg(const uint16_t *p) { return *p; }
inline uint8_t ldg(const uint8_t *p) { return *p; }
template <class V> inline void stg(V *p, V value) { *p = value; }
inline uint4 ldg16(const void *p) {
  if (reinterpret_cast<uintptr_t>(p) % 16 != 0)
    std::abort(); // a 16-byte load needs a 16-byte aligned address
  uint4 v;
  std::memcpy(&v, p, 16);
  return v;
}
inline float ldcg(const float *p) { return *p; }
inline float2 ldcg2(const float *p) { return {p[0], p[1]}; }
inline float4 ldcg4(const float *p) { return {p[0], p[1], p[2], p[3]}; }
inline void threadFence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline int atomicAddGlobal(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline bool syncThreadsAnd(bool pred) {
  emu::Block &b = *emu::currentBlock();
  b.block.wait();
  if (!pred) {
    std::lock_guard<std::mutex> lock(b.atomics);
    ++b.andCount;
  }
  b.block.wait();
  int failed;
  {
    std::lock_guard<std::mutex> lock(b.atomics);
    failed = b.andCount;
  }
  b.block.wait();
  if (emu::threadId() == 0)
    b.andCount = 0;
  b.block.wait();
  return failed == 0;
}
template <bool Max> inline int warpReduce(int v) {
  emu::Block &b = *emu::currentBlock();
  const int w = emu::threadId() >> 5;
  b.warpSlots[w][emu::threadId() & 31] = v;
  b.warps[w].wait();
  int r = b.warpSlots[w][0];
  for (int i = 1; i < 32; ++i)
    r = Max ? std::max(r, b.warpSlots[w][i]) : std::min(r, b.warpSlots[w][i]);
  b.warps[w].wait();
  return r;
}
inline int warpMin(int v) { return warpReduce<false>(v); }
inline int warpMax(int v) { return warpReduce<true>(v); }
inline void atomicMinShared(uint32_t offset, int v) {
  std::lock_guard<std::mutex> lock(emu::currentBlock()->atomics);
  int cur;
  std::memcpy(&cur, sharedBase + offset, 4);
  cur = std::min(cur, v);
  std::memcpy(sharedBase + offset, &cur, 4);
}
inline void atomicMaxShared(uint32_t offset, int v) {
  std::lock_guard<std::mutex> lock(emu::currentBlock()->atomics);
  int cur;
  std::memcpy(&cur, sharedBase + offset, 4);
  cur = std::max(cur, v);
  std::memcpy(sharedBase + offset, &cur, 4);
}
/// Synchronous here: the first `bytes` from `src`, the rest zeros.
inline void cpAsync16Bytes(uint32_t offset, const void *src, int bytes) {
  unsigned char chunk[16] = {};
  std::memcpy(chunk, src, bytes);
  std::lock_guard<std::mutex> lock(emu::currentBlock()->atomics);
  std::memcpy(sharedBase + offset, chunk, 16);
}
inline void cpAsync16(uint32_t offset, const void *src, bool valid) {
  cpAsync16Bytes(offset, src, valid ? 16 : 0);
}
inline void cpAsyncCommit() {}
template <int N> inline void cpAsyncWait() {}
inline void ldmatrixX4(uint32_t, uint32_t (&)[4]) { std::abort(); }
inline void ldmatrixX4Trans(uint32_t, uint32_t (&)[4]) { std::abort(); }
inline void mmaF16(float &, float &, float &, float &, const uint32_t (&)[4], uint32_t, uint32_t) {
  std::abort();
}
inline void mmaBf16(float &, float &, float &, float &, const uint32_t (&)[4], uint32_t, uint32_t) {
  std::abort();
}
inline void mmaTf32(float &, float &, float &, float &, const uint32_t (&)[4], uint32_t, uint32_t) {
  std::abort();
}
inline float ex2(float x) { return std::exp2(x); }
inline uint32_t toTf32(float) { std::abort(); }
/// Round to nearest even, as cvt.rn (NaN and overflow are not needed here).
inline uint32_t packF16(float lo, float hi) {
  auto half = [](float x) {
    _Float16 h = static_cast<_Float16>(x);
    uint16_t bits;
    std::memcpy(&bits, &h, 2);
    return uint32_t(bits);
  };
  return half(lo) | half(hi) << 16;
}
inline uint32_t packBf16(float lo, float hi) {
  auto bf16 = [](float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  };
  return bf16(lo) | bf16(hi) << 16;
}
/// IEEE half -> float (exact).
inline float f16ToFloat(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0    ? std::ldexp(float(m), -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : std::ldexp(float(m | 1024), e - 25);
  return (h >> 15) ? -v : v;
}
inline float bf16ToFloat(uint16_t bits) { return __uint_as_float(uint32_t(bits) << 16); }

} // namespace tcc_attn

#endif // TCC_TEST_UNIT_ATTENTIONEMULATION_H
