//===- FuzzNpy.cpp - libFuzzer: the .npy reader ---------------------------===//
//
// parseNpy, which reads every `tcc run -i/--expect` file and the fixtures.
// An input is either refused with an NpyError or read; what is read must
// survive a round trip through serializeNpy unchanged, and every element
// must be readable (elementAsDouble stays inside the data).
//
//===----------------------------------------------------------------------===//
#include "tcc/Support/Npy.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tcc::NpyArray array;
  try {
    array = tcc::parseNpy(data, size, "fuzz.npy");
  } catch (const tcc::NpyError &) {
    return 0;
  }
  int64_t count = array.numElements();
  if (static_cast<uint64_t>(count) * tcc::dtypeSize(array.dtype) != array.data.size()) {
    std::fprintf(stderr, "parseNpy: %lld elements but %zu data bytes\n",
                 static_cast<long long>(count), array.data.size());
    std::abort();
  }
  double sum = 0;
  for (int64_t i = 0; i < count; ++i)
    sum += array.elementAsDouble(i);
  (void)sum;

  std::vector<uint8_t> again = tcc::serializeNpy(array.dtype, array.shape, array.data.data());
  tcc::NpyArray reread = tcc::parseNpy(again.data(), again.size(), "round trip");
  if (reread.dtype != array.dtype || reread.shape != array.shape || reread.data != array.data) {
    std::fprintf(stderr, "serializeNpy/parseNpy round trip changed the array\n");
    std::abort();
  }
  if (array.dtype == tcc::DType::Float32)
    (void)tcc::roundToBFloat16(array);
  return 0;
}
