//===- main.cpp - the tcc driver: compile, explain, run, inspect ----------===//
#include "tools/tcc/Commands.h"

#include "tcc/Support/CrashHandler.h"
#include "tcc/Support/Version.h"
#include "tcc/Target/ModelName.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>

using namespace tcc;

static const char *kExitCodes = R"(
Exit codes:
  0  success
  1  error in the input: unreadable or unsupported model, guard violation,
     outputs that differ from --expect
  2  usage error (unknown flag, missing argument)
  3  internal error in tcc (please report it with the command line)
)";

/// --precision on `cmd`: one of precisionName's words, stored in `precision`
/// as the enum.
static void addPrecisionOption(CLI::App *cmd, Precision &precision, const std::string &help) {
  std::vector<std::string> words;
  for (Precision p : kPrecisions)
    words.push_back(precisionName(p));
  cmd->add_option_function<std::string>(
         "--precision",
         [&precision](const std::string &word) { parsePrecision(word, precision); }, help)
      ->check(CLI::IsMember(words))
      ->type_name("TEXT");
}

/// `flag` on `cmd`, read by `parse` (TargetSet::parse, parseCpuIsa) into
/// `value`; a word parse refuses is a usage error with parse's message.
template <typename T>
static void addParsedOption(CLI::App *cmd, const std::string &flag, T &value,
                            std::optional<T> (*parse)(std::string_view, std::string &),
                            const std::string &help) {
  cmd->add_option_function<std::string>(
         flag,
         [&value, parse](const std::string &text) {
           std::string error;
           value = *parse(text, error); // check() below admitted it
         },
         help)
      ->check([parse](const std::string &text) {
        std::string error;
        return parse(text, error) ? std::string() : error;
      })
      ->type_name("TEXT");
}

int main(int argc, char **argv) {
  installCrashHandler(kExitInternal);
  CLI::App app{"tcc: an ahead-of-time compiler for PyTorch models.\n"
               "Compiles a torch.export archive (model.pt2) or its model.json into one\n"
               "self-contained shared object with host code, weights and a guard manifest."};
  app.footer(kExitCodes);
  app.set_version_flag("--version", versionText(),
                       "Print tcc's version and commit, the LLVM/MLIR it was built with and the "
                       "CUDA libraries its artifacts load, then exit");
  app.require_subcommand(1);

  // compile
  CompileCommandOptions compile;
  compile.argv0 = argv[0];
  CompileOptions &c = compile.options;
  std::string emit, compileTo;
  CLI::App *compileCmd = app.add_subcommand(
      "compile", "Compile model.pt2 / model.json into model.so (or .o, .mlir, .ll)");
  // Input paths are not checked here (CLI::ExistingFile): a missing or unreadable model is
  // an input error (exit 1, one line from the command), not a usage error (exit 2).
  compileCmd->add_option("input", c.input, "torch.export archive (.pt2), bare model.json, TorchScript graph dump or torch.jit.save archive")
      ->required();
  compileCmd->add_option("-o,--output", c.output,
                         "Output path; the extension picks the kind unless --emit is given:\n"
                         ".so shared object (model and runtime), .o relocatable object (the "
                         "model alone: link it with libtcc_runtime.a), .mlir IR, .ll LLVM IR")
      ->required();
  compileCmd->add_option("--name", c.name,
                         "The model's name: a model object exports its descriptor as "
                         "tcc_model_<name> (include/tcc/runtime.h), so differently named "
                         "objects link into one program; the manifest's \"model\" (default: "
                         "the output file's name, e.g. encoder for encoder.o)")
      ->check([](const std::string &name) { return modelNameError(name); });
  compileCmd->add_option("--emit", emit, "so | obj | mlir | llvm | ptx (the kernels' PTX text)")
      ->check(CLI::IsMember({"so", "obj", "mlir", "llvm", "ptx"}));
  compileCmd->add_option("--compile-to", compileTo,
                         "Stop after a phase and write its IR: graph | kernel | linalg | "
                         "bufferized | planned | llvm")
      ->check(CLI::IsMember({"graph", "kernel", "linalg", "bufferized", "planned", "llvm"}));
  compileCmd->add_flag("--external-weights", c.externalWeights,
                       "Keep weights out of the object; they are written beside it as <name>.weights.bin "
                       "(or bound by name at run time)");
  addParsedOption(compileCmd, "--target", c.targets, &TargetSet::parse,
                  "Code paths to generate: cpu,cuda (default: one artifact; inputs on the GPU run the CUDA path, inputs on the CPU the CPU path) | cpu | cuda");
  compileCmd->add_option("--arch", c.arch, "CUDA architecture of the PTX: sm_80 | sm_90")
      ->check(CLI::IsMember({"sm_80", "sm_90"}));
  addPrecisionOption(compileCmd, c.precision,
                         "Arithmetic precision of the CUDA path's matrix products and "
                         "convolutions (tensors stay fp32; the CPU path is always fp32): fp32 "
                         "(default) | tf32 (TF32 inputs, fp32 accumulation) | bf16 (matrix "
                         "products with bf16 inputs and fp32 accumulation, like torch's "
                         "'medium' float32 matmul precision; convolutions TF32)");
  addParsedOption(compileCmd, "--cpu-isa", c.cpuIsa, &parseCpuIsa,
                         "x86-64 level of the CPU path's code: x86-64-v3 (default: AVX2 and "
                         "FMA, 8 floats per instruction) | x86-64-v4 (AVX-512) | x86-64-v2 "
                         "(SSE4.2, for processors before 2013-2015) | native (the highest "
                         "level this machine has). The manifest records it; a CPU run on a "
                         "processor without it is an error, never an illegal instruction");
  compileCmd->add_flag_callback(
      "--no-cuda-graphs", [&c] { c.cudaGraphs = false; },
      "CUDA runs launch every kernel directly instead of replaying captured CUDA graphs "
      "(also at run time: tcc_model_set_option(m, \"cuda_graphs\", 0) or TCC_CUDA_GRAPHS=0)");
  compileCmd->add_option(
                "--specialize", c.specialize,
                "Also compile static variants where symbolic dims take these values, in the same "
                "artifact beside the generic (dynamic) one: NAME=V[,V...], NAME a symbol of the "
                "export (s77; `tcc inspect` lists them), each value within its range; several "
                "dims as NAME=...;NAME=... or the flag again (one variant per combination, at "
                "most 64). Each call runs the variant its input sizes match, else the generic "
                "one (TCC_SPECIALIZATION=generic at run time: always the generic one)")
      ->allow_extra_args(false);
  compileCmd->add_flag("--profile", c.profile,
                       "Instrument the artifact for per-kernel times: a mark before every "
                       "kernel (the kernels tcc inspect lists), recorded while profiling is "
                       "on (tcc run --profile, tcc_model_set_profiling, Python "
                       "model.profiling = True); off, a mark costs a call and a test");
  compileCmd->add_option("--dump-ir-after-all", c.dumpIRAfterAll,
                         "Write the module after every pass to DIR/NN_<pass>.mlir");
  compileCmd->add_option("--print-ir-after", c.printIRAfter,
                         "Print the module to stderr after the named pass (repeatable), "
                         "e.g. tcc-legalize-graph");
  compileCmd->add_flag("--timing", c.timing, "Report time per phase and per pass");
  compileCmd->add_flag("-q,--quiet", c.quiet,
                       "No progress line (on a terminal, stderr shows the phase, the pass k/N "
                       "and the time so far while a compile runs; never when stderr is not a "
                       "terminal)");
  compileCmd->add_option("-O", c.optLevel, "LLVM optimization level for host code (0-3)")
      ->check(CLI::Range(0, 3));
  compileCmd->add_option("--cxx", c.cxx, "C++ driver used to link model.so (default: c++)");
  compileCmd->add_option("--weights", c.weights,
                         "TorchScript: the module's torch.jit.save archive (parameters by "
                         "attribute path, e.g. lin.weight)");
  compileCmd->add_option("--input-shape", c.inputShapes,
                         "TorchScript: shape of an input the dump does not give, NAME=DIMS "
                         "(x=10x100, x=Bx100, x=2x3:int64); repeatable");
  compileCmd->add_option("--symbol", c.symbols,
                         "TorchScript: range of a symbolic dimension, NAME=MIN:MAX; repeatable");

  // explain
  ExplainCommandOptions explain;
  CompileOptions &x = explain.options;
  CLI::App *explainCmd = app.add_subcommand(
      "explain",
      "Say what tcc would do with a model, in seconds, without compiling it");
  explainCmd->description(
      "Say what tcc would do with a model, in seconds, without compiling it.\n"
      "Runs the front of tcc compile (read, import, legalization, graph passes, kernel\n"
      "formation, bufferization, memory planning; no LLVM, no PTX) and prints: every\n"
      "operator with its count and status, each refused operator node at its Python\n"
      "file:line with the reason (all of them, not only the first), the kernels tcc\n"
      "would form (by kind: library call or generated code; and by fusion group: the\n"
      "source ops fused into each), the guards every call checks (inputs, outputs,\n"
      "symbols with their ranges), the planned arena and its peak.\n"
      "Exit 0 when tcc supports every operator, 1 when it refuses one or cannot read\n"
      "the model, 2 for a usage error, 3 for an internal error. --json prints one JSON\n"
      "object for CI (fields in docs/EXPLAIN.md).");
  explainCmd->add_option("input", x.input, "torch.export archive (.pt2), bare model.json, TorchScript graph dump or torch.jit.save archive")
      ->required();
  explainCmd->add_flag("--json", explain.json, "Print the report as one JSON object (docs/EXPLAIN.md)");
  explainCmd->add_option("--html", explain.html,
                         "Also write the report as one self-contained HTML page: the kernel "
                         "graph (SVG: kernels coloured by kind, source ops and Python lines on "
                         "hover, edges labelled with shape and dtype), the memory plan as a "
                         "plot with its peak, operators, refusals, guards");
  explainCmd->add_option("--profile", explain.profile,
                         "With --html: add per-kernel times from FILE (tcc run --profile-json "
                         "of an artifact compiled from this model with the same --target and "
                         "--precision) as a bar chart ordered by cost");
  addParsedOption(explainCmd, "--target", x.targets, &TargetSet::parse,
                  "The code paths the compile would generate: cpu,cuda (default) | cpu | "
                  "cuda (kernel formation differs: CPU-only models keep convolutions "
                  "channels-last)");
  addPrecisionOption(explainCmd, x.precision,
                         "The CUDA path's matrix precision the compile would use: fp32 | tf32 | "
                         "bf16 (tensor-core precisions change the kernels' layouts)");
  explainCmd->add_option("--specialize", x.specialize,
                         "The --specialize of tcc compile: checked, and the guard that would "
                         "select each variant shown")
      ->allow_extra_args(false);
  explainCmd->add_option("--weights", x.weights,
                         "TorchScript: the module's torch.jit.save archive");
  explainCmd->add_option("--input-shape", x.inputShapes,
                         "TorchScript: shape of an input the dump does not give, NAME=DIMS; "
                         "repeatable");
  explainCmd->add_option("--symbol", x.symbols,
                         "TorchScript: range of a symbolic dimension, NAME=MIN:MAX; repeatable");

  // run
  RunOptions run;
  CLI::App *runCmd = app.add_subcommand("run", "Run a compiled model on .npy inputs");
  runCmd->add_option("model", run.model, "model.so")->required();
  runCmd->add_option("-i,--input", run.inputs, "Input as NAME=FILE.npy or FILE.npy (in order)");
  runCmd->add_option("-w,--weight", run.weights, "Bind a weight: PARAM.NAME=FILE.npy");
  runCmd->add_option("--weights-dir", run.weightsDir, "Bind weights from DIR/<param.name>.npy");
  runCmd->add_option("--weights-file", run.weightsFile,
                     "Load all weights from a raw file written by --external-weights "
                     "(default without -w/--weights-dir: <model>.weights.bin beside model.so, if there)");
  runCmd->add_option("--out", run.outDir, "Write output_<i>.npy into DIR");
  runCmd->add_option("--expect", run.expect,
                     "Expected output FILE.npy per output (or I=FILE.npy); exit 1 on mismatch");
  runCmd->add_option("--rtol", run.rtol, "Tolerance for --expect: max|out-ref| / max|ref|")
      ->check(CLI::Validator(
          [](const std::string &text) {
            double v = std::strtod(text.c_str(), nullptr);
            return std::isfinite(v) && v >= 0 ? std::string()
                                              : "--rtol must be a finite number >= 0";
          },
          "NUMBER >= 0"));
  runCmd->add_option("--bench", run.bench, "Time N runs after a warm-up")
      ->check(CLI::NonNegativeNumber);
  runCmd->add_option("--device", run.device,
                     "cpu, or cuda: copy inputs to the GPU, run the CUDA path, copy outputs back")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  runCmd->add_option("--steps", run.steps,
                     "Call the model once per subdirectory of DIR, in name order, on one "
                     "instance (a model with state sees what the calls before wrote): each "
                     "holds input_<i>.npy and expected_<i>.npy (compared with --rtol); "
                     "make_stateful_fixtures.py writes them");
  runCmd->add_option("--state-out", run.stateOut,
                     "After the runs, write each state the model carries (the buffers its "
                     "forward writes) as DIR/<name>.npy");
  runCmd->add_flag("--profile", run.profile,
                   "Time every kernel (an artifact compiled with tcc compile --profile) and "
                   "print them ordered by cost: index, kind, detail, calls, mean us, share");
  runCmd->add_option("--profile-json", run.profileJson,
                     "With --profile: also write the times as JSON to FILE (for tcc inspect "
                     "--html --profile)");

  // generate
  GenerateOptions gen;
  CLI::App *genCmd = app.add_subcommand(
      "generate",
      "Generate tokens with a compiled decoder whose key/value cache is its state (inputs: "
      "token ids [batch, tokens] and their positions [tokens]; output: logits [batch, tokens, "
      "vocab], as transformers' convert_and_export_with_cache exports them)");
  genCmd->add_option("model", gen.model, "model.so")->required();
  genCmd->add_option("-p,--prompt", gen.prompt,
                     "Prompt token ids: 1,2,3 (one row, repeated to a static batch) or "
                     "1,2;3,4 (one row per batch entry, of equal length)");
  genCmd->add_option("--prompt-file", gen.promptFile,
                     "Prompt token ids from a .npy (int64 or int32, [tokens] or [batch, tokens])");
  genCmd->add_option("-n,--max-new-tokens", gen.maxNewTokens,
                     "Tokens to generate after the prompt (default 32)")
      ->check(CLI::NonNegativeNumber);
  genCmd->add_option("--eos", gen.eos, "End token id: a row stops after producing it");
  genCmd->add_option("--top-k", gen.topK,
                     "Sample among the K most likely tokens (default 0: greedy, the argmax)")
      ->check(CLI::NonNegativeNumber);
  genCmd->add_option("--temperature", gen.temperature,
                     "With --top-k: divide the logits by T before sampling (default 1)")
      ->check(CLI::PositiveNumber);
  genCmd->add_option("--seed", gen.seed,
                     "Sampling's random seed (tcc's own stream: samples differ from PyTorch's)");
  genCmd->add_option("--device", gen.device, "cpu or cuda: the path that runs")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  genCmd->add_option("--out", gen.out, "Write the generated tokens [batch, n] as .npy (int64)");
  genCmd->add_option("--expect", gen.expect,
                     "Compare the generated tokens with a .npy [batch, n] (exit 1 on the first "
                     "difference, named by row and position)");
  genCmd->add_flag("-q,--quiet", gen.quiet, "No progress line on a terminal");

  // inspect
  InspectOptions inspect;
  CLI::App *inspectCmd = app.add_subcommand(
      "inspect", "Show a model's guard manifest: inputs, outputs, weights, memory plan");
  inspectCmd->add_option("model", inspect.model, "model.so or model.guards.json")
      ->required();
  inspectCmd->add_flag("--json", inspect.json, "Print the raw manifest JSON");
  inspectCmd->add_option("--html", inspect.html,
                         "Also write the artifact's kernel graph, memory plan and guards as "
                         "one self-contained HTML page (as tcc explain --html)");
  inspectCmd->add_option("--profile", inspect.profile,
                         "With --html: add per-kernel times from FILE (tcc run --profile-json, "
                         "scripts/gpu_kernel_times.py) as a bar chart ordered by cost");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  try {
    if (*compileCmd) {
      if (!emit.empty())
        c.emit = emit == "so" ? OutputKind::SharedObject
                 : emit == "obj" ? OutputKind::Object
                 : emit == "mlir" ? OutputKind::MLIR
                 : emit == "ptx"  ? OutputKind::PTX : OutputKind::LLVMIR;
      else {
        auto ends = [&](const char *ext) {
          std::string e(ext);
          return c.output.size() >= e.size() &&
                 c.output.compare(c.output.size() - e.size(), e.size(), e) == 0;
        };
        c.emit = ends(".o") ? OutputKind::Object
                 : ends(".mlir") || c.output == "-" ? OutputKind::MLIR
                 : ends(".ll") ? OutputKind::LLVMIR
                 : ends(".ptx") ? OutputKind::PTX : OutputKind::SharedObject;
      }
      if (!compileTo.empty()) {
        parseCompilePhase(compileTo, c.compileTo);
        if (c.emit != OutputKind::MLIR) {
          std::cerr << "tcc compile: error: --compile-to writes IR; use an output ending "
                       "in .mlir (or -o -)\n";
          return kExitUsage;
        }
      }
      return runCompileCommand(compile);
    }
    if (*explainCmd)
      return runExplainCommand(explain);
    if (*runCmd) {
      if (!run.profileJson.empty())
        run.profile = true;
      return runRunCommand(run);
    }
    if (*inspectCmd)
      return runInspectCommand(inspect);
    if (*genCmd)
      return runGenerateCommand(gen);
  } catch (const std::exception &e) {
    std::cerr << "tcc: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  return kExitUsage;
}
