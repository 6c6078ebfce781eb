// A fused pointwise kernel (foo: sin(x) + cos(y)) through the CUDA pipeline:
// one 1-D kernel of 256-thread blocks over 16-byte chunks (ld/st.global.v4),
// whose threads stride over the grid, launched on forward_cuda's stream
// argument; its PTX assembles for sm_90
// (samples-ptx.test covers sm_80).
// RUN: tcc-opt %s --tcc-cuda-pipeline | FileCheck %s
// RUN: tcc-opt %s --pass-pipeline='builtin.module(func.func(tcc-gpu-vectorize-elementwise,tcc-gpu-wrap-serial-ops,convert-linalg-to-parallel-loops,tcc-gpu-map-parallel-loops,convert-parallel-loops-to-gpu),lower-affine,canonicalize,gpu-kernel-outlining,tcc-gpu-finalize-launches)' | FileCheck %s --check-prefix=LAUNCH
// RUN: tcc-opt %s --tcc-cuda-pipeline | %python %S/Inputs/extract_ptx.py > %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// LAUNCH-LABEL: func.func @forward_cuda(
// LAUNCH-SAME:    %[[STREAM:arg[0-9]+]]: !llvm.ptr {tcc.stream})
// LAUNCH:         %[[TOKEN:[0-9]+]] = builtin.unrealized_conversion_cast %[[STREAM]] : !llvm.ptr to !gpu.async.token
// LAUNCH:         gpu.launch_func async [%[[TOKEN]]] @tcc_kernels::@forward_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%c256, %c1, %c1)
// LAUNCH:       gpu.module @tcc_kernels
// LAUNCH:         gpu.func @forward_kernel(
// LAUNCH-NOT:       known_grid_size
// LAUNCH:           %[[SPAN:.*]] = arith.muli %grid_dim_x{{.*}}, %{{.*}} : index
// LAUNCH:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[SPAN]]
// LAUNCH:           vector.load {{.*}} {alignment = 16 : i64} : memref<100xf32>, vector<4xf32>
// LAUNCH:           math.sin
// LAUNCH:           math.cos
// LAUNCH:           vector.store {{.*}} {alignment = 16 : i64} : memref<100xf32>, vector<4xf32>

// PTX-DAG: ld.global.v4.b32
// PTX-DAG: st.global.v4.b32

// CHECK:       llvm.func @forward_cuda(
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @tcc_kernels::@forward_cuda_kernel
// CHECK:       gpu.binary @tcc_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME:    .target sm_90
// CHECK-SAME:    .visible .entry forward_cuda_kernel(

#map = affine_map<(d0, d1) -> (d0, d1)>
module attributes {tcc.arena_size = 0 : i64} {
  func.func @forward(%x: memref<10x10xf32>, %y: memref<10x10xf32>, %out: memref<10x10xf32>,
                     %arena: memref<?xi8> {tcc.arena}) {
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%x, %y : memref<10x10xf32>, memref<10x10xf32>) outs(%out : memref<10x10xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %0 = math.sin %a : f32
      %1 = math.cos %b : f32
      %2 = arith.addf %0, %1 : f32
      linalg.yield %2 : f32
    }
    return
  }
}
