/*===- rebind_weights.c - run, rebind weights, run again (C ABI) ----------===*
 *
 * Usage: rebind-weights INPUT.raw BEFORE.raw AFTER.raw [NAME=WEIGHT.raw ...]
 *
 * For test/e2e/derived_weights.test: runs the model this program is linked
 * with (one float32 input and output of static sizes) on INPUT.raw and writes
 * the output to BEFORE.raw; binds each NAME to the raw row-major data of its
 * file; runs again into AFTER.raw. The second run must see the new weights,
 * derived weights included. Also lists the derived weights and tries to bind
 * the first, which the runtime refuses. Errors through tcc_last_error().
 *
 *===----------------------------------------------------------------------===*/
#include "tcc/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
  fprintf(stderr, "error: %s: %s\n", what, tcc_last_error());
  return 1;
}

static void *read_raw(const char *path, size_t bytes) {
  FILE *f = fopen(path, "rb");
  void *data = malloc(bytes ? bytes : 1);
  size_t got = 0;
  if (f) {
    got = fread(data, 1, bytes, f);
    if (fgetc(f) != EOF)
      got = bytes + 1;
    fclose(f);
  }
  if (got != bytes) {
    fprintf(stderr, "error: %s does not hold %zu bytes\n", path, bytes);
    free(data);
    return NULL;
  }
  return data;
}

static int write_raw(const char *path, const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, bytes, f) != bytes) {
    fprintf(stderr, "error: cannot write %s\n", path);
    return 1;
  }
  fclose(f);
  return 0;
}

int main(int argc, char **argv) {
  tcc_model *m;
  tcc_tensor_info in_info, out_info, w_info;
  tcc_tensor in, out;
  size_t in_bytes, out_bytes;
  int32_t i, derived = 0;
  int a;
  if (argc < 4) {
    fprintf(stderr, "usage: %s INPUT.raw BEFORE.raw AFTER.raw [NAME=WEIGHT.raw ...]\n", argv[0]);
    return 2;
  }
  m = tcc_model_create();
  if (!m)
    return fail("tcc_model_create");
  if (tcc_model_input_info(m, 0, &in_info) != TCC_OK ||
      tcc_model_output_info(m, 0, &out_info) != TCC_OK)
    return fail("tcc_model_*_info");
  in_bytes = (size_t)in_info.bytes;
  out_bytes = (size_t)out_info.bytes;
  in.data = read_raw(argv[1], in_bytes);
  if (!in.data)
    return 1;
  in.dtype = in_info.dtype, in.device = TCC_DEVICE_CPU, in.rank = in_info.rank;
  in.sizes = in_info.sizes;
  out.data = malloc(out_bytes);
  out.dtype = out_info.dtype, out.device = TCC_DEVICE_CPU, out.rank = out_info.rank;
  out.sizes = out_info.sizes;

  for (i = 0; i < tcc_model_num_weights(m); ++i) {
    if (tcc_model_weight_info(m, i, &w_info) != TCC_OK)
      return fail("tcc_model_weight_info");
    if (w_info.embedded != 2)
      continue;
    if (derived++ == 0) {
      static float zeros[1 << 16];
      if (tcc_model_bind_weight(m, w_info.name, zeros, (size_t)w_info.bytes) == TCC_OK)
        return fprintf(stderr, "error: binding derived weight '%s' succeeded\n", w_info.name), 1;
      printf("bind %s: %s\n", w_info.name, tcc_last_error());
    }
  }
  printf("derived weights: %d\n", (int)derived);

  if (tcc_model_run(m, &in, 1, &out, 1) != TCC_OK)
    return fail("tcc_model_run");
  if (write_raw(argv[2], out.data, out_bytes))
    return 1;
  for (a = 4; a < argc; ++a) {
    char *eq = strchr(argv[a], '=');
    void *data;
    if (!eq)
      return fprintf(stderr, "error: expected NAME=FILE, got %s\n", argv[a]), 2;
    *eq = '\0';
    for (i = 0; i < tcc_model_num_weights(m); ++i)
      if (tcc_model_weight_info(m, i, &w_info) == TCC_OK && strcmp(w_info.name, argv[a]) == 0)
        break;
    if (i == tcc_model_num_weights(m))
      return fprintf(stderr, "error: no weight %s\n", argv[a]), 1;
    data = read_raw(eq + 1, (size_t)w_info.bytes);
    if (!data)
      return 1;
    /* The buffer must outlive the runs: kept until exit. */
    if (tcc_model_bind_weight(m, argv[a], data, (size_t)w_info.bytes) != TCC_OK)
      return fail("tcc_model_bind_weight");
  }
  if (tcc_model_run(m, &in, 1, &out, 1) != TCC_OK)
    return fail("tcc_model_run");
  if (write_raw(argv[3], out.data, out_bytes))
    return 1;
  tcc_model_destroy(m);
  return 0;
}
