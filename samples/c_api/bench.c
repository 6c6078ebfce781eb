/*===- bench.c - host cost of one model call through the C ABI ------------===*
 *
 * Usage: tcc-bench MODEL.so [-n N] [--batch B] [--no-graphs] [--cpu]
 *
 * dlopens a model.so compiled by `tcc compile --target cuda` (or cpu,cuda),
 * puts generated inputs and the outputs in device memory with the runtime's
 * own helpers (tcc_cuda_malloc / tcc_cuda_memcpy: no CUDA toolkit needed to
 * build this), and times N calls of tcc_model_run_on_stream on the default
 * stream after a warm-up. It prints, in microseconds:
 *   host   the median time one tcc_model_run_on_stream call takes to return
 *          (guards, argument packing, graph replay or kernel launches);
 *   sync   the median time of one call followed by tcc_cuda_synchronize
 *          (the whole round trip, as a caller that waits sees it);
 *   total  wall time of N back-to-back calls plus one final synchronize, / N.
 * --no-graphs sets the "cuda_graphs" option to 0 (direct launches); --cpu runs
 * the CPU path on host memory instead. Symbolic dimensions take B (default:
 * their minimum).
 *
 *     cc -std=c99 -O2 -I include samples/c_api/bench.c -o tcc-bench -ldl
 *     ./tcc-bench foo.so -n 10000
 *
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "tcc/runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The C ABI, resolved from the model.so given on the command line. */
static struct {
  const char *(*last_error)(void);
  tcc_model *(*create)(void);
  void (*destroy)(tcc_model *);
  const char *(*name)(const tcc_model *);
  int32_t (*num_inputs)(const tcc_model *);
  int32_t (*num_outputs)(const tcc_model *);
  int32_t (*num_symbols)(const tcc_model *);
  tcc_status (*input_info)(const tcc_model *, int32_t, tcc_tensor_info *);
  tcc_status (*output_info)(const tcc_model *, int32_t, tcc_tensor_info *);
  tcc_status (*symbol_info)(const tcc_model *, int32_t, const char **, int64_t *, int64_t *);
  tcc_status (*output_sizes)(const tcc_model *, const tcc_tensor *, int32_t, int64_t *const *,
                             int32_t);
  tcc_status (*run_on_stream)(tcc_model *, const tcc_tensor *, int32_t, const tcc_tensor *,
                              int32_t, void *);
  tcc_status (*set_option)(tcc_model *, const char *, int64_t);
  tcc_status (*get_option)(tcc_model *, const char *, int64_t *);
  size_t (*dtype_size)(int32_t);
  tcc_status (*cuda_malloc)(void **, size_t);
  tcc_status (*cuda_free)(void *);
  tcc_status (*cuda_memcpy)(void *, int32_t, const void *, int32_t, size_t);
  tcc_status (*cuda_synchronize)(void *);
} api;

static void *resolve(void *lib, const char *name) {
  void *fn = dlsym(lib, name);
  if (!fn) {
    fprintf(stderr, "error: %s does not export %s (built before this ABI?)\n", "model.so",
            name);
    exit(1);
  }
  return fn;
}

static void load_api(void *lib) {
  /* POSIX guarantees void* <-> function pointer conversion for dlsym. */
#define TCC_RESOLVE(field, symbol) *(void **)(&api.field) = resolve(lib, symbol)
  TCC_RESOLVE(last_error, "tcc_last_error");
  TCC_RESOLVE(create, "tcc_model_create");
  TCC_RESOLVE(destroy, "tcc_model_destroy");
  TCC_RESOLVE(name, "tcc_model_name");
  TCC_RESOLVE(num_inputs, "tcc_model_num_inputs");
  TCC_RESOLVE(num_outputs, "tcc_model_num_outputs");
  TCC_RESOLVE(num_symbols, "tcc_model_num_symbols");
  TCC_RESOLVE(input_info, "tcc_model_input_info");
  TCC_RESOLVE(output_info, "tcc_model_output_info");
  TCC_RESOLVE(symbol_info, "tcc_model_symbol_info");
  TCC_RESOLVE(output_sizes, "tcc_model_output_sizes");
  TCC_RESOLVE(run_on_stream, "tcc_model_run_on_stream");
  TCC_RESOLVE(set_option, "tcc_model_set_option");
  TCC_RESOLVE(get_option, "tcc_model_get_option");
  TCC_RESOLVE(dtype_size, "tcc_dtype_size");
  TCC_RESOLVE(cuda_malloc, "tcc_cuda_malloc");
  TCC_RESOLVE(cuda_free, "tcc_cuda_free");
  TCC_RESOLVE(cuda_memcpy, "tcc_cuda_memcpy");
  TCC_RESOLVE(cuda_synchronize, "tcc_cuda_synchronize");
#undef TCC_RESOLVE
}

static int fail(const char *what) {
  fprintf(stderr, "error: %s: %s\n", what, api.last_error());
  return 1;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *values, int n) {
  qsort(values, (size_t)n, sizeof *values, compare_double);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

static int64_t element_count(int32_t rank, const int64_t *sizes) {
  int64_t n = 1;
  int32_t d;
  for (d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}

/* Memory of a tensor on the benchmark's device, filled with small values. */
static void *make_buffer(int device, int32_t dtype, int64_t count, int fill) {
  size_t bytes = (size_t)count * api.dtype_size(dtype);
  void *host = calloc(bytes + 1, 1), *data = host;
  int64_t i;
  if (fill && dtype == TCC_DTYPE_FLOAT32)
    for (i = 0; i < count; ++i)
      ((float *)host)[i] = (float)(i % 17) / 8.0f - 1.0f;
  if (device == TCC_DEVICE_CUDA) {
    if (api.cuda_malloc(&data, bytes) != TCC_OK) {
      fail("tcc_cuda_malloc");
      exit(1);
    }
    if (api.cuda_memcpy(data, TCC_DEVICE_CUDA, host, TCC_DEVICE_CPU, bytes) != TCC_OK) {
      fail("tcc_cuda_memcpy");
      exit(1);
    }
    free(host);
  }
  return data;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  int iterations = 10000, warmup = 200, graphs = 1, device = TCC_DEVICE_CUDA, i;
  int64_t batch = -1, replays = -1, direct = -1;
  void *lib;
  tcc_model *model;
  int32_t num_inputs, num_outputs, k, d;
  tcc_tensor *inputs, *outputs;
  int64_t **output_sizes;
  double *host_us, *sync_us, t0, total_us;

  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      iterations = atoi(argv[++i]);
    else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc)
      batch = atoll(argv[++i]);
    else if (strcmp(argv[i], "--no-graphs") == 0)
      graphs = 0;
    else if (strcmp(argv[i], "--cpu") == 0)
      device = TCC_DEVICE_CPU;
    else if (!path && argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "usage: %s MODEL.so [-n N] [--batch B] [--no-graphs] [--cpu]\n",
              argv[0]);
      return 2;
    }
  }
  if (!path || iterations < 1) {
    fprintf(stderr, "usage: %s MODEL.so [-n N] [--batch B] [--no-graphs] [--cpu]\n", argv[0]);
    return 2;
  }
  lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "error: %s\n", dlerror());
    return 1;
  }
  load_api(lib);
  model = api.create();
  if (!model)
    return fail("tcc_model_create");
  if (!graphs && api.set_option(model, "cuda_graphs", 0) != TCC_OK)
    return fail("tcc_model_set_option");

  num_inputs = api.num_inputs(model);
  num_outputs = api.num_outputs(model);
  inputs = calloc((size_t)num_inputs + 1, sizeof *inputs);
  outputs = calloc((size_t)num_outputs + 1, sizeof *outputs);
  output_sizes = calloc((size_t)num_outputs + 1, sizeof *output_sizes);
  for (k = 0; k < num_inputs; ++k) {
    tcc_tensor_info info;
    int64_t *sizes;
    if (api.input_info(model, k, &info) != TCC_OK)
      return fail("tcc_model_input_info");
    sizes = calloc((size_t)info.rank + 1, sizeof *sizes);
    for (d = 0; d < info.rank; ++d) {
      int64_t size = info.sizes[d];
      int32_t s;
      for (s = 0; size < 0 && s < api.num_symbols(model); ++s) {
        const char *name;
        int64_t lo, hi;
        api.symbol_info(model, s, &name, &lo, &hi);
        if (strcmp(name, info.size_exprs[d]) == 0)
          size = batch >= lo && batch <= hi ? batch : lo;
      }
      sizes[d] = size < 0 ? 1 : size;
    }
    inputs[k].dtype = info.dtype;
    inputs[k].device = device;
    inputs[k].rank = info.rank;
    inputs[k].sizes = sizes;
    inputs[k].data = make_buffer(device, info.dtype, element_count(info.rank, sizes), 1);
  }
  for (k = 0; k < num_outputs; ++k) {
    tcc_tensor_info info;
    if (api.output_info(model, k, &info) != TCC_OK)
      return fail("tcc_model_output_info");
    output_sizes[k] = calloc((size_t)info.rank + 1, sizeof(int64_t));
    outputs[k].dtype = info.dtype;
    outputs[k].device = device;
    outputs[k].rank = info.rank;
    outputs[k].sizes = output_sizes[k];
  }
  if (api.output_sizes(model, inputs, num_inputs, output_sizes, num_outputs) != TCC_OK)
    return fail("tcc_model_output_sizes");
  for (k = 0; k < num_outputs; ++k)
    outputs[k].data = make_buffer(device, outputs[k].dtype,
                                  element_count(outputs[k].rank, output_sizes[k]), 0);

  for (i = 0; i < warmup; ++i)
    if (api.run_on_stream(model, inputs, num_inputs, outputs, num_outputs, NULL) != TCC_OK)
      return fail("tcc_model_run_on_stream (warm-up)");
  if (device == TCC_DEVICE_CUDA && api.cuda_synchronize(NULL) != TCC_OK)
    return fail("tcc_cuda_synchronize");

  host_us = malloc(sizeof(double) * (size_t)iterations);
  sync_us = malloc(sizeof(double) * (size_t)iterations);
  t0 = now_us();
  for (i = 0; i < iterations; ++i) {
    double start = now_us();
    if (api.run_on_stream(model, inputs, num_inputs, outputs, num_outputs, NULL) != TCC_OK)
      return fail("tcc_model_run_on_stream");
    host_us[i] = now_us() - start;
  }
  if (device == TCC_DEVICE_CUDA && api.cuda_synchronize(NULL) != TCC_OK)
    return fail("tcc_cuda_synchronize");
  total_us = (now_us() - t0) / iterations;
  for (i = 0; i < iterations; ++i) {
    double start = now_us();
    if (api.run_on_stream(model, inputs, num_inputs, outputs, num_outputs, NULL) != TCC_OK)
      return fail("tcc_model_run_on_stream");
    if (device == TCC_DEVICE_CUDA && api.cuda_synchronize(NULL) != TCC_OK)
      return fail("tcc_cuda_synchronize");
    sync_us[i] = now_us() - start;
  }
  api.get_option(model, "cuda_graph_replays", &replays);
  api.get_option(model, "cuda_direct_runs", &direct);
  printf("%s %s graphs=%s n=%d host_us=%.2f sync_us=%.2f total_us=%.2f "
         "(graph replays %lld, direct runs %lld)\n",
         api.name(model), device == TCC_DEVICE_CUDA ? "cuda" : "cpu", graphs ? "on" : "off",
         iterations, median(host_us, iterations), median(sync_us, iterations), total_us,
         (long long)replays, (long long)direct);

  for (k = 0; k < num_inputs; ++k) {
    if (device == TCC_DEVICE_CUDA)
      api.cuda_free(inputs[k].data);
    else
      free(inputs[k].data);
    free((void *)inputs[k].sizes);
  }
  for (k = 0; k < num_outputs; ++k) {
    if (device == TCC_DEVICE_CUDA)
      api.cuda_free(outputs[k].data);
    else
      free(outputs[k].data);
    free(output_sizes[k]);
  }
  free(inputs);
  free(outputs);
  free(output_sizes);
  free(host_us);
  free(sync_us);
  api.destroy(model);
  return 0;
}
