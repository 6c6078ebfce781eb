//===- Commands.h - the subcommands of the tcc driver ---------------------===//
//
// Each subcommand is a plain options struct, bound to CLI11 in main.cpp only,
// and a function that runs it and returns the process exit code.
//
// Exit codes (stable, documented in README.md and `tcc --help`):
//   0  success
//   1  user error in the input (bad model, guard violation, mismatch with --expect)
//   2  usage error (bad flags)
//   3  internal error (a bug in tcc)
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TOOLS_TCC_COMMANDS_H
#define TCC_TOOLS_TCC_COMMANDS_H

#include "tcc/Pipelines/Options.h"
#include "tcc/Support/ExitCodes.h"

#include <string>
#include <vector>

namespace tcc {

/// `tcc run model.so --input x=x.npy ...`
struct RunOptions {
  std::string model;                    // path to model.so
  std::vector<std::string> inputs;      // "name=file.npy" or "file.npy" (positional order)
  std::vector<std::string> weights;     // "param.name=file.npy" bound by name before running
  std::string weightsDir;               // directory of <param-name>.npy files
  std::string weightsFile;              // raw weights file (tcc_model_load_weights format)
  std::string outDir;                   // where output_<i>.npy are written ("" = don't write)
  std::vector<std::string> expect;      // "file.npy" per output in order, or "i=file.npy"
  double rtol = 1e-5;                   // max |out-ref| / max |ref| allowed with --expect
  std::string device = "cpu";           // cpu | cuda: where inputs/outputs live for the run
  int bench = 0;                        // >0: time this many runs after one warm-up
  bool printOutputs = true;             // print a short summary of each output
  bool profile = false;                 // --profile: per-kernel times (a --profile artifact)
  std::string profileJson;              // --profile-json: write them here as JSON
  std::string steps;                    // --steps DIR: one call per DIR/<k>/ (input_<i>.npy,
                                        // expected_<i>.npy), in order, on one instance
  std::string stateOut;                 // --state-out DIR: each state after the runs, as .npy
};
int runRunCommand(const RunOptions &opts);

/// `tcc generate model.so --prompt 1,2,3 ...`
struct GenerateOptions {
  std::string model;                    // path to model.so
  std::string prompt;                   // "1,2,3" or "1,2;3,4" (rows of equal length)
  std::string promptFile;               // .npy of int64/int32 [tokens] or [batch, tokens]
  int maxNewTokens = 32;
  int64_t eos = -1;
  int topK = 0;
  double temperature = 1.0;
  uint64_t seed = 0;
  std::string device = "cpu";
  std::string out;                      // write the generated tokens here (.npy)
  std::string expect;                   // compare them with this .npy (exit 1 on a difference)
  bool quiet = false;                   // no progress line
};
int runGenerateCommand(const GenerateOptions &opts);

/// `tcc inspect model.so|model.guards.json`
struct InspectOptions {
  std::string model;
  bool json = false;                    // print the raw manifest
  std::string html;                     // also write the HTML page of tcc explain --html
  std::string profile;                  // --profile: times JSON (tcc run --profile-json) for html
};
int runInspectCommand(const InspectOptions &opts);

/// `tcc explain IN [--json]`
struct ExplainCommandOptions {
  CompileOptions options;               ///< input, target, precision, TorchScript options
  bool json = false;                    ///< print the report as one JSON object
  std::string html;                     ///< also write the report as an HTML page here
  std::string profile;                  ///< --profile: times JSON drawn in the HTML page
};
int runExplainCommand(const ExplainCommandOptions &opts);

/// `tcc compile IN -o OUT`
struct CompileCommandOptions {
  CompileOptions options;
  const char *argv0 = "tcc";
};
int runCompileCommand(const CompileCommandOptions &opts);

} // namespace tcc

#endif // TCC_TOOLS_TCC_COMMANDS_H
