// A fused pointwise kernel over 130 buffers (x0 + x1 + ... + x129): with
// every buffer passed as its descriptor (40 bytes at rank 1) its parameters
// took 5248 bytes, over the 4352 PTX allows, and ptxas (the driver, at load)
// refused the model. tcc-gpu-compact-kernel-arguments passes each as one
// pointer; the PTX assembles.
// RUN: tcc-opt %s --tcc-cuda-pipeline | %python %S/Inputs/extract_ptx.py > %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s < %t.ptx

// The host's check that every buffer is 16-byte aligned, then the buffers.
// CHECK:       .visible .entry forward_cuda_kernel(
// CHECK-NEXT:    .param .u8 forward_cuda_kernel_param_0,
// CHECK-COUNT-131: .param .u64 .ptr .align 1 forward_cuda_kernel_param_{{[0-9]+}}
// CHECK-NEXT:  )
// CHECK:       ld.global.v4

#map = affine_map<(d0) -> (d0)>
module attributes {tcc.arena_size = 0 : i64} {
  func.func @forward(%x0: memref<1024xf32>, %x1: memref<1024xf32>, %x2: memref<1024xf32>, %x3: memref<1024xf32>, %x4: memref<1024xf32>, %x5: memref<1024xf32>, %x6: memref<1024xf32>, %x7: memref<1024xf32>, %x8: memref<1024xf32>, %x9: memref<1024xf32>, %x10: memref<1024xf32>, %x11: memref<1024xf32>, %x12: memref<1024xf32>, %x13: memref<1024xf32>, %x14: memref<1024xf32>, %x15: memref<1024xf32>, %x16: memref<1024xf32>, %x17: memref<1024xf32>, %x18: memref<1024xf32>, %x19: memref<1024xf32>, %x20: memref<1024xf32>, %x21: memref<1024xf32>, %x22: memref<1024xf32>, %x23: memref<1024xf32>, %x24: memref<1024xf32>, %x25: memref<1024xf32>, %x26: memref<1024xf32>, %x27: memref<1024xf32>, %x28: memref<1024xf32>, %x29: memref<1024xf32>, %x30: memref<1024xf32>, %x31: memref<1024xf32>, %x32: memref<1024xf32>, %x33: memref<1024xf32>, %x34: memref<1024xf32>, %x35: memref<1024xf32>, %x36: memref<1024xf32>, %x37: memref<1024xf32>, %x38: memref<1024xf32>, %x39: memref<1024xf32>, %x40: memref<1024xf32>, %x41: memref<1024xf32>, %x42: memref<1024xf32>, %x43: memref<1024xf32>, %x44: memref<1024xf32>, %x45: memref<1024xf32>, %x46: memref<1024xf32>, %x47: memref<1024xf32>, %x48: memref<1024xf32>, %x49: memref<1024xf32>, %x50: memref<1024xf32>, %x51: memref<1024xf32>, %x52: memref<1024xf32>, %x53: memref<1024xf32>, %x54: memref<1024xf32>, %x55: memref<1024xf32>, %x56: memref<1024xf32>, %x57: memref<1024xf32>, %x58: memref<1024xf32>, %x59: memref<1024xf32>, %x60: memref<1024xf32>, %x61: memref<1024xf32>, %x62: memref<1024xf32>, %x63: memref<1024xf32>, %x64: memref<1024xf32>, %x65: memref<1024xf32>, %x66: memref<1024xf32>, %x67: memref<1024xf32>, %x68: memref<1024xf32>, %x69: memref<1024xf32>, %x70: memref<1024xf32>, %x71: memref<1024xf32>, %x72: memref<1024xf32>, %x73: memref<1024xf32>, %x74: memref<1024xf32>, %x75: memref<1024xf32>, %x76: memref<1024xf32>, %x77: memref<1024xf32>, %x78: memref<1024xf32>, %x79: memref<1024xf32>, %x80: memref<1024xf32>, %x81: memref<1024xf32>, %x82: memref<1024xf32>, %x83: memref<1024xf32>, %x84: memref<1024xf32>, %x85: memref<1024xf32>, %x86: memref<1024xf32>, %x87: memref<1024xf32>, %x88: memref<1024xf32>, %x89: memref<1024xf32>, %x90: memref<1024xf32>, %x91: memref<1024xf32>, %x92: memref<1024xf32>, %x93: memref<1024xf32>, %x94: memref<1024xf32>, %x95: memref<1024xf32>, %x96: memref<1024xf32>, %x97: memref<1024xf32>, %x98: memref<1024xf32>, %x99: memref<1024xf32>, %x100: memref<1024xf32>, %x101: memref<1024xf32>, %x102: memref<1024xf32>, %x103: memref<1024xf32>, %x104: memref<1024xf32>, %x105: memref<1024xf32>, %x106: memref<1024xf32>, %x107: memref<1024xf32>, %x108: memref<1024xf32>, %x109: memref<1024xf32>, %x110: memref<1024xf32>, %x111: memref<1024xf32>, %x112: memref<1024xf32>, %x113: memref<1024xf32>, %x114: memref<1024xf32>, %x115: memref<1024xf32>, %x116: memref<1024xf32>, %x117: memref<1024xf32>, %x118: memref<1024xf32>, %x119: memref<1024xf32>, %x120: memref<1024xf32>, %x121: memref<1024xf32>, %x122: memref<1024xf32>, %x123: memref<1024xf32>, %x124: memref<1024xf32>, %x125: memref<1024xf32>, %x126: memref<1024xf32>, %x127: memref<1024xf32>, %x128: memref<1024xf32>, %x129: memref<1024xf32>,
                     %out: memref<1024xf32>, %arena: memref<?xi8> {tcc.arena}) {
    linalg.generic {indexing_maps = [#map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map, #map], iterator_types = ["parallel"]}
        ins(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %x8, %x9, %x10, %x11, %x12, %x13, %x14, %x15, %x16, %x17, %x18, %x19, %x20, %x21, %x22, %x23, %x24, %x25, %x26, %x27, %x28, %x29, %x30, %x31, %x32, %x33, %x34, %x35, %x36, %x37, %x38, %x39, %x40, %x41, %x42, %x43, %x44, %x45, %x46, %x47, %x48, %x49, %x50, %x51, %x52, %x53, %x54, %x55, %x56, %x57, %x58, %x59, %x60, %x61, %x62, %x63, %x64, %x65, %x66, %x67, %x68, %x69, %x70, %x71, %x72, %x73, %x74, %x75, %x76, %x77, %x78, %x79, %x80, %x81, %x82, %x83, %x84, %x85, %x86, %x87, %x88, %x89, %x90, %x91, %x92, %x93, %x94, %x95, %x96, %x97, %x98, %x99, %x100, %x101, %x102, %x103, %x104, %x105, %x106, %x107, %x108, %x109, %x110, %x111, %x112, %x113, %x114, %x115, %x116, %x117, %x118, %x119, %x120, %x121, %x122, %x123, %x124, %x125, %x126, %x127, %x128, %x129 : memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) outs(%out : memref<1024xf32>) {
    ^bb0(%a0: f32, %a1: f32, %a2: f32, %a3: f32, %a4: f32, %a5: f32, %a6: f32, %a7: f32, %a8: f32, %a9: f32, %a10: f32, %a11: f32, %a12: f32, %a13: f32, %a14: f32, %a15: f32, %a16: f32, %a17: f32, %a18: f32, %a19: f32, %a20: f32, %a21: f32, %a22: f32, %a23: f32, %a24: f32, %a25: f32, %a26: f32, %a27: f32, %a28: f32, %a29: f32, %a30: f32, %a31: f32, %a32: f32, %a33: f32, %a34: f32, %a35: f32, %a36: f32, %a37: f32, %a38: f32, %a39: f32, %a40: f32, %a41: f32, %a42: f32, %a43: f32, %a44: f32, %a45: f32, %a46: f32, %a47: f32, %a48: f32, %a49: f32, %a50: f32, %a51: f32, %a52: f32, %a53: f32, %a54: f32, %a55: f32, %a56: f32, %a57: f32, %a58: f32, %a59: f32, %a60: f32, %a61: f32, %a62: f32, %a63: f32, %a64: f32, %a65: f32, %a66: f32, %a67: f32, %a68: f32, %a69: f32, %a70: f32, %a71: f32, %a72: f32, %a73: f32, %a74: f32, %a75: f32, %a76: f32, %a77: f32, %a78: f32, %a79: f32, %a80: f32, %a81: f32, %a82: f32, %a83: f32, %a84: f32, %a85: f32, %a86: f32, %a87: f32, %a88: f32, %a89: f32, %a90: f32, %a91: f32, %a92: f32, %a93: f32, %a94: f32, %a95: f32, %a96: f32, %a97: f32, %a98: f32, %a99: f32, %a100: f32, %a101: f32, %a102: f32, %a103: f32, %a104: f32, %a105: f32, %a106: f32, %a107: f32, %a108: f32, %a109: f32, %a110: f32, %a111: f32, %a112: f32, %a113: f32, %a114: f32, %a115: f32, %a116: f32, %a117: f32, %a118: f32, %a119: f32, %a120: f32, %a121: f32, %a122: f32, %a123: f32, %a124: f32, %a125: f32, %a126: f32, %a127: f32, %a128: f32, %a129: f32, %o: f32):
      %s1 = arith.addf %a0, %a1 : f32
      %s2 = arith.addf %s1, %a2 : f32
      %s3 = arith.addf %s2, %a3 : f32
      %s4 = arith.addf %s3, %a4 : f32
      %s5 = arith.addf %s4, %a5 : f32
      %s6 = arith.addf %s5, %a6 : f32
      %s7 = arith.addf %s6, %a7 : f32
      %s8 = arith.addf %s7, %a8 : f32
      %s9 = arith.addf %s8, %a9 : f32
      %s10 = arith.addf %s9, %a10 : f32
      %s11 = arith.addf %s10, %a11 : f32
      %s12 = arith.addf %s11, %a12 : f32
      %s13 = arith.addf %s12, %a13 : f32
      %s14 = arith.addf %s13, %a14 : f32
      %s15 = arith.addf %s14, %a15 : f32
      %s16 = arith.addf %s15, %a16 : f32
      %s17 = arith.addf %s16, %a17 : f32
      %s18 = arith.addf %s17, %a18 : f32
      %s19 = arith.addf %s18, %a19 : f32
      %s20 = arith.addf %s19, %a20 : f32
      %s21 = arith.addf %s20, %a21 : f32
      %s22 = arith.addf %s21, %a22 : f32
      %s23 = arith.addf %s22, %a23 : f32
      %s24 = arith.addf %s23, %a24 : f32
      %s25 = arith.addf %s24, %a25 : f32
      %s26 = arith.addf %s25, %a26 : f32
      %s27 = arith.addf %s26, %a27 : f32
      %s28 = arith.addf %s27, %a28 : f32
      %s29 = arith.addf %s28, %a29 : f32
      %s30 = arith.addf %s29, %a30 : f32
      %s31 = arith.addf %s30, %a31 : f32
      %s32 = arith.addf %s31, %a32 : f32
      %s33 = arith.addf %s32, %a33 : f32
      %s34 = arith.addf %s33, %a34 : f32
      %s35 = arith.addf %s34, %a35 : f32
      %s36 = arith.addf %s35, %a36 : f32
      %s37 = arith.addf %s36, %a37 : f32
      %s38 = arith.addf %s37, %a38 : f32
      %s39 = arith.addf %s38, %a39 : f32
      %s40 = arith.addf %s39, %a40 : f32
      %s41 = arith.addf %s40, %a41 : f32
      %s42 = arith.addf %s41, %a42 : f32
      %s43 = arith.addf %s42, %a43 : f32
      %s44 = arith.addf %s43, %a44 : f32
      %s45 = arith.addf %s44, %a45 : f32
      %s46 = arith.addf %s45, %a46 : f32
      %s47 = arith.addf %s46, %a47 : f32
      %s48 = arith.addf %s47, %a48 : f32
      %s49 = arith.addf %s48, %a49 : f32
      %s50 = arith.addf %s49, %a50 : f32
      %s51 = arith.addf %s50, %a51 : f32
      %s52 = arith.addf %s51, %a52 : f32
      %s53 = arith.addf %s52, %a53 : f32
      %s54 = arith.addf %s53, %a54 : f32
      %s55 = arith.addf %s54, %a55 : f32
      %s56 = arith.addf %s55, %a56 : f32
      %s57 = arith.addf %s56, %a57 : f32
      %s58 = arith.addf %s57, %a58 : f32
      %s59 = arith.addf %s58, %a59 : f32
      %s60 = arith.addf %s59, %a60 : f32
      %s61 = arith.addf %s60, %a61 : f32
      %s62 = arith.addf %s61, %a62 : f32
      %s63 = arith.addf %s62, %a63 : f32
      %s64 = arith.addf %s63, %a64 : f32
      %s65 = arith.addf %s64, %a65 : f32
      %s66 = arith.addf %s65, %a66 : f32
      %s67 = arith.addf %s66, %a67 : f32
      %s68 = arith.addf %s67, %a68 : f32
      %s69 = arith.addf %s68, %a69 : f32
      %s70 = arith.addf %s69, %a70 : f32
      %s71 = arith.addf %s70, %a71 : f32
      %s72 = arith.addf %s71, %a72 : f32
      %s73 = arith.addf %s72, %a73 : f32
      %s74 = arith.addf %s73, %a74 : f32
      %s75 = arith.addf %s74, %a75 : f32
      %s76 = arith.addf %s75, %a76 : f32
      %s77 = arith.addf %s76, %a77 : f32
      %s78 = arith.addf %s77, %a78 : f32
      %s79 = arith.addf %s78, %a79 : f32
      %s80 = arith.addf %s79, %a80 : f32
      %s81 = arith.addf %s80, %a81 : f32
      %s82 = arith.addf %s81, %a82 : f32
      %s83 = arith.addf %s82, %a83 : f32
      %s84 = arith.addf %s83, %a84 : f32
      %s85 = arith.addf %s84, %a85 : f32
      %s86 = arith.addf %s85, %a86 : f32
      %s87 = arith.addf %s86, %a87 : f32
      %s88 = arith.addf %s87, %a88 : f32
      %s89 = arith.addf %s88, %a89 : f32
      %s90 = arith.addf %s89, %a90 : f32
      %s91 = arith.addf %s90, %a91 : f32
      %s92 = arith.addf %s91, %a92 : f32
      %s93 = arith.addf %s92, %a93 : f32
      %s94 = arith.addf %s93, %a94 : f32
      %s95 = arith.addf %s94, %a95 : f32
      %s96 = arith.addf %s95, %a96 : f32
      %s97 = arith.addf %s96, %a97 : f32
      %s98 = arith.addf %s97, %a98 : f32
      %s99 = arith.addf %s98, %a99 : f32
      %s100 = arith.addf %s99, %a100 : f32
      %s101 = arith.addf %s100, %a101 : f32
      %s102 = arith.addf %s101, %a102 : f32
      %s103 = arith.addf %s102, %a103 : f32
      %s104 = arith.addf %s103, %a104 : f32
      %s105 = arith.addf %s104, %a105 : f32
      %s106 = arith.addf %s105, %a106 : f32
      %s107 = arith.addf %s106, %a107 : f32
      %s108 = arith.addf %s107, %a108 : f32
      %s109 = arith.addf %s108, %a109 : f32
      %s110 = arith.addf %s109, %a110 : f32
      %s111 = arith.addf %s110, %a111 : f32
      %s112 = arith.addf %s111, %a112 : f32
      %s113 = arith.addf %s112, %a113 : f32
      %s114 = arith.addf %s113, %a114 : f32
      %s115 = arith.addf %s114, %a115 : f32
      %s116 = arith.addf %s115, %a116 : f32
      %s117 = arith.addf %s116, %a117 : f32
      %s118 = arith.addf %s117, %a118 : f32
      %s119 = arith.addf %s118, %a119 : f32
      %s120 = arith.addf %s119, %a120 : f32
      %s121 = arith.addf %s120, %a121 : f32
      %s122 = arith.addf %s121, %a122 : f32
      %s123 = arith.addf %s122, %a123 : f32
      %s124 = arith.addf %s123, %a124 : f32
      %s125 = arith.addf %s124, %a125 : f32
      %s126 = arith.addf %s125, %a126 : f32
      %s127 = arith.addf %s126, %a127 : f32
      %s128 = arith.addf %s127, %a128 : f32
      %s129 = arith.addf %s128, %a129 : f32
      linalg.yield %s129 : f32
    }
    return
  }
}
