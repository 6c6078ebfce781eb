//===- AttentionDevice.h - what tcc's attention kernels are built on ------===//
//
// The device primitives of Kernels/Attention.cu and Kernels/AttentionDecode.cu
// (inline PTX and CUDA intrinsics, each a one-line wrapper so the kernels
// read as plain C++), and the element types and conversions both use.
// Defining TCC_ATTENTION_EMULATION as a header name replaces the primitives
// with a host emulation (test/unit/AttentionEmulation.h), which is how the
// kernels' control flow is tested on a machine without a GPU; the element
// helpers below are then built on the emulated primitives.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_LIB_RUNTIME_KERNELS_ATTENTIONDEVICE_H
#define TCC_LIB_RUNTIME_KERNELS_ATTENTIONDEVICE_H

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#ifdef TCC_ATTENTION_EMULATION
#include TCC_ATTENTION_EMULATION
#else

#define TCC_DEVICE __device__ __forceinline__

namespace tcc_attn {

/// The block's dynamic shared memory; every shared access below is a byte
/// offset into it.
extern __shared__ __align__(16) unsigned char sharedBase[];

TCC_DEVICE int threadIndex() { return static_cast<int>(threadIdx.x); }
TCC_DEVICE int blockIndex() { return static_cast<int>(blockIdx.x); }
/// The same, read again from the special register (volatile: never merged
/// with an earlier read, whose register would then stay live across the
/// key loop; the split merge at the end of the kernel spilled with that).
TCC_DEVICE int blockIndexReread() {
  int b;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(b));
  return b;
}
TCC_DEVICE int threadIndexReread() {
  int t;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
  return t;
}
TCC_DEVICE void syncThreads() { __syncthreads(); }
TCC_DEVICE void syncWarp() { __syncwarp(); }
TCC_DEVICE float shflXor(float v, int laneMask) {
  return __shfl_xor_sync(0xffffffffu, v, laneMask);
}

/// Bytes of dynamic shared memory this launch got (checked against the
/// layout: a launcher/kernel mismatch traps instead of corrupting memory).
TCC_DEVICE uint32_t dynamicSharedBytes() {
  uint32_t n;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
  return n;
}
TCC_DEVICE void trapKernel() { __trap(); }

template <class V> TCC_DEVICE V lds(uint32_t offset) {
  return *reinterpret_cast<const V *>(sharedBase + offset);
}
template <class V> TCC_DEVICE void sts(uint32_t offset, V value) {
  *reinterpret_cast<V *>(sharedBase + offset) = value;
}
/// The shared-window address of `offset`, for ldmatrix and cp.async.
TCC_DEVICE uint32_t sharedAddress(uint32_t offset) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(sharedBase)) + offset;
}

/// Read-only global loads (the inputs do not change during the kernel).
TCC_DEVICE float ldg(const float *p) { return __ldg(p); }
TCC_DEVICE uint16_t ldg(const uint16_t *p) { return __ldg(reinterpret_cast<const unsigned short *>(p)); }
TCC_DEVICE uint8_t ldg(const uint8_t *p) { return __ldg(reinterpret_cast<const unsigned char *>(p)); }
template <class V> TCC_DEVICE void stg(V *p, V value) { *p = value; }
/// 16 bytes from a 16-byte aligned global address (read-only path).
TCC_DEVICE uint4 ldg16(const void *p) { return __ldg(reinterpret_cast<const uint4 *>(p)); }
/// Block-wide AND of `pred`, and a barrier (__syncthreads_and).
TCC_DEVICE bool syncThreadsAnd(bool pred) { return __syncthreads_and(pred) != 0; }
/// Loads through L2 only (ld.global.cg): they see what other blocks of this
/// launch stored before a fence (the split partials; __ldg may not).
TCC_DEVICE float ldcg(const float *p) { return __ldcg(p); }
TCC_DEVICE float2 ldcg2(const float *p) { return __ldcg(reinterpret_cast<const float2 *>(p)); }
TCC_DEVICE float4 ldcg4(const float *p) { return __ldcg(reinterpret_cast<const float4 *>(p)); }
/// This thread's global stores before the fence are seen by every thread
/// of the GPU before its stores and atomics after it (__threadfence).
TCC_DEVICE void threadFence() { __threadfence(); }
/// atomicAdd on a global int; returns the old value.
TCC_DEVICE int atomicAddGlobal(int *p, int v) { return atomicAdd(p, v); }
/// The warp's minimum / maximum / OR of an int (redux.sync, sm_80+).
TCC_DEVICE int warpMin(int v) { return __reduce_min_sync(0xffffffffu, v); }
TCC_DEVICE int warpMax(int v) { return __reduce_max_sync(0xffffffffu, v); }
/// Shared-memory atomics on the int at byte `offset`.
TCC_DEVICE void atomicMinShared(uint32_t offset, int v) {
  atomicMin(reinterpret_cast<int *>(sharedBase + offset), v);
}
TCC_DEVICE void atomicMaxShared(uint32_t offset, int v) {
  atomicMax(reinterpret_cast<int *>(sharedBase + offset), v);
}

/// 16 bytes global -> shared, asynchronously, of which the first `bytes`
/// (0 to 16) are read from `src` and the rest zero-filled; `src` must be
/// 16-byte aligned and, even when nothing is read, a mapped address.
TCC_DEVICE void cpAsync16Bytes(uint32_t offset, const void *src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sharedAddress(offset)),
               "l"(src), "r"(bytes));
}
/// 16 bytes global -> shared, asynchronously; zero-fills when !valid.
TCC_DEVICE void cpAsync16(uint32_t offset, const void *src, bool valid) {
  cpAsync16Bytes(offset, src, valid ? 16 : 0);
}
TCC_DEVICE void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
/// Waits until at most N of this thread's cp.async groups are pending.
template <int N> TCC_DEVICE void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// Four 8x8 b16 matrices; lane L gives the address of row L%8 of matrix
/// L/8, and gets row L/4, columns 2(L%4), +1 of each (transposed: column
/// L/4, rows 2(L%4), +1).
TCC_DEVICE void ldmatrixX4(uint32_t offset, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sharedAddress(offset)));
}
TCC_DEVICE void ldmatrixX4Trans(uint32_t offset, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(sharedAddress(offset)));
}

/// (c0, c1, c2, c3) += a b for one m16n8k16 (f16 or bf16 inputs) or m16n8k8
/// (tf32) tile; c0, c1 are row g, columns 2t, 2t+1; c2, c3 row g + 8.
TCC_DEVICE void mmaF16(float &c0, float &c1, float &c2, float &c3, const uint32_t (&a)[4],
                       uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
TCC_DEVICE void mmaBf16(float &c0, float &c1, float &c2, float &c3, const uint32_t (&a)[4],
                        uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
TCC_DEVICE void mmaTf32(float &c0, float &c1, float &c2, float &c3, const uint32_t (&a)[4],
                        uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// 2^x (MUFU; 2^-inf = 0).
TCC_DEVICE float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
/// x rounded to TF32 (nearest, ties away), as an mma operand.
TCC_DEVICE uint32_t toTf32(float x) {
  uint32_t y;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(y) : "f"(x));
  return y;
}
/// (lo, hi) rounded to nearest even, lo in the low half.
TCC_DEVICE uint32_t packF16(float lo, float hi) {
  uint32_t y;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(y) : "f"(hi), "f"(lo));
  return y;
}
TCC_DEVICE uint32_t packBf16(float lo, float hi) {
  uint32_t y;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(y) : "f"(hi), "f"(lo));
  return y;
}
TCC_DEVICE float f16ToFloat(uint16_t bits) {
  float y;
  asm("cvt.f32.f16 %0, %1;" : "=f"(y) : "h"(bits));
  return y;
}
TCC_DEVICE float bf16ToFloat(uint16_t bits) {
  return __uint_as_float(static_cast<uint32_t>(bits) << 16);
}

} // namespace tcc_attn

#endif // TCC_ATTENTION_EMULATION

namespace tcc_attn {

enum Kind : int { kF16 = 0, kBf16 = 1, kTf32 = 2, kF32 = 3 };
enum MaskKind : int { kMaskNone = 0, kMaskBool = 1, kMaskAdditive = 2 };

constexpr int kThreads = 128;
constexpr int kWarps = 4;
constexpr float kLog2e = 1.4426950408889634f;
struct F16 {
  uint16_t bits;
};
struct Bf16 {
  uint16_t bits;
};

TCC_DEVICE int imin(int a, int b) { return a < b ? a : b; }
TCC_DEVICE int imax(int a, int b) { return a > b ? a : b; }

template <class E> TCC_DEVICE float toFloat(E x);
template <> TCC_DEVICE float toFloat<float>(float x) { return x; }
template <> TCC_DEVICE float toFloat<F16>(F16 x) { return f16ToFloat(x.bits); }
template <> TCC_DEVICE float toFloat<Bf16>(Bf16 x) { return bf16ToFloat(x.bits); }
/// The element (F16/Bf16) in the low (hi = false) or high half of a word.
template <class E> TCC_DEVICE float halfToFloat(uint32_t word, bool hi) {
  return toFloat(E{static_cast<uint16_t>(hi ? word >> 16 : word & 0xffffu)});
}

TCC_DEVICE float ldgElem(const float *p) { return ldg(p); }
TCC_DEVICE F16 ldgElem(const F16 *p) { return F16{ldg(reinterpret_cast<const uint16_t *>(p))}; }
TCC_DEVICE Bf16 ldgElem(const Bf16 *p) { return Bf16{ldg(reinterpret_cast<const uint16_t *>(p))}; }

template <int K> TCC_DEVICE uint32_t packPair(float lo, float hi) {
  if constexpr (K == kF16)
    return packF16(lo, hi);
  else
    return packBf16(lo, hi);
}

} // namespace tcc_attn

#endif // TCC_LIB_RUNTIME_KERNELS_ATTENTIONDEVICE_H
