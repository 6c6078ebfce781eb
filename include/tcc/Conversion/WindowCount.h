//===- WindowCount.h - how many windows a convolution or pooling takes ----===//
//
// One definition of PyTorch's output size of a sliding window (conv_output_size,
// pooling_output_shape) for a size known only at run time, shared by the
// stages that lower convolutions (FormConv) and pooling (ConvPool).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_CONVERSION_WINDOWCOUNT_H
#define TCC_CONVERSION_WINDOWCOUNT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace tcc {

/// Windows of `kernel` taps `dilation` apart, `stride` apart, over `in`
/// (an index) padded by `pad` on each side: (in + 2 pad - dilation (kernel
/// - 1) - 1) / stride + 1, the division rounding down, or with `ceilMode`
/// up, less the last window where it would start in the trailing padding
/// (PyTorch's pooling_output_shape).
inline mlir::Value windowCount(mlir::OpBuilder &b, mlir::Location loc, mlir::Value in,
                               int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                               bool ceilMode = false) {
  using namespace mlir;
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value span = arith::AddIOp::create(b, loc, in, index(2 * pad - dilation * (kernel - 1) - 1));
  if (ceilMode)
    span = arith::AddIOp::create(b, loc, span, index(stride - 1));
  Value steps = arith::FloorDivSIOp::create(b, loc, span, index(stride));
  Value count = arith::AddIOp::create(b, loc, steps, index(1));
  if (!ceilMode)
    return count;
  // The last window must start inside the input or its leading padding.
  Value lastStart = arith::MulIOp::create(b, loc, steps, index(stride));
  Value limit = arith::AddIOp::create(b, loc, in, index(pad));
  Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, lastStart, limit);
  return arith::SelectOp::create(b, loc, past, steps, count);
}

} // namespace tcc

#endif // TCC_CONVERSION_WINDOWCOUNT_H
