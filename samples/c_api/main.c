/*===- main.c - run a tcc-compiled model from C ---------------------------===*
 *
 * Usage: tcc-c-api-sample [BATCH] [INPUT.raw ...]
 *
 * Creates the model compiled into the model.so this program is linked with,
 * prints its inputs and outputs, runs it once on inputs read from raw files
 * (row-major, the model's dtype, one file per input) or generated values, and
 * prints the first outputs. Symbolic dimensions take BATCH (default: the
 * smallest value allowed). Errors are reported with tcc_last_error().
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

static void print_info(const char *kind, int32_t index, const tcc_tensor_info *info) {
  int32_t d;
  printf("%s #%d %s: %s [", kind, (int)index, info->name, tcc_dtype_name(info->dtype));
  for (d = 0; d < info->rank; ++d)
    printf("%s%s", d ? ", " : "", info->size_exprs[d]);
  printf("]\n");
}

static int64_t element_count(int32_t rank, const int64_t *sizes) {
  int64_t n = 1;
  int32_t d;
  for (d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}

/* Fills a buffer with small deterministic values of any dtype. */
static void generate(void *data, int32_t dtype, int64_t count) {
  int64_t i;
  for (i = 0; i < count; ++i) {
    double v = (double)(i % 17) / 8.0 - 1.0;
    switch (dtype) {
    case TCC_DTYPE_FLOAT32: ((float *)data)[i] = (float)v; break;
    case TCC_DTYPE_FLOAT64: ((double *)data)[i] = v; break;
    case TCC_DTYPE_INT64: ((int64_t *)data)[i] = i % 17; break;
    case TCC_DTYPE_INT32: ((int32_t *)data)[i] = (int32_t)(i % 17); break;
    default: memset(data, 0, (size_t)count * tcc_dtype_size(dtype)); return;
    }
  }
}

static int read_raw(const char *path, void *data, size_t bytes) {
  FILE *f = fopen(path, "rb");
  size_t got;
  if (!f) {
    fprintf(stderr, "error: cannot open %s\n", path);
    return 1;
  }
  got = fread(data, 1, bytes, f);
  fclose(f);
  if (got != bytes) {
    fprintf(stderr, "error: %s: expected %lu bytes, read %lu\n", path,
            (unsigned long)bytes, (unsigned long)got);
    return 1;
  }
  return 0;
}

static void print_values(const void *data, int32_t dtype, int64_t count) {
  int64_t i, shown = count < 8 ? count : 8;
  printf("  [");
  for (i = 0; i < shown; ++i) {
    if (i)
      printf(", ");
    switch (dtype) {
    case TCC_DTYPE_FLOAT32: printf("%g", ((const float *)data)[i]); break;
    case TCC_DTYPE_FLOAT64: printf("%g", ((const double *)data)[i]); break;
    case TCC_DTYPE_INT64: printf("%lld", (long long)((const int64_t *)data)[i]); break;
    case TCC_DTYPE_INT32: printf("%d", (int)((const int32_t *)data)[i]); break;
    default: printf("?"); break;
    }
  }
  printf("%s]\n", count > shown ? ", ..." : "");
}

int main(int argc, char **argv) {
  tcc_model *model;
  int32_t num_inputs, num_outputs, i, d;
  int64_t batch = -1;
  int first_file = 1, status = 0;
  tcc_tensor *inputs, *outputs;
  int64_t **input_sizes, **output_sizes;

  if (argc > 1 && strspn(argv[1], "0123456789") == strlen(argv[1])) {
    batch = atoll(argv[1]);
    first_file = 2;
  }

  model = tcc_model_create();
  if (!model)
    return fail("tcc_model_create");
  printf("model %s\n", tcc_model_name(model));

  num_inputs = tcc_model_num_inputs(model);
  num_outputs = tcc_model_num_outputs(model);
  inputs = calloc((size_t)num_inputs + 1, sizeof *inputs);
  outputs = calloc((size_t)num_outputs + 1, sizeof *outputs);
  input_sizes = calloc((size_t)num_inputs + 1, sizeof *input_sizes);
  output_sizes = calloc((size_t)num_outputs + 1, sizeof *output_sizes);

  /* Inputs: symbolic dimensions get BATCH or their symbol's minimum. */
  for (i = 0; i < num_inputs; ++i) {
    tcc_tensor_info info;
    int64_t count;
    if (tcc_model_input_info(model, i, &info) != TCC_OK)
      return fail("tcc_model_input_info");
    print_info("input", i, &info);
    input_sizes[i] = calloc((size_t)info.rank + 1, sizeof(int64_t));
    for (d = 0; d < info.rank; ++d) {
      int64_t size = info.sizes[d];
      if (size < 0) {
        int32_t s;
        size = batch;
        for (s = 0; size < 0 && s < tcc_model_num_symbols(model); ++s) {
          const char *name;
          int64_t lo, hi;
          tcc_model_symbol_info(model, s, &name, &lo, &hi);
          if (strcmp(name, info.size_exprs[d]) == 0)
            size = lo;
        }
        if (size < 0)
          size = 1;
      }
      input_sizes[i][d] = size;
    }
    count = element_count(info.rank, input_sizes[i]);
    inputs[i].data = malloc((size_t)count * tcc_dtype_size(info.dtype) + 1);
    inputs[i].dtype = info.dtype;
    inputs[i].device = TCC_DEVICE_CPU;
    inputs[i].rank = info.rank;
    inputs[i].sizes = input_sizes[i];
    if (first_file + i < argc) {
      if (read_raw(argv[first_file + i], inputs[i].data,
                   (size_t)count * tcc_dtype_size(info.dtype)))
        return 1;
    } else {
      generate(inputs[i].data, info.dtype, count);
    }
  }

  /* Outputs: sized from the inputs by the model's own size expressions. */
  for (i = 0; i < num_outputs; ++i) {
    tcc_tensor_info info;
    if (tcc_model_output_info(model, i, &info) != TCC_OK)
      return fail("tcc_model_output_info");
    print_info("output", i, &info);
    output_sizes[i] = calloc((size_t)info.rank + 1, sizeof(int64_t));
    outputs[i].dtype = info.dtype;
    outputs[i].device = TCC_DEVICE_CPU;
    outputs[i].rank = info.rank;
    outputs[i].sizes = output_sizes[i];
  }
  if (tcc_model_output_sizes(model, inputs, num_inputs, output_sizes, num_outputs) != TCC_OK)
    return fail("tcc_model_output_sizes");
  for (i = 0; i < num_outputs; ++i)
    outputs[i].data = malloc((size_t)element_count(outputs[i].rank, output_sizes[i]) *
                                 tcc_dtype_size(outputs[i].dtype) + 1);

  if (tcc_model_run(model, inputs, num_inputs, outputs, num_outputs) != TCC_OK) {
    status = fail("tcc_model_run");
  } else {
    for (i = 0; i < num_outputs; ++i) {
      printf("output #%d: [", (int)i);
      for (d = 0; d < outputs[i].rank; ++d)
        printf("%s%lld", d ? ", " : "", (long long)output_sizes[i][d]);
      printf("]\n");
      print_values(outputs[i].data, outputs[i].dtype,
                   element_count(outputs[i].rank, output_sizes[i]));
    }
  }

  for (i = 0; i < num_inputs; ++i) {
    free(inputs[i].data);
    free(input_sizes[i]);
  }
  for (i = 0; i < num_outputs; ++i) {
    free(outputs[i].data);
    free(output_sizes[i]);
  }
  free(inputs);
  free(outputs);
  free(input_sizes);
  free(output_sizes);
  tcc_model_destroy(model);
  return status;
}
