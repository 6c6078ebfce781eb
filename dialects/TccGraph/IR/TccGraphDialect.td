//===- TccGraphDialect.td - the tcc_graph dialect ---------*- tablegen -*-===//
#ifndef TCC_GRAPH_DIALECT
#define TCC_GRAPH_DIALECT

include "mlir/IR/OpBase.td"

def TccGraph_Dialect : Dialect {
  let name = "tcc_graph";
  let summary = "The exported PyTorch graph, one op per ATen operator";
  let description = [{
    `tcc_graph` mirrors a torch.export graph. The importer produces generic
    `tcc_graph.operator` ops carrying the ATen name; `tcc-legalize-graph` turns
    the operators tcc knows into the compact typed ops of this dialect
    (elementwise families, reductions, matmul, conv, pooling, views, concat)
    and rejects the rest with the Python source line of the node.
    Tensor values use builtin ranked tensor types; dynamic dims are `?` and the
    function arguments carry their symbolic sizes in `tcc.sizes`.
  }];
  let cppNamespace = "::tcc::graph";
  let extraClassDeclaration = [{
    /// Attributes of the entry function's arguments that later stages read
    /// (the manifest builder): the argument's role ("input", "weight" or
    /// "state"),
    /// its public name, the derived weight's program
    /// (tcc-hoist-weight-expressions, docs/ARTIFACT.md) and the mark of a
    /// weight the function no longer reads (kept on the host only).
    static constexpr ::llvm::StringLiteral getRoleAttrName() { return "tcc.role"; }
    static constexpr ::llvm::StringLiteral getPublicNameAttrName() { return "tcc.name"; }
    static constexpr ::llvm::StringLiteral getSizesAttrName() { return "tcc.sizes"; }
    /// The module's symbols, each `[min, max]` (the export's range
    /// constraints): what tcc-plan-memory bounds dynamic sizes with.
    static constexpr ::llvm::StringLiteral getSymbolsAttrName() { return "tcc.symbols"; }
    /// Set by the importer on a `tcc_graph.operator`, read by legalization:
    /// the arguments that are symbolic scalars (sizes), the message of a
    /// storage view the importer could not resolve, and its storage order.
    static constexpr ::llvm::StringLiteral getSymbolicArgsAttrName() { return "tcc.symbolic_args"; }
    static constexpr ::llvm::StringLiteral getStorageErrorAttrName() { return "tcc.storage_error"; }
    static constexpr ::llvm::StringLiteral getStorageOrderAttrName() { return "tcc.storage_order"; }
    static constexpr ::llvm::StringLiteral getDerivedAttrName() { return "tcc.derived"; }
    static constexpr ::llvm::StringLiteral getHostOnlyAttrName() { return "tcc.host_only"; }
    /// An argument the call writes (a buffer the forward updates, carried to
    /// the next call as state; an input written in place): the index of the
    /// result that holds its value after the call. tcc-bufferize writes that
    /// result into the argument's memory and drops it from the results.
    static constexpr ::llvm::StringLiteral getWrittenByAttrName() { return "tcc.written_by"; }
    /// The role of a buffer or parameter the forward writes: memory of the
    /// model instance that one call leaves for the next (docs/ARTIFACT.md).
    static constexpr ::llvm::StringLiteral kStateRole = "state";
    /// The reason tcc-legalize-graph refused a `tcc_graph.operator`, left on
    /// every refused occurrence when the pass records refusals (`tcc explain`).
    static constexpr ::llvm::StringLiteral getRefusalAttrName() { return "tcc.refusal"; }
    /// Whether `v` is an argument of its function whose role is "weight".
    static bool isWeightArgument(::mlir::Value v);
  }];
  let useDefaultAttributePrinterParser = 0;
}

class TccGraph_Op<string mnemonic, list<Trait> traits = []> :
    Op<TccGraph_Dialect, mnemonic, traits>;

#endif // TCC_GRAPH_DIALECT
