//===- Generate.cpp - a generation loop over a decoder with a cache -------===//
#include "tcc/Runtime/Generate.h"

#include "tcc/Runtime/CudaDriver.h"
#include "tcc/Runtime/Model.h"
#include "tcc/Runtime/RuntimeError.h"
#include "tcc/Support/HalfFloat.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

namespace tcc {

namespace {

/// The range of sizes one dimension of an input takes: [n, n] for a static
/// size, the symbol's range for a bare symbol, nothing for other expressions.
std::pair<int64_t, int64_t> sizeRange(const GuardManifest &m, const SymbolicExpr &size) {
  if (std::optional<int64_t> c = size.asConstant())
    return {*c, *c};
  if (std::optional<std::string> sym = size.asSymbol())
    if (const SymbolRange *r = m.findSymbol(*sym))
      return {r->min, r->max};
  return {1, 0}; // empty
}

bool covers(std::pair<int64_t, int64_t> range, int64_t n) {
  return range.first <= n && n <= range.second;
}

float logitAt(const void *logits, int32_t dtype, int64_t i) {
  switch (dtype) {
  case TCC_DTYPE_FLOAT32: return static_cast<const float *>(logits)[i];
  case TCC_DTYPE_BFLOAT16: return bfloat16ToFloat(static_cast<const uint16_t *>(logits)[i]);
  case TCC_DTYPE_FLOAT16: return halfToFloat(static_cast<const uint16_t *>(logits)[i]);
  default: return std::numeric_limits<float>::quiet_NaN();
  }
}

/// The calls' tensors, allocated once for the longest call (so that every
/// decode call passes the same pointers: CUDA graphs replay).
struct CallBuffers {
  std::vector<int64_t> idsSizes, positionSizes;
  std::vector<std::vector<int64_t>> outputSizes;
  std::vector<std::vector<uint8_t>> hostOutputs;
  std::vector<cuda::DeviceBuffer> device; // ids, positions, then the outputs
};

} // namespace

std::string generateInterfaceError(const Model &model) {
  const GuardManifest &m = model.manifest();
  if (m.inputs.size() != 2)
    return "a decoder for generation takes two inputs, the token ids [batch, tokens] and their "
           "positions [tokens]; model '" + m.model + "' takes " +
           std::to_string(m.inputs.size());
  const TensorSpec &ids = m.inputs[0], &pos = m.inputs[1];
  if (ids.rank() != 2 || (ids.dtype != DType::Int64 && ids.dtype != DType::Int32))
    return "input 0 ('" + ids.name + "') is " + dtypeName(ids.dtype) + " " + ids.shapeText() +
           ", not the token ids [batch, tokens] (int64 or int32)";
  if (pos.rank() != 1 || pos.dtype != ids.dtype)
    return "input 1 ('" + pos.name + "') is " + dtypeName(pos.dtype) + " " + pos.shapeText() +
           ", not the tokens' positions [tokens] of the ids' dtype";
  if (m.outputs.empty() || m.outputs[0].rank() != 3 ||
      (m.outputs[0].dtype != DType::Float32 && m.outputs[0].dtype != DType::BFloat16 &&
       m.outputs[0].dtype != DType::Float16))
    return "output 0 is not the logits [batch, tokens, vocab] (float32, bfloat16 or float16)";
  if (m.states.empty())
    return "model '" + m.model + "' carries no state (no key/value cache): each call would "
           "see only its own tokens";
  return "";
}

void chooseTokens(const void *logits, int32_t dtype, int64_t batch, int64_t vocab,
                  int64_t rowStride, int32_t topK, float temperature, std::mt19937_64 &rng,
                  int64_t *next) {
  std::vector<float> row(static_cast<size_t>(vocab));
  std::vector<int64_t> order(static_cast<size_t>(vocab));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t v = 0; v < vocab; ++v)
      row[v] = logitAt(logits, dtype, b * rowStride + v);
    if (topK <= 1) {
      // torch.argmax: the first maximum, NaN above everything.
      int64_t best = 0;
      for (int64_t v = 1; v < vocab && !std::isnan(row[best]); ++v)
        if (std::isnan(row[v]) || row[v] > row[best])
          best = v;
      next[b] = best;
      continue;
    }
    int64_t k = std::min<int64_t>(topK, vocab);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t x, int64_t y) {
      return row[x] > row[y] || (row[x] == row[y] && x < y);
    });
    std::vector<double> weights(static_cast<size_t>(k));
    double top = row[order[0]] / temperature;
    for (int64_t i = 0; i < k; ++i)
      weights[i] = std::exp(row[order[i]] / temperature - top);
    std::discrete_distribution<int64_t> pick(weights.begin(), weights.end());
    next[b] = order[pick(rng)];
  }
}

void generate(Model &model, const int64_t *prompt, int32_t batch, int32_t promptLen,
              const tcc_generate_options &options, int64_t *tokens, int32_t *numTokens,
              tcc_generate_stats *stats) {
  const GuardManifest &m = model.manifest();
  if (std::string why = generateInterfaceError(model); !why.empty())
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "tcc_model_generate: " + why);
  auto invalid = [](const std::string &what) {
    throw RuntimeError(TCC_ERROR_INVALID_ARGUMENT, "tcc_model_generate: " + what);
  };
  if (!prompt || !tokens || !numTokens)
    invalid("prompt, tokens and num_tokens must not be NULL");
  if (batch <= 0 || promptLen <= 0)
    invalid("the prompt needs at least one row of at least one token");
  if (options.max_new_tokens < 0)
    invalid("max_new_tokens is negative");
  if (options.top_k > 1 && !(options.temperature > 0.0f))
    invalid("sampling (top_k > 1) needs a temperature > 0");
  if (options.device != TCC_DEVICE_CPU && options.device != TCC_DEVICE_CUDA)
    invalid("unknown device code " + std::to_string(options.device));
  const TensorSpec &idsSpec = m.inputs[0];
  if (!covers(sizeRange(m, idsSpec.sizes[0]), batch))
    invalid("model '" + m.model + "' takes a batch of " + idsSpec.sizes[0].text() +
            " rows, not " + std::to_string(batch));
  auto tokensRange = sizeRange(m, idsSpec.sizes[1]);
  // The prompt in one call where the tokens dim takes its length, else a
  // token per call; the generated tokens one per call.
  bool wholePrompt = covers(tokensRange, promptLen);
  if (!covers(tokensRange, 1) && !(wholePrompt && options.max_new_tokens <= 1))
    invalid("model '" + m.model + "' takes " + idsSpec.sizes[1].text() +
            " tokens per call; generation feeds it one at a time (export the decode step "
            "with a tokens dim that takes 1, or compile it with --specialize)");
  const bool cuda = options.device == TCC_DEVICE_CUDA;
  const bool wide = idsSpec.dtype == DType::Int64;

  // Host and device tensors for calls of `n` tokens per row.
  std::vector<int64_t> ids64, pos64;
  std::vector<int32_t> ids32, pos32;
  CallBuffers buffers;
  auto call = [&](const int64_t *rowsIds, int64_t n, int64_t rowStride, int64_t first) {
    ids64.resize(static_cast<size_t>(batch * n));
    pos64.resize(static_cast<size_t>(n));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t t = 0; t < n; ++t)
        ids64[b * n + t] = rowsIds[b * rowStride + t];
    std::iota(pos64.begin(), pos64.end(), first);
    const void *idsData = ids64.data(), *posData = pos64.data();
    if (!wide) {
      ids32.assign(ids64.begin(), ids64.end());
      pos32.assign(pos64.begin(), pos64.end());
      idsData = ids32.data(), posData = pos32.data();
    }
    buffers.idsSizes = {batch, n};
    buffers.positionSizes = {n};
    int32_t device = cuda ? TCC_DEVICE_CUDA : TCC_DEVICE_CPU;
    tcc_tensor inputs[2] = {
        {const_cast<void *>(idsData), static_cast<int32_t>(idsSpec.dtype), device, 2,
         buffers.idsSizes.data()},
        {const_cast<void *>(posData), static_cast<int32_t>(idsSpec.dtype), device, 1,
         buffers.positionSizes.data()}};
    buffers.outputSizes = model.outputSizes(inputs, 2);
    size_t idBytes = wide ? sizeof(int64_t) : sizeof(int32_t);
    std::vector<size_t> outputBytes;
    for (size_t i = 0; i < m.outputs.size(); ++i) {
      size_t bytes = dtypeSize(m.outputs[i].dtype);
      for (int64_t s : buffers.outputSizes[i])
        bytes *= static_cast<size_t>(s);
      outputBytes.push_back(bytes);
    }
    if (buffers.hostOutputs.empty()) {
      // The first call is the longest (the prompt's, or all of one token).
      for (size_t bytes : outputBytes)
        buffers.hostOutputs.emplace_back(bytes);
      if (cuda) {
        cuda::ensureContext();
        buffers.device.emplace_back(static_cast<size_t>(batch * n) * idBytes);
        buffers.device.emplace_back(static_cast<size_t>(n) * idBytes);
        for (size_t bytes : outputBytes)
          buffers.device.emplace_back(bytes);
      }
    }
    if (cuda) {
      const cuda::Driver &d = cuda::Driver::get();
      d.check(d.cuMemcpyHtoD(buffers.device[0].get(), idsData,
                             static_cast<size_t>(batch * n) * idBytes),
              "copying the token ids to the device");
      d.check(d.cuMemcpyHtoD(buffers.device[1].get(), posData, static_cast<size_t>(n) * idBytes),
              "copying the positions to the device");
      inputs[0].data = buffers.device[0].data();
      inputs[1].data = buffers.device[1].data();
    }
    std::vector<tcc_tensor> outputs;
    for (size_t i = 0; i < m.outputs.size(); ++i)
      outputs.push_back({cuda ? buffers.device[2 + i].data() : buffers.hostOutputs[i].data(),
                         static_cast<int32_t>(m.outputs[i].dtype), device,
                         static_cast<int32_t>(buffers.outputSizes[i].size()),
                         buffers.outputSizes[i].data()});
    model.runOnStream(inputs, 2, outputs.data(), outputs.size(), options.stream,
                      /*synchronize=*/true);
    if (cuda) {
      const cuda::Driver &d = cuda::Driver::get();
      d.check(d.cuMemcpyDtoH(buffers.hostOutputs[0].data(), buffers.device[2].get(),
                             outputBytes[0]),
              "copying the logits from the device");
    }
  };

  model.resetState();
  using Clock = std::chrono::steady_clock;
  tcc_generate_stats local{};
  auto start = Clock::now();
  if (wholePrompt) {
    call(prompt, promptLen, promptLen, 0);
    local.prompt_calls = 1;
  } else {
    for (int32_t t = 0; t < promptLen; ++t)
      call(prompt + t, 1, promptLen, t);
    local.prompt_calls = promptLen;
  }
  local.prompt_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();

  std::mt19937_64 rng(options.seed);
  std::vector<int64_t> next(static_cast<size_t>(batch));
  std::vector<bool> done(static_cast<size_t>(batch), false);
  std::fill(numTokens, numTokens + batch, 0);
  int64_t position = promptLen;
  start = Clock::now();
  for (int32_t step = 0; step < options.max_new_tokens; ++step) {
    const std::vector<int64_t> &sizes = buffers.outputSizes[0];
    int64_t vocab = sizes[2], last = sizes[1] - 1;
    chooseTokens(buffers.hostOutputs[0].data() + last * vocab * dtypeSize(m.outputs[0].dtype),
                 static_cast<int32_t>(m.outputs[0].dtype), batch, vocab, sizes[1] * vocab,
                 options.top_k, options.temperature, rng, next.data());
    bool all = true;
    for (int32_t b = 0; b < batch; ++b) {
      if (done[b])
        next[b] = options.eos_token;
      else
        numTokens[b] = step + 1;
      tokens[static_cast<size_t>(b) * options.max_new_tokens + step] = next[b];
      if (options.eos_token >= 0 && next[b] == options.eos_token)
        done[b] = true;
      all = all && done[b];
    }
    bool stop = options.on_token && options.on_token(options.user, step, next.data(), batch);
    if (all || stop || step + 1 == options.max_new_tokens) {
      // The rest of each row: its end token.
      for (int32_t b = 0; b < batch; ++b)
        for (int32_t s = step + 1; s < options.max_new_tokens; ++s)
          tokens[static_cast<size_t>(b) * options.max_new_tokens + s] = options.eos_token;
      break;
    }
    call(next.data(), 1, 1, position++);
    ++local.decode_calls;
  }
  local.decode_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (stats)
    *stats = local;
}

} // namespace tcc
