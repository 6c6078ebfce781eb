// RUN: tcc-opt %s -tcc-parallelize-cpu-loops -split-input-file | FileCheck %s

// A pointwise nest: its rows are split among threads, each row's 768
// elements stay one inner loop. The loop's captures (two memref descriptors
// and a scalar) travel in a struct on the caller's stack; constants are
// cloned into the body. grain = ceil(32768 / (768 * 4)) = 11 rows.
// CHECK-LABEL: func.func private @tcc_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64, i64)
// CHECK-LABEL: func.func private @k_pointwise(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<128x768xf32>, %[[OUT:[a-z0-9]+]]: memref<128x768xf32>, %[[S:[a-z0-9]+]]: f32
// CHECK: %[[D0:.*]] = builtin.unrealized_conversion_cast %[[IN]] : memref<128x768xf32> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: llvm.insertvalue %[[D0]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[S]], %{{.*}}[1]
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, f32, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>)>
// CHECK: llvm.store %{{.*}}, %[[CTX]]
// CHECK: %[[COUNT:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[GRAIN:.*]] = arith.constant 11 : i64
// CHECK: %[[F:.*]] = constant @k_pointwise_parallel_0 : (!llvm.ptr, i64, i64) -> ()
// CHECK: %[[FP:.*]] = builtin.unrealized_conversion_cast %[[F]] : (!llvm.ptr, i64, i64) -> () to !llvm.ptr
// CHECK: call @tcc_parallel_for(%[[FP]], %[[CTX]], %[[ZERO]], %[[COUNT]], %[[GRAIN]])
// CHECK-NOT: scf.parallel
// CHECK: return
// CHECK-LABEL: func.func private @k_pointwise_parallel_0(
// CHECK-SAME: %[[C:[a-z0-9]+]]: !llvm.ptr, %[[B:[a-z0-9]+]]: i64, %[[E:[a-z0-9]+]]: i64)
// CHECK-DAG: arith.constant 768 : index
// CHECK: %[[V:.*]] = llvm.load %[[C]]
// CHECK: %[[F0:.*]] = llvm.extractvalue %[[V]][0]
// CHECK: %[[M0:.*]] = builtin.unrealized_conversion_cast %[[F0]] : !llvm.struct<{{.*}}> to memref<128x768xf32>
// CHECK: %[[SCALE:.*]] = llvm.extractvalue %[[V]][1]
// CHECK: %[[LO:.*]] = arith.index_cast %[[B]] : i64 to index
// CHECK: %[[HI:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK: scf.for %[[ROW:.*]] = %[[LO]] to %[[HI]]
// CHECK: %[[I:.*]] = arith.addi
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK: memref.load %[[M0]][%[[I]], %[[J]]]
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
func.func private @k_pointwise(%in: memref<128x768xf32>, %out: memref<128x768xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c768) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<128x768xf32>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %out[%i, %j] : memref<128x768xf32>
  }
  return
}

// -----

// A row kernel (its body loops over the row): every row dim is split, here
// a number of rows known only at run time (passed in the context).
// CHECK-LABEL: func.func private @k_rows(
// CHECK: %[[ROWS:.*]] = memref.dim
// CHECK: %[[R64:.*]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK: llvm.insertvalue %[[R64]], %{{.*}}[0]
// CHECK: call @tcc_parallel_for(
// CHECK-LABEL: func.func private @k_rows_parallel_0(
// CHECK-SAME: attributes {tcc.target = "cpu"}
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[I:.*]] = arith.addi
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]]] : memref<?xf32>
func.func private @k_rows(%in: memref<?x256xf32>, %out: memref<?xf32>) attributes {tcc.target = "cpu"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %in, %c0 : memref<?x256xf32>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %sum = scf.for %j = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %in[%i, %j] : memref<?x256xf32>
      %a = arith.addf %acc, %x : f32
      scf.yield %a : f32
    }
    memref.store %sum, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// Three dims, the outer two numbered together (2 x 64 rows of 512).
// CHECK-LABEL: func.func private @k_three_dims_parallel_0(
// CHECK: scf.for %[[LIN:.*]] = %{{.*}} to %{{.*}} step
// CHECK: affine.delinearize_index %[[LIN]] into (%{{.*}}, %{{.*}})
// CHECK: scf.parallel
func.func private @k_three_dims(%in: memref<2x64x512xf32>, %out: memref<2x64x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c64, %c512) step (%c1, %c1, %c1) {
    %x = memref.load %in[%b, %i, %j] : memref<2x64x512xf32>
    %y = math.exp %x : f32
    memref.store %y, %out[%b, %i, %j] : memref<2x64x512xf32>
  }
  return
}

// -----

// A pooling window (its body loops) over 64 rows of 256 channels: the rows
// are shared, the channels stay one inner loop (LLVM vectorizes across them).
// CHECK-LABEL: func.func private @k_window_parallel_0(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-NOT: affine.delinearize_index
// CHECK: scf.parallel (%{{.*}}) =
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
func.func private @k_window(%in: memref<66x256xf32>, %out: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %c) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
    %m = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> f32 {
      %r = arith.addi %i, %k : index
      %x = memref.load %in[%r, %c] : memref<66x256xf32>
      %a = arith.maximumf %acc, %x : f32
      scf.yield %a : f32
    }
    memref.store %m, %out[%i, %c] : memref<64x256xf32>
  }
  return
}

// -----

// Small loops stay serial (4 x 8 elements: one thread is faster), as do the
// CUDA path's functions and loops whose bodies check values (the run-time
// check's error is per thread).
// CHECK-NOT: tcc_parallel_for
// CHECK-LABEL: func.func private @k_small(
// CHECK: scf.parallel
// CHECK-LABEL: func.func private @k_cuda(
// CHECK: scf.parallel
// CHECK-LABEL: func.func private @k_checked(
// CHECK: scf.parallel
func.func private @k_small(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<4x8xf32>
    memref.store %x, %out[%i, %j] : memref<4x8xf32>
  }
  return
}
func.func private @k_cuda(%in: memref<128x768xf32>, %out: memref<128x768xf32>) attributes {tcc.target = "cuda"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c768) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<128x768xf32>
    memref.store %x, %out[%i, %j] : memref<128x768xf32>
  }
  return
}
func.func private @k_checked(%idx: memref<128x768xi64>, %out: memref<128x768xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c768 = arith.constant 768 : index
  %c10 = arith.constant 10 : i64
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c768) step (%c1, %c1) {
    %x = memref.load %idx[%i, %j] : memref<128x768xi64>
    %ok = arith.cmpi slt, %x, %c10 : i64
    cf.assert %ok, "index out of range"
    memref.store %x, %out[%i, %j] : memref<128x768xi64>
  }
  return
}
