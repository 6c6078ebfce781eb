//===- RuntimeEntries.h - the kernel-call contract, as C++ ----------------===//
//
// RuntimeEntries.def as an enum of entries with their names and argument
// kinds: what the call builders emit and the runtime's prototypes are checked
// against. Plain C++17 (the runtime includes it too).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_RUNTIME_RUNTIMEENTRIES_H
#define TCC_RUNTIME_RUNTIMEENTRIES_H

#include <cstddef>
#include <cstdint>

namespace tcc::abi {

/// The kind of one argument: int32_t, int64_t, float or a pointer.
enum class Arg : uint8_t { I32, I64, F32, Ptr };

namespace kinds {
constexpr Arg I32 = Arg::I32, I64 = Arg::I64, F32 = Arg::F32, Ptr = Arg::Ptr;
} // namespace kinds

/// Each entry's argument kinds, `<name>Args`.
namespace arguments {
using namespace kinds;
#define TCC_RUNTIME_ENTRY(NAME, ...) inline constexpr Arg NAME##Args[] = {__VA_ARGS__};
#include "tcc/Runtime/RuntimeEntries.def"
} // namespace arguments

/// One enumerator per entry, named as the entry.
enum class EntryId {
#define TCC_RUNTIME_ENTRY(NAME, ...) NAME,
#include "tcc/Runtime/RuntimeEntries.def"
};

struct Entry {
  const char *name;
  const Arg *args;
  size_t numArgs;
};

/// The entries, in EntryId order.
inline constexpr Entry kEntries[] = {
#define TCC_RUNTIME_ENTRY(NAME, ...)                                                             \
  {#NAME, arguments::NAME##Args, sizeof(arguments::NAME##Args) / sizeof(Arg)},
#include "tcc/Runtime/RuntimeEntries.def"
};

constexpr const Entry &entry(EntryId id) { return kEntries[static_cast<size_t>(id)]; }

/// The spelling of an argument kind in messages: i32, i64, f32, ptr.
constexpr const char *argName(Arg a) {
  switch (a) {
  case Arg::I32: return "i32";
  case Arg::I64: return "i64";
  case Arg::F32: return "f32";
  case Arg::Ptr: return "ptr";
  }
  return "?";
}

} // namespace tcc::abi

#endif // TCC_RUNTIME_RUNTIMEENTRIES_H
