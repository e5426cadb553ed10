#include "core/arch/accelerator_io.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/ir/operator.h"
#include "core/mdc/maestro_lexer.h"
#include "core/tech/technology.h"
#include "core/util/json_fields.h"
#include "core/util/json_text.h"
#include "core/util/text_file.h"

namespace marvel::arch {

namespace {

using nlohmann::json;

constexpr int kSchemaVersion = 1;
// MAESTRO's value for a hardware key that the file leaves out (INT_MAX), except num_pes and NoC_NumHops.
constexpr std::int64_t kMaestroUnlimited = std::numeric_limits<std::int32_t>::max();

Diagnostic locError(const std::string& file, SourceLoc loc, std::string message)
{
    Diagnostic d;
    d.file = file;
    d.loc = loc;
    d.message = std::move(message);
    return d;
}

// The MAESTRO hardware keys, each with the Accelerator member it sets and the JSON field name that
// validate() reports for that member (so validation errors can point at the key in the .m file).
struct HardwareKey
{
    std::string_view key;
    std::int64_t Accelerator::*member;
    std::string_view jsonField;
};

const std::array<HardwareKey, 6>& hardwareKeys()
{
    static const std::array<HardwareKey, 6> keys{{
        {"num_pes", &Accelerator::numPes, "num_pes"},
        {"l1_size_cstr", &Accelerator::l1Bytes, "l1_bytes"},
        {"l2_size_cstr", &Accelerator::l2Bytes, "l2_bytes"},
        {"noc_bw_cstr", &Accelerator::nocBandwidth, "noc_bandwidth_elements_per_cycle"},
        {"NoC_NumHops", &Accelerator::nocLatency, "noc_latency_cycles"},
        {"offchip_bw_cstr", &Accelerator::offchipBandwidth, "offchip_bandwidth_elements_per_cycle"},
    }};
    return keys;
}

struct HardwareRead
{
    Accelerator acc;
    std::map<std::string, SourceLoc, std::less<>> valueLocs; ///< JSON field name -> value position
};

HardwareRead readHardware(std::string_view text, const std::string& fileName)
{
    HardwareRead result;
    Accelerator& acc = result.acc;
    acc.numPes = 1;
    acc.l1Bytes = kMaestroUnlimited;
    acc.l2Bytes = kMaestroUnlimited;
    acc.nocBandwidth = kMaestroUnlimited;
    acc.nocLatency = 1;
    acc.offchipBandwidth = kMaestroUnlimited;
    acc.bytesPerElement = 1; // MAESTRO's implicit unit: its sizes are elements

    std::vector<Diagnostic> diagnostics;
    const std::vector<mdc::Token> tokens = mdc::tokenizeMaestro(text);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const mdc::Token& keyToken = tokens[i];
        const HardwareKey* key = nullptr;
        for (const auto& k : hardwareKeys())
            if (k.key == keyToken.text) key = &k;
        if (!key) {
            diagnostics.push_back(locError(
                fileName, keyToken.loc, "unknown hardware key '" + std::string(keyToken.text) + "'"));
            break; // without a known key the pairing of the following tokens is meaningless
        }
        if (i + 1 == tokens.size()) {
            diagnostics.push_back(
                locError(fileName, keyToken.loc, "missing value for '" + std::string(key->key) + "'"));
            break;
        }
        const mdc::Token& valueToken = tokens[++i];
        // Stricter than MAESTRO, which reads values with atoi ("12k" -> 12, "abc" -> 0) and drops a
        // leading '-' because it is a token separator.
        const auto value = mdc::parseMaestroInteger(valueToken.text);
        if (!value) {
            diagnostics.push_back(locError(fileName, valueToken.loc,
                "value of '" + std::string(key->key) + "' must be a non-negative integer, not '"
                    + std::string(valueToken.text) + "'"));
            continue;
        }
        if (valueToken.afterMinus) {
            diagnostics.push_back(locError(fileName, valueToken.loc,
                "value of '" + std::string(key->key) + "' must not be negative (MAESTRO would silently read "
                    + std::string(valueToken.text) + ")"));
            continue;
        }
        acc.*(key->member) = *value;
        result.valueLocs[std::string(key->jsonField)] = valueToken.loc;
    }
    // MAESTRO takes 1 PE when the key is missing, so an empty file (or one holding only comments) would
    // silently describe a one-PE accelerator nobody asked for.
    if (diagnostics.empty() && !result.valueLocs.count("num_pes"))
        diagnostics.push_back(fieldError(fileName, "num_pes",
            tokens.empty() ? "the hardware file is empty: it must at least say how many PEs there are "
                             "(num_pes: N)"
                           : "missing key: the hardware file must say how many PEs there are (num_pes: N)"));
    if (!diagnostics.empty()) throw InputError(std::move(diagnostics));
    return result;
}

std::string lowerExtension(const std::string& path)
{
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

} // namespace

Accelerator readAcceleratorJson(std::string_view text, const std::string& fileName)
{
    const json root = parseJsonText(text, fileName);
    if (!root.is_object())
        throw InputError(locError(fileName, topLevelLoc(text),
            "an accelerator must be a JSON object, not " + JsonFields::describe(root)));
    return acceleratorFromJson(root, fileName);
}

Accelerator acceleratorFromJson(
    const nlohmann::json& root, const std::string& fileName, const std::string& prefix)
{
    if (!root.is_object())
        throw InputError(fieldError(fileName, prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1),
            "an accelerator must be a JSON object, not " + JsonFields::describe(root)));
    Accelerator acc;
    JsonFields fields(root, fileName, prefix);
    fields.rejectUnknown({"schema_version", "name", "description", "num_pes", "l1_bytes", "l2_bytes",
        "noc_bandwidth_elements_per_cycle", "noc_latency_cycles", "offchip_bandwidth_elements_per_cycle",
        "clock_mhz", "dram_block_bytes", "bytes_per_element", "simd_lanes", "multicast", "spatial_reduction",
        "vector_unit", "energy", "technology", "dram_type"});
    std::int64_t schema = kSchemaVersion;
    fields.integer("schema_version", schema);
    if (schema != kSchemaVersion)
        fields.error("schema_version",
            "unsupported version " + std::to_string(schema) + " (this program reads "
                + std::to_string(kSchemaVersion) + ")");
    fields.string("name", acc.name);
    fields.string("description", acc.description);
    fields.integer("num_pes", acc.numPes, true);
    fields.integer("l1_bytes", acc.l1Bytes);
    fields.integer("l2_bytes", acc.l2Bytes);
    fields.integer("noc_bandwidth_elements_per_cycle", acc.nocBandwidth, true);
    fields.integer("noc_latency_cycles", acc.nocLatency);
    fields.integer("offchip_bandwidth_elements_per_cycle", acc.offchipBandwidth);
    fields.real("clock_mhz", acc.clockMHz);
    fields.integer("dram_block_bytes", acc.dramBlockBytes);
    fields.integer("bytes_per_element", acc.bytesPerElement);
    fields.integer("simd_lanes", acc.simdLanes);
    if (const json* m = fields.member("multicast")) {
        // true and false are the first version's: multicast of elements, or none.
        bool known = m->is_boolean();
        if (known) acc.multicast = m->get<bool>() ? Multicast::Elements : Multicast::None;
        for (auto kind : {Multicast::Elements, Multicast::Tiles, Multicast::None})
            if (m->is_string() && m->get<std::string>() == toString(kind)) {
                acc.multicast = kind;
                known = true;
            }
        if (!known)
            fields.error("multicast",
                "must be \"elements\", \"tiles\", \"none\", true or false, not " + JsonFields::describe(*m));
    }
    fields.boolean("spatial_reduction", acc.spatialReduction);
    const json* vector = fields.object("vector_unit");
    const json* energy = fields.object("energy");
    fields.string("technology", acc.technology);
    fields.string("dram_type", acc.dramType);
    if (energy && !acc.technology.empty())
        fields.error("energy", "give either \"energy\" or \"technology\": the table sets the energies");
    if (!acc.dramType.empty() && acc.technology.empty())
        fields.error("dram_type", "a DRAM type needs a \"technology\" table that lists it");
    std::vector<Diagnostic> diagnostics = std::move(fields.diagnostics());
    if (vector) {
        JsonFields v(*vector, fileName, prefix + "vector_unit.");
        v.rejectUnknown({"lanes", "ops_per_cycle", "register_bytes", "functions"});
        v.integer("lanes", acc.vectorUnit.lanes, true);
        v.integer("ops_per_cycle", acc.vectorUnit.opsPerCycle);
        v.integer("register_bytes", acc.vectorUnit.registerBytes);
        if (const json* f = v.member("functions")) {
            acc.vectorUnit.functions = 0;
            const std::string known = "exp, sqrt, rsqrt, tanh, erf, sigmoid";
            if (!f->is_array()) v.error("functions", "must be an array of function names (" + known + ")");
            for (std::size_t i = 0; f->is_array() && i < f->size(); ++i) {
                const json& name = (*f)[i];
                const auto* at = std::find_if(std::begin(ir::kFunctionNames), std::end(ir::kFunctionNames),
                    [&](const char* n) { return name.is_string() && name.get<std::string>() == n; });
                if (at == std::end(ir::kFunctionNames))
                    v.error("functions",
                        "entry " + std::to_string(i) + " is not a function the operator language has ("
                            + known + "): " + JsonFields::describe(name));
                else
                    acc.vectorUnit.functions |= 1u << (at - std::begin(ir::kFunctionNames));
            }
        }
        diagnostics.insert(diagnostics.end(), v.diagnostics().begin(), v.diagnostics().end());
    }
    if (energy) {
        JsonFields e(*energy, fileName, prefix + "energy.");
        e.rejectUnknown({"mac", "l1_access", "l2_access", "dram_access", "mac_energy_nj", "vector_op"});
        e.real("mac", acc.energy.mac);
        e.real("vector_op", acc.energy.vectorOp);
        e.real("l1_access", acc.energy.l1Access);
        e.real("l2_access", acc.energy.l2Access);
        e.real("dram_access", acc.energy.dramAccess);
        e.real("mac_energy_nj", acc.energy.macEnergyNanojoule);
        diagnostics.insert(diagnostics.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
    if (!diagnostics.empty()) throw InputError(std::move(diagnostics));
    if (!acc.technology.empty()) {
        try {
            acc.technologyTable = tech::loadTechnology(acc.technology, fileName);
            acc.energy = tech::resolve(*acc.technologyTable, acc, acc.dramType, prefix + "dram_type").energy;
        } catch (const InputError& e) {
            // Named from this file: the table's own problems keep their file and field.
            std::vector<Diagnostic> d = e.diagnostics();
            for (Diagnostic& x : d)
                if (x.field == "technology" || x.field == prefix + "dram_type") {
                    x.message = x.file + ": " + x.message;
                    x.file = fileName;
                    x.field = x.field == "technology" ? prefix + "technology" : x.field;
                }
            throw InputError(std::move(d));
        }
    }
    return acc;
}

std::string writeAcceleratorJson(const Accelerator& acc)
{
    return acceleratorToJson(acc).dump(2) + "\n";
}

nlohmann::ordered_json acceleratorToJson(const Accelerator& acc)
{
    // ordered_json keeps the documented field order, so files diff well.
    nlohmann::ordered_json j;
    j["schema_version"] = kSchemaVersion;
    j["name"] = acc.name;
    // Only when there is one, so files without it (P1, P2, MAESTRO conversions) read back unchanged.
    if (!acc.description.empty()) j["description"] = acc.description;
    j["num_pes"] = acc.numPes;
    j["l1_bytes"] = acc.l1Bytes;
    j["l2_bytes"] = acc.l2Bytes;
    j["noc_bandwidth_elements_per_cycle"] = acc.nocBandwidth;
    j["noc_latency_cycles"] = acc.nocLatency;
    j["offchip_bandwidth_elements_per_cycle"] = acc.offchipBandwidth;
    j["clock_mhz"] = acc.clockMHz;
    j["dram_block_bytes"] = acc.dramBlockBytes;
    j["bytes_per_element"] = acc.bytesPerElement;
    j["simd_lanes"] = acc.simdLanes;
    // Elements and None as true and false, which every version reads.
    if (acc.multicast == Multicast::Tiles)
        j["multicast"] = toString(acc.multicast);
    else
        j["multicast"] = acc.multicast == Multicast::Elements;
    j["spatial_reduction"] = acc.spatialReduction;
    // Only when it is not the default (none), so the files of accelerators without one read back unchanged.
    if (acc.vectorUnit != VectorUnit{}) {
        j["vector_unit"] = {{"lanes", acc.vectorUnit.lanes}, {"ops_per_cycle", acc.vectorUnit.opsPerCycle},
            {"register_bytes", acc.vectorUnit.registerBytes}};
        if (acc.vectorUnit.functions != arch::VectorUnit::kAllFunctions) {
            nlohmann::ordered_json names = nlohmann::ordered_json::array();
            for (std::size_t f = 0; f < std::size(ir::kFunctionNames); ++f)
                if (acc.vectorUnit.functions & (1u << f)) names.push_back(ir::kFunctionNames[f]);
            j["vector_unit"]["functions"] = names;
        }
    }
    if (!acc.technology.empty()) {
        // The table sets the energies for the sizes: writing them would freeze one size's.
        j["technology"] = acc.technology;
        if (!acc.dramType.empty()) j["dram_type"] = acc.dramType;
        return j;
    }
    j["energy"]
        = {{"mac", acc.energy.mac}, {"l1_access", acc.energy.l1Access}, {"l2_access", acc.energy.l2Access},
            {"dram_access", acc.energy.dramAccess}, {"mac_energy_nj", acc.energy.macEnergyNanojoule}};
    // Likewise the vector unit's energy, when it is not the default (a MAC's).
    if (acc.energy.vectorOp != EnergyModel{}.vectorOp) j["energy"]["vector_op"] = acc.energy.vectorOp;
    return j;
}

Accelerator readMaestroHardware(std::string_view text, const std::string& fileName)
{
    return readHardware(text, fileName).acc;
}

std::string writeMaestroHardware(const Accelerator& acc)
{
    std::ostringstream out;
    const std::int64_t bpe = std::max<std::int64_t>(acc.bytesPerElement, 1);
    if (!acc.name.empty()) out << "// " << acc.name << "\n";
    out << "// MAESTRO hardware file: sizes in elements (" << bpe << " byte(s) per element), bandwidths in "
        << "elements per cycle.\n"
        << "// Not expressible here: clock " << acc.clockMHz << " MHz, DRAM block " << acc.dramBlockBytes
        << " B, SIMD lanes " << acc.simdLanes << ", energies " << acc.energy.mac << "/" << acc.energy.l1Access
        << "/" << acc.energy.l2Access << "/" << acc.energy.dramAccess << " MAC units (MAC/L1/L2/DRAM).\n";
    out << "num_pes: " << acc.numPes << "\n"
        << "l1_size_cstr: " << acc.l1Bytes / bpe << "\n"
        << "l2_size_cstr: " << acc.l2Bytes / bpe << "\n"
        << "noc_bw_cstr: " << acc.nocBandwidth << "\n"
        << "NoC_NumHops: " << acc.nocLatency << "\n"
        << "offchip_bw_cstr: " << acc.offchipBandwidth << "\n";
    return out.str();
}

Accelerator loadAccelerator(const std::string& path)
{
    // Read first: a missing file or a directory is a clearer message than its (lack of) extension.
    const std::string text = readTextFile(path);
    const std::string ext = lowerExtension(path);
    if (ext != ".json" && ext != ".m")
        throw InputError(fieldError(path, "",
            "unknown accelerator file type '" + ext + "' (expected .json or a MAESTRO hardware file .m)"));
    Accelerator acc;
    std::vector<Diagnostic> problems;
    if (ext == ".json") {
        acc = readAcceleratorJson(text, path);
        problems = validate(acc);
        for (auto& d : problems)
            d.file = path;
    } else {
        HardwareRead read = readHardware(text, path);
        acc = std::move(read.acc);
        acc.name = std::filesystem::path(path).stem().string();
        problems = validate(acc);
        for (auto& d : problems) {
            d.file = path;
            // Point at the offending key's value and use the name the file uses.
            for (const auto& k : hardwareKeys()) {
                if (k.jsonField != d.field) continue;
                if (const auto it = read.valueLocs.find(d.field); it != read.valueLocs.end())
                    d.loc = it->second;
                d.field = std::string(k.key);
            }
        }
    }
    if (!problems.empty()) throw InputError(std::move(problems));
    return acc;
}

void saveAccelerator(const Accelerator& acc, const std::string& path)
{
    const std::string ext = lowerExtension(path);
    std::string text;
    if (ext == ".json")
        text = writeAcceleratorJson(acc);
    else if (ext == ".m")
        text = writeMaestroHardware(acc);
    else
        throw InputError(
            fieldError(path, "", "unknown accelerator file type '" + ext + "' (expected .json or .m)"));

    writeTextFileAtomically(path, text);
}

bool sameParameters(const Accelerator& a, const Accelerator& b)
{
    return a.numPes == b.numPes && a.l1Bytes == b.l1Bytes && a.l2Bytes == b.l2Bytes
        && a.nocBandwidth == b.nocBandwidth && a.nocLatency == b.nocLatency
        && a.offchipBandwidth == b.offchipBandwidth && a.clockMHz == b.clockMHz
        && a.dramBlockBytes == b.dramBlockBytes && a.bytesPerElement == b.bytesPerElement
        && a.simdLanes == b.simdLanes && a.multicast == b.multicast
        && a.spatialReduction == b.spatialReduction && a.energy.mac == b.energy.mac
        && a.energy.l1Access == b.energy.l1Access && a.energy.l2Access == b.energy.l2Access
        && a.energy.dramAccess == b.energy.dramAccess
        && a.energy.macEnergyNanojoule == b.energy.macEnergyNanojoule && a.energy.l1Write == b.energy.l1Write
        && a.energy.l2Write == b.energy.l2Write && a.energy.nocElement == b.energy.nocElement
        && a.energy.vectorOp == b.energy.vectorOp && a.vectorUnit == b.vectorUnit
        && a.technology == b.technology && a.dramType == b.dramType;
}

} // namespace marvel::arch
