// RUN: tcc-opt %s -convert-tcc-kernel-to-loops | FileCheck %s

// A recurrence on the CPU path is one tcc_cpu_rnn call
// (tcc/Runtime/CpuRecurrent.h): mode (LSTM 0), flags (bidirectional 1 |
// biases 4 = 5; the weights are arguments without a weight role, so not
// "bound"), layers, the sequence length and batch read from the input,
// input size, hidden size and size of h (proj_size 3), then the pointers:
// x, h0, c0, the weights as an array on the stack, their count, y, h_n, c_n.
// CHECK-LABEL: func @lstm_projections
// CHECK: %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<10 x ptr>
// CHECK-COUNT-10: llvm.store
// CHECK: %[[MODE:.*]] = arith.constant 0 : i32
// CHECK: %[[FLAGS:.*]] = arith.constant 5 : i32
// CHECK: %[[LAYERS:.*]] = arith.constant 1 : i64
// CHECK: %[[SEQ:.*]] = arith.index_cast %[[SIZES:.*]]#0 : index to i64
// CHECK: %[[BATCH:.*]] = arith.index_cast %[[SIZES]]#1 : index to i64
// CHECK: %[[IN:.*]] = arith.index_cast %[[SIZES]]#2 : index to i64
// CHECK: %[[HIDDEN:.*]] = arith.constant 8 : i64
// CHECK: %[[STATE:.*]] = arith.constant 3 : i64
// CHECK: %[[COUNT:.*]] = arith.constant 10 : i64
// CHECK: call @tcc_cpu_rnn(%[[MODE]], %[[FLAGS]], %[[LAYERS]], %[[SEQ]], %[[BATCH]], %[[IN]], %[[HIDDEN]], %[[STATE]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ARRAY]], %[[COUNT]], %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: tcc_kernel.rnn
func.func @lstm_projections(%x: memref<?x2x4xf32>, %h0: memref<2x2x3xf32>, %c0: memref<2x2x8xf32>,
    %wi: memref<32x4xf32>, %wh: memref<32x3xf32>, %bi: memref<32xf32>, %bh: memref<32xf32>, %wr: memref<3x8xf32>,
    %y: memref<?x2x6xf32>, %hn: memref<2x2x3xf32>, %cn: memref<2x2x8xf32>) {
  tcc_kernel.rnn lstm ins(%x : memref<?x2x4xf32>) h0(%h0 : memref<2x2x3xf32>) c0(%c0 : memref<2x2x8xf32>)
      weights(%wi, %wh, %bi, %bh, %wr, %wi, %wh, %bi, %bh, %wr : memref<32x4xf32>, memref<32x3xf32>, memref<32xf32>, memref<32xf32>, memref<3x8xf32>, memref<32x4xf32>, memref<32x3xf32>, memref<32xf32>, memref<32xf32>, memref<3x8xf32>)
      outs(%y, %hn, %cn : memref<?x2x6xf32>, memref<2x2x3xf32>, memref<2x2x8xf32>) {bidirectional, has_biases, num_layers = 1 : i64}
  return
}
