//===- CpuGemm.h - the CPU path's products, convolutions and attention ---===//
//
// The CPU lowering of an f32 tcc_kernel.gemm (convert-tcc-kernel-to-loops)
// calls `tcc_cpu_gemm`, with tcc_gemm's arguments (CublasLtGemm.h: one
// lowering emits both; `compute` and `stream` are ignored), on host pointers.
// Products run on oneDNN where it is there (OneDnnGemm.h: weights packed once
// per binding, the epilogue as post-ops), else in OpenBLAS's sgemm, opened
// with dlopen on the first call (model.so loads without it); where both are
// missing, tcc's own loops compute them, slower, and the first call says so
// on stderr once.
//
// Measured on the 2-core build machine, one thread (scripts/cpu_benchmark.py):
// BERT-base b1 s128 took 5468 ms with the products as tcc's loop nests and
// 261 ms with them in OpenBLAS (PyTorch eager 156 ms). Convolutions
// (tcc_cpu_conv2d) run on oneDNN first (OneDnnConv.h); without it, packed
// NCHW images take an im2col matrix and OpenBLAS, any other a direct loop.
//
// TCC_NUM_THREADS sets the threads of a call: oneDNN's (OpenMP), with
// OpenBLAS on the calling thread; without oneDNN, OpenBLAS's (default: every
// core the process may use). TCC_BLAS_LIBRARY names another library with
// cblas_sgemm (a path or soname) instead of libopenblas.so.0.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_CPUGEMM_H
#define TCC_RUNTIME_CPUGEMM_H

#include "tcc/Runtime/CudnnConv.h"

#include <cstdint>

extern "C" {

/// tcc_gemm's contract (CublasLtGemm.h) on host memory, for dtype f32.
void tcc_cpu_gemm(int32_t dtype, int32_t compute, int64_t batch0, int64_t batch1, int64_t m,
                  int64_t n, int64_t k, const void *a, int64_t lda, int64_t strideA0,
                  int64_t strideA1, int32_t transA, const void *b, int64_t ldb,
                  int64_t strideB0, int64_t strideB1, int32_t transB, void *c, int64_t ldc,
                  int64_t strideC0, int64_t strideC1, const void *residual, int64_t ldr,
                  int64_t strideR0, int64_t strideR1, const void *bias, int32_t epilogue,
                  float alpha, void *stream);

/// tcc_conv2d's contract (CudnnConv.h) on host memory, for dtype f32 and the
/// NCHW layout with packed images (each tensor's channel, row and column
/// strides h·w, w, 1; any batch stride): per image and group, the product of
/// the weight with the image's im2col matrix (the image itself for a 1x1
/// convolution with unit stride and no padding) in sgemm, then bias, residual
/// and ReLU; depthwise convolutions (one input channel per group) as a direct
/// loop.
TccConv2dFn tcc_cpu_conv2d;

/// tcc_attention's contract (AttentionKernels.h) on host memory, for dtype
/// f32, flash-style: per batch and head, blocks of 64 queries against blocks
/// of 256 keys, the block's scores Q·K^T in sgemm, mask and causal limit, an
/// online softmax per row (a running max and sum, the accumulator rescaled
/// when the max grows; a query that sees no key gets 0), P·V accumulated in
/// sgemm. No lq × lk matrix is materialized.
void tcc_cpu_attention(int32_t dtype, int32_t math, int64_t batch, int64_t heads,
                       int64_t kvHeads, int64_t lq, int64_t lk, int64_t headDim,
                       int64_t valueDim, const void *q, int64_t qStrideB, int64_t qStrideH,
                       int64_t qStrideL, const void *k, int64_t kStrideB, int64_t kStrideH,
                       int64_t kStrideL, const void *v, int64_t vStrideB, int64_t vStrideH,
                       int64_t vStrideL, void *out, int64_t outStrideB, int64_t outStrideH,
                       int64_t outStrideL, const void *mask, int32_t maskKind,
                       int64_t maskStrideB, int64_t maskStrideH, int64_t maskStrideQ,
                       int64_t maskStrideK, int64_t maskBatchPeriod, int64_t maskStrideOuter,
                       int32_t causal, float scale, void *stream);

} // extern "C"

#endif // TCC_RUNTIME_CPUGEMM_H
