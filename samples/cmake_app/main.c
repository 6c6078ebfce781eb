/* run-models: runs every model linked into this program (models.h, generated
 * by CMakeLists.txt from TCC_APP_MODELS) on its PyTorch fixtures and compares.
 * Floating-point outputs match when max|out - ref| / max|ref| <= 1e-4 (the
 * measure of `tcc run --expect`), with NaN in the same places; others
 * exactly. Exit 0 when every model matches. */
#include "models.h"
#include "npy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TENSORS 16
static const double kTolerance = 1e-4;

static double element(const npy_array *a, int64_t i) {
  switch (a->dtype) {
  case TCC_DTYPE_FLOAT32: return ((const float *)a->data)[i];
  case TCC_DTYPE_FLOAT64: return ((const double *)a->data)[i];
  default: return 0;
  }
}

/* -1 on a mismatch (message printed), else 0; *error gets the relative error. */
static int compare(const char *what, const npy_array *out, const npy_array *ref, double *error) {
  int64_t i;
  double max_diff = 0, max_ref = 0;
  if (out->dtype != ref->dtype || out->rank != ref->rank ||
      memcmp(out->sizes, ref->sizes, sizeof(int64_t) * (size_t)out->rank) != 0) {
    fprintf(stderr, "%s: dtype or shape differs from PyTorch's\n", what);
    return -1;
  }
  if (out->dtype != TCC_DTYPE_FLOAT32 && out->dtype != TCC_DTYPE_FLOAT64) {
    *error = 0;
    if (memcmp(out->data, ref->data, (size_t)out->count * tcc_dtype_size(out->dtype)) != 0) {
      fprintf(stderr, "%s: values differ from PyTorch's\n", what);
      return -1;
    }
    return 0;
  }
  for (i = 0; i < out->count; ++i) {
    double o = element(out, i), r = element(ref, i);
    if (isnan(r) || isnan(o)) {
      if (isnan(r) != isnan(o)) {
        fprintf(stderr, "%s: element %lld is %g, PyTorch's %g\n", what, (long long)i, o, r);
        return -1;
      }
      continue;
    }
    if (isinf(r) || isinf(o)) {
      if (o != r) {
        fprintf(stderr, "%s: element %lld is %g, PyTorch's %g\n", what, (long long)i, o, r);
        return -1;
      }
      continue;
    }
    if (fabs(o - r) > max_diff) max_diff = fabs(o - r);
    if (fabs(r) > max_ref) max_ref = fabs(r);
  }
  *error = max_ref > 0 ? max_diff / max_ref : max_diff;
  if (*error > kTolerance) {
    fprintf(stderr, "%s: relative error %.3g above %.0e\n", what, *error, kTolerance);
    return -1;
  }
  return 0;
}

static int run_model(const struct app_model *app) {
  char path[4096], error[4200], what[256];
  npy_array inputs[MAX_TENSORS], outputs[MAX_TENSORS];
  tcc_tensor in[MAX_TENSORS], out[MAX_TENSORS];
  int64_t *size_ptrs[MAX_TENSORS];
  int32_t ni, no, i;
  int status = -1;
  double worst = 0;
  tcc_model *m = tcc_model_create_from(app->descriptor);
  if (!m) {
    fprintf(stderr, "%s: %s\n", app->name, tcc_last_error());
    return -1;
  }
  ni = tcc_model_num_inputs(m);
  no = tcc_model_num_outputs(m);
  memset(inputs, 0, sizeof inputs);
  memset(outputs, 0, sizeof outputs);
  if (ni > MAX_TENSORS || no > MAX_TENSORS) {
    fprintf(stderr, "%s: more than %d inputs or outputs\n", app->name, MAX_TENSORS);
    goto done;
  }
  for (i = 0; i < ni; ++i) {
    snprintf(path, sizeof path, "%s/input_%d.npy", app->fixtures, (int)i);
    if (npy_read(path, &inputs[i], error, sizeof error) != 0) {
      fprintf(stderr, "%s: %s\n", app->name, error);
      goto done;
    }
    in[i].data = inputs[i].data;
    in[i].dtype = inputs[i].dtype;
    in[i].device = TCC_DEVICE_CPU;
    in[i].rank = inputs[i].rank;
    in[i].sizes = inputs[i].sizes;
  }
  for (i = 0; i < no; ++i) {
    tcc_tensor_info info;
    if (tcc_model_output_info(m, i, &info) != TCC_OK) goto fail;
    outputs[i].dtype = info.dtype;
    outputs[i].rank = info.rank;
    size_ptrs[i] = outputs[i].sizes;
  }
  if (tcc_model_output_sizes(m, in, ni, size_ptrs, no) != TCC_OK) goto fail;
  for (i = 0; i < no; ++i) {
    int32_t d;
    outputs[i].count = 1;
    for (d = 0; d < outputs[i].rank; ++d)
      outputs[i].count *= outputs[i].sizes[d];
    outputs[i].data = calloc((size_t)(outputs[i].count ? outputs[i].count : 1),
                             tcc_dtype_size(outputs[i].dtype));
    out[i].data = outputs[i].data;
    out[i].dtype = outputs[i].dtype;
    out[i].device = TCC_DEVICE_CPU;
    out[i].rank = outputs[i].rank;
    out[i].sizes = outputs[i].sizes;
  }
  if (tcc_model_run(m, in, ni, out, no) != TCC_OK) goto fail;
  for (i = 0; i < no; ++i) {
    npy_array ref;
    double e = 0;
    snprintf(path, sizeof path, "%s/expected_%d.npy", app->fixtures, (int)i);
    if (npy_read(path, &ref, error, sizeof error) != 0) {
      fprintf(stderr, "%s: %s\n", app->name, error);
      goto done;
    }
    snprintf(what, sizeof what, "%s output #%d", app->name, (int)i);
    e = 0;
    if (compare(what, &outputs[i], &ref, &e) != 0) {
      npy_free(&ref);
      goto done;
    }
    if (e > worst) worst = e;
    npy_free(&ref);
  }
  printf("%s: %d inputs, %d outputs, max rel err %.1e: ok\n", app->name, (int)ni, (int)no,
         worst);
  status = 0;
  goto done;
fail:
  fprintf(stderr, "%s: %s\n", app->name, tcc_last_error());
done:
  for (i = 0; i < MAX_TENSORS; ++i) {
    npy_free(&inputs[i]);
    npy_free(&outputs[i]);
  }
  tcc_model_destroy(m);
  return status;
}

int main(void) {
  size_t i, n = sizeof app_models / sizeof app_models[0], failed = 0;
  for (i = 0; i < n; ++i)
    if (run_model(&app_models[i]) != 0)
      ++failed;
  printf("%zu of %zu models match PyTorch\n", n - failed, n);
  return failed ? 1 : 0;
}
