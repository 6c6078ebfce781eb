// tcc-gpu-warp-reductions: one warp of 32 lanes per output element of a
// reduction, with the fill before it and the pointwise epilogue after it
// where they join (pass.mlir, one case per `// -----`), and the whole CUDA pipeline
// on a row sum, whose PTX shuffles with shfl.sync.bfly and assembles for
// sm_90 (pipeline.mlir).
// RUN: split-file %s %t
// RUN: tcc-opt %t/pass.mlir --tcc-gpu-warp-reductions -split-input-file | FileCheck %s
// RUN: tcc-opt %t/pipeline.mlir --tcc-cuda-pipeline | %python %S/Inputs/extract_ptx.py > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

//--- pass.mlir

// A row sum: lane %lane adds elements %lane, %lane + 32, ... of its row,
// starting from -0.0; five xor shuffles combine the lanes; lane 0 adds the
// total to the output's initial value.
// CHECK-LABEL: func.func @row_sum(
// CHECK-SAME:      %[[X:.*]]: memref<64x768xf32>, %[[OUT:.*]]: memref<64xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C768:.*]] = arith.constant 768 : index
// CHECK:         scf.parallel (%[[ROW:.*]], %[[LANE:.*]]) = (%[[C0]], %[[C0]]) to (%[[C64]], %[[C32]])
// CHECK:           %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
// CHECK:           %[[PARTIAL:.*]] = scf.for %[[K:.*]] = %[[LANE]] to %[[C768]] step %[[C32]] iter_args(%[[ACC:.*]] = %[[NEG0]]) -> (f32) {
// CHECK:             %[[IN:.*]] = memref.load %[[X]][%[[ROW]], %[[K]]] : memref<64x768xf32>
// CHECK:             %[[NEXT:.*]] = arith.addf %[[IN]], %[[ACC]] : f32
// CHECK:             scf.yield %[[NEXT]] : f32
// CHECK:           }
// CHECK:           %[[O16:.*]] = arith.constant 16 : i32
// CHECK:           %[[W:.*]] = arith.constant 32 : i32
// CHECK:           %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[PARTIAL]], %[[O16]], %[[W]] : f32
// CHECK:           %[[R16:.*]] = arith.addf %[[S16]], %[[PARTIAL]] : f32
// CHECK:           %[[O8:.*]] = arith.constant 8 : i32
// CHECK:           %[[S8:.*]], %{{.*}} = gpu.shuffle xor %[[R16]], %[[O8]], %{{.*}} : f32
// CHECK:           %[[R8:.*]] = arith.addf %[[S8]], %[[R16]] : f32
// CHECK:           arith.constant 4 : i32
// CHECK:           gpu.shuffle xor %[[R8]]
// CHECK:           arith.constant 2 : i32
// CHECK:           gpu.shuffle xor
// CHECK:           %[[O1:.*]] = arith.constant 1 : i32
// CHECK:           %[[S1:.*]], %{{.*}} = gpu.shuffle xor %[[R2:.*]], %[[O1]], %{{.*}} : f32
// CHECK:           %[[TOTAL:.*]] = arith.addf %[[S1]], %[[R2]] : f32
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %[[C0]] : index
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             %[[INIT:.*]] = memref.load %[[OUT]][%[[ROW]]] : memref<64xf32>
// CHECK:             %[[RESULT:.*]] = arith.addf %[[TOTAL]], %[[INIT]] : f32
// CHECK:             memref.store %[[RESULT]], %[[OUT]][%[[ROW]]] : memref<64xf32>
// CHECK:           }
// CHECK:           scf.reduce
// CHECK-NOT:     linalg.generic
func.func @row_sum(%x: memref<64x768xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x768xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A max of exp(x) over two reduced dims, dynamic sizes, the input read
// transposed (x[d2, d0, d1]): starts from -inf, the linear index is split
// into (d1, d2) with d2 innermost, and the acc-first operand order is kept.
// CHECK-LABEL: func.func @max_dynamic_transposed(
// CHECK-SAME:      %[[X:.*]]: memref<?x?x?xf32>, %[[OUT:.*]]: memref<?xf32>)
// CHECK-DAG:     %[[D2:.*]] = memref.dim %[[X]], %c0 : memref<?x?x?xf32>
// CHECK-DAG:     %[[D0:.*]] = memref.dim %[[X]], %c1 : memref<?x?x?xf32>
// CHECK-DAG:     %[[D1:.*]] = memref.dim %[[X]], %c2 : memref<?x?x?xf32>
// CHECK:         %[[COUNT:.*]] = affine.apply #{{.*}}()[%[[D1]], %[[D2]]]
// CHECK:         scf.parallel (%[[I:.*]], %[[LANE:.*]]) = (%{{.*}}, %{{.*}}) to (%[[D0]], %c32)
// CHECK:           %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:           scf.for %[[K:.*]] = %[[LANE]] to %[[COUNT]] step %c32 iter_args(%[[ACC:.*]] = %[[NEGINF]]) -> (f32) {
// CHECK:             %[[J:.*]]:2 = affine.delinearize_index %[[K]] into (%[[D1]], %[[D2]]) : index, index
// CHECK:             %[[IN:.*]] = memref.load %[[X]][%[[J]]#1, %[[I]], %[[J]]#0] : memref<?x?x?xf32>
// CHECK:             %[[E:.*]] = math.exp %[[IN]] : f32
// CHECK:             arith.maximumf %[[ACC]], %[[E]] : f32
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           scf.if
// CHECK:             %[[INIT:.*]] = memref.load %[[OUT]][%[[I]]] : memref<?xf32>
// CHECK:             %[[RESULT:.*]] = arith.maximumf %[[INIT]], %{{.*}} : f32
// CHECK:             memref.store %[[RESULT]], %[[OUT]][%[[I]]] : memref<?xf32>
func.func @max_dynamic_transposed(%x: memref<?x?x?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<?x?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %0 = arith.maximumf %acc, %e : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// An i32 max starts from INT_MIN.
// CHECK-LABEL: func.func @max_i32(
// CHECK:         scf.parallel
// CHECK:           arith.constant -2147483648 : i32
// CHECK:           scf.for
// CHECK:             arith.maxsi
// CHECK-COUNT-5:   gpu.shuffle xor {{.*}} : i32
func.func @max_i32(%x: memref<8x100xi32>, %out: memref<8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x100xi32>) outs(%out : memref<8xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %0 = arith.maxsi %in, %acc : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

// A matmul that stays a kernel: one warp per C[i, j], the lanes striding
// over k; the non-combine op (mulf) is computed per element.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.*]]: memref<16x64xf32>, %[[B:.*]]: memref<64x24xf32>, %[[C:.*]]: memref<16x24xf32>)
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]], %[[LANE:.*]]) = ({{.*}}) to (%c16, %c24, %c32)
// CHECK:           scf.for %[[K:.*]] = %[[LANE]] to %c64 step %c32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:             %[[AV:.*]] = memref.load %[[A]][%[[I]], %[[K]]] : memref<16x64xf32>
// CHECK:             %[[BV:.*]] = memref.load %[[B]][%[[K]], %[[J]]] : memref<64x24xf32>
// CHECK:             %[[P:.*]] = arith.mulf %[[AV]], %[[BV]] : f32
// CHECK:             arith.addf %[[ACC]], %[[P]] : f32
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           scf.if
// CHECK:             memref.load %[[C]][%[[I]], %[[J]]]
// CHECK:             memref.store %{{.*}}, %[[C]][%[[I]], %[[J]]]
func.func @matmul(%a: memref<16x64xf32>, %b: memref<64x24xf32>, %c: memref<16x24xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d2, d1)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x64xf32>, memref<64x24xf32>) outs(%c : memref<16x24xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A sum over H and W of a channels-last image (the loops: N and C parallel,
// then H and W): the input's innermost dim is a parallel one, so the serial
// form's side-by-side threads read side-by-side channels, and its 32 x 256
// outputs are threads enough: kept. (Lanes would read 32 cache lines.)
// CHECK-LABEL: func.func @channels_last_mean(
// CHECK:         linalg.generic
// CHECK-NOT:     gpu.shuffle
func.func @channels_last_mean(%x: memref<32x14x14x256xf32>, %out: memref<32x256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<32x14x14x256xf32>) outs(%out : memref<32x256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// The same over few outputs (2 x 64): too few threads for serial loops, so
// the warps still share the work.
// CHECK-LABEL: func.func @channels_last_mean_few_outputs(
// CHECK-COUNT-5: gpu.shuffle xor
func.func @channels_last_mean_few_outputs(%x: memref<2x14x14x64xf32>, %out: memref<2x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<2x14x14x64xf32>) outs(%out : memref<2x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Reduction over the leading dim (the innermost loop is parallel): kept.
// CHECK-LABEL: func.func @leading_dim_reduction(
// CHECK:         linalg.generic
// CHECK-NOT:     gpu.shuffle
func.func @leading_dim_reduction(%x: memref<768x64xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<768x64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// 4 * 4 = 16 reduced elements, fewer than a warp: one thread's loop stays.
// CHECK-LABEL: func.func @small_reduction(
// CHECK:         linalg.generic
// CHECK-NOT:     gpu.shuffle
func.func @small_reduction(%x: memref<64x4x4xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<64x4x4xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Two outputs (sum and sum of squares, as var_mean), each yielding a
// supported combine: kept.
// CHECK-LABEL: func.func @two_outputs(
// CHECK:         linalg.generic
// CHECK-NOT:     gpu.shuffle
func.func @two_outputs(%x: memref<64x768xf32>, %sum: memref<64xf32>, %sumsq: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x768xf32>) outs(%sum, %sumsq : memref<64xf32>, memref<64xf32>) {
  ^bb0(%in: f32, %s: f32, %q: f32):
    %0 = arith.addf %in, %s : f32
    %sq = arith.mulf %in, %in : f32
    %1 = arith.addf %sq, %q : f32
    linalg.yield %0, %1 : f32, f32
  }
  return
}

// -----

// The accumulator used twice (acc + acc * x is no combine(x, acc)): kept.
// CHECK-LABEL: func.func @acc_used_twice(
// CHECK:         linalg.generic
// CHECK-NOT:     gpu.shuffle
func.func @acc_used_twice(%x: memref<64x768xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x768xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %acc, %in : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Already inside an scf.parallel (a full reduction that
// tcc-gpu-wrap-serial-ops wrapped): a nested loop would be mapped
// sequential, so it is kept.
// CHECK-LABEL: func.func @inside_parallel(
// CHECK:         scf.parallel
// CHECK:           linalg.generic
// CHECK-NOT:     gpu.shuffle
func.func @inside_parallel(%x: memref<768xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                    iterator_types = ["reduction"]}
        ins(%x : memref<768xf32>) outs(%out : memref<f32>) {
    ^bb0(%in: f32, %acc: f32):
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  }
  return
}

// -----

// A planned entry's mean over H and W (49 elements a row: a warp each): the
// fill before the sum and the division after it join the warp's kernel
// (arena views at disjoint offsets; the division's output an argument, not
// in the arena): lane 0 starts from the fill's value instead of loading the
// output, stores the sum, then the mean.
// CHECK-LABEL: func.func @mean_hw(
// CHECK-SAME:      %[[Y:.*]]: memref<4x8xf32>, %[[ARENA:.*]]: memref<?xi8> {tcc.arena})
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[N:.*]] = arith.constant 4.900000e+01 : f32
// CHECK-NOT:     linalg.fill
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]], %[[LANE:.*]]) =
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:           scf.if
// CHECK-NOT:         memref.load
// CHECK:             %[[SUM:.*]] = arith.addf %{{.*}}, %[[ZERO]] : f32
// CHECK:             memref.store %[[SUM]], %{{.*}}[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK:             %[[MEAN:.*]] = arith.divf %[[SUM]], %[[N]] : f32
// CHECK:             memref.store %[[MEAN]], %[[Y]][%{{.*}}, %{{.*}}] : memref<4x8xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @mean_hw(%y: memref<4x8xf32>, %arena: memref<?xi8> {tcc.arena}) attributes {tcc.target = "cuda"} {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %x = memref.view %arena[%c0][] : memref<?xi8> to memref<4x8x7x7xf32>
  %sum = memref.view %arena[%c8192][] : memref<?xi8> to memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<4x8x7x7xf32>) outs(%sum : memref<4x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// The same mean with its input and the division's output both arguments
// (they may be one buffer): the division, whose writes other warps' reads
// could see, stays a kernel of its own; the fill still joins.
// CHECK-LABEL: func.func @mean_into_argument(
// CHECK-NOT:     linalg.fill
// CHECK:         scf.parallel
// CHECK:           gpu.shuffle
// CHECK:         linalg.generic
// CHECK:           arith.divf
func.func @mean_into_argument(%x: memref<4x8x7x7xf32>, %y: memref<4x8xf32>, %arena: memref<?xi8> {tcc.arena}) attributes {tcc.target = "cuda"} {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %c0 = arith.constant 0 : index
  %sum = memref.view %arena[%c0][] : memref<?xi8> to memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<4x8x7x7xf32>) outs(%sum : memref<4x8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  }
  return
}

//--- pipeline.mlir

// PTX: .visible .entry forward_cuda_kernel(
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX-NOT:     shfl.sync
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
module attributes {tcc.arena_size = 0 : i64} {
  func.func @forward(%x: memref<64x768xf32>, %out: memref<64xf32>,
                     %arena: memref<?xi8> {tcc.arena}) {
    linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<64x768xf32>) outs(%out : memref<64xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
    return
  }
}
