// RUN: tcc-opt %s -tcc-legalize-graph -split-input-file | FileCheck %s

// irfft of a real [2, 3] input: 4 output points (2·(3-1)), a product in f64
// with the c2r matrix [3, 4]: cos of 2π·((k·t) mod 4)/4 (an exact integer
// remainder, then the angle step π/2), each row k weighted w_k/4 ("backward"
// norm), w = 1 for the zero-frequency and Nyquist rows (k = 0, 2k = 4), 2
// for the others; no sine product, the imaginary part being zero.
// CHECK-LABEL: func @irfft
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf64>
// CHECK: %[[K:.*]] = tcc_graph.iota {{.*}} : tensor<3xi64>
// CHECK: %[[T:.*]] = tcc_graph.iota {{.*}} : tensor<4xi64>
// CHECK: %[[KT:.*]] = tcc_graph.mul %{{.*}}, %{{.*}} : (tensor<3x1xi64>, tensor<1x4xi64>) -> tensor<3x4xi64>
// CHECK: %[[N:.*]] = tcc_graph.constant dense<4> : tensor<i64>
// CHECK: %[[R:.*]] = tcc_graph.fmod %[[KT]], %[[N]] : (tensor<3x4xi64>, tensor<i64>) -> tensor<3x4xi64>
// CHECK: %[[RF:.*]] = tcc_graph.cast %[[R]] : (tensor<3x4xi64>) -> tensor<3x4xf64>
// CHECK: %[[STEP:.*]] = tcc_graph.constant dense<1.5707963267948966> : tensor<f64>
// CHECK: %[[THETA:.*]] = tcc_graph.mul %[[RF]], %[[STEP]]
// CHECK: %[[COS:.*]] = tcc_graph.cos %[[THETA]] : tensor<3x4xf64>
// CHECK: %[[ZERO:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<3x1xi64>, tensor<i64>) -> tensor<3x1xi1>
// CHECK: %[[NYQ:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<3x1xi64>, tensor<i64>) -> tensor<3x1xi1>
// CHECK: %[[EDGE:.*]] = tcc_graph.bitwise_or %[[ZERO]], %[[NYQ]]
// CHECK: %[[QUARTER:.*]] = tcc_graph.constant dense<2.500000e-01> : tensor<f64>
// CHECK: %[[HALF:.*]] = tcc_graph.constant dense<5.000000e-01> : tensor<f64>
// CHECK: %[[W:.*]] = tcc_graph.select %[[EDGE]], %[[QUARTER]], %[[HALF]] : (tensor<3x1xi1>, tensor<f64>, tensor<f64>) -> tensor<3x1xf64>
// CHECK: %[[A:.*]] = tcc_graph.mul %[[COS]], %[[W]] : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
// CHECK: %[[Y:.*]] = tcc_graph.matmul %[[X]], %[[A]] : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
// CHECK-NOT: tcc_graph.matmul
// CHECK: %[[OUT:.*]] = tcc_graph.cast %[[Y]] : (tensor<2x4xf64>) -> tensor<2x4xf32>
// CHECK: return %[[OUT]]
func.func @irfft(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.fft_irfft.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64}} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// fft of a real [4] input along its only dim, a complex result in the (re,
// im) form: re = x·C, im = -(x·S) with C, S the cos and sin of 2π·jk/4
// (unscaled: "backward" forward transform), paired in a last dim of 2.
// CHECK-LABEL: func @fft_real_input
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<4xf32>) -> tensor<4xf64>
// CHECK: %[[R:.*]] = tcc_graph.fmod %{{.*}}, %{{.*}} : (tensor<4x4xi64>, tensor<i64>) -> tensor<4x4xi64>
// CHECK: %[[C:.*]] = tcc_graph.cos %[[THETA:.*]] : tensor<4x4xf64>
// CHECK: %[[S:.*]] = tcc_graph.sin %[[THETA]] : tensor<4x4xf64>
// CHECK: %[[XR:.*]] = tcc_graph.reshape %[[X]] : (tensor<4xf64>) -> tensor<1x4xf64>
// CHECK: tcc_graph.matmul %[[XR]], %[[C]]
// CHECK: tcc_graph.matmul %{{.*}}, %[[S]]
// CHECK: tcc_graph.neg %{{.*}} : tensor<4xf64>
// CHECK: %[[RE:.*]] = tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
// CHECK: %[[IM:.*]] = tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
// CHECK: %[[RE1:.*]] = tcc_graph.reshape %[[RE]] : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: %[[IM1:.*]] = tcc_graph.reshape %[[IM]] : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: %[[OUT:.*]] = tcc_graph.concat %[[RE1]], %[[IM1]] {dim = 1 : i64} : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
// CHECK: return %[[OUT]]
func.func @fft_real_input(%x: tensor<4xf32>) -> tensor<4x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.fft_fft.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64}, tcc.complex_results = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// rfft along dim 0 of [3, 2] with n = 4 (zero-padded) and norm "ortho": the
// one-sided matrices [4, 3] (n/2+1 frequencies) scaled by 1/2 = 1/√4, dim 0
// moved last for the product and back.
// CHECK-LABEL: func @rfft_padded_ortho
// CHECK: %[[Z:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<1x2xf64>
// CHECK: %[[P:.*]] = tcc_graph.concat %{{.*}}, %[[Z]] {dim = 0 : i64} : (tensor<3x2xf64>, tensor<1x2xf64>) -> tensor<4x2xf64>
// CHECK: tcc_graph.fmod %{{.*}}, %{{.*}} : (tensor<4x3xi64>, tensor<i64>) -> tensor<4x3xi64>
// CHECK: %[[C:.*]] = tcc_graph.cos %{{.*}} : tensor<4x3xf64>
// CHECK: %[[ORTHO:.*]] = tcc_graph.constant dense<5.000000e-01> : tensor<f64>
// CHECK: %[[CS:.*]] = tcc_graph.mul %[[C]], %[[ORTHO]]
// CHECK: %[[PT:.*]] = tcc_graph.transpose %[[P]] {permutation = array<i64: 1, 0>} : (tensor<4x2xf64>) -> tensor<2x4xf64>
// CHECK: tcc_graph.matmul %[[PT]], %[[CS]] : (tensor<2x4xf64>, tensor<4x3xf64>) -> tensor<2x3xf64>
// CHECK: tcc_graph.transpose {{.*}} {permutation = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK: tcc_graph.concat {{.*}} {dim = 2 : i64} : (tensor<3x2x1xf32>, tensor<3x2x1xf32>) -> tensor<3x2x2xf32>
func.func @rfft_padded_ortho(%x: tensor<3x2xf32>) -> tensor<3x2x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.fft_rfft.default"(%x) {operand_names = ["self"], args = {n = 4 : i64, dim = 0 : i64, norm = "ortho"}, tcc.complex_results = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}

// -----

// hfft of a complex [3] input: the conjugate's c2r (its imaginary part
// negated), scaled as a forward transform (×1 under "backward"): rows of
// the cosine weighted 1 or 2, of the sine 0 (the zero-frequency and Nyquist
// rows, whose imaginary parts do not count) or -2.
// CHECK-LABEL: func @hfft_complex_input
// CHECK: %[[RE:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 1 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: %[[IM:.*]] = tcc_graph.slice %arg0 {dim = 1 : i64, end = 2 : i64, start = 1 : i64, step = 1 : i64}
// CHECK: %[[NEG:.*]] = tcc_graph.neg %{{.*}} : tensor<3xf64>
// CHECK: %[[COS:.*]] = tcc_graph.cos %[[THETA:.*]] : tensor<3x4xf64>
// CHECK: %[[SIN:.*]] = tcc_graph.sin %[[THETA]] : tensor<3x4xf64>
// CHECK: %[[EDGE:.*]] = tcc_graph.bitwise_or
// CHECK: %[[ONE:.*]] = tcc_graph.constant dense<1.000000e+00> : tensor<f64>
// CHECK: %[[TWO:.*]] = tcc_graph.constant dense<2.000000e+00> : tensor<f64>
// CHECK: tcc_graph.select %[[EDGE]], %[[ONE]], %[[TWO]]
// CHECK: %[[NONE:.*]] = tcc_graph.constant dense<0.000000e+00> : tensor<f64>
// CHECK: %[[MTWO:.*]] = tcc_graph.constant dense<-2.000000e+00> : tensor<f64>
// CHECK: %[[WS:.*]] = tcc_graph.select %[[EDGE]], %[[NONE]], %[[MTWO]]
// CHECK: %[[B:.*]] = tcc_graph.mul %[[SIN]], %[[WS]]
// CHECK: %[[NEGR:.*]] = tcc_graph.reshape %[[NEG]] : (tensor<3xf64>) -> tensor<1x3xf64>
// CHECK: tcc_graph.matmul %[[NEGR]], %[[B]]
// CHECK: tcc_graph.add
// CHECK: tcc_graph.cast %{{.*}} : (tensor<4xf64>) -> tensor<4xf32>
func.func @hfft_complex_input(%x: tensor<3x2xf32>) -> tensor<4xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.fft_hfft.default"(%x) {operand_names = ["self"], args = {}, tcc.complex_operands = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// fftshift rolls by size/2 along every dim (or those given), ifftshift by
// -(size/2): on [5], fftshift moves the last 2 to the front, ifftshift the
// last 3.
// CHECK-LABEL: func @fftshift
// CHECK: %[[T:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 5 : i64, start = 3 : i64, step = 1 : i64}
// CHECK: %[[H:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 3 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: tcc_graph.concat %[[T]], %[[H]] {dim = 0 : i64}
// CHECK: %[[T2:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 5 : i64, start = 2 : i64, step = 1 : i64}
// CHECK: %[[H2:.*]] = tcc_graph.slice %arg0 {dim = 0 : i64, end = 2 : i64, start = 0 : i64, step = 1 : i64}
// CHECK: tcc_graph.concat %[[T2]], %[[H2]] {dim = 0 : i64}
func.func @fftshift(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %0 = tcc_graph.operator "torch.ops.aten.fft_fftshift.default"(%x) {operand_names = ["self"], args = {}} : (tensor<5xf32>) -> tensor<5xf32>
  %1 = tcc_graph.operator "torch.ops.aten.fft_ifftshift.default"(%x) {operand_names = ["self"], args = {dim = array<i64: 0>}} : (tensor<5xf32>) -> tensor<5xf32>
  return %0, %1 : tensor<5xf32>, tensor<5xf32>
}

// -----

// stft of a [10] signal, n_fft 4, hop 3, a window of 2 (zero-padded by 1 on
// each side): 3 frames gathered at positions t·3 + k, times the window, a
// forward one-sided transform (3 frequencies) along the frame, moved to
// [freq, frame].
// CHECK-LABEL: func @stft
// CHECK: %[[T:.*]] = tcc_graph.iota {{.*}} : tensor<3xi64>
// CHECK: %[[HOP:.*]] = tcc_graph.constant dense<3> : tensor<i64>
// CHECK: %[[STARTS:.*]] = tcc_graph.mul %{{.*}}, %[[HOP]] : (tensor<3x1xi64>, tensor<i64>) -> tensor<3x1xi64>
// CHECK: %[[POS:.*]] = tcc_graph.add %[[STARTS]], %{{.*}} : (tensor<3x1xi64>, tensor<1x4xi64>) -> tensor<3x4xi64>
// CHECK: %[[IDX:.*]] = tcc_graph.reshape %[[POS]] : (tensor<3x4xi64>) -> tensor<1x12xi64>
// CHECK: %[[G:.*]] = tcc_graph.gather %{{.*}}, %[[IDX]] {dim = 1 : i64} : (tensor<1x10xf64>, tensor<1x12xi64>) -> tensor<1x12xf64>
// CHECK: %[[F:.*]] = tcc_graph.reshape %[[G]] : (tensor<1x12xf64>) -> tensor<1x3x4xf64>
// CHECK: tcc_graph.concat %{{.*}}, %{{.*}}, %{{.*}} {dim = 0 : i64} : (tensor<1xf64>, tensor<2xf64>, tensor<1xf64>) -> tensor<4xf64>
// CHECK: %[[W:.*]] = tcc_graph.reshape %{{.*}} : (tensor<4xf64>) -> tensor<1x1x4xf64>
// CHECK: %[[FW:.*]] = tcc_graph.mul %[[F]], %[[W]] : (tensor<1x3x4xf64>, tensor<1x1x4xf64>) -> tensor<1x3x4xf64>
// CHECK: tcc_graph.fmod %{{.*}}, %{{.*}} : (tensor<4x3xi64>, tensor<i64>) -> tensor<4x3xi64>
// CHECK: tcc_graph.matmul %{{.*}}, %{{.*}} : (tensor<3x4xf64>, tensor<4x3xf64>) -> tensor<3x3xf64>
// CHECK: tcc_graph.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : (tensor<1x3x3xf64>) -> tensor<1x3x3xf64>
// CHECK: tcc_graph.concat {{.*}} {dim = 2 : i64} : (tensor<3x3x1xf32>, tensor<3x3x1xf32>) -> tensor<3x3x2xf32>
func.func @stft(%x: tensor<10xf32>, %w: tensor<2xf32>) -> tensor<3x3x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.stft.default"(%x, %w) {operand_names = ["self", "window"], args = {n_fft = 4 : i64, hop_length = 3 : i64, win_length = 2 : i64, normalized = false, return_complex = true}, tcc.complex_results = array<i64: 0>} : (tensor<10xf32>, tensor<2xf32>) -> tensor<3x3x2xf32>
  return %0 : tensor<3x3x2xf32>
}

// -----

// fft along a symbolic length n (at most 64 by the export's range: no check
// at run time): the twiddle matrix [n, n] from iotas of n read at run time,
// the angle step 2π/n and the "ortho" scale 1/√n computed from it.
// CHECK-LABEL: func @fft_symbolic_length
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<2x?xf32>) -> tensor<2x?xf64>
// CHECK-NOT: tcc_graph.check
// CHECK: %[[N:.*]] = tcc_graph.dim_size %[[X]] {dim = 1 : i64}
// CHECK: %[[NF:.*]] = tcc_graph.cast %[[N]] : (tensor<i64>) -> tensor<f64>
// CHECK: %[[ROOT:.*]] = tcc_graph.sqrt %[[NF]] : tensor<f64>
// CHECK: %[[SCALE:.*]] = tcc_graph.div %{{.*}}, %[[ROOT]]
// CHECK: %[[LEN:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<2x?xf64>
// CHECK: %[[PERIOD:.*]] = tcc_graph.dim_size %[[X]] {dim = 1 : i64}
// CHECK: tcc_graph.iota sizes(%[[LEN]]) {{.*}} : tensor<?xi64>
// CHECK: tcc_graph.iota sizes(%[[LEN]]) {{.*}} : tensor<?xi64>
// CHECK: %[[R:.*]] = tcc_graph.fmod %{{.*}}, %[[PERIOD]] : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi64>
// CHECK: %[[TURN:.*]] = tcc_graph.constant dense<6.2831853071795862> : tensor<f64>
// CHECK: %[[PF:.*]] = tcc_graph.cast %[[PERIOD]] : (tensor<i64>) -> tensor<f64>
// CHECK: %[[STEP:.*]] = tcc_graph.div %[[TURN]], %[[PF]]
// CHECK: %[[COS:.*]] = tcc_graph.cos %{{.*}} : tensor<?x?xf64>
// CHECK: %[[SIN:.*]] = tcc_graph.sin %{{.*}} : tensor<?x?xf64>
// CHECK: %[[C:.*]] = tcc_graph.mul %[[COS]], %[[SCALE]]
// CHECK: %[[S:.*]] = tcc_graph.mul %[[SIN]], %[[SCALE]]
// CHECK: tcc_graph.matmul %[[X]], %[[C]] : (tensor<2x?xf64>, tensor<?x?xf64>) -> tensor<2x?xf64>
// CHECK: tcc_graph.matmul %[[X]], %[[S]] : (tensor<2x?xf64>, tensor<?x?xf64>) -> tensor<2x?xf64>
// CHECK: tcc_graph.concat {{.*}} -> tensor<2x?x2xf32>
module attributes {tcc.symbols = {s0 = [2, 64]}} {
  func.func @fft_symbolic_length(%x: tensor<2x?xf32> {tcc.sizes = [2, "s0"]}) -> tensor<2x?x2xf32> {
    %0 = tcc_graph.operator "torch.ops.aten.fft_fft.default"(%x) {operand_names = ["self"], args = {dim = -1 : i64, norm = "ortho"}, tcc.complex_results = array<i64: 0>} : (tensor<2x?xf32>) -> tensor<2x?x2xf32>
    return %0 : tensor<2x?x2xf32>
  }
}

// -----

// irfft along a symbolic m without a stated maximum: the call checks that m
// is at most 513 (n = 2·(m - 1) at most 1024 points); the output length n
// and the "backward" scale 1/n from m read at run time.
// CHECK-LABEL: func @irfft_symbolic_length
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<?x3xf32>) -> tensor<?x3xf64>
// CHECK: %[[M:.*]] = tcc_graph.dim_size %[[X]] {dim = 0 : i64}
// CHECK: %[[MOST:.*]] = tcc_graph.constant dense<513> : tensor<i64>
// CHECK: %[[FITS:.*]] = tcc_graph.compare %[[M]], %[[MOST]] {predicate = "le"}
// CHECK: %[[CHECKED:.*]] = tcc_graph.check %[[FITS]], %[[X]] "aten.fft_irfft.default: a transformed dim of more than 513 elements is not supported"
// CHECK: %[[MI:.*]] = tensor.dim %[[CHECKED]], %{{.*}} : tensor<?x3xf64>
// CHECK: %[[MT:.*]] = tcc_graph.dim_size %[[CHECKED]] {dim = 0 : i64}
// CHECK: %[[LESS:.*]] = arith.subi %[[MI]], %{{.*}} : index
// CHECK: %[[NI:.*]] = arith.muli %[[LESS]], %{{.*}} : index
// CHECK: %[[LESST:.*]] = tcc_graph.sub %[[MT]], %{{.*}}
// CHECK: %[[NT:.*]] = tcc_graph.mul %[[LESST]], %{{.*}}
// CHECK: %[[NF:.*]] = tcc_graph.cast %[[NT]] : (tensor<i64>) -> tensor<f64>
// CHECK: %[[SCALE:.*]] = tcc_graph.div %{{.*}}, %[[NF]]
// CHECK: tcc_graph.iota sizes(%[[NI]]) {{.*}} : tensor<?xi64>
// CHECK: tcc_graph.fmod %{{.*}}, %[[NT]] : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi64>
// CHECK: %[[W:.*]] = tcc_graph.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x1xi1>, tensor<f64>, tensor<f64>) -> tensor<?x1xf64>
// CHECK: tcc_graph.mul %[[W]], %[[SCALE]] : (tensor<?x1xf64>, tensor<f64>) -> tensor<?x1xf64>
// CHECK: %[[T:.*]] = tcc_graph.transpose %[[CHECKED]] {permutation = array<i64: 1, 0>} : (tensor<?x3xf64>) -> tensor<3x?xf64>
// CHECK: tcc_graph.matmul %[[T]], %{{.*}} : (tensor<3x?xf64>, tensor<?x?xf64>) -> tensor<3x?xf64>
func.func @irfft_symbolic_length(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.fft_irfft.default"(%x) {operand_names = ["self"], args = {dim = 0 : i64}} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// rfft to a static n = 4 of a symbolic length: the input extended by
// max(4 - m, 0) zeros and cut to 4 (every read inside it), then the static
// [4, 3] one-sided matrix.
// CHECK-LABEL: func @rfft_symbolic_input_static_length
// CHECK: %[[X:.*]] = tcc_graph.cast %arg0 : (tensor<3x?xf32>) -> tensor<3x?xf64>
// CHECK: %[[MISSING:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[COUNT:.*]] = arith.maxsi %[[MISSING]], %{{.*}} : index
// CHECK: %[[ZEROS:.*]] = tcc_graph.broadcast %{{.*}} sizes(%[[COUNT]]) : (tensor<f64>) -> tensor<3x?xf64>
// CHECK: %[[LONG:.*]] = tcc_graph.concat %[[X]], %[[ZEROS]] {dim = 1 : i64}
// CHECK: %[[FOUR:.*]] = tcc_graph.slice %[[LONG]] {dim = 1 : i64, end = 4 : i64, start = 0 : i64, step = 1 : i64} : (tensor<3x?xf64>) -> tensor<3x4xf64>
// CHECK: tcc_graph.matmul %[[FOUR]], %{{.*}} : (tensor<3x4xf64>, tensor<4x3xf64>) -> tensor<3x3xf64>
func.func @rfft_symbolic_input_static_length(%x: tensor<3x?xf32>) -> tensor<3x3x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.fft_rfft.default"(%x) {operand_names = ["self"], args = {n = 4 : i64, dim = -1 : i64}, tcc.complex_results = array<i64: 0>} : (tensor<3x?xf32>) -> tensor<3x3x2xf32>
  return %0 : tensor<3x3x2xf32>
}

// -----

// stft of a signal of symbolic length L: max((L - 4) // 2 + 1, 0) frames
// read at run time (none past the signal), the call checking L >= n_fft as
// PyTorch raises; the frames gathered and transformed by the static 4 x 3
// one-sided matrix.
// CHECK-LABEL: func @stft_symbolic_length
// CHECK: %[[L:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?xf32>
// CHECK: %[[PAST:.*]] = arith.subi %[[L]], %{{.*}} : index
// CHECK: %[[STEPS:.*]] = arith.floordivsi %[[PAST]], %{{.*}} : index
// CHECK: %[[COUNT:.*]] = arith.addi %[[STEPS]], %{{.*}} : index
// CHECK: %[[FRAMES:.*]] = arith.maxsi %[[COUNT]], %{{.*}} : index
// CHECK: %[[OK:.*]] = tcc_graph.compare %{{.*}}, %{{.*}} {predicate = "ge"}
// CHECK: %[[SIGNAL:.*]] = tcc_graph.check %[[OK]], %arg0 "aten.stft.default: n_fft (4) is longer than the signal"
// CHECK: tcc_graph.iota sizes(%[[FRAMES]]) {{.*}} : tensor<?xi64>
// CHECK: %[[ROWS:.*]] = tcc_graph.reshape %[[SIGNAL]] : (tensor<?xf32>) -> tensor<1x?xf32>
// CHECK: tcc_graph.gather %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<1x?xf64>, tensor<1x?xi64>) -> tensor<1x?xf64>
// CHECK: tcc_graph.matmul %{{.*}}, %{{.*}} : (tensor<?x4xf64>, tensor<4x3xf64>) -> tensor<?x3xf64>
// CHECK: tcc_graph.concat {{.*}} -> tensor<3x?x2xf32>
func.func @stft_symbolic_length(%x: tensor<?xf32>) -> tensor<3x?x2xf32> {
  %0 = tcc_graph.operator "torch.ops.aten.stft.default"(%x) {operand_names = ["self"], args = {n_fft = 4 : i64, hop_length = 2 : i64, return_complex = true}, tcc.complex_results = array<i64: 0>} : (tensor<?xf32>) -> tensor<3x?x2xf32>
  return %0 : tensor<3x?x2xf32>
}
