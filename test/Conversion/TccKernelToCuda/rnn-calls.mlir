// RUN: tcc-opt %s -convert-tcc-kernel-to-cuda -split-input-file | FileCheck %s

// A recurrence on the CUDA path is one tcc_cuda_rnn call
// (tcc/Runtime/CudnnRecurrent.h): tcc_cpu_rnn's arguments (mode LSTM 0;
// flags bidirectional 1 | batch first 2 | biases 4 | weights bound 8 = 15,
// every weight an entry argument of role "weight"; layers; the sequence
// length (dim 1, batch first) and batch (dim 0) read from the input; input,
// hidden and h sizes; x, h0 and c0 (null: zeros), the weights as an array
// on the stack and their count, y, h_n, c_n), then the arithmetic (fp32
// only: 0), the layer's name for errors, a constant string, and the stream.
// CHECK-LABEL: llvm.mlir.global internal constant @tcc_rnn_layer_name_0("aten.lstm.input (1 layer, bidirectional, hidden 8) at model.py:12\00")
// CHECK-LABEL: func @lstm_batch_first
// CHECK: %[[H0:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[C0:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<8 x ptr>
// CHECK-COUNT-8: llvm.store
// CHECK: %[[MODE:.*]] = arith.constant 0 : i32
// CHECK: %[[FLAGS:.*]] = arith.constant 15 : i32
// CHECK: %[[LAYERS:.*]] = arith.constant 1 : i64
// CHECK: %[[SEQ:.*]] = arith.index_cast %[[SIZES:.*]]#1 : index to i64
// CHECK: %[[BATCH:.*]] = arith.index_cast %[[SIZES]]#0 : index to i64
// CHECK: %[[IN:.*]] = arith.index_cast %[[SIZES]]#2 : index to i64
// CHECK: %[[HIDDEN:.*]] = arith.constant 8 : i64
// CHECK: %[[STATE:.*]] = arith.constant 8 : i64
// CHECK: %[[COUNT:.*]] = arith.constant 8 : i64
// CHECK: %[[COMPUTE:.*]] = arith.constant 0 : i32
// CHECK: %[[NAME:.*]] = llvm.mlir.addressof @tcc_rnn_layer_name_0 : !llvm.ptr
// CHECK: call @tcc_cuda_rnn(%[[MODE]], %[[FLAGS]], %[[LAYERS]], %[[SEQ]], %[[BATCH]], %[[IN]], %[[HIDDEN]], %[[STATE]], %{{.*}}, %[[H0]], %[[C0]], %[[ARRAY]], %[[COUNT]], %{{.*}}, %{{.*}}, %{{.*}}, %[[COMPUTE]], %[[NAME]], %[[STREAM:arg[0-9]+]]) : (i32, i32, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: tcc_kernel.rnn
func.func @lstm_batch_first(%x: memref<?x?x4xf32>,
    %wi: memref<32x4xf32> {tcc.role = "weight"}, %wh: memref<32x8xf32> {tcc.role = "weight"},
    %bi: memref<32xf32> {tcc.role = "weight"}, %bh: memref<32xf32> {tcc.role = "weight"},
    %y: memref<?x?x16xf32>, %hn: memref<2x?x8xf32>, %cn: memref<2x?x8xf32>,
    %arena: memref<?xi8> {tcc.arena}) attributes {tcc.target = "cuda"} {
  tcc_kernel.rnn lstm ins(%x : memref<?x?x4xf32>)
      weights(%wi, %wh, %bi, %bh, %wi, %wh, %bi, %bh : memref<32x4xf32>, memref<32x8xf32>, memref<32xf32>, memref<32xf32>, memref<32x4xf32>, memref<32x8xf32>, memref<32xf32>, memref<32xf32>)
      outs(%y, %hn, %cn : memref<?x?x16xf32>, memref<2x?x8xf32>, memref<2x?x8xf32>) {batch_first, bidirectional, has_biases, num_layers = 1 : i64} loc("model.py":12:0)
  return
}

// -----

// A GRU with projections' sibling: weights that are not entry weights (flags
// without 8: copied into cuDNN's weight space each call), h0 given, two
// layers, --precision tf32 absent: compute 0. No c_n: a null pointer. Two
// recurrences in one module share one name when their names are equal.
// CHECK: llvm.mlir.global internal constant @tcc_rnn_layer_name_0("aten.gru.input (2 layers, hidden 4) at model.py:7\00")
// CHECK-NOT: llvm.mlir.global
// CHECK-LABEL: func @gru_computed_weights
// CHECK: %[[FLAGS:.*]] = arith.constant 4 : i32
// CHECK: %[[NOCN:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[COMPUTE:.*]] = arith.constant 0 : i32
// CHECK: %[[NAME:.*]] = llvm.mlir.addressof @tcc_rnn_layer_name_0
// CHECK: call @tcc_cuda_rnn(%{{[^,]*}}, %[[FLAGS]], {{.*}}, %[[NOCN]], %[[COMPUTE]], %[[NAME]], %arg10)
// CHECK: llvm.mlir.addressof @tcc_rnn_layer_name_0
// CHECK: call @tcc_cuda_rnn(
func.func @gru_computed_weights(%x: memref<5x2x3xf32>, %h0: memref<2x2x4xf32>,
    %wi: memref<12x3xf32>, %wh: memref<12x4xf32>, %bi: memref<12xf32>, %bh: memref<12xf32>,
    %wi1: memref<12x4xf32>,
    %y: memref<5x2x4xf32>, %hn: memref<2x2x4xf32>,
    %arena: memref<?xi8> {tcc.arena}) attributes {tcc.target = "cuda"} {
  tcc_kernel.rnn gru ins(%x : memref<5x2x3xf32>) h0(%h0 : memref<2x2x4xf32>)
      weights(%wi, %wh, %bi, %bh, %wi1, %wh, %bi, %bh : memref<12x3xf32>, memref<12x4xf32>, memref<12xf32>, memref<12xf32>, memref<12x4xf32>, memref<12x4xf32>, memref<12xf32>, memref<12xf32>)
      outs(%y, %hn : memref<5x2x4xf32>, memref<2x2x4xf32>) {has_biases, num_layers = 2 : i64} loc("model.py":7:0)
  tcc_kernel.rnn gru ins(%x : memref<5x2x3xf32>) h0(%h0 : memref<2x2x4xf32>)
      weights(%wi, %wh, %bi, %bh, %wi1, %wh, %bi, %bh : memref<12x3xf32>, memref<12x4xf32>, memref<12xf32>, memref<12xf32>, memref<12x4xf32>, memref<12x4xf32>, memref<12xf32>, memref<12xf32>)
      outs(%y, %hn : memref<5x2x4xf32>, memref<2x2x4xf32>) {has_biases, num_layers = 2 : i64} loc("model.py":7:0)
  return
}

// -----

// --precision tf32 (and bf16) let cuDNN use TF32 tensor cores: compute 1.
// RUN: tcc-opt %s -convert-tcc-kernel-to-cuda="tf32=true" -split-input-file | FileCheck %s --check-prefix=TF32
// TF32-LABEL: func @rnn_relu_tf32
// TF32: %[[COMPUTE:.*]] = arith.constant 1 : i32
// TF32: call @tcc_cuda_rnn({{.*}}, %[[COMPUTE]], %{{.*}}, %arg{{[0-9]+}})
func.func @rnn_relu_tf32(%x: memref<5x2x3xf32>, %wi: memref<4x3xf32>, %wh: memref<4x4xf32>,
    %y: memref<5x2x4xf32>, %hn: memref<1x2x4xf32>,
    %arena: memref<?xi8> {tcc.arena}) attributes {tcc.target = "cuda"} {
  tcc_kernel.rnn rnn_relu ins(%x : memref<5x2x3xf32>) weights(%wi, %wh : memref<4x3xf32>, memref<4x4xf32>)
      outs(%y, %hn : memref<5x2x4xf32>, memref<1x2x4xf32>) {num_layers = 1 : i64}
  return
}
