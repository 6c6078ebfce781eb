//===- RuntimeEntriesCheck.cpp - prototypes against RuntimeEntries.def ----===//
//
// Compiles to nothing: each entry of the kernel-call contract is checked at
// compile time against the runtime's prototype of that name, so a prototype
// and the calls the compiler emits cannot drift apart silently.
//
//===----------------------------------------------------------------------===//
#include "tcc/Runtime/AttentionKernels.h"
#include "tcc/Runtime/CpuGemm.h"
#include "tcc/Runtime/CpuRecurrent.h"
#include "tcc/Runtime/CublasLtGemm.h"
#include "tcc/Runtime/CudnnConv.h"
#include "tcc/Runtime/CudnnRecurrent.h"
#include "tcc/Runtime/QuantizedConv.h"
#include "tcc/Runtime/RowKernels.h"
#include "tcc/Runtime/RuntimeEntries.h"

#include <type_traits>

namespace {

using tcc::abi::Arg;

template <typename T> constexpr bool kAlwaysFalse = false;

template <typename T> constexpr Arg argOf() {
  if constexpr (std::is_same_v<T, int32_t>)
    return Arg::I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return Arg::I64;
  else if constexpr (std::is_same_v<T, float>)
    return Arg::F32;
  else if constexpr (std::is_pointer_v<T>)
    return Arg::Ptr;
  else
    static_assert(kAlwaysFalse<T>, "an entry's argument must be int32_t, int64_t, float or a pointer");
}

/// Whether `fn` takes exactly `want`'s kinds (and returns void).
template <typename... P, size_t N>
constexpr bool takes(void (*)(P...), const Arg (&want)[N]) {
  if (sizeof...(P) != N)
    return false;
  const Arg got[] = {argOf<P>()...};
  for (size_t i = 0; i < N; ++i)
    if (got[i] != want[i])
      return false;
  return true;
}

#define TCC_RUNTIME_ENTRY(NAME, ...)                                                             \
  static_assert(takes(&::NAME, tcc::abi::arguments::NAME##Args),                                 \
                #NAME "'s prototype differs from RuntimeEntries.def");
#include "tcc/Runtime/RuntimeEntries.def"

} // namespace
