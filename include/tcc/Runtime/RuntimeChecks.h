//===- RuntimeChecks.h - checks compiled into the CPU path ----------------===//
//
// Where PyTorch raises on a value only known at run time (an index out of
// range), the compiler emits a `cf.assert` with a message that names the
// operation's Python source. On the CPU path tcc-lower-asserts turns each
// into a call of `tcc_assert_failed` when its condition is false; the call
// records the first message of the run, the generated code goes on safely
// (the checked value is replaced by one in range) and the model's run then
// fails with that message. On the GPU it is a device-side assert, as in
// PyTorch. Header-only for the compiler: it only needs the name.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_RUNTIMECHECKS_H
#define TCC_RUNTIME_RUNTIMECHECKS_H

namespace tcc {

/// The runtime function a failed check calls: void(const char *message).
inline constexpr const char *kAssertFailedFunction = "tcc_assert_failed";

} // namespace tcc

extern "C" void tcc_assert_failed(const char *message);

#endif // TCC_RUNTIME_RUNTIMECHECKS_H
