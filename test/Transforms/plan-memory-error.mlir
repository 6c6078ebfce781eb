// RUN: tcc-opt %s -tcc-plan-memory -split-input-file -verify-diagnostics

// A size loaded from memory has no bound.
func.func @unboundable(%sizes: memref<index>) {
  // expected-note @below {{the unbounded size comes from here}}
  %n = memref.load %sizes[] : memref<index>
  // expected-error @below {{'memref.alloc' op cannot bound the size of this buffer for memory planning: 'memref.load' produces a size that cannot be bounded}}
  %a = memref.alloc(%n) : memref<?xf32>
  func.call @use(%a) : (memref<?xf32>) -> ()
  return
}
func.func private @use(memref<?xf32>)

// -----

// The note points at the op deep in the size computation that is not bounded.
func.func @unboundable_operand() {
  %c4 = arith.constant 4 : index
  // expected-note @below {{the unbounded size comes from here}}
  %s = arith.shli %c4, %c4 : index
  %n = arith.addi %s, %c4 : index
  // expected-error @below {{cannot bound the size of this buffer for memory planning: 'arith.shli' produces a size that cannot be bounded}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

// A dynamic dimension of an argument without `tcc.sizes`.
// expected-note @below {{the unbounded size comes from here}}
func.func @no_sizes(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  // expected-error @below {{'memref.alloc' op cannot bound the size of this buffer for memory planning: function argument #0 has no 'tcc.sizes' attribute to bound its dimension 0}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  return
}

// -----

// A symbol without a range: the module has no `tcc.symbols`.
// expected-note @below {{the unbounded size comes from here}}
func.func @no_symbols(%x: memref<?xf32> {tcc.sizes = ["s77"]}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  // expected-error @below {{cannot bound the size of this buffer for memory planning: symbol 's77' of function argument #0 has no range: the module has no 'tcc.symbols' attribute}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  return
}

// -----

// A symbol missing from `tcc.symbols`.
module attributes {tcc.symbols = {s1 = [1, 8]}} {
  // expected-note @below {{the unbounded size comes from here}}
  func.func @unknown_symbol(%x: memref<?xf32> {tcc.sizes = ["s77"]}) {
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    // expected-error @below {{symbol 's77' has no range in the module's 'tcc.symbols'}}
    %a = memref.alloc(%n) : memref<?xf32>
    memref.copy %x, %a : memref<?xf32> to memref<?xf32>
    return
  }
}

// -----

// Division by a value that may be zero.
module attributes {tcc.symbols = {s77 = [0, 8]}} {
  func.func @divisor(%x: memref<?xf32> {tcc.sizes = ["s77"]}) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    // expected-note @below {{the unbounded size comes from here}}
    %q = arith.divui %c64, %n : index
    // expected-error @below {{'arith.divui' divides by a value that may be zero or negative}}
    %a = memref.alloc(%q) : memref<?xf32>
    return
  }
}

// -----

// Only bare symbols and integers are understood in `tcc.sizes`.
module attributes {tcc.symbols = {s77 = [1, 1024]}} {
  // expected-note @below {{the unbounded size comes from here}}
  func.func @expression(%x: memref<?xf32> {tcc.sizes = ["2*s77"]}) {
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    // expected-error @below {{cannot bound the size of this buffer for memory planning: size '2*s77' of function argument #0 is an expression; only bare symbols and integers can be bounded}}
    %a = memref.alloc(%n) : memref<?xf32>
    memref.copy %x, %a : memref<?xf32> to memref<?xf32>
    return
  }
}

// -----

// Every alloc in a nested region is reported.
func.func @nested(%out: memref<16xf32>) {
  affine.for %i = 0 to 4 {
    // expected-error @below {{'memref.alloc' op is inside a nested region; memory planning only places allocs at the top level of the function body}}
    %a = memref.alloc() : memref<16xf32>
    memref.copy %a, %out : memref<16xf32> to memref<16xf32>
  }
  memref.alloca_scope {
    // expected-error @below {{'memref.alloc' op is inside a nested region}}
    %b = memref.alloc() : memref<16xf32>
    memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  }
  return
}

// -----

func.func @layout(%out: memref<4x4xf32, strided<[8, 1]>>) {
  // expected-error @below {{'memref.alloc' op has a non-identity layout strided<[8, 1]>; only identity-layout buffers can become views of the arena}}
  %a = memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
  memref.copy %a, %out : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

func.func @memory_space() {
  // expected-error @below {{'memref.alloc' op is in memory space 3 : i64; the arena is in the default memory space}}
  %a = memref.alloc() : memref<4xf32, 3>
  return
}

// -----

func.func @returned() -> memref<16xf32> {
  // expected-error @below {{'memref.alloc' op escapes the function, so it cannot live in the arena}}
  %a = memref.alloc() : memref<16xf32>
  %v = memref.cast %a : memref<16xf32> to memref<?xf32>
  %w = memref.cast %v : memref<?xf32> to memref<16xf32>
  // expected-note @below {{returned here}}
  return %w : memref<16xf32>
}

// -----

func.func @alignment() {
  // expected-error @below {{'memref.alloc' op requests alignment 128, more than the arena's 64}}
  %a = memref.alloc() {alignment = 128 : i64} : memref<16xf32>
  return
}

// -----

// expected-error @below {{'func.func' op has callers in the module; inline it before memory planning}}
func.func private @callee() {
  // expected-note @below {{buffer allocated here}}
  %a = memref.alloc() : memref<16xf32>
  return
}
func.func @caller() {
  func.call @callee() : () -> ()
  return
}
