#include "app/cli/search_args.h"

#include <charconv>
#include <filesystem>
#include <limits>
#include <optional>

#include "core/arch/accelerator_io.h"
#include "core/ir/parser.h"
#include "core/resources/samples_dir.h"
#include "core/tech/technology.h"

namespace marvel::cli {

std::string searchOptionsFromArgs(Args& args, search::SearchOptions& options)
{
    if (auto o = args.value("objective")) {
        auto parsed = search::objectiveFromString(*o);
        if (!parsed) return "--objective must be runtime, energy or edp, got '" + *o + "'";
        options.objective = *parsed;
    }
    if (args.has("threads")) {
        auto t = args.integer("threads", 1, 1024);
        if (!t) return args.error();
        options.threads = static_cast<unsigned>(*t);
    }
    if (args.has("pe-util-bound")) {
        auto p = args.number("pe-util-bound", 0.0, 1.0);
        if (!p) return args.error();
        options.peUtilizationBound = *p;
    }
    if (args.has("near-tie")) {
        auto t = args.number("near-tie", 0.0, search::kMaxNearTie);
        if (!t) return args.error();
        options.nearTie = *t;
    }
    if (auto f = args.value("fidelity")) {
        const std::optional<search::Fidelity> fidelity = search::fidelityFromString(*f);
        if (!fidelity) return "--fidelity must be maestro or corrected, got '" + *f + "'";
        options.fidelity = *fidelity;
    }
    if (args.has("widen-above")) {
        auto w = args.number("widen-above", 0.0, 1e9);
        if (!w) return args.error();
        if (*w > 0 && *w < 1) return "--widen-above must be 0 (never) or at least 1";
        options.widenAboveRoofline = *w;
    }
    if (args.has("no-divisors-only")) options.divisorsOnly = false;
    if (args.has("no-l1-check")) options.l1Capacity = false;
    if (args.has("no-l2-check")) options.l2Capacity = false;
    if (args.has("no-bound-skipping")) options.boundSkipping = false;
    if (args.has("exhaustive")) options.exhaustive = true;
    if (args.has("no-refine")) options.refine = false;
    if (args.has("offchip-candidates")) {
        auto k = args.integer("offchip-candidates", 1, 64);
        if (!k) return args.error();
        options.offChipCandidates = static_cast<int>(*k);
    }
    if (args.has("genetic-evaluations")) {
        auto n = args.integer("genetic-evaluations", 1, 1'000'000'000);
        if (!n) return args.error();
        options.genetic.evaluations = static_cast<std::uint64_t>(*n);
    }
    if (args.has("genetic-seed")) {
        auto n = args.integer("genetic-seed", 0, std::numeric_limits<long long>::max());
        if (!n) return args.error();
        options.genetic.seed = static_cast<std::uint64_t>(*n);
    }
    return {};
}

std::vector<std::string> sequenceOptionNames()
{
    return {"seq-len", "batch", "phase", "kv-len"};
}

std::string sequenceOptionsFromArgs(Args& args, workloads::SequenceOptions& sequence, bool batch)
{
    // A positive loop extent; the model says when a product of them is too large for a loop.
    const auto count = [&](const char* name, std::optional<std::int64_t>& out) -> std::string {
        const std::optional<std::string> text = args.value(name);
        if (!text) return {};
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
        if (text->empty() || ec != std::errc() || end != text->data() + text->size() || v < 1
            || v > ir::kMaxExtent)
            return "--" + std::string(name) + " must be a positive integer (at most "
                + std::to_string(ir::kMaxExtent) + "), got '" + *text + "'";
        out = v;
        return {};
    };
    for (auto [name, field] : {std::pair{"seq-len", &sequence.seqLen}, std::pair{"batch", &sequence.batch},
             std::pair{"kv-len", &sequence.kvLen}})
        if (batch || field != &sequence.batch)
            if (std::string error = count(name, *field); !error.empty()) return error;
    if (const std::optional<std::string> phase = args.value("phase")) {
        if (*phase == "prefill")
            sequence.phase = workloads::Phase::Prefill;
        else if (*phase == "decode")
            sequence.phase = workloads::Phase::Decode;
        else
            return "--phase must be prefill or decode, got '" + *phase + "'";
    }
    if (sequence.kvLen && sequence.phase != workloads::Phase::Decode)
        return "--kv-len applies to --phase decode (a prefill attends to its own --seq-len tokens)";
    if (sequence.seqLen && sequence.phase == workloads::Phase::Decode)
        return "--seq-len applies to --phase prefill (a decode step has one new token per sequence; "
               "--kv-len gives the cached tokens it attends to)";
    return {};
}

std::string sequenceOptionsUsage()
{
    return "  --seq-len N           a transformer's tokens per sequence (prefill; built-in transformers\n"
           "                        and ONNX models with a symbolic sequence dimension; default: the\n"
           "                        model's, e.g. gpt2 1024)\n"
           "  --batch B             sequences (a built-in transformer's batch, an ONNX model's symbolic\n"
           "                        batch dimension; default 1)\n"
           "  --phase P             prefill (default: the whole prompt, --seq-len tokens) or decode (one\n"
           "                        new token per sequence attending to --kv-len cached tokens)\n"
           "  --kv-len L            decode: the cached tokens attended to, the new one included (default:\n"
           "                        the model's default sequence length)\n";
}

std::string timeloopOptionsFromArgs(Args& args, timeloop::Options& options)
{
    if (!args.has("timeloop-buffering")) return {};
    const auto b = args.integer("timeloop-buffering", 1, 2);
    if (!b) return args.error();
    options.multipleBuffering = int(*b);
    return {};
}

std::string presetAcceleratorPath(const std::string& hw)
{
    if (const std::optional<std::filesystem::path> p = resources::findAcceleratorPreset(hw))
        return p->string();
    return (std::filesystem::path("samples/accelerators") / resources::presetFileName(hw)).string();
}

std::string acceleratorArgPath(const std::string& hw)
{
    if (std::filesystem::exists(hw)) return hw;
    if (hw.find('/') != std::string::npos || std::filesystem::path(hw).has_extension()) return hw;
    return presetAcceleratorPath(hw);
}

arch::Accelerator loadAcceleratorArg(const std::string& hw)
{
    const std::string path = acceleratorArgPath(hw);
    if (path != hw && !std::filesystem::exists(path)) {
        Diagnostic d;
        d.file = hw;
        d.message = "cannot read the file, nor is it a preset's name (P1, P2, or a file name of "
                    "samples/accelerators without .json, such as eyeriss_dram)";
        // Where the presets were looked for, so that a wrong installation or $MARVEL_SAMPLES_DIR shows.
        std::string dirs;
        for (const std::filesystem::path& dir : resources::samplesDirs())
            dirs += (dirs.empty() ? "" : ", ") + (dir / "accelerators").string();
        d.message += dirs.empty() ? "; no samples folder found (marvel(1), FILES)" : "; looked in " + dirs;
        throw marvel::InputError(d);
    }
    return arch::loadAccelerator(path);
}

void applyTechnologyArg(const Args& args, arch::Accelerator& acc)
{
    const std::optional<std::string> name = args.value("technology");
    if (!name) return;
    std::shared_ptr<const tech::Technology> table;
    try {
        table = tech::loadTechnology(*name);
    } catch (const marvel::InputError& e) {
        std::vector<Diagnostic> d = e.diagnostics();
        for (Diagnostic& x : d)
            if (x.field == "technology") x.field = "--technology";
        throw marvel::InputError(std::move(d));
    }
    acc.technology = *name;
    acc.technologyTable = table;
    // The accelerator's DRAM type carries over where the new table knows it.
    if (!acc.dramType.empty() && !table->dramPjPerBit.count(acc.dramType)) acc.dramType.clear();
    tech::applyTechnology(acc);
}

} // namespace marvel::cli
