/* npy.c - see npy.h. */
#include "npy.h"

#include <tcc/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *error, int size, const char *path, const char *what) {
  snprintf(error, (size_t)size, "%s: %s", path, what);
  return -1;
}

static int dtype_of(const char *descr) {
  static const struct { const char *descr; int dtype; } known[] = {
      {"<f4", TCC_DTYPE_FLOAT32}, {"<f8", TCC_DTYPE_FLOAT64}, {"<f2", TCC_DTYPE_FLOAT16},
      {"<i8", TCC_DTYPE_INT64},   {"<i4", TCC_DTYPE_INT32},   {"<i2", TCC_DTYPE_INT16},
      {"|i1", TCC_DTYPE_INT8},    {"|u1", TCC_DTYPE_UINT8},   {"|b1", TCC_DTYPE_BOOL}};
  size_t i;
  for (i = 0; i < sizeof known / sizeof known[0]; ++i)
    if (strncmp(descr, known[i].descr, 3) == 0 && descr[3] == '\'')
      return known[i].dtype;
  return -1;
}

int npy_read(const char *path, npy_array *a, char *error, int error_size) {
  unsigned char magic[10];
  uint32_t header_len;
  char *header, *p;
  FILE *f = fopen(path, "rb");
  memset(a, 0, sizeof *a);
  if (!f)
    return fail(error, error_size, path, "cannot open");
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return fail(error, error_size, path, "not a .npy file");
  }
  if (magic[6] == 1) {
    unsigned char len[2];
    if (fread(len, 1, 2, f) != 2) { fclose(f); return fail(error, error_size, path, "truncated"); }
    header_len = (uint32_t)len[0] | (uint32_t)len[1] << 8;
  } else {
    unsigned char len[4];
    if (fread(len, 1, 4, f) != 4) { fclose(f); return fail(error, error_size, path, "truncated"); }
    header_len = (uint32_t)len[0] | (uint32_t)len[1] << 8 | (uint32_t)len[2] << 16 |
                 (uint32_t)len[3] << 24;
  }
  if (header_len > 65536) { fclose(f); return fail(error, error_size, path, "header too long"); }
  header = malloc(header_len + 1);
  if (!header || fread(header, 1, header_len, f) != header_len) {
    free(header);
    fclose(f);
    return fail(error, error_size, path, "truncated header");
  }
  header[header_len] = '\0';
  p = strstr(header, "'descr': '");
  a->dtype = p ? dtype_of(p + 10) : -1;
  if (a->dtype < 0 || strstr(header, "'fortran_order': True") ||
      !(p = strstr(header, "'shape': ("))) {
    free(header);
    fclose(f);
    return fail(error, error_size, path, "unsupported dtype or layout");
  }
  p += 10;
  a->count = 1;
  while (*p != ')') {
    char *end;
    long long size = strtoll(p, &end, 10);
    if (end == p || a->rank == NPY_MAX_RANK || size < 0) {
      free(header);
      fclose(f);
      return fail(error, error_size, path, "bad shape");
    }
    a->sizes[a->rank++] = size;
    a->count *= size;
    p = end;
    while (*p == ',' || *p == ' ')
      ++p;
  }
  free(header);
  {
    size_t bytes = (size_t)a->count * tcc_dtype_size(a->dtype);
    a->data = malloc(bytes ? bytes : 1);
    if (!a->data || fread(a->data, 1, bytes, f) != bytes) {
      fclose(f);
      npy_free(a);
      return fail(error, error_size, path, "truncated data");
    }
  }
  fclose(f);
  return 0;
}

void npy_free(npy_array *a) {
  free(a->data);
  a->data = NULL;
}
