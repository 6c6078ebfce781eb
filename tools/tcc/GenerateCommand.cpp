//===- GenerateCommand.cpp - `tcc generate model.so --prompt 1,2,3` -------===//
//
// Loads a compiled decoder through its C ABI and runs the runtime's
// generation loop (tcc_model_generate): the prompt, then a token per call.
// Prints the generated tokens and the time per token; on a terminal, a
// progress line while it runs.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "ModelLibrary.h"

#include "tcc/Support/DType.h"
#include "tcc/Support/Npy.h"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace tcc {

namespace {

struct GenerateFailure {
  int code;
  std::string message;
};

[[noreturn]] void fail(const std::string &message) {
  throw GenerateFailure{kExitUserError, message};
}

/// "1,2,3" or "1,2;3,4": rows of token ids, all of one length.
std::vector<std::vector<int64_t>> parsePrompt(const std::string &text) {
  std::vector<std::vector<int64_t>> rows;
  std::stringstream rowsIn(text);
  std::string row;
  while (std::getline(rowsIn, row, ';')) {
    std::vector<int64_t> ids;
    std::stringstream idsIn(row);
    std::string id;
    while (std::getline(idsIn, id, ',')) {
      size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(id, &used);
      } catch (const std::exception &) {
        used = 0;
      }
      while (used < id.size() && std::isspace(static_cast<unsigned char>(id[used])))
        ++used;
      if (used == 0 || used != id.size() || v < 0)
        fail("--prompt: '" + id + "' is not a token id (a non-negative integer)");
      ids.push_back(v);
    }
    if (ids.empty())
      fail("--prompt: an empty row");
    if (!rows.empty() && ids.size() != rows[0].size())
      fail("--prompt: rows of different lengths (" + std::to_string(rows[0].size()) + " and " +
           std::to_string(ids.size()) + "); every row has as many tokens");
    rows.push_back(std::move(ids));
  }
  if (rows.empty())
    fail("--prompt: no token ids");
  return rows;
}

std::vector<std::vector<int64_t>> readPromptFile(const std::string &path) {
  NpyArray a;
  try {
    a = readNpy(path);
  } catch (const NpyError &e) {
    fail(e.what());
  }
  if (a.dtype != DType::Int64 && a.dtype != DType::Int32)
    fail(path + ": token ids must be int64 or int32, not " + dtypeName(a.dtype));
  if (a.shape.empty() || a.shape.size() > 2 || a.numElements() == 0)
    fail(path + ": token ids must be [tokens] or [batch, tokens] with at least one");
  int64_t rows = a.shape.size() == 2 ? a.shape[0] : 1, cols = a.shape.back();
  std::vector<std::vector<int64_t>> prompt(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t v = static_cast<int64_t>(a.elementAsDouble(r * cols + c));
      if (v < 0)
        fail(path + ": token id " + std::to_string(v) + " is negative");
      prompt[r].push_back(v);
    }
  return prompt;
}

struct Progress {
  bool shown;
  int total;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

int32_t onToken(void *user, int32_t step, const int64_t *, int32_t) {
  auto *p = static_cast<Progress *>(user);
  if (p->shown) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - p->start).count();
    std::fprintf(stderr, "\r\033[Kgenerating: %d/%d tokens, %.1f s", step + 1, p->total, s);
  }
  return 0;
}

int generateCommand(const GenerateOptions &opts) {
  if (opts.prompt.empty() == opts.promptFile.empty())
    throw GenerateFailure{kExitUsage, "give the prompt as --prompt IDS or --prompt-file FILE.npy "
                                      "(one of them)"};
  std::vector<std::vector<int64_t>> rows =
      opts.promptFile.empty() ? parsePrompt(opts.prompt) : readPromptFile(opts.promptFile);
  ModelLibrary lib(opts.model);
  const ModelApi &api = lib.api();
  if (!api.generate)
    fail(opts.model + ": its runtime predates generation (recompile it)");
  // One row for a model of a static batch: repeated to fill it.
  tcc_tensor_info ids;
  if (api.inputInfo(lib.model(), 0, &ids) == TCC_OK && ids.rank == 2 && ids.sizes[0] > 1 &&
      rows.size() == 1)
    rows.assign(static_cast<size_t>(ids.sizes[0]), rows[0]);
  int32_t batch = static_cast<int32_t>(rows.size());
  int32_t promptLen = static_cast<int32_t>(rows[0].size());
  std::vector<int64_t> prompt;
  for (const auto &r : rows)
    prompt.insert(prompt.end(), r.begin(), r.end());

  Progress progress{!opts.quiet && isatty(STDERR_FILENO) != 0, opts.maxNewTokens};
  tcc_generate_options options{};
  options.max_new_tokens = opts.maxNewTokens;
  options.eos_token = opts.eos;
  options.top_k = opts.topK;
  options.temperature = static_cast<float>(opts.temperature);
  options.seed = opts.seed;
  options.device = opts.device == "cuda" ? TCC_DEVICE_CUDA : TCC_DEVICE_CPU;
  options.on_token = &onToken;
  options.user = &progress;
  std::vector<int64_t> tokens(static_cast<size_t>(batch) * opts.maxNewTokens);
  std::vector<int32_t> counts(static_cast<size_t>(batch));
  tcc_generate_stats stats{};
  tcc_status status = api.generate(lib.model(), prompt.data(), batch, promptLen, &options,
                                   tokens.data(), counts.data(), &stats);
  if (progress.shown)
    std::fprintf(stderr, "\r\033[K");
  if (status != TCC_OK)
    throw GenerateFailure{status == TCC_ERROR_INTERNAL ? kExitInternal : kExitUserError,
                          lib.lastError()};

  for (int32_t b = 0; b < batch; ++b) {
    std::printf("row %d:", b);
    for (int32_t i = 0; i < counts[b]; ++i)
      std::printf("%s%lld", i ? "," : " ", static_cast<long long>(tokens[b * opts.maxNewTokens + i]));
    std::printf("\n");
  }
  std::printf("prompt: %d token(s) x %d row(s) in %d call(s), %.2f ms\n", promptLen, batch,
              stats.prompt_calls, stats.prompt_ms);
  if (stats.decode_calls > 0)
    std::printf("decode: %d call(s), %.2f ms, %.3f ms per token, %.1f tokens/s (%.1f over %d "
                "rows)\n",
                stats.decode_calls, stats.decode_ms, stats.decode_ms / stats.decode_calls,
                1000.0 * stats.decode_calls / stats.decode_ms,
                1000.0 * stats.decode_calls * batch / stats.decode_ms, batch);
  std::vector<int64_t> shape{batch, opts.maxNewTokens};
  if (!opts.out.empty()) {
    try {
      writeNpy(opts.out, DType::Int64, shape, tokens.data());
    } catch (const NpyError &e) {
      fail(e.what());
    }
  }
  if (opts.expect.empty())
    return kExitOk;
  NpyArray ref;
  try {
    ref = readNpy(opts.expect);
  } catch (const NpyError &e) {
    fail(e.what());
  }
  if (ref.shape.size() != 2 || ref.shape[0] != batch || ref.shape[1] > opts.maxNewTokens)
    fail(opts.expect + ": expected tokens [" + std::to_string(batch) + ", n <= " +
         std::to_string(opts.maxNewTokens) + "]");
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < ref.shape[1]; ++i) {
      auto want = static_cast<int64_t>(ref.elementAsDouble(b * ref.shape[1] + i));
      int64_t got = tokens[b * opts.maxNewTokens + i];
      if (got != want) {
        std::printf("tokens: FAIL row %lld position %lld: %lld, expected %lld\n",
                    static_cast<long long>(b), static_cast<long long>(i),
                    static_cast<long long>(got), static_cast<long long>(want));
        return kExitUserError;
      }
    }
  std::printf("tokens: %lld x %lld equal to %s PASS\n", static_cast<long long>(batch),
              static_cast<long long>(ref.shape[1]), opts.expect.c_str());
  return kExitOk;
}

} // namespace

int runGenerateCommand(const GenerateOptions &opts) {
  try {
    return generateCommand(opts);
  } catch (const GenerateFailure &f) {
    std::fprintf(stderr, "tcc generate: error: %s\n", f.message.c_str());
    return f.code;
  } catch (const ModelLibraryError &e) {
    std::fprintf(stderr, "tcc generate: error: %s\n", e.what());
    return kExitUserError;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tcc generate: internal error: %s\n", e.what());
    return kExitInternal;
  }
}

} // namespace tcc
