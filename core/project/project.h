#pragma once
// Marvel Studio projects: what the app's window holds (a workload, an accelerator, the search settings and
// the selected mapping) as one JSON file that `marvel search --project` and `marvel evaluate --project`
// also read.
//
// Format (schema_version 1), one object; unknown fields are errors everywhere, every error names the file
// and the field path (JSON syntax errors: line:col):
//   "schema_version": 1                     integer, required; a larger number is a file written by a
//                                           newer Marvel Studio and is refused as such
//   "workload": {...}                       required, one of:
//     {"kind": "operator",                  an operator of the loop-nest language
//      "text": "operator gemm(...) {...}",  string, required: the whole .loop source
//      "file": "../ops/gemm.loop"}          string, optional: where the text came from, as the app shows
//                                           it (informational: the text is what counts)
//     {"kind": "model",                     a DNN model (core/workloads/workloads.h)
//      "model": "vgg16",                    string, required: a built-in model name (alexnet, vgg16, ...)
//                                           or a MAESTRO (.m) / JSON (.json) model file; a relative path
//                                           is relative to the project file's folder
//      "layer": "CONV2_1",                  string, optional: one layer of the model; absent: every layer
//      "seq_len": 1024, "batch": 1,         optional positive integers, a transformer's context (built-in
//      "phase": "decode", "kv_len": 2048}   LLMs, ONNX models with a symbolic sequence): tokens, sequences,
//                                           "prefill" or "decode", cached tokens (workloads::SequenceOptions)
//   "accelerator": {...}                    required: an accelerator in the JSON format of
//                                           core/arch/accelerator_io.h (errors name accelerator.<field>)
//   "search": {                             optional, and so is each field (defaults as shown, those of
//                                           search::SearchOptions)
//     "objective": "runtime",               "runtime", "energy" or "edp"
//     "fidelity": "maestro",                cost model mode: "maestro" or "corrected"
//     "pe_util_bound": 0.1,                 number in [0, 1]: prune level-2 tiles keeping fewer PEs busy
//     "near_tie": 0.00002,                  number in [0, 0.5]: near ties of the objective within this
//                                           fraction go to the mapping better on the other metric; 0: the
//                                           exact bests (written only when not the default)
//     "divisors_only": true,                tile sizes divide the enclosing tile
//     "l1_check": true,                     the cost model's L1 requirement must fit in L1
//     "l2_check": true,                     the cost model's L2 requirement must fit in L2
//     "bound_skipping": true,               skip candidates an exact lower bound rules out
//     "refine": true,                       the genetic search and local moves after the decoupled
//                                           search (false: the paper's search alone)
//     "offchip_candidates": 1,              integer in [1, 64]: off-chip solutions searched under
//                                           (1: the paper's search; default SearchOptions')
//     "timeloop_compatible": false,         only mappings Timeloop can express (timeloop::restrictSearch;
//                                           the app's "Timeloop only", `--timeloop-compatible`)
//     "threads": 0}                         integer in [0, 1024], 0: every core
//   "selected_mapping": {                   optional: the mapping the user picked, in the JSON form of
//                                           mapping::toJson (core/mapping/loop_nest_mapping.h):
//     "layer": "CONV2_1",                   string, optional: the layer it maps (the operator's name or a
//                                           model layer); needed for a whole model of several layers,
//                                           must equal workload.layer when both are given
//     "active_pes": 64, "layouts": {...}, "level2_form": "separate", "level2_order": [...],
//     "level3_order": [...], "loops": [...]}  mapping::toJson's fields, after "layer" in its (alphabetical)
//                                           order; active_pes and loops[i].parallelism are derived:
//                                           written for readers, ignored on input
// writeProject writes every field (search settings included) in this order, two-space indented, so that
// files diff well; "file", "layer" and "selected_mapping" only when present.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/arch/accelerator.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/search/onchip_search.h"
#include "core/util/diagnostic.h"
#include "core/workloads/workloads.h"

namespace marvel::project {

/// The schema version this program writes and reads.
inline constexpr int kSchemaVersion = 1;

/// The operator or model a project maps.
struct ProjectWorkload
{
    enum class Kind { Operator, Model };
    Kind kind = Kind::Operator;
    std::string text; ///< Operator: the .loop source
    std::string file; ///< Operator: the file the text came from; may be empty
    std::string model; ///< Model: built-in name or model file path (relative: to the project's folder)
    std::string layer; ///< Model: the one layer to map; empty: the whole model
    workloads::SequenceOptions sequence; ///< Model: a transformer's context; empty: the model's defaults
    friend bool operator==(const ProjectWorkload&, const ProjectWorkload&) = default;
};

/// The mapping the user selected and the layer it belongs to (empty: the workload's only layer).
struct SelectedMapping
{
    std::string layer;
    mapping::LoopNestMapping mapping;
    friend bool operator==(const SelectedMapping&, const SelectedMapping&) = default;
};

struct Project
{
    ProjectWorkload workload;
    arch::Accelerator accelerator;
    /// The settings the file stores (objective, fidelity, PE-utilisation bound, divisors only, L1 and
    /// L2 checks, bound skipping, threads); the other members keep their defaults.
    search::SearchOptions search;
    std::optional<SelectedMapping> selectedMapping;
    /// Folder a relative model path is resolved against: the project file's folder when read from a
    /// file (readProject / loadProject). Empty for a project not read from a file: its model path is
    /// resolved against the working directory and saved as written. Not written to the file.
    std::string baseDir;
};

/// Parses a project. Structural problems (syntax, missing or unknown field, wrong type, value out of
/// range, newer schema) throw InputError naming `fileName` and the field path ("search.objective",
/// "accelerator.l1_bytes", "selected_mapping.loops[0].level1") or line:col. Accelerator values are not
/// validated (see loadProject) and the operator text is not parsed (see loadProjectWorkload), so that
/// an editor can keep work in progress. baseDir is `fileName`'s folder.
Project readProject(std::string_view text, const std::string& fileName);
/// The file text: every field in the documented order; readProject parses it back to an equal project.
std::string writeProject(const Project& project);

/// Reads `path` and parses it, then validates the accelerator's values (errors "accelerator.num_pes:
/// must be at least 1 (got 0)"). Throws InputError naming `path` for every problem.
Project loadProject(const std::string& path);
/// Writes the project to `path` atomically (temporary file in the same folder, then rename). A relative
/// model path of a project with a baseDir is rewritten relative to `path`'s folder so that it still
/// names the same file. Throws InputError naming `path` on failure.
void saveProject(const Project& project, const std::string& path);

/// True for the names builtinWorkload() knows (case-insensitive); such a model is never a file.
bool isBuiltinModel(std::string_view model);
/// The model as loadWorkload() takes it: a built-in name as written, a relative file path joined to
/// baseDir. Empty for an operator workload.
std::string resolvedModelPath(const Project& project);

/// The project's workload as layers: the parsed operator as a single layer named after it, or the
/// model's layers (only workload.layer when set). Throws InputError naming `fileName` and the field:
/// "workload.text" with the operator's line:col in the message, "workload.model" for an unknown model
/// or missing file, "workload.layer" for a layer the model does not have (listing its layers); a model
/// file's own errors name that file.
workloads::Workload loadProjectWorkload(const Project& project, const std::string& fileName);

/// The layer of `workload` (from loadProjectWorkload) that the selected mapping belongs to:
/// selectedMapping.layer, else workload.layer, else the only layer. Throws InputError naming
/// `fileName` and "selected_mapping" (none selected) or "selected_mapping.layer" (unknown or ambiguous).
const workloads::WorkloadLayer& selectedLayer(
    const Project& project, const workloads::Workload& workload, const std::string& fileName);

} // namespace marvel::project
