// RUN: tcc-opt %s -tcc-gpu-compact-kernel-arguments -split-input-file -verify-diagnostics | FileCheck %s

// A static buffer travels as its aligned pointer: the kernel rebuilds the
// descriptor with the offset, sizes and strides of its type; scalars stay.
// CHECK-LABEL: func.func @forward_cuda
// CHECK:         %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<4x8xf32, strided<[8, 1], offset: 16>> -> index
// CHECK:         %[[INT:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK:         %[[PTR:.*]] = llvm.inttoptr %[[INT]] : i64 to !llvm.ptr
// CHECK:         gpu.launch_func async [%{{.*}}] @kernels::@static_kernel blocks in (%{{.*}}) threads in (%{{.*}}) args(%[[PTR]] : !llvm.ptr, %{{.*}} : f32)
// CHECK:       gpu.func @static_kernel(%[[P:.*]]: !llvm.ptr, %[[V:.*]]: f32) kernel
// CHECK:         %[[D0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK:         llvm.insertvalue %[[P]], %[[D0]][0]
// CHECK:         llvm.insertvalue %[[P]], %{{.*}}[1]
// CHECK:         %[[C16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK:         llvm.insertvalue %[[C16]], %{{.*}}[2]
// CHECK:         %[[DESC:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[4, 1]
// CHECK:         %[[M:.*]] = builtin.unrealized_conversion_cast %[[DESC]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<4x8xf32, strided<[8, 1], offset: 16>>
// CHECK:         memref.store %[[V]], %[[M]]
module attributes {gpu.container_module} {
  func.func @forward_cuda(%a: memref<4x8xf32, strided<[8, 1], offset: 16>>, %v: f32, %t: !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %0 = gpu.launch_func async [%t] @kernels::@static_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4x8xf32, strided<[8, 1], offset: 16>>, %v : f32)
    return
  }
  gpu.module @kernels {
    gpu.func @static_kernel(%a: memref<4x8xf32, strided<[8, 1], offset: 16>>, %v: f32) kernel {
      %c0 = arith.constant 0 : index
      memref.store %v, %a[%c0, %c0] : memref<4x8xf32, strided<[8, 1], offset: 16>>
      gpu.return
    }
  }
}

// -----

// Dynamic offset, sizes and strides follow the pointer, in that order, as
// indices from memref.extract_strided_metadata.
// CHECK-LABEL: func.func @forward_cuda
// CHECK:         %[[BASE:.*]], %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %{{.*}} : memref<?x8xf32, strided<[?, 1], offset: ?>>
// CHECK:         gpu.launch_func async {{.*}} args(%{{.*}} : !llvm.ptr, %[[OFF]] : index, %[[SIZES]]#0 : index, %[[STRIDES]]#0 : index)
// CHECK:       gpu.func @dynamic_kernel(%[[P:.*]]: !llvm.ptr, %[[O:.*]]: index, %[[N:.*]]: index, %[[S:.*]]: index) kernel
// CHECK:         %[[O64:.*]] = arith.index_cast %[[O]] : index to i64
// CHECK:         llvm.insertvalue %[[O64]], %{{.*}}[2]
// CHECK:         %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:         llvm.insertvalue %[[N64]], %{{.*}}[3, 0]
// CHECK:         %[[S64:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK:         llvm.insertvalue %[[S64]], %{{.*}}[4, 0]
// CHECK:         builtin.unrealized_conversion_cast %{{.*}} to memref<?x8xf32, strided<[?, 1], offset: ?>>
module attributes {gpu.container_module} {
  func.func @forward_cuda(%a: memref<?x8xf32, strided<[?, 1], offset: ?>>, %t: !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %0 = gpu.launch_func async [%t] @kernels::@dynamic_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<?x8xf32, strided<[?, 1], offset: ?>>)
    return
  }
  gpu.module @kernels {
    gpu.func @dynamic_kernel(%a: memref<?x8xf32, strided<[?, 1], offset: ?>>) kernel {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 1.0 : f32
      memref.store %cst, %a[%c0, %c0] : memref<?x8xf32, strided<[?, 1], offset: ?>>
      gpu.return
    }
  }
}

// -----

// A buffer in another memory space keeps its descriptor; a kernel whose
// parameters still exceed PTX's 4352 bytes is refused at compile time.

module attributes {gpu.container_module} {
  func.func @forward_cuda(%a0: memref<1x1x1x1xf32, 1>, %a1: memref<1x1x1x1xf32, 1>, %a2: memref<1x1x1x1xf32, 1>, %a3: memref<1x1x1x1xf32, 1>, %a4: memref<1x1x1x1xf32, 1>, %a5: memref<1x1x1x1xf32, 1>, %a6: memref<1x1x1x1xf32, 1>, %a7: memref<1x1x1x1xf32, 1>, %a8: memref<1x1x1x1xf32, 1>, %a9: memref<1x1x1x1xf32, 1>, %a10: memref<1x1x1x1xf32, 1>, %a11: memref<1x1x1x1xf32, 1>, %a12: memref<1x1x1x1xf32, 1>, %a13: memref<1x1x1x1xf32, 1>, %a14: memref<1x1x1x1xf32, 1>, %a15: memref<1x1x1x1xf32, 1>, %a16: memref<1x1x1x1xf32, 1>, %a17: memref<1x1x1x1xf32, 1>, %a18: memref<1x1x1x1xf32, 1>, %a19: memref<1x1x1x1xf32, 1>, %a20: memref<1x1x1x1xf32, 1>, %a21: memref<1x1x1x1xf32, 1>, %a22: memref<1x1x1x1xf32, 1>, %a23: memref<1x1x1x1xf32, 1>, %a24: memref<1x1x1x1xf32, 1>, %a25: memref<1x1x1x1xf32, 1>, %a26: memref<1x1x1x1xf32, 1>, %a27: memref<1x1x1x1xf32, 1>, %a28: memref<1x1x1x1xf32, 1>, %a29: memref<1x1x1x1xf32, 1>, %a30: memref<1x1x1x1xf32, 1>, %a31: memref<1x1x1x1xf32, 1>, %a32: memref<1x1x1x1xf32, 1>, %a33: memref<1x1x1x1xf32, 1>, %a34: memref<1x1x1x1xf32, 1>, %a35: memref<1x1x1x1xf32, 1>, %a36: memref<1x1x1x1xf32, 1>, %a37: memref<1x1x1x1xf32, 1>, %a38: memref<1x1x1x1xf32, 1>, %a39: memref<1x1x1x1xf32, 1>, %a40: memref<1x1x1x1xf32, 1>, %a41: memref<1x1x1x1xf32, 1>, %a42: memref<1x1x1x1xf32, 1>, %a43: memref<1x1x1x1xf32, 1>, %a44: memref<1x1x1x1xf32, 1>, %a45: memref<1x1x1x1xf32, 1>, %a46: memref<1x1x1x1xf32, 1>, %a47: memref<1x1x1x1xf32, 1>, %a48: memref<1x1x1x1xf32, 1>, %a49: memref<1x1x1x1xf32, 1>, %t: !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %0 = gpu.launch_func async [%t] @kernels::@wide_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a0 : memref<1x1x1x1xf32, 1>, %a1 : memref<1x1x1x1xf32, 1>, %a2 : memref<1x1x1x1xf32, 1>, %a3 : memref<1x1x1x1xf32, 1>, %a4 : memref<1x1x1x1xf32, 1>, %a5 : memref<1x1x1x1xf32, 1>, %a6 : memref<1x1x1x1xf32, 1>, %a7 : memref<1x1x1x1xf32, 1>, %a8 : memref<1x1x1x1xf32, 1>, %a9 : memref<1x1x1x1xf32, 1>, %a10 : memref<1x1x1x1xf32, 1>, %a11 : memref<1x1x1x1xf32, 1>, %a12 : memref<1x1x1x1xf32, 1>, %a13 : memref<1x1x1x1xf32, 1>, %a14 : memref<1x1x1x1xf32, 1>, %a15 : memref<1x1x1x1xf32, 1>, %a16 : memref<1x1x1x1xf32, 1>, %a17 : memref<1x1x1x1xf32, 1>, %a18 : memref<1x1x1x1xf32, 1>, %a19 : memref<1x1x1x1xf32, 1>, %a20 : memref<1x1x1x1xf32, 1>, %a21 : memref<1x1x1x1xf32, 1>, %a22 : memref<1x1x1x1xf32, 1>, %a23 : memref<1x1x1x1xf32, 1>, %a24 : memref<1x1x1x1xf32, 1>, %a25 : memref<1x1x1x1xf32, 1>, %a26 : memref<1x1x1x1xf32, 1>, %a27 : memref<1x1x1x1xf32, 1>, %a28 : memref<1x1x1x1xf32, 1>, %a29 : memref<1x1x1x1xf32, 1>, %a30 : memref<1x1x1x1xf32, 1>, %a31 : memref<1x1x1x1xf32, 1>, %a32 : memref<1x1x1x1xf32, 1>, %a33 : memref<1x1x1x1xf32, 1>, %a34 : memref<1x1x1x1xf32, 1>, %a35 : memref<1x1x1x1xf32, 1>, %a36 : memref<1x1x1x1xf32, 1>, %a37 : memref<1x1x1x1xf32, 1>, %a38 : memref<1x1x1x1xf32, 1>, %a39 : memref<1x1x1x1xf32, 1>, %a40 : memref<1x1x1x1xf32, 1>, %a41 : memref<1x1x1x1xf32, 1>, %a42 : memref<1x1x1x1xf32, 1>, %a43 : memref<1x1x1x1xf32, 1>, %a44 : memref<1x1x1x1xf32, 1>, %a45 : memref<1x1x1x1xf32, 1>, %a46 : memref<1x1x1x1xf32, 1>, %a47 : memref<1x1x1x1xf32, 1>, %a48 : memref<1x1x1x1xf32, 1>, %a49 : memref<1x1x1x1xf32, 1>)
    return
  }
  gpu.module @kernels {
    // expected-error @+1 {{--target cuda: kernel 'wide_kernel' takes 4400 bytes of parameters (50 arguments); a CUDA kernel may take 4352}}
    gpu.func @wide_kernel(%a0: memref<1x1x1x1xf32, 1>, %a1: memref<1x1x1x1xf32, 1>, %a2: memref<1x1x1x1xf32, 1>, %a3: memref<1x1x1x1xf32, 1>, %a4: memref<1x1x1x1xf32, 1>, %a5: memref<1x1x1x1xf32, 1>, %a6: memref<1x1x1x1xf32, 1>, %a7: memref<1x1x1x1xf32, 1>, %a8: memref<1x1x1x1xf32, 1>, %a9: memref<1x1x1x1xf32, 1>, %a10: memref<1x1x1x1xf32, 1>, %a11: memref<1x1x1x1xf32, 1>, %a12: memref<1x1x1x1xf32, 1>, %a13: memref<1x1x1x1xf32, 1>, %a14: memref<1x1x1x1xf32, 1>, %a15: memref<1x1x1x1xf32, 1>, %a16: memref<1x1x1x1xf32, 1>, %a17: memref<1x1x1x1xf32, 1>, %a18: memref<1x1x1x1xf32, 1>, %a19: memref<1x1x1x1xf32, 1>, %a20: memref<1x1x1x1xf32, 1>, %a21: memref<1x1x1x1xf32, 1>, %a22: memref<1x1x1x1xf32, 1>, %a23: memref<1x1x1x1xf32, 1>, %a24: memref<1x1x1x1xf32, 1>, %a25: memref<1x1x1x1xf32, 1>, %a26: memref<1x1x1x1xf32, 1>, %a27: memref<1x1x1x1xf32, 1>, %a28: memref<1x1x1x1xf32, 1>, %a29: memref<1x1x1x1xf32, 1>, %a30: memref<1x1x1x1xf32, 1>, %a31: memref<1x1x1x1xf32, 1>, %a32: memref<1x1x1x1xf32, 1>, %a33: memref<1x1x1x1xf32, 1>, %a34: memref<1x1x1x1xf32, 1>, %a35: memref<1x1x1x1xf32, 1>, %a36: memref<1x1x1x1xf32, 1>, %a37: memref<1x1x1x1xf32, 1>, %a38: memref<1x1x1x1xf32, 1>, %a39: memref<1x1x1x1xf32, 1>, %a40: memref<1x1x1x1xf32, 1>, %a41: memref<1x1x1x1xf32, 1>, %a42: memref<1x1x1x1xf32, 1>, %a43: memref<1x1x1x1xf32, 1>, %a44: memref<1x1x1x1xf32, 1>, %a45: memref<1x1x1x1xf32, 1>, %a46: memref<1x1x1x1xf32, 1>, %a47: memref<1x1x1x1xf32, 1>, %a48: memref<1x1x1x1xf32, 1>, %a49: memref<1x1x1x1xf32, 1>) kernel {
      gpu.return
    }
  }
}
