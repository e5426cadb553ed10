#include "core/project/project.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/arch/accelerator_io.h"
#include "core/export/timeloop.h"
#include "core/ir/parser.h"
#include "core/util/json_fields.h"
#include "core/util/json_text.h"
#include "core/util/text_file.h"

namespace marvel::project {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr unsigned kMaxThreads = 1024;

void append(std::vector<Diagnostic>& to, const std::vector<Diagnostic>& from)
{
    to.insert(to.end(), from.begin(), from.end());
}

void readWorkload(
    const json& object, const std::string& file, ProjectWorkload& out, std::vector<Diagnostic>& problems)
{
    JsonFields fields(object, file, "workload.");
    std::string kind;
    fields.string("kind", kind, true);
    if (kind == "operator") {
        out.kind = ProjectWorkload::Kind::Operator;
        fields.rejectUnknown({"kind", "text", "file"});
        fields.string("text", out.text, true);
        fields.string("file", out.file);
    } else if (kind == "model") {
        out.kind = ProjectWorkload::Kind::Model;
        fields.rejectUnknown({"kind", "model", "layer", "seq_len", "batch", "phase", "kv_len"});
        fields.string("model", out.model, true);
        if (object.contains("model") && object["model"].is_string() && out.model.empty())
            fields.error("model", "must name a built-in model or a model file");
        fields.string("layer", out.layer);
        for (auto [key, value] : {std::pair{"seq_len", &out.sequence.seqLen},
                 std::pair{"batch", &out.sequence.batch}, std::pair{"kv_len", &out.sequence.kvLen}}) {
            if (!fields.member(key)) continue;
            std::int64_t v = 0;
            fields.integer(key, v);
            if (v < 1 && fields.diagnostics().empty()) fields.error(key, "must be a positive integer");
            *value = v;
        }
        std::string phase;
        fields.string("phase", phase);
        if (phase == "decode")
            out.sequence.phase = workloads::Phase::Decode;
        else if (!phase.empty() && phase != "prefill")
            fields.error("phase", "must be \"prefill\" or \"decode\", not \"" + phase + "\"");
    } else if (object.contains("kind") && object["kind"].is_string()) {
        fields.error("kind", "must be \"operator\" or \"model\", not \"" + kind + "\"");
    }
    append(problems, fields.diagnostics());
}

void readSearch(const json& object, const std::string& file, search::SearchOptions& out,
    std::vector<Diagnostic>& problems)
{
    JsonFields fields(object, file, "search.");
    fields.rejectUnknown({"objective", "fidelity", "pe_util_bound", "near_tie", "divisors_only", "l1_check",
        "l2_check", "bound_skipping", "threads", "refine", "offchip_candidates", "timeloop_compatible",
        "timeloop_space"});
    std::string objective;
    if (fields.member("objective")) {
        fields.string("objective", objective);
        if (object["objective"].is_string()) {
            if (auto parsed = search::objectiveFromString(objective))
                out.objective = *parsed;
            else
                fields.error(
                    "objective", "must be \"runtime\", \"energy\" or \"edp\", not \"" + objective + "\"");
        }
    }
    std::string fidelity;
    if (fields.member("fidelity")) {
        fields.string("fidelity", fidelity);
        if (const std::optional<search::Fidelity> f = search::fidelityFromString(fidelity))
            out.fidelity = *f;
        else if (object["fidelity"].is_string())
            fields.error("fidelity", "must be \"maestro\" or \"corrected\", not \"" + fidelity + "\"");
    }
    double bound = out.peUtilizationBound;
    fields.real("pe_util_bound", bound);
    if (!(bound >= 0.0 && bound <= 1.0))
        fields.error("pe_util_bound", "must be between 0 and 1 (got " + json(bound).dump() + ")");
    else
        out.peUtilizationBound = bound;
    double nearTie = out.nearTie; // absent: the default, search::kDefaultNearTie
    fields.real("near_tie", nearTie);
    if (!(nearTie >= 0.0 && nearTie <= search::kMaxNearTie))
        fields.error("near_tie", "must be between 0 and 0.5 (got " + json(nearTie).dump() + ")");
    else
        out.nearTie = nearTie;
    fields.boolean("divisors_only", out.divisorsOnly);
    fields.boolean("l1_check", out.l1Capacity);
    fields.boolean("l2_check", out.l2Capacity);
    fields.boolean("bound_skipping", out.boundSkipping);
    fields.boolean("refine", out.refine);
    bool timeloopOnly = out.constraint.expressibleIn == "timeloop";
    fields.boolean("timeloop_compatible", timeloopOnly);
    // Absent: the default space (a project written before the setting, or in the default space).
    std::string spaceName = timeloop::searchSpaceName(timeloop::kDefaultSearchSpace);
    fields.string("timeloop_space", spaceName);
    const std::optional<timeloop::SearchSpace> space = timeloop::searchSpaceNamed(spaceName);
    if (!space)
        fields.error("timeloop_space", "must be \"narrow\" or \"wide\", not \"" + spaceName + "\"");
    else if (timeloopOnly)
        timeloop::restrictSearch(out.constraint, {}, *space);
    std::int64_t candidates = out.offChipCandidates;
    fields.integer("offchip_candidates", candidates);
    if (candidates < 1 || candidates > 64)
        fields.error("offchip_candidates",
            "must be between 1 (the paper's search) and 64 (got " + std::to_string(candidates) + ")");
    else
        out.offChipCandidates = static_cast<int>(candidates);
    std::int64_t threads = out.threads;
    fields.integer("threads", threads);
    if (threads < 0 || threads > std::int64_t(kMaxThreads))
        fields.error("threads",
            "must be between 0 (every core) and " + std::to_string(kMaxThreads) + " (got "
                + std::to_string(threads) + ")");
    else
        out.threads = static_cast<unsigned>(threads);
    append(problems, fields.diagnostics());
}

void readSelectedMapping(
    const json& object, const std::string& file, SelectedMapping& out, std::vector<Diagnostic>& problems)
{
    JsonFields fields(object, file, "selected_mapping.");
    fields.rejectUnknown(
        {"layer", "loops", "level2_order", "level3_order", "layouts", "level2_form", "active_pes"});
    fields.string("layer", out.layer);
    if (const json* loops = fields.member("loops"); loops && loops->is_array())
        for (std::size_t i = 0; i < loops->size(); ++i)
            if ((*loops)[i].is_object()) {
                JsonFields loop((*loops)[i], file, "selected_mapping.loops[" + std::to_string(i) + "].");
                loop.rejectUnknown({"dim", "iterator", "extent", "level1", "level2", "level3",
                    "window_stride", "window_reference", "window_sliding", "parallelism"});
                append(problems, loop.diagnostics());
            }
    append(problems, fields.diagnostics());
    try {
        out.mapping = mapping::mappingFromJson(object);
    } catch (const InputError& e) {
        // mappingFromJson names its fields "mapping.loops[0].level1"; in a project they live under
        // "selected_mapping".
        for (Diagnostic d : e.diagnostics()) {
            d.file = file;
            const std::string_view prefix = "mapping";
            if (d.field.starts_with(prefix)) d.field.erase(0, prefix.size());
            d.field = "selected_mapping" + d.field;
            problems.push_back(std::move(d));
        }
    }
}

std::string lower(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string layerNames(const workloads::Workload& w)
{
    std::string names;
    for (const workloads::WorkloadLayer& l : w.layers)
        names += (names.empty() ? "" : ", ") + l.name;
    return names;
}

} // namespace

Project readProject(std::string_view text, const std::string& fileName)
{
    const json root = parseJsonText(text, fileName);
    if (!root.is_object())
        throw InputError(Diagnostic{fileName, topLevelLoc(text), "",
            "a project must be a JSON object, not " + JsonFields::describe(root)});

    JsonFields fields(root, fileName, "");
    std::int64_t schema = 0;
    fields.integer("schema_version", schema, true);
    if (!fields.diagnostics().empty()) throw InputError(std::move(fields.diagnostics()));
    if (schema > kSchemaVersion)
        // Its other fields may be valid in the newer schema: this is the one thing to say.
        throw InputError(fieldError(fileName, "schema_version",
            "written by a newer Marvel Studio (schema " + std::to_string(schema)
                + "); this version reads schema " + std::to_string(kSchemaVersion)));
    if (schema < kSchemaVersion)
        fields.error("schema_version",
            "unsupported version " + std::to_string(schema) + " (this version reads schema "
                + std::to_string(kSchemaVersion) + ")");

    Project project;
    const fs::path folder = fs::path(fileName).parent_path();
    project.baseDir = folder.empty() ? std::string() : folder.string();
    fields.rejectUnknown({"schema_version", "workload", "accelerator", "search", "selected_mapping"});
    const json* workload = fields.object("workload", true);
    const json* accelerator = fields.member("accelerator", true);
    const json* searchSettings = fields.object("search");
    const json* selected = fields.object("selected_mapping");
    std::vector<Diagnostic> problems = std::move(fields.diagnostics());

    if (workload) readWorkload(*workload, fileName, project.workload, problems);
    if (accelerator) {
        try {
            project.accelerator = arch::acceleratorFromJson(*accelerator, fileName, "accelerator.");
        } catch (const InputError& e) {
            append(problems, e.diagnostics());
        }
    }
    if (searchSettings) readSearch(*searchSettings, fileName, project.search, problems);
    if (selected) {
        SelectedMapping s;
        readSelectedMapping(*selected, fileName, s, problems);
        if (project.workload.kind == ProjectWorkload::Kind::Model && !project.workload.layer.empty()
            && !s.layer.empty() && s.layer != project.workload.layer)
            problems.push_back(fieldError(fileName, "selected_mapping.layer",
                "is '" + s.layer + "' but the project maps layer '" + project.workload.layer + "'"));
        project.selectedMapping = std::move(s);
    }
    if (!problems.empty()) throw InputError(std::move(problems));
    return project;
}

std::string writeProject(const Project& project)
{
    nlohmann::ordered_json j;
    j["schema_version"] = kSchemaVersion;
    nlohmann::ordered_json w;
    const ProjectWorkload& pw = project.workload;
    if (pw.kind == ProjectWorkload::Kind::Operator) {
        w["kind"] = "operator";
        w["text"] = pw.text;
        if (!pw.file.empty()) w["file"] = pw.file;
    } else {
        w["kind"] = "model";
        w["model"] = pw.model;
        if (!pw.layer.empty()) w["layer"] = pw.layer;
        const workloads::SequenceOptions& s = pw.sequence;
        if (s.seqLen) w["seq_len"] = *s.seqLen;
        if (s.batch) w["batch"] = *s.batch;
        if (s.phase == workloads::Phase::Decode) w["phase"] = "decode";
        if (s.kvLen) w["kv_len"] = *s.kvLen;
    }
    j["workload"] = std::move(w);
    j["accelerator"] = arch::acceleratorToJson(project.accelerator);
    const search::SearchOptions& s = project.search;
    nlohmann::ordered_json settings;
    settings["objective"] = search::toString(s.objective);
    settings["fidelity"] = search::toString(s.fidelity);
    settings["pe_util_bound"] = s.peUtilizationBound;
    // Only when not the default: a project with the default margin stays readable by the versions before
    // the setting (they reject unknown fields); 0, the exact bests, is written.
    if (s.nearTie != search::kDefaultNearTie) settings["near_tie"] = s.nearTie;
    settings["divisors_only"] = s.divisorsOnly;
    settings["l1_check"] = s.l1Capacity;
    settings["l2_check"] = s.l2Capacity;
    settings["bound_skipping"] = s.boundSkipping;
    settings["refine"] = s.refine;
    settings["offchip_candidates"] = s.offChipCandidates;
    settings["timeloop_compatible"] = s.constraint.expressibleIn == "timeloop";
    // Only when not the default, as near_tie: readable by the versions before the setting.
    if (s.constraint.expressibleIn == "timeloop"
        && s.constraint.expressibleSpace != timeloop::searchSpaceName(timeloop::kDefaultSearchSpace))
        settings["timeloop_space"] = s.constraint.expressibleSpace;
    settings["threads"] = s.threads;
    j["search"] = std::move(settings);
    if (project.selectedMapping) {
        nlohmann::ordered_json m;
        if (!project.selectedMapping->layer.empty()) m["layer"] = project.selectedMapping->layer;
        // mapping::toJson's own keys (alphabetical: a plain json object) after the layer.
        const json mappingJson = mapping::toJson(project.selectedMapping->mapping);
        for (const auto& [key, value] : mappingJson.items())
            m[key] = value;
        j["selected_mapping"] = std::move(m);
    }
    return j.dump(2) + "\n";
}

Project loadProject(const std::string& path)
{
    Project project = readProject(readTextFile(path), path);
    std::vector<Diagnostic> problems = arch::validate(project.accelerator);
    for (Diagnostic& d : problems) {
        d.file = path;
        d.field = "accelerator." + d.field;
    }
    if (!problems.empty()) throw InputError(std::move(problems));
    return project;
}

void saveProject(const Project& project, const std::string& path)
{
    const ProjectWorkload& w = project.workload;
    if (w.kind == ProjectWorkload::Kind::Model && !project.baseDir.empty() && !w.model.empty()
        && !isBuiltinModel(w.model) && fs::path(w.model).is_relative()) {
        // The path is relative to the folder the project came from; keep it naming the same file.
        std::error_code fromError, toError;
        const fs::path from = fs::weakly_canonical(fs::absolute(project.baseDir), fromError);
        const fs::path to = fs::weakly_canonical(fs::absolute(fs::path(path)).parent_path(), toError);
        if (!fromError && !toError && from != to) {
            Project moved = project;
            const fs::path target = (from / w.model).lexically_normal();
            const fs::path relative = target.lexically_relative(to);
            moved.workload.model = (relative.empty() ? target : relative).generic_string();
            writeTextFileAtomically(path, writeProject(moved), "the project file");
            return;
        }
    }
    writeTextFileAtomically(path, writeProject(project), "the project file");
}

bool isBuiltinModel(std::string_view model)
{
    const std::vector<std::string> names = workloads::builtinWorkloadNames();
    return std::find(names.begin(), names.end(), lower(model)) != names.end();
}

std::string resolvedModelPath(const Project& project)
{
    const ProjectWorkload& w = project.workload;
    if (w.kind != ProjectWorkload::Kind::Model) return {};
    if (isBuiltinModel(w.model) || project.baseDir.empty() || fs::path(w.model).is_absolute()) return w.model;
    return (fs::path(project.baseDir) / w.model).string();
}

workloads::Workload loadProjectWorkload(const Project& project, const std::string& fileName)
{
    const ProjectWorkload& w = project.workload;
    if (w.kind == ProjectWorkload::Kind::Operator) {
        ir::Operator op;
        try {
            op = ir::parseOperator(w.text, fileName);
        } catch (const InputError& e) {
            // The text's line:col are not the project file's: say so in the message.
            std::vector<Diagnostic> problems;
            for (const Diagnostic& d : e.diagnostics()) {
                std::string where;
                if (d.loc.line > 0)
                    where = "line " + std::to_string(d.loc.line)
                        + (d.loc.column > 0 ? ":" + std::to_string(d.loc.column) : "") + ": ";
                problems.push_back(fieldError(fileName, "workload.text", where + d.message));
            }
            throw InputError(std::move(problems));
        }
        workloads::Workload out;
        out.name = op.name;
        workloads::WorkloadLayer layer;
        layer.name = op.name;
        layer.op = std::move(op);
        out.layers.push_back(std::move(layer));
        return out;
    }

    const std::string path = resolvedModelPath(project);
    std::error_code ec;
    if (!isBuiltinModel(w.model) && !fs::is_regular_file(path, ec)) {
        std::string known;
        for (const std::string& k : workloads::builtinWorkloadNames())
            known += (known.empty() ? "" : ", ") + k;
        throw InputError(fieldError(fileName, "workload.model",
            "'" + w.model + "' is neither a built-in model (" + known + ") nor a model file"
                + (path != w.model ? " (looked for " + path + ")" : std::string())));
    }
    workloads::Workload model;
    try {
        model = workloads::loadWorkload(path, workloads::LayerErrors::Throw, w.sequence);
    } catch (const InputError& e) {
        // A context the model does not take (a CNN's seq_len, a kv_len without decode): the project's field.
        if (w.sequence.empty()) throw;
        std::vector<Diagnostic> d = e.diagnostics();
        for (Diagnostic& x : d)
            if (x.file.empty() || x.file == path) {
                x.file = fileName;
                x.field = "workload";
            }
        throw InputError(std::move(d));
    }
    if (w.layer.empty()) return model;
    const auto it = std::find_if(model.layers.begin(), model.layers.end(),
        [&](const workloads::WorkloadLayer& l) { return l.name == w.layer; });
    if (it == model.layers.end())
        throw InputError(fieldError(fileName, "workload.layer",
            "model '" + model.name + "' has no layer '" + w.layer + "' (layers: " + layerNames(model) + ")"));
    workloads::Workload one;
    one.name = model.name;
    one.layers.push_back(std::move(*it));
    return one;
}

const workloads::WorkloadLayer& selectedLayer(
    const Project& project, const workloads::Workload& workload, const std::string& fileName)
{
    if (!project.selectedMapping)
        throw InputError(fieldError(fileName, "selected_mapping", "the project has no selected mapping"));
    const std::string& name = project.selectedMapping->layer;
    if (name.empty()) {
        if (workload.layers.size() == 1) return workload.layers.front();
        throw InputError(fieldError(fileName, "selected_mapping.layer",
            "missing: model '" + workload.name + "' has " + std::to_string(workload.layers.size())
                + " layers; name the one the mapping belongs to (" + layerNames(workload) + ")"));
    }
    for (const workloads::WorkloadLayer& l : workload.layers)
        if (l.name == name) return l;
    throw InputError(fieldError(fileName, "selected_mapping.layer",
        "'" + name + "' is not a layer of the project's workload (layers: " + layerNames(workload) + ")"));
}

} // namespace marvel::project
