//===- TccGraphDialect.h - the tcc_graph dialect --------------------------===//
#ifndef TCC_DIALECTS_TCCGRAPH_IR_TCCGRAPHDIALECT_H
#define TCC_DIALECTS_TCCGRAPH_IR_TCCGRAPHDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/TccGraph/IR/TccGraphDialect.h.inc"

#endif // TCC_DIALECTS_TCCGRAPH_IR_TCCGRAPHDIALECT_H
