// RUN: tcc-opt %s -split-input-file -tcc-expand-cpu-math | FileCheck %s
// RUN: tcc-opt %s -split-input-file -tcc-expand-cpu-math=fma=false | FileCheck %s --check-prefix=NOFMA

// f32 exp and erf become polynomials (arithmetic that vectorizes), not libm
// calls; f64 keeps the library's exp. Without FMA (x86-64-v2) the
// polynomials' multiply-adds are a multiply and an add.
// CHECK-LABEL: func @transcendental
// CHECK-NOT: math.exp {{.*}} : f32
// CHECK-NOT: math.erf
// CHECK: math.fma
// CHECK: math.exp %arg1 : f64
// NOFMA-LABEL: func @transcendental
// NOFMA-NOT: math.fma
// NOFMA: math.exp %arg1 : f64
func.func @transcendental(%x: f32, %d: f64) -> (f32, f32, f64) {
  %e = math.exp %x : f32
  %r = math.erf %x : f32
  %de = math.exp %d : f64
  return %e, %r, %de : f32, f32, f64
}

// -----

// A model's own fma stays an fma, FMA hardware or not.
// NOFMA-LABEL: func @own_fma
// NOFMA: math.fma %arg0, %arg1, %arg2 : f32
func.func @own_fma(%a: f32, %b: f32, %c: f32) -> f32 {
  %0 = math.fma %a, %b, %c : f32
  return %0 : f32
}

// -----

// Float max and min stay ops (llvm.maximum / llvm.minnum: reductions the loop
// vectorizer takes); what arith-expand must do is still done: integer
// ceil/floor division and bf16 conversions as integer operations.
// CHECK-LABEL: func @arith
// CHECK: arith.maximumf %arg0, %arg1 : f32
// CHECK: arith.minnumf %arg0, %arg1 : f32
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.extf {{.*}} bf16
// CHECK-NOT: arith.truncf {{.*}} to bf16
// CHECK: return
func.func @arith(%a: f32, %b: f32, %i: i64, %j: i64, %h: bf16) -> (f32, f32, i64, i64, f32, bf16) {
  %0 = arith.maximumf %a, %b : f32
  %1 = arith.minnumf %a, %b : f32
  %2 = arith.ceildivsi %i, %j : i64
  %3 = arith.floordivsi %i, %j : i64
  %4 = arith.extf %h : bf16 to f32
  %5 = arith.truncf %a : f32 to bf16
  return %0, %1, %2, %3, %4, %5 : f32, f32, i64, i64, f32, bf16
}

// -----

// A softmax row's loops after the pass: the running max an arith.maximumf,
// the exponentials polynomials; no call left for LLVM to keep scalar.
// CHECK-LABEL: func @softmax_row
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: scf.for
// CHECK-NOT: math.exp
// CHECK: math.fma
// CHECK: arith.addf {{.*}} fastmath<reassoc>
func.func @softmax_row(%in: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %max = scf.for %j = %c0 to %c64 step %c1 iter_args(%acc = %ninf) -> f32 {
    %x = memref.load %in[%j] : memref<64xf32>
    %m = arith.maximumf %acc, %x fastmath<reassoc> : f32
    scf.yield %m : f32
  }
  %sum = scf.for %j = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %in[%j] : memref<64xf32>
    %d = arith.subf %x, %max : f32
    %e = math.exp %d : f32
    %s = arith.addf %acc, %e fastmath<reassoc> : f32
    scf.yield %s : f32
  }
  return %sum : f32
}

// -----

// A subnormal input of log (and log2) is scaled by 2^23 first and the
// result moved back by 23·ln 2 (23): the approximation reads the exponent
// from the bits and would take 1e-40 for 2^-126 times its mantissa.
// CHECK-LABEL: func @subnormal_log
// CHECK:     %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK:     %[[TINY:.*]] = arith.cmpf olt, %arg0, %[[MIN]] : f32
// CHECK:     %[[UP:.*]] = arith.constant 0x4B000000 : f32
// CHECK:     %[[SCALED:.*]] = arith.mulf %arg0, %[[UP]] : f32
// CHECK:     arith.select %[[TINY]], %[[SCALED]], %arg0 : f32
// CHECK:     %[[SHIFT:.*]] = arith.constant 15.9423{{[0-9]*}} : f32
// CHECK:     %[[DOWN:.*]] = arith.subf %[[LOG:.*]], %[[SHIFT]] : f32
// CHECK:     %[[R:.*]] = arith.select %[[TINY]], %[[DOWN]], %[[LOG]] : f32
// CHECK:     return %[[R]]
func.func @subnormal_log(%x: f32) -> f32 {
  %l = math.log %x : f32
  return %l : f32
}

// -----

// A select of bf16 values chooses their bits (i16): x86 would promote a
// `select bfloat` through f32 and round back with __truncsfbf2, which
// libgcc 12 lacks; scalars and vectors alike.
// CHECK-LABEL: func @select_bf16
// CHECK:     %[[A:.*]] = arith.bitcast %arg1 : bf16 to i16
// CHECK:     %[[B:.*]] = arith.bitcast %arg2 : bf16 to i16
// CHECK:     %[[S:.*]] = arith.select %arg0, %[[A]], %[[B]] : i16
// CHECK:     %[[R:.*]] = arith.bitcast %[[S]] : i16 to bf16
// CHECK:     arith.bitcast %{{.*}} : vector<8xbf16> to vector<8xi16>
// CHECK:     arith.select %{{.*}} : vector<8xi1>, vector<8xi16>
// CHECK:     arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK-NOT: arith.select {{.*}} : {{.*}}bf16
func.func @select_bf16(%c: i1, %a: bf16, %b: bf16, %cv: vector<8xi1>, %av: vector<8xbf16>, %bv: vector<8xbf16>) -> (bf16, vector<8xbf16>) {
  %s = arith.select %c, %a, %b : bf16
  %v = arith.select %cv, %av, %bv : vector<8xi1>, vector<8xbf16>
  return %s, %v : bf16, vector<8xbf16>
}
