/* samples/llm_generate: generation with a compiled decoder from C.
 *
 * Links a decoder that `tcc compile` made into model.so (its key/value cache
 * is the model's state; inputs: token ids [batch, tokens] and positions
 * [tokens]; output: logits) and generates with the runtime's loop,
 * tcc_model_generate, printing each token as it comes and the tokens per
 * second at the end. Only include/tcc/runtime.h is used.
 *
 *   ./llm-generate 1,2,3 [-n 32] [--cuda] [--top-k K --temperature T --seed S]
 *                  [--eos ID]
 */
#include "tcc/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROMPT 4096

static int32_t print_token(void *user, int32_t step, const int64_t *tokens, int32_t batch) {
  int32_t b;
  (void)user;
  (void)step;
  for (b = 0; b < batch; ++b)
    printf("%s%lld", b ? "|" : " ", (long long)tokens[b]);
  fflush(stdout);
  return 0;
}

static int usage(const char *argv0) {
  fprintf(stderr,
          "usage: %s PROMPT_IDS [-n N] [--cuda] [--top-k K] [--temperature T] [--seed S] "
          "[--eos ID]\n  PROMPT_IDS: comma-separated token ids, e.g. 1,2,3\n",
          argv0);
  return 2;
}

int main(int argc, char **argv) {
  static int64_t prompt[MAX_PROMPT];
  int32_t length = 0, batch = 1, i, b;
  tcc_generate_options options;
  tcc_generate_stats stats;
  tcc_tensor_info ids;
  tcc_model *m;
  int64_t *tokens, *rows;
  int32_t *counts;
  char *p;

  if (argc < 2)
    return usage(argv[0]);
  memset(&options, 0, sizeof options);
  options.max_new_tokens = 32;
  options.eos_token = -1;
  options.temperature = 1.0f;
  options.device = TCC_DEVICE_CPU;
  options.on_token = print_token;
  for (p = argv[1]; *p && length < MAX_PROMPT;) {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0)
      return usage(argv[0]);
    prompt[length++] = v;
    p = *end == ',' ? end + 1 : end;
  }
  for (i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--cuda"))
      options.device = TCC_DEVICE_CUDA;
    else if (!strcmp(argv[i], "-n") && i + 1 < argc)
      options.max_new_tokens = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--top-k") && i + 1 < argc)
      options.top_k = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--temperature") && i + 1 < argc)
      options.temperature = (float)atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      options.seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--eos") && i + 1 < argc)
      options.eos_token = strtoll(argv[++i], NULL, 10);
    else
      return usage(argv[0]);
  }

  m = tcc_model_create();
  if (!m) {
    fprintf(stderr, "error: %s\n", tcc_last_error());
    return 1;
  }
  /* A model of a static batch: the prompt repeated on every row. */
  if (tcc_model_input_info(m, 0, &ids) == TCC_OK && ids.rank == 2 && ids.sizes[0] > 1)
    batch = (int32_t)ids.sizes[0];
  rows = malloc(sizeof(int64_t) * (size_t)batch * (size_t)length);
  tokens = malloc(sizeof(int64_t) * (size_t)batch * (size_t)(options.max_new_tokens + 1));
  counts = malloc(sizeof(int32_t) * (size_t)batch);
  if (!rows || !tokens || !counts)
    return 1;
  for (b = 0; b < batch; ++b)
    memcpy(rows + (size_t)b * length, prompt, sizeof(int64_t) * (size_t)length);

  printf("model %s, batch %d, prompt of %d token(s); generated:", tcc_model_name(m), batch,
         length);
  fflush(stdout);
  if (tcc_model_generate(m, rows, batch, length, &options, tokens, counts, &stats) != TCC_OK) {
    fprintf(stderr, "\nerror: %s\n", tcc_last_error());
    tcc_model_destroy(m);
    return 1;
  }
  printf("\nprompt: %.2f ms in %d call(s)\n", stats.prompt_ms, stats.prompt_calls);
  if (stats.decode_calls > 0)
    printf("decode: %.3f ms per token, %.1f tokens/s per row, %.1f tokens/s in all\n",
           stats.decode_ms / stats.decode_calls, 1000.0 * stats.decode_calls / stats.decode_ms,
           1000.0 * stats.decode_calls * batch / stats.decode_ms);
  free(rows);
  free(tokens);
  free(counts);
  tcc_model_destroy(m);
  return 0;
}
