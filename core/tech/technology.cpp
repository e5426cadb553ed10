#include "core/tech/technology.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/cost/costmodel.h"
#include "core/resources/samples_dir.h"
#include "core/util/json_fields.h"
#include "core/util/json_text.h"
#include "core/util/text_file.h"

namespace marvel::tech {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kSchemaVersion = 1;

// A non-negative number `key` of `f` (required unless `optional`), in pJ after `scale`.
double number(JsonFields& f, const char* key, double scale, bool optional = false)
{
    double v = 0.0;
    const bool present = f.member(key, !optional) != nullptr;
    f.real(key, v, !optional);
    if (present && !(v >= 0.0 && std::isfinite(v) && std::isfinite(v * scale)))
        f.error(key, "must be a non-negative number");
    return v * scale;
}

// The curve `key` of buffer points: capacities ascending, energies and area never falling.
std::vector<BufferPoint> readCurve(JsonFields& top, const std::string& file, const char* key, double scale,
    std::vector<Diagnostic>& diagnostics)
{
    std::vector<BufferPoint> out;
    const json* curve = top.member(key, true);
    if (!curve) return out;
    const std::string path = top.prefix() + key;
    if (!curve->is_array() || curve->empty()) {
        diagnostics.push_back(fieldError(file, path,
            "must be a non-empty array of {\"bytes\", \"word_bits\", \"read\", \"write\", \"area_um2\"} "
            "points"));
        return out;
    }
    for (std::size_t i = 0; i < curve->size(); ++i) {
        const std::string at = path + "[" + std::to_string(i) + "]";
        if (!(*curve)[i].is_object()) {
            diagnostics.push_back(fieldError(file, at, "must be an object"));
            continue;
        }
        JsonFields p((*curve)[i], file, at + ".");
        p.rejectUnknown({"bytes", "word_bits", "read", "write", "area_um2", "leak_per_cycle", "source"});
        BufferPoint b;
        b.bytes = number(p, "bytes", 1.0);
        b.wordBits = number(p, "word_bits", 1.0);
        b.readPj = number(p, "read", scale);
        b.writePj = number(p, "write", scale);
        b.areaUm2 = number(p, "area_um2", 1.0, true);
        b.leakPjPerCycle = number(p, "leak_per_cycle", scale, true);
        if (p.diagnostics().empty() && b.bytes <= 0) p.error("bytes", "must be positive");
        if (p.diagnostics().empty() && b.wordBits != 0 && !(b.wordBits >= 1 && b.wordBits <= 65536))
            p.error("word_bits", "must be a width from 1 to 65536 bits (0: per access, whatever the width)");
        std::string source;
        p.string("source", source);
        if (!p.diagnostics().empty()) {
            diagnostics.insert(diagnostics.end(), p.diagnostics().begin(), p.diagnostics().end());
            continue;
        }
        if (!out.empty()) {
            const BufferPoint& a = out.back();
            // Energies compare per bit of word (per access when a point gives no width).
            const double per = b.wordBits > 0 ? b.wordBits : 1.0, prevPer = a.wordBits > 0 ? a.wordBits : 1.0;
            auto fail = [&](const char* field, const std::string& what) {
                diagnostics.push_back(fieldError(file, at + "." + field, what));
            };
            if (b.bytes <= a.bytes)
                fail("bytes",
                    "capacities must ascend (" + std::to_string(b.bytes) + " after " + std::to_string(a.bytes)
                        + ")");
            else if (b.readPj / per < a.readPj / prevPer)
                fail("read", "the curve is not monotone: energy per bit falls as the capacity grows");
            else if (b.writePj / per < a.writePj / prevPer)
                fail("write", "the curve is not monotone: energy per bit falls as the capacity grows");
            else if (b.areaUm2 < a.areaUm2)
                fail("area_um2", "the curve is not monotone: area falls as the capacity grows");
        }
        out.push_back(b);
    }
    return out;
}

// Log-log interpolation of `value` over the points' capacities at `bytes`; the end segments extend.
template <class Value> double onCurve(const std::vector<BufferPoint>& c, double bytes, Value value)
{
    if (c.size() == 1 || bytes <= 0) return value(c.front());
    std::size_t hi = 1;
    while (hi + 1 < c.size() && c[hi].bytes < bytes)
        ++hi;
    const BufferPoint &a = c[hi - 1], &b = c[hi];
    const double va = value(a), vb = value(b);
    if (bytes < a.bytes && hi == 1 && va <= 0) return va;
    if (va <= 0 || vb <= 0) // a zero cannot be interpolated in log space: linearly instead
        return std::max(0.0, va + (vb - va) * (bytes - a.bytes) / (b.bytes - a.bytes));
    const double t = std::log(bytes / a.bytes) / std::log(b.bytes / a.bytes);
    const double v = std::exp(std::log(va) + t * (std::log(vb) - std::log(va)));
    return std::isnan(v) ? std::max(va, vb) : v; // infinities at the ends of a double's range
}

std::vector<fs::path> searchDirs(const std::string& relativeTo)
{
    std::vector<fs::path> dirs;
    if (!relativeTo.empty()) dirs.push_back(fs::path(relativeTo).parent_path() / "../technology");
    // Then the samples trees every program shares (core/resources/samples_dir.h).
    for (const fs::path& root : resources::samplesDirs())
        dirs.push_back(root / "technology");
    return dirs;
}

} // namespace

Technology readTechnologyJson(std::string_view text, const std::string& fileName)
{
    const json root = parseJsonText(text, fileName);
    if (!root.is_object())
        throw InputError(fieldError(fileName, "", "a technology table must be a JSON object"));
    Technology t;
    t.file = fileName;
    JsonFields f(root, fileName, "");
    f.rejectUnknown({"schema_version", "name", "description", "energy_unit", "mac_unit_pj", "area_model",
        "mac", "l1", "l2", "noc", "vector", "dram"});
    std::int64_t schema = kSchemaVersion;
    f.integer("schema_version", schema);
    if (schema != kSchemaVersion)
        f.error(
            "schema_version", "unsupported version " + std::to_string(schema) + " (this program reads 1)");
    f.string("name", t.name, true);
    f.string("description", t.description);
    std::string unit;
    f.string("energy_unit", unit, true);
    double scale = 1.0;
    if (unit == "pJ")
        scale = 1.0;
    else if (unit == "fJ")
        scale = 1e-3;
    else if (unit == "nJ")
        scale = 1e3;
    else if (unit == "mac")
        t.macUnits = true;
    else if (f.diagnostics().empty())
        f.error("energy_unit", "unknown unit '" + unit + "' (pJ, fJ, nJ, or mac for MAC units)");
    if (t.macUnits) {
        double pj = 0.0;
        f.real("mac_unit_pj", pj, true);
        if (!(pj > 0)) f.error("mac_unit_pj", "must be positive: the pJ of one MAC unit");
        t.macUnitPj = pj;
    } else if (f.member("mac_unit_pj")) {
        f.error("mac_unit_pj", "only for \"energy_unit\": \"mac\"");
    }
    std::string area = "table";
    f.string("area_model", area);
    if (area == "maestro")
        t.maestroArea = true;
    else if (area != "table")
        f.error("area_model", "unknown area model '" + area + "' (table or maestro)");
    std::vector<Diagnostic> d;
    if (const json* macs = f.member("mac", true)) {
        if (!macs->is_array() || macs->empty())
            d.push_back(
                fieldError(fileName, "mac", "must be a non-empty array of {\"bits\", \"energy\"} entries"));
        else
            for (std::size_t i = 0; i < macs->size(); ++i) {
                const std::string at = "mac[" + std::to_string(i) + "]";
                if (!(*macs)[i].is_object()) {
                    d.push_back(fieldError(fileName, at, "must be an object"));
                    continue;
                }
                JsonFields m((*macs)[i], fileName, at + ".");
                m.rejectUnknown({"bits", "energy", "area_um2", "leak_per_cycle", "source"});
                MacPoint p;
                std::int64_t bits = 0;
                m.integer("bits", bits);
                if (bits < 0 || bits > 128)
                    m.error("bits", "must be an operand width from 1 to 128 (0: any)");
                p.bits = int(bits);
                p.energyPj = number(m, "energy", scale);
                p.areaUm2 = number(m, "area_um2", 1.0, true);
                p.leakPjPerCycle = number(m, "leak_per_cycle", scale, true);
                std::string source;
                m.string("source", source);
                d.insert(d.end(), m.diagnostics().begin(), m.diagnostics().end());
                t.macs.push_back(p);
            }
    }
    t.l1 = readCurve(f, fileName, "l1", scale, d);
    t.l2 = readCurve(f, fileName, "l2", scale, d);
    if (const json* noc = f.object("noc", true)) {
        JsonFields n(*noc, fileName, "noc.");
        n.rejectUnknown({"energy", "energy_per_element_bits", "source"});
        const double e = number(n, "energy", scale);
        const double bits = number(n, "energy_per_element_bits", 1.0);
        if (n.diagnostics().empty() && bits <= 0) n.error("energy_per_element_bits", "must be positive");
        std::string source;
        n.string("source", source);
        if (n.diagnostics().empty()) t.nocPjPerBit = e / bits;
        d.insert(d.end(), n.diagnostics().begin(), n.diagnostics().end());
    }
    if (const json* vector = f.object("vector")) {
        JsonFields v(*vector, fileName, "vector.");
        v.rejectUnknown({"energy", "area_um2", "leak_per_cycle", "source"});
        MacPoint lane;
        lane.energyPj = number(v, "energy", scale);
        lane.areaUm2 = number(v, "area_um2", 1.0, true);
        lane.leakPjPerCycle = number(v, "leak_per_cycle", scale, true);
        std::string source;
        v.string("source", source);
        if (v.diagnostics().empty()) t.vectorLane = lane;
        d.insert(d.end(), v.diagnostics().begin(), v.diagnostics().end());
    }
    if (const json* dram = f.object("dram", true)) {
        JsonFields r(*dram, fileName, "dram.");
        r.rejectUnknown({"default", "types"});
        r.string("default", t.defaultDram, true);
        if (const json* types = r.object("types", true)) {
            for (auto it = types->begin(); it != types->end(); ++it) {
                const std::string at = "dram.types." + it.key();
                if (!it->is_object()) {
                    d.push_back(fieldError(fileName, at, "must be an object"));
                    continue;
                }
                JsonFields k(*it, fileName, at + ".");
                k.rejectUnknown({"energy_per_bit", "source"});
                const double e = number(k, "energy_per_bit", scale);
                std::string source;
                k.string("source", source);
                d.insert(d.end(), k.diagnostics().begin(), k.diagnostics().end());
                t.dramPjPerBit[it.key()] = e;
            }
            if (r.diagnostics().empty() && !t.dramPjPerBit.count(t.defaultDram))
                r.error("default", "'" + t.defaultDram + "' is not one of dram.types");
        }
        d.insert(d.end(), r.diagnostics().begin(), r.diagnostics().end());
    }
    // The top level's own problems first, then those inside its members.
    d.insert(d.begin(), f.diagnostics().begin(), f.diagnostics().end());
    if (!d.empty()) throw InputError(std::move(d));
    std::stable_sort(
        t.macs.begin(), t.macs.end(), [](const MacPoint& a, const MacPoint& b) { return a.bits < b.bits; });
    return t;
}

std::shared_ptr<const Technology> loadTechnology(const std::string& nameOrPath, const std::string& relativeTo)
{
    std::error_code ec;
    fs::path path = nameOrPath;
    const bool looksLikeFile = nameOrPath.find('/') != std::string::npos || path.extension() == ".json";
    if (looksLikeFile) {
        if (path.is_relative() && !relativeTo.empty() && !fs::exists(path, ec)) {
            const fs::path beside = fs::path(relativeTo).parent_path() / path;
            if (fs::exists(beside, ec)) path = beside;
        }
    } else {
        path.clear();
        for (const fs::path& dir : searchDirs(relativeTo))
            if (fs::exists(dir / (nameOrPath + ".json"), ec)) {
                path = (dir / (nameOrPath + ".json")).lexically_normal();
                break;
            }
        if (path.empty()) {
            std::string known;
            for (const std::string& n : technologyNames())
                known += (known.empty() ? "" : ", ") + n;
            throw InputError(fieldError(nameOrPath, "technology",
                "no technology table of that name (samples/technology has: "
                    + (known.empty() ? "none" : known) + "), nor is it a .json file"));
        }
    }
    return std::make_shared<const Technology>(readTechnologyJson(readTextFile(path.string()), path.string()));
}

std::vector<std::string> technologyNames()
{
    std::vector<std::string> names;
    std::error_code ec;
    for (const fs::path& dir : searchDirs({})) {
        if (!fs::is_directory(dir, ec)) continue;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
        break; // the first directory that exists is the one names resolve in
    }
    std::sort(names.begin(), names.end());
    return names;
}

Resolved resolve(const Technology& table, const arch::Accelerator& acc, const std::string& dramType,
    const std::string& dramField)
{
    Resolved r;
    const double elementBits = 8.0 * double(std::max<std::int64_t>(acc.bytesPerElement, 1));
    // The MAC of the element width, else the next wider one listed (else the widest).
    const MacPoint* mac = &table.macs.back();
    for (const MacPoint& m : table.macs)
        if (m.bits == 0 || m.bits >= elementBits) {
            mac = &m;
            break;
        }
    // Energies per element: a wide access's energy shared by the elements it carries.
    // (word_bits 0: the energy of an element's access whatever its width, as MAESTRO counts.)
    auto perElement = [&](const std::vector<BufferPoint>& c, double bytes, double BufferPoint::*field) {
        return onCurve(c, bytes, [&](const BufferPoint& p) {
            return p.wordBits > 0 ? p.*field / p.wordBits * elementBits : p.*field;
        });
    };
    const double l1Bytes = double(acc.l1Bytes), l2Bytes = double(acc.l2Bytes);
    // Energies stay in the table's unit (pJ, or MAC units for MAESTRO's); macEnergyNanojoule converts.
    r.energy.mac = mac->energyPj;
    r.energy.l1Access = perElement(table.l1, l1Bytes, &BufferPoint::readPj);
    r.energy.l1Write = perElement(table.l1, l1Bytes, &BufferPoint::writePj);
    r.energy.l2Access = perElement(table.l2, l2Bytes, &BufferPoint::readPj);
    r.energy.l2Write = perElement(table.l2, l2Bytes, &BufferPoint::writePj);
    // Writes that cost as reads are charged as one (MAESTRO's products bit for bit, EnergyModel).
    if (r.energy.l1Write == r.energy.l1Access) r.energy.l1Write = -1.0;
    if (r.energy.l2Write == r.energy.l2Access) r.energy.l2Write = -1.0;
    r.energy.nocElement = table.nocPjPerBit * elementBits;
    const std::string dram = dramType.empty() ? table.defaultDram : dramType;
    const auto d = table.dramPjPerBit.find(dram);
    if (d == table.dramPjPerBit.end()) {
        std::string known;
        for (const auto& [name, e] : table.dramPjPerBit)
            known += (known.empty() ? "" : ", ") + name;
        throw InputError(fieldError(table.file, dramField,
            "DRAM type '" + dram + "' is not in the technology table " + table.name + " (it has: " + known
                + ")"));
    }
    r.energy.dramAccess = d->second * elementBits;
    r.energy.macEnergyNanojoule = table.macUnitPj * 1e-3;
    const MacPoint& lane = table.vectorLane ? *table.vectorLane : *mac;
    r.energy.vectorOp = lane.energyPj;
    const double pes = double(acc.numPes), lanes = double(acc.vectorUnit.lanes);
    r.macAreaUm2 = pes * double(acc.simdLanes) * mac->areaUm2 + lanes * lane.areaUm2;
    r.l1AreaUm2 = pes * onCurve(table.l1, l1Bytes, [](const BufferPoint& p) { return p.areaUm2; });
    r.l2AreaUm2 = onCurve(table.l2, l2Bytes, [](const BufferPoint& p) { return p.areaUm2; });
    r.areaUm2 = r.macAreaUm2 + r.l1AreaUm2 + r.l2AreaUm2;
    r.leakPjPerCycle = pes * double(acc.simdLanes) * mac->leakPjPerCycle + lanes * lane.leakPjPerCycle
        + pes * onCurve(table.l1, l1Bytes, [](const BufferPoint& p) { return p.leakPjPerCycle; })
        + onCurve(table.l2, l2Bytes, [](const BufferPoint& p) { return p.leakPjPerCycle; });
    return r;
}

void applyTechnology(arch::Accelerator& acc)
{
    if (!acc.technologyTable) return;
    acc.energy = resolve(*acc.technologyTable, acc, acc.dramType).energy;
}

Physical physical(const arch::Accelerator& acc, const EnergyParts& parts, std::int64_t runtimeCycles)
{
    Physical p;
    const double pj = acc.energy.macEnergyNanojoule * 1e3; // one energy unit in pJ
    p.macPj = parts.mac * pj;
    p.l1Pj = parts.l1 * pj;
    p.l2Pj = parts.l2 * pj;
    p.nocPj = parts.noc * pj;
    p.dramPj = parts.dram * pj;
    p.energyPj = p.macPj + p.l1Pj + p.l2Pj + p.nocPj + p.dramPj;
    const Technology* table = acc.technologyTable.get();
    if (!table || table->maestroArea) {
        const cost::AreaPower ap = cost::areaPower(
            acc, static_cast<double>(acc.l1Elements()), static_cast<double>(acc.l2Elements()));
        p.areaMm2 = ap.area * 1e-6;
        p.powerMw = ap.power;
        return p;
    }
    p.tableArea = true;
    const Resolved r = resolve(*table, acc, acc.dramType);
    p.areaMm2 = r.areaUm2 * 1e-6;
    // pJ per cycle x cycles per second (clock MHz x 1e6) = pJ/s; x 1e-9 = mW.
    p.leakageMw = r.leakPjPerCycle * table->macUnitPj * acc.clockMHz * 1e-3;
    const double seconds = runtimeCycles > 0 ? double(runtimeCycles) / (acc.clockMHz * 1e6) : 0.0;
    p.powerMw = p.leakageMw + (seconds > 0 ? p.energyPj * 1e-9 / seconds : 0.0);
    return p;
}

std::string describe(const arch::Accelerator& acc)
{
    const Technology* t = acc.technologyTable.get();
    char pj[32];
    std::snprintf(pj, sizeof pj, "%.3g", acc.energy.macEnergyNanojoule * 1e3);
    if (!t || t->macUnits)
        return std::string(t ? "technology " + t->name + ": " : std::string()) + "MAESTRO's energies (" + pj
            + " pJ per MAC unit) and area/power formulas";
    return "technology " + t->name + " (" + (acc.dramType.empty() ? t->defaultDram : acc.dramType) + ")";
}

bool physicalUnits(const arch::Accelerator& acc)
{
    return acc.technologyTable && !acc.technologyTable->macUnits;
}

std::string formatPicojoules(double pj)
{
    static const std::pair<double, const char*> kUnits[]
        = {{1e9, "mJ"}, {1e6, "\u00b5J"}, {1e3, "nJ"}, {1.0, "pJ"}};
    char text[48];
    for (const auto& [scale, name] : kUnits)
        if (std::abs(pj) >= scale || scale == 1.0) {
            if (std::abs(pj) >= 1e12)
                std::snprintf(text, sizeof text, "%.4g J", pj * 1e-12);
            else
                std::snprintf(text, sizeof text, "%.3g %s", pj / scale, name);
            return text;
        }
    return text;
}

} // namespace marvel::tech
