/*===- runtime.h - C ABI of a model compiled by tcc -------------------------===
 *
 * Every model.so produced by `tcc compile` exports these functions (the
 * runtime is linked into it statically). A host program includes this header,
 * links against model.so (or dlopens it) and does:
 *
 *     tcc_model *m = tcc_model_create();
 *
 * A model compiled to an object instead (`tcc compile a.pt2 -o encoder.o
 * --name encoder`) holds only the model: one exported descriptor,
 * tcc_model_encoder. Any number of them link into one program with one
 * runtime library (libtcc_runtime.a; CMake: find_package(tcc), tcc::runtime):
 *
 *     TCC_MODEL_DECLARE(encoder);
 *     tcc_model *m = tcc_model_create_from(&tcc_model_encoder);
 *     if (!m) { fprintf(stderr, "%s\n", tcc_last_error()); ... }
 *     tcc_tensor in = { x_data, TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 2, x_sizes };
 *     int64_t out_sizes[2];
 *     int64_t *out_size_ptrs[1] = { out_sizes };
 *     tcc_model_output_sizes(m, &in, 1, out_size_ptrs, 1);
 *     tcc_tensor out = { y_data, TCC_DTYPE_FLOAT32, TCC_DEVICE_CPU, 2, out_sizes };
 *     if (tcc_model_run(m, &in, 1, &out, 1) != TCC_OK) ...
 *     tcc_model_destroy(m);
 *
 * Conventions:
 *  - Functions returning tcc_status set a thread-local error message on
 *    failure, read with tcc_last_error(); those returning a pointer return
 *    NULL on failure and set it too.
 *  - Tensors are dense and row-major; the caller owns every buffer.
 *  - Instances are independent: different instances may be used from
 *    different threads concurrently. Calls on one instance are serialized
 *    internally (its arena is shared by its runs).
 *  - A model whose forward writes its buffers (a running statistic, a
 *    key/value cache: the manifest's "states") keeps them per instance:
 *    each call reads what the calls before it on that instance wrote, as
 *    the PyTorch module would. Two instances never share state; calls on one
 *    instance are serialized, and its CUDA runs (which write the state on
 *    the device in place) must stay on one stream, as for its arena. An
 *    input the forward writes in place (manifest input "written": true) is
 *    written through its pointer, as PyTorch writes the caller's tensor.
 *  - Strings and arrays returned by a query stay valid until the model is
 *    destroyed.
 *
 * This header is C89 apart from <stdint.h>/<stddef.h>.
 *
 *===------------------------------------------------------------------------===*/
#ifndef TCC_RUNTIME_H
#define TCC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TCC_API __attribute__((visibility("default")))
#else
#define TCC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Result of every fallible call. */
typedef enum tcc_status {
  TCC_OK = 0,
  /** A NULL pointer, an index out of range, a count or size that differs. */
  TCC_ERROR_INVALID_ARGUMENT = 1,
  /** An input violates the guard manifest (dtype, rank, size, device). */
  TCC_ERROR_GUARD_VIOLATION = 2,
  /** A weight that is not embedded was never bound. */
  TCC_ERROR_MISSING_WEIGHT = 3,
  /** A file could not be read. */
  TCC_ERROR_IO = 4,
  /** The embedded manifest is malformed (a compiler bug or a corrupt file). */
  TCC_ERROR_INVALID_MANIFEST = 5,
  /** The request needs something this build lacks (e.g. a CUDA device). */
  TCC_ERROR_UNSUPPORTED = 6,
  /** An allocation failed. */
  TCC_ERROR_OUT_OF_MEMORY = 7,
  /** Anything else: a bug in tcc. */
  TCC_ERROR_INTERNAL = 8
} tcc_status;

/** Element types; the codes equal tcc::DType (include/tcc/Support/DType.h). */
typedef enum tcc_dtype {
  TCC_DTYPE_FLOAT32 = 0,
  TCC_DTYPE_FLOAT64 = 1,
  TCC_DTYPE_FLOAT16 = 2,
  TCC_DTYPE_BFLOAT16 = 3,
  TCC_DTYPE_INT64 = 4,
  TCC_DTYPE_INT32 = 5,
  TCC_DTYPE_INT16 = 6,
  TCC_DTYPE_INT8 = 7,
  TCC_DTYPE_UINT8 = 8,
  TCC_DTYPE_BOOL = 9,
  /* (re, im) pairs of float32 / float64, PyTorch's complex storage */
  TCC_DTYPE_COMPLEX64 = 10,
  TCC_DTYPE_COMPLEX128 = 11
} tcc_dtype;

/** Where a tensor's data lives. */
typedef enum tcc_device {
  TCC_DEVICE_CPU = 0,
  TCC_DEVICE_CUDA = 1
} tcc_device;

/** A tensor passed to or from a model: `rank` sizes, dense, row-major. */
typedef struct tcc_tensor {
  void *data;           /* first element; may be NULL only if it has none */
  int32_t dtype;        /* a tcc_dtype */
  int32_t device;       /* a tcc_device */
  int32_t rank;
  const int64_t *sizes; /* `rank` entries */
} tcc_tensor;

/** Description of a model input, output or weight, from its manifest. */
typedef struct tcc_tensor_info {
  const char *name;                /* "x", "lin.weight" */
  int32_t dtype;                   /* a tcc_dtype */
  int32_t device;                  /* inputs: the device the manifest expects */
  int32_t rank;
  const int64_t *sizes;            /* `rank` entries; -1 where symbolic */
  const char *const *size_exprs;   /* `rank` entries: "s77", "2*s77 + 1", "100" */
  int64_t bytes;                   /* weights: byte size; others: -1 if symbolic */
  int32_t embedded;                /* weights: 1 if stored in the model, 0 if it
                                      must be bound, 2 if derived: computed by
                                      the runtime from other weights, never
                                      bound (tcc_model_bind_weight refuses it) */
} tcc_tensor_info;

/** An opaque model instance: manifest, weight pointers and its own arena. */
typedef struct tcc_model tcc_model;

/*--- Errors -------------------------------------------------------------*/

/** Text of the last failure on this thread ("" if none). */
TCC_API const char *tcc_last_error(void);

/** Name of a status code: "ok", "guard violation", ... */
TCC_API const char *tcc_status_string(tcc_status status);

/** Manifest name of a dtype ("float32"), or "unknown". */
TCC_API const char *tcc_dtype_name(int32_t dtype);

/** Bytes per element of a dtype, 0 if unknown. */
TCC_API size_t tcc_dtype_size(int32_t dtype);

/*--- Lifetime -----------------------------------------------------------*/

/** A new instance of the model compiled into this library (model.so), with
 *  its embedded weights bound and its arena allocated. NULL on failure. */
TCC_API tcc_model *tcc_model_create(void);

/** What a model object exports (`tcc compile -o NAME.o [--name NAME]`): one
 *  constant `tcc_model_NAME` of this type. Its layout is part of the ABI;
 *  `abi_version` says which (TCC_MODEL_DESCRIPTOR_VERSION). */
#define TCC_MODEL_DESCRIPTOR_VERSION 2

/** The entries of one compiled shape specialization (docs/ARTIFACT.md). */
typedef struct tcc_model_entry {
  void (*forward)(int64_t *packed);                   /* CPU path or NULL */
  void (*forward_cuda)(int64_t *packed, void *stream); /* CUDA path or NULL */
} tcc_model_entry;

typedef struct tcc_model_descriptor {
  uint32_t abi_version;
  const char *name;                /* the model's name, as given to --name */
  const char *manifest_json;       /* the guard manifest, NUL-terminated */
  uint64_t manifest_size;          /* its length without the NUL */
  const uint8_t *weights;          /* embedded weights (64-byte aligned) */
  uint64_t weights_size;           /* 0 with --external-weights */
  void (*forward)(int64_t *packed);                   /* CPU path or NULL */
  void (*forward_cuda)(int64_t *packed, void *stream); /* CUDA path or NULL */
  /* Version 2: the static shape specializations (`tcc compile --specialize`),
     in the order of the manifest's "specializations" after "generic", whose
     entries are the two above. */
  uint64_t num_specializations;
  const tcc_model_entry *specializations;
} tcc_model_descriptor;

/** Declares the descriptor of the model compiled with --name `name`. */
#define TCC_MODEL_DECLARE(name) extern const tcc_model_descriptor tcc_model_##name

/** A new instance of the model `descriptor` describes, as tcc_model_create
 *  does for model.so. NULL on failure (a NULL descriptor, or one written by
 *  a tcc with another descriptor layout). */
TCC_API tcc_model *tcc_model_create_from(const tcc_model_descriptor *descriptor);

/** Frees an instance (NULL is allowed). Bound weight buffers stay the
 *  caller's. */
TCC_API void tcc_model_destroy(tcc_model *model);

/*--- Queries ------------------------------------------------------------*/

/** The guard manifest JSON (NUL-terminated); its length in *size if given. */
TCC_API const char *tcc_model_manifest(const tcc_model *model, size_t *size);

/** The manifest's model name. */
TCC_API const char *tcc_model_name(const tcc_model *model);

TCC_API int32_t tcc_model_num_inputs(const tcc_model *model);
TCC_API int32_t tcc_model_num_outputs(const tcc_model *model);
TCC_API int32_t tcc_model_num_weights(const tcc_model *model);
TCC_API int32_t tcc_model_num_symbols(const tcc_model *model);

/** Fill *info for input/output/weight `index`. */
TCC_API tcc_status tcc_model_input_info(const tcc_model *model, int32_t index,
                                        tcc_tensor_info *info);
TCC_API tcc_status tcc_model_output_info(const tcc_model *model, int32_t index,
                                         tcc_tensor_info *info);
TCC_API tcc_status tcc_model_weight_info(const tcc_model *model, int32_t index,
                                         tcc_tensor_info *info);

/** Name and inclusive range of size symbol `index` ("s77", 1, 1024). */
TCC_API tcc_status tcc_model_symbol_info(const tcc_model *model, int32_t index,
                                         const char **name, int64_t *min,
                                         int64_t *max);

/** Bytes of the instance's scratch arena. */
TCC_API int64_t tcc_model_arena_bytes(const tcc_model *model);

/*--- Weights ------------------------------------------------------------*/

/** Binds (or replaces) the weight named `name` (the PyTorch parameter or
 *  buffer name, e.g. "lin.weight") to `data`, which must hold exactly the
 *  manifest's byte size in its dtype, row-major. The runtime keeps the
 *  pointer, does not copy: the buffer must outlive every run that uses it.
 *  The next run recomputes the derived weights (those computed from other
 *  weights, e.g. batch norm's scale) and copies the weights to the device
 *  again; rebind a weight (the same pointer will do) after changing its data
 *  in place. Binding a derived weight is refused (TCC_ERROR_INVALID_ARGUMENT:
 *  "weight 'derived:bn1.weight:0' is derived from other weights; bind its
 *  sources (...)"). */
TCC_API tcc_status tcc_model_bind_weight(tcc_model *model, const char *name,
                                         const void *data, size_t bytes);

/** Loads every weight from a weights file and binds it (replacing embedded
 *  weights too), and restarts the state from the file's initial values.
 *  Format (`tcc compile --external-weights` writes it; tcc/Support/
 *  WeightsFile.h): a 64-byte header ("TCCWEIGH", format 1, the image's byte
 *  count and SHA-256), then the image: weight i at its manifest `offset`,
 *  spanning its `bytes`, as embedded. Refused (TCC_ERROR_IO, naming why): a
 *  file that is not regular, has no header, has bytes after the image, does
 *  not match its hash (damaged), or holds another image than the one the
 *  model was compiled with (the manifest's "weights_file" hash: another
 *  model's weights, or another compile's). The file is read once, hashed as
 *  it is read; the instance keeps its own copy. */
TCC_API tcc_status tcc_model_load_weights(tcc_model *model, const char *path);

/*--- State --------------------------------------------------------------*/
/* The buffers a model's forward writes (model.acc.add_(x), a static
 * key/value cache), which each instance carries from one run to the next.
 * Each starts at its value in the export (zeros with --external-weights
 * until tcc_model_load_weights reads the file's), and lives where the last
 * run left it: in host memory after a CPU run, in device memory after a CUDA
 * run, where the kernels write it in place; a run on the other path moves it
 * first. The calls below wait for a CUDA run that is still writing it. */

/** Number of states (0 for a model without). */
TCC_API int32_t tcc_model_num_states(const tcc_model *model);

/** Fill *info for state `index` (name: the buffer's, e.g. "layers.0.k_cache";
 *  bytes: its size; embedded: 1 if its initial value is in the model). */
TCC_API tcc_status tcc_model_state_info(const tcc_model *model, int32_t index,
                                        tcc_tensor_info *info);

/** Copies state `index` into `dst` (`bytes`: exactly its byte size) on
 *  `dst_device` (a tcc_device). */
TCC_API tcc_status tcc_model_read_state(tcc_model *model, int32_t index, void *dst,
                                        int32_t dst_device, size_t bytes);

/** Replaces state `index` with `bytes` (exactly its byte size) from `src` on
 *  `src_device`. The next run reads it. */
TCC_API tcc_status tcc_model_write_state(tcc_model *model, int32_t index, const void *src,
                                         int32_t src_device, size_t bytes);

/** Every state back to its initial value (a new sequence, a new prompt). */
TCC_API tcc_status tcc_model_reset_state(tcc_model *model);

/** Keeps state `index` in the caller's memory: `data` (exactly its byte
 *  size, on `device`), which runs on that device then read and write in
 *  place, as PyTorch writes a module's own buffer (the Python loader binds
 *  the module's buffers so). A run on the other path is refused
 *  (TCC_ERROR_INVALID_ARGUMENT). The memory must outlive the runs that use
 *  it. NULL: the state goes back to the instance's own memory, with the
 *  value the caller's memory held. */
TCC_API tcc_status tcc_model_bind_state(tcc_model *model, int32_t index, void *data,
                                        int32_t device, size_t bytes);

/*--- Generation ---------------------------------------------------------*/
/* A decoder with a key/value cache as transformers and ExecuTorch export it
 * for generation: input 0 the token ids [batch, tokens] (int64 or int32),
 * input 1 their positions in the cache [tokens] (same dtype), output 0 the
 * logits [batch, tokens, vocab] (float32, bfloat16 or float16); the cache is
 * the model's state. tcc_model_generate resets the state, feeds the prompt
 * (in one call where the tokens dim is symbolic and the prompt fits it, else
 * a token per call), then one token per call, each the argmax of the last
 * logits (or a sample of the top_k most likely at `temperature`), until
 * max_new_tokens or every row has produced eos_token. */

typedef struct tcc_generate_options {
  int32_t max_new_tokens;  /* tokens to generate after the prompt (>= 0) */
  int64_t eos_token;       /* a row stops after producing it; -1: none */
  int32_t top_k;           /* 0 or 1: greedy; k > 1: sample among the k largest */
  float temperature;       /* > 0; with top_k > 1: logits / temperature */
  uint64_t seed;           /* sampling's random stream (tcc's own, not PyTorch's) */
  int32_t device;          /* TCC_DEVICE_CPU or TCC_DEVICE_CUDA: the path that runs */
  void *stream;            /* CUDA: the stream (a CUstream; NULL: the default) */
  /* Called after the prompt (step 0) and after each generated token, with
   * the batch's new tokens (a finished row repeats eos_token); NULL: none.
   * A non-zero return stops the generation. */
  int32_t (*on_token)(void *user, int32_t step, const int64_t *tokens, int32_t batch);
  void *user;
} tcc_generate_options;

/** What a generation took: the prompt's calls and the generated tokens'. */
typedef struct tcc_generate_stats {
  int32_t prompt_calls;    /* calls that fed the prompt */
  int32_t decode_calls;    /* calls that fed a generated token */
  double prompt_ms;        /* wall time of the prompt's calls */
  double decode_ms;        /* wall time of the rest (tokens/s = decode_calls / decode_ms) */
} tcc_generate_stats;

/** Generates from `prompt` (batch rows of prompt_len token ids, row-major)
 *  into `tokens` (batch rows of max_new_tokens each); *num_tokens receives
 *  how many each row got (rows that stopped early are padded with
 *  eos_token); `stats` may be NULL. Refuses a model without the decoder's
 *  inputs and outputs (TCC_ERROR_INVALID_ARGUMENT, naming what differs). */
TCC_API tcc_status tcc_model_generate(tcc_model *model, const int64_t *prompt, int32_t batch,
                                      int32_t prompt_len, const tcc_generate_options *options,
                                      int64_t *tokens, int32_t *num_tokens,
                                      tcc_generate_stats *stats);

/*--- Running ------------------------------------------------------------*/

/** Checks `inputs` against the guards (data may be NULL here) and writes the
 *  sizes of output i to output_sizes[i][0 .. rank-1]. */
TCC_API tcc_status tcc_model_output_sizes(const tcc_model *model,
                                          const tcc_tensor *inputs,
                                          int32_t num_inputs,
                                          int64_t *const *output_sizes,
                                          int32_t num_outputs);

/** Runs the model: checks every input against the guard manifest, checks
 *  that every output has the dtype and sizes tcc_model_output_sizes gives,
 *  and writes the outputs. A violated guard returns
 *  TCC_ERROR_GUARD_VIOLATION with a message such as
 *  "input 'x' (#0) dimension 0: expected s77 in [1, 1024], got 1025". */
TCC_API tcc_status tcc_model_run(tcc_model *model, const tcc_tensor *inputs,
                                 int32_t num_inputs, const tcc_tensor *outputs,
                                 int32_t num_outputs);

/** As tcc_model_run. Tensors on TCC_DEVICE_CUDA (device pointers of the
 *  current CUDA context, or of device 0's primary context if none is current)
 *  are run by enqueueing the model's kernels on `stream` (a CUstream; NULL is
 *  the default stream) without waiting for them; tcc_model_run waits. The
 *  first CUDA run of an instance allocates its arena and copies the weights
 *  to the device (again after a weight is rebound). Runs of one instance share
 *  its arena: keep them on one stream. CPU tensors run as in tcc_model_run. */
TCC_API tcc_status tcc_model_run_on_stream(tcc_model *model, const tcc_tensor *inputs,
                                           int32_t num_inputs, const tcc_tensor *outputs,
                                           int32_t num_outputs, void *stream);

/*--- Options ------------------------------------------------------------*/

/** Sets a run-time option of an instance:
 *   "cuda_graphs"  1: CUDA runs capture their launch sequence once per set of
 *                  arguments (every input/output pointer and size) and replay
 *                  it as a CUDA graph on the caller's stream; 0: every run
 *                  launches its kernels directly (and the instance's graphs
 *                  are freed). The default is the manifest's "cuda_graphs"
 *                  (true unless compiled with --no-cuda-graphs), or 0 when
 *                  the environment has TCC_CUDA_GRAPHS=0 at tcc_model_create.
 *   "specializations"  1: each run takes the most specific compiled shape
 *                  specialization its input sizes select (`tcc compile
 *                  --specialize`); 0: every run takes the generic variant.
 *                  The default is 1, or 0 when the environment has
 *                  TCC_SPECIALIZATION=generic at tcc_model_create.
 *  Unknown names and values return TCC_ERROR_INVALID_ARGUMENT. */
TCC_API tcc_status tcc_model_set_option(tcc_model *model, const char *name, int64_t value);

/** Reads an option ("cuda_graphs", "specializations"), the index in the
 *  manifest's "specializations" of the variant the last run took
 *  ("specialization", -1 before the first run), or a counter of the
 *  instance's CUDA runs:
 *  "cuda_graph_replays", "cuda_graph_captures", "cuda_graph_updates",
 *  "cuda_direct_runs", "cuda_graph_capture_failures". */
TCC_API tcc_status tcc_model_get_option(tcc_model *model, const char *name, int64_t *value);

/*--- Profiling ----------------------------------------------------------*/
/* Per-kernel times of an artifact compiled with `tcc compile --profile`
 * (manifest "profile": true): its entries mark the start of every kernel (the
 * manifest's "kernels", in order) and their end. */

/** Turns profiling of the instance's runs on (1) or off (0). On: clears what
 *  was accumulated; every run then records its kernels' times (CPU: the
 *  steady clock; CUDA: an event per kernel on the run's stream, CUDA graphs
 *  off meanwhile, and the run waits for its stream). An artifact compiled
 *  without --profile is refused (TCC_ERROR_UNSUPPORTED: "model 'm' was not
 *  compiled for profiling: ... (compile it with tcc compile --profile)"). */
TCC_API tcc_status tcc_model_set_profiling(tcc_model *model, int32_t enabled);

/** What the profiled runs took: total_ms[k] and calls[k] for kernel k <
 *  capacity (its mean is total_ms[k] / calls[k]); *num_kernels (if not NULL)
 *  receives the number of kernels, *runs (if not NULL) the runs profiled
 *  since profiling was turned on or reset. */
TCC_API tcc_status tcc_model_profile(const tcc_model *model, double *total_ms,
                                     int64_t *calls, int32_t capacity,
                                     int32_t *num_kernels, int64_t *runs);

/** Clears the accumulated times (profiling stays as it is). */
TCC_API tcc_status tcc_model_reset_profile(tcc_model *model);

/*--- Device memory ------------------------------------------------------*/
/* Small helpers over the CUDA driver (opened with dlopen, as for runs) so a C
 * host program can prepare device tensors without linking CUDA. They act in
 * the current CUDA context, or device 0's primary context if none is current
 * (the one tcc_model_run_on_stream uses then). Without a GPU they return
 * TCC_ERROR_UNSUPPORTED. */

/** Allocates `bytes` of device memory (cuMemAlloc) into *ptr. */
TCC_API tcc_status tcc_cuda_malloc(void **ptr, size_t bytes);

/** Frees memory from tcc_cuda_malloc (NULL is allowed). */
TCC_API tcc_status tcc_cuda_free(void *ptr);

/** Copies `bytes` from `src` to `dst`; each side's device is a tcc_device.
 *  Synchronous. */
TCC_API tcc_status tcc_cuda_memcpy(void *dst, int32_t dst_device, const void *src,
                                   int32_t src_device, size_t bytes);

/** Waits for the work enqueued on `stream` (a CUstream; NULL: the default
 *  stream). */
TCC_API tcc_status tcc_cuda_synchronize(void *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TCC_RUNTIME_H */
