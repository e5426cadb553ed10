#pragma once
// The search commands' arguments (`marvel search`, `bench search`, `evaluate`, `simulate`, `sweep`):
// the search and run options, the sequence options (--seq-len, --batch, --phase, --kv-len),
// --timeloop-buffering, --technology, and --hw as a file or a preset's name (the presets found by
// core/resources/samples_dir.h, as the app finds them).

#include <string>

#include "app/cli/command.h"
#include "core/arch/accelerator.h"
#include "core/export/timeloop.h"
#include "core/search/search.h"
#include "core/workloads/workloads.h"

namespace marvel::cli {

/// Reads the pruning and run options shared by the search commands into `options`, changing only what
/// the arguments give (so they override a project's settings); an error message or empty.
std::string searchOptionsFromArgs(Args& args, search::SearchOptions& options);

/// The options sequenceOptionsFromArgs reads, for a command's Args: seq-len, batch, phase, kv-len.
std::vector<std::string> sequenceOptionNames();
/// `--seq-len N`, `--batch B`, `--phase prefill|decode` and `--kv-len L` into `sequence`, the sizes of a
/// built-in transformer or of an ONNX model's symbolic dimensions (workloads::SequenceOptions, passed to
/// loadWorkload); an error message naming the option, or empty. Without `batch` the command's --batch
/// means something else (co-design's designs per round) and is not read.
std::string sequenceOptionsFromArgs(Args& args, workloads::SequenceOptions& sequence, bool batch = true);
/// The usage lines of those options (each ending with a line break), indented as the commands' help.
std::string sequenceOptionsUsage();

/// `--timeloop-buffering 1|2` into `options` (the buffers' multiple_buffering); the error message when the
/// value is neither, empty otherwise.
std::string timeloopOptionsFromArgs(Args& args, timeloop::Options& options);

/// The sample accelerator file of the paper's platform "P1" or "P2", or of another preset named by its
/// file's stem ("eyeriss_dram", "edge1024_dram"): accelerators/ of the samples trees
/// (resources::findAcceleratorPreset); "samples/accelerators/<file>" when no tree has it.
std::string presetAcceleratorPath(const std::string& hw);
/// A benchmark's --hw argument as a file: an existing file as it is, otherwise a preset's name.
std::string acceleratorArgPath(const std::string& hw);
/// The accelerator a command's --hw names: a file (.json or MAESTRO .m) or a preset's name ("P2",
/// "eyeriss_dram", as acceleratorArgPath). Throws InputError naming `hw` when it is neither.
arch::Accelerator loadAcceleratorArg(const std::string& hw);

/// --technology NAME|FILE when given: `acc` takes that table (its DRAM type kept when the table has it,
/// else the table's default) and the energies it gives for acc's sizes. Throws InputError naming the
/// table (or `--technology` when there is none of that name).
void applyTechnologyArg(const Args& args, arch::Accelerator& acc);

} // namespace marvel::cli
