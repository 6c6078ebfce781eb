//===- TccKernelDialect.td - the tcc_kernel dialect -------*- tablegen -*-===//
#ifndef TCC_KERNEL_DIALECT
#define TCC_KERNEL_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def TccKernel_Dialect : Dialect {
  let name = "tcc_kernel";
  let summary = "The program as kernels: one op per kernel or library call";
  let description = [{
    `tcc_kernel` holds the decisions of kernel formation (`tcc-form-kernels`),
    taken on `tcc_graph` while every op's meaning is still known: a matrix
    product and the epilogue fused into it, an attention, a normalization
    with its residual add. Each op is one kernel or one library call on every
    target; nothing later re-discovers them by matching op trees.

    The ops are in destination-passing style: on tensors they take `outs`
    operands and return results of the same types; after `tcc-bufferize` the
    same ops work on memrefs (no results) and the memory plan places their
    buffers like any other. The target lowerings then turn each one into a
    library or runtime call (CUDA: cuBLASLt, tcc's kernel library) or into
    loops (CPU).
  }];
  let cppNamespace = "::tcc::kernel";
  let useDefaultAttributePrinterParser = 0;
}

class TccKernel_Op<string mnemonic, list<Trait> traits = []> :
    Op<TccKernel_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums shared by the ops and their lowerings
//===----------------------------------------------------------------------===//

def TccKernel_ActivationNone : I32EnumAttrCase<"none", 0>;
def TccKernel_ActivationRelu : I32EnumAttrCase<"relu", 1>;
def TccKernel_ActivationGeluTanh : I32EnumAttrCase<"gelu_tanh", 2>;
def TccKernel_ActivationRelu6 : I32EnumAttrCase<"relu6", 3>;
def TccKernel_ActivationSilu : I32EnumAttrCase<"silu", 4>;
def TccKernel_ActivationHardswish : I32EnumAttrCase<"hardswish", 5>;
def TccKernel_ActivationGeluErf : I32EnumAttrCase<"gelu_erf", 6>;

def TccKernel_Activation : I32EnumAttr<"Activation",
    "An activation applied by a kernel: GEMM epilogues take relu, gelu_tanh and "
    "(the CPU path's) gelu_erf; convolutions relu, relu6, silu and hardswish, and on "
    "tcc's depthwise kernel also on their input",
    [TccKernel_ActivationNone, TccKernel_ActivationRelu, TccKernel_ActivationGeluTanh,
     TccKernel_ActivationRelu6, TccKernel_ActivationSilu, TccKernel_ActivationHardswish,
     TccKernel_ActivationGeluErf]> {
  let cppNamespace = "::tcc::kernel";
}

def TccKernel_RowSoftmax : I32EnumAttrCase<"softmax", 0>;
def TccKernel_RowLogSoftmax : I32EnumAttrCase<"log_softmax", 1>;
def TccKernel_RowLayerNorm : I32EnumAttrCase<"layer_norm", 2>;
def TccKernel_RowRmsNorm : I32EnumAttrCase<"rms_norm", 3>;

def TccKernel_RowKind : I32EnumAttr<"RowKind", "What a row kernel computes",
    [TccKernel_RowSoftmax, TccKernel_RowLogSoftmax, TccKernel_RowLayerNorm,
     TccKernel_RowRmsNorm]> {
  let cppNamespace = "::tcc::kernel";
}

def TccKernel_RnnLstm : I32EnumAttrCase<"lstm", 0>;
def TccKernel_RnnGru : I32EnumAttrCase<"gru", 1>;
def TccKernel_RnnTanh : I32EnumAttrCase<"rnn_tanh", 2>;
def TccKernel_RnnRelu : I32EnumAttrCase<"rnn_relu", 3>;

def TccKernel_RnnMode : I32EnumAttr<"RnnMode",
    "The cell of a recurrent layer (tcc_graph.rnn's mode names)",
    [TccKernel_RnnLstm, TccKernel_RnnGru, TccKernel_RnnTanh, TccKernel_RnnRelu]> {
  let cppNamespace = "::tcc::kernel";
}

#endif // TCC_KERNEL_DIALECT
