// The lowering pipeline: the ordered stage tables of each target (pipeline.cpp is the table of
// contents) and the driver ttgen calls to run them, print stage dumps and resume from a dump.
#pragma once

#include "dsl/ast.hpp"
#include "lowering/ir/module.hpp"
#include "support/diagnostics.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tk::lower {

using StageFn = ir::Module (*)(const ir::Module&, Diagnostics&);

/// One row of a stage table. to-tile-ir (AST -> IR) is listed with run == nullptr: it is the
/// entry point, not an IR -> IR stage.
struct Stage {
  std::string_view name;    // kebab-case, as in --print-after
  std::string_view summary; // one line, for --list-stages
  StageFn run;
};

enum class Target : std::uint8_t { tt, cpu };
std::string_view to_string(Target);
std::optional<Target> target_from_string(std::string_view); // "tt" or "cpu"

/// The whole chain of a target in order: to-tile-ir, the front stages, then the target's stages.
std::vector<Stage> stages(Target t);

/// Kernel options given on the command line; each overrides the kernel's @options value.
/// `arch` names the target architecture (arch::find; ttgen --arch): recorded in every program's
/// options (ir::Options::arch), from which every stage reads the chip's facts (lower::tt::arch_of).
struct OptionOverrides {
  std::optional<std::string> arch;
  std::optional<ir::Grid> grid;
  std::optional<std::int64_t> cb_depth;
  std::optional<bool> fp32_acc;
  std::optional<std::string> math_fidelity;
  std::optional<bool> exp_approx_mode;
  /// "recompute" or "dram": the materialise stage's choice, asked for (ttgen report lowers the
  /// alternative the stage did not choose to price it).
  std::optional<std::string> materialise;
};

/// The wall time one stage took (--time-stages).
struct StageTime {
  std::string stage;
  double ms = 0;
};

struct PipelineOptions {
  std::optional<std::string> stop_after; // a stage name; nullopt runs the whole chain
  std::set<std::string> print_after;     // stage names whose result is dumped
  std::set<std::string> print_before;    // stage names whose input is dumped
  bool print_after_all = false;
  bool print_changed = false; // dump after every stage that changed the module
  /// Where each stage's wall time is appended, in order; null: not timed.
  std::vector<StageTime>* times = nullptr;
  /// Run ir::verify after every stage (throws tk::InternalError on a broken invariant).
#ifdef NDEBUG
  bool verify_each = false;
#else
  bool verify_each = true;
#endif
  std::ostream* dump = nullptr; // where dumps go; required when anything is printed
  OptionOverrides overrides;
  /// The name of the .tk file (no directory), recorded by run_pipeline as the module attribute
  /// `source`: code generated from a dump is named after it. Empty: no attribute.
  std::string source;
};

/// Sets the overridden options as attributes of every program (after to-tile-ir, or on a module
/// read from a dump).
void apply_overrides(ir::Module& m, const OptionOverrides& o);

/// Reports every name in stop_after/print_after that is not a stage of `t` as a user error
/// ("unknown stage 'x'; see --list-stages"). Returns false if it reported any.
bool check_stage_names(const PipelineOptions& opts, Target t, Diagnostics& diags);

/// Lowers a checked DSL module through the chain of `t` (or up to opts.stop_after). Each dump
/// is `// after <stage>` then the printed module, or `(unchanged)` when the stage returned the
/// module untouched (--print-changed skips those); `// before <stage>` then the module the stage
/// is given (before to-tile-ir: the checked kernels as canonical .tk text). Returns nullopt when a
/// stage or an option reported a user error.
std::optional<ir::Module> run_pipeline(const dsl::Module& m, Target t, const PipelineOptions& opts,
                                       Diagnostics& diags);

/// Resumes the chain of `t` after the stage `after_stage` on an IR module. A stop_after that
/// names `after_stage` or an earlier stage is a user error (that stage has already run).
std::optional<ir::Module> resume_pipeline(ir::Module m, std::string_view after_stage, Target t,
                                          const PipelineOptions& opts, Diagnostics& diags);

/// Reads a printed IR dump (first line `// after <stage>`) and resumes the chain after that
/// stage. A missing header, an unknown stage or a syntax error is a located user error.
std::optional<ir::Module> run_pipeline_from_dump(const SourceFile& dump, Target t,
                                                 const PipelineOptions& opts, Diagnostics& diags);

/// A dump read back: the module and the stage it was printed after.
struct Dump {
  ir::Module module;
  std::string after;
};
/// The first half of run_pipeline_from_dump: checks the header and reads the module.
std::optional<Dump> read_dump(const SourceFile& dump, Target t, Diagnostics& diags);
/// The second half: applies the overrides and resumes the chain after dump.after.
std::optional<ir::Module> run_pipeline_from_dump(Dump dump, Target t, const PipelineOptions& opts,
                                                 Diagnostics& diags);

} // namespace tk::lower
