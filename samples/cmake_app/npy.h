/* npy.h - reads the .npy files PyTorch's fixtures are saved as (NumPy format
 * 1.0/2.0/3.0, little-endian, C order). */
#ifndef TCC_APP_NPY_H
#define TCC_APP_NPY_H

#include <stdint.h>

#define NPY_MAX_RANK 8

typedef struct npy_array {
  int32_t dtype; /* a tcc_dtype */
  int32_t rank;
  int64_t sizes[NPY_MAX_RANK];
  int64_t count; /* elements */
  void *data;    /* malloc'd; free with npy_free */
} npy_array;

/* 0 on success; otherwise -1 with a message in `error` (`error_size` bytes). */
int npy_read(const char *path, npy_array *array, char *error, int error_size);
void npy_free(npy_array *array);

#endif
