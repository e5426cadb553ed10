// Timeloop input read back with yaml-cpp in the tests (core/export/timeloop.h's files and the worked case of
// ../shared/reference/timeloop/vgg16_conv2_1_ws): factor lines, mapping entries, and an export compared
// with the worked case's problem, architecture and mapping up to formatting.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <QTest>

#if MARVEL_HAVE_YAML_CPP
#include <yaml-cpp/yaml.h>
#endif

namespace marvel::timeloop_test {

/// The worked case's folder (conv2_1_ws.m, P1_128pe.json, Timeloop's inputs and outputs).
inline std::string workedCaseDir()
{
    return std::string(MARVEL_REFERENCE_DIR) + "/../timeloop/vgg16_conv2_1_ws";
}

#if MARVEL_HAVE_YAML_CPP

/// `K=16 C=8 ...` as dimension -> factor.
inline std::map<std::string, std::int64_t> factorsOf(const std::string& line)
{
    std::map<std::string, std::int64_t> f;
    std::istringstream in(line);
    std::string tok;
    while (in >> tok) {
        const auto eq = tok.find('=');
        f[tok.substr(0, eq)] = std::stoll(tok.substr(eq + 1));
    }
    return f;
}

/// One entry of a `mapping:` list by target and type, or a null node.
inline YAML::Node mappingEntry(const YAML::Node& map, const std::string& target, const std::string& type)
{
    for (const auto& e : map)
        if (e["target"].as<std::string>() == target && e["type"].as<std::string>() == type) return e;
    return YAML::Node();
}

/// A projection term as text, its products sorted (`[ [R, Wdilation], [P, Wstride] ]` ->
/// `P*Wstride+R*Wdilation`): the order of the terms is notation.
inline std::string projectionTerm(const YAML::Node& term)
{
    std::vector<std::string> products;
    for (const auto& p : term) {
        std::string s;
        for (const auto& f : p)
            s += (s.empty() ? "" : "*") + f.as<std::string>();
        products.push_back(s);
    }
    std::sort(products.begin(), products.end());
    std::string out;
    for (const auto& p : products)
        out += (out.empty() ? "" : "+") + p;
    return out;
}

/// Compares a problem (the `problem:` node) with the worked case's: instance, dimensions, coefficients and
/// each data space's projection (the order of its terms is the data layout, which Timeloop's counts do
/// not depend on) and read_write.
inline void compareWorkedCaseProblem(const YAML::Node& ours)
{
    const YAML::Node ref = YAML::LoadFile(workedCaseDir() + "/problem.yaml")["problem"];
    auto asMap = [](const YAML::Node& n) {
        std::map<std::string, std::string> m;
        for (const auto& kv : n)
            m[kv.first.as<std::string>()] = kv.second.as<std::string>();
        return m;
    };
    QCOMPARE(asMap(ours["instance"]), asMap(ref["instance"]));
    auto dimSet = [](const YAML::Node& n) {
        std::set<std::string> s;
        for (const auto& d : n)
            s.insert(d.as<std::string>());
        return s;
    };
    QCOMPARE(dimSet(ours["shape"]["dimensions"]), dimSet(ref["shape"]["dimensions"]));
    auto coefficients = [](const YAML::Node& n) {
        std::map<std::string, std::string> m;
        for (const auto& c : n)
            m[c["name"].as<std::string>()] = c["default"].as<std::string>();
        return m;
    };
    QCOMPARE(coefficients(ours["shape"]["coefficients"]), coefficients(ref["shape"]["coefficients"]));
    auto spaces = [](const YAML::Node& n) {
        std::map<std::string, std::multiset<std::string>> m;
        for (const auto& ds : n) {
            auto& terms = m[ds["name"].as<std::string>()];
            for (const auto& t : ds["projection"])
                terms.insert(projectionTerm(t));
            if (ds["read_write"]) terms.insert("read_write=" + ds["read_write"].as<std::string>());
        }
        return m;
    };
    QCOMPARE(spaces(ours["shape"]["data_spaces"]), spaces(ref["shape"]["data_spaces"]));
}

/// Compares an architecture (the `architecture:` node) with the worked case's: the same levels, names and
/// classes, every attribute the reference gives with its value but the global buffer's write bandwidth
/// (see below), and no other attribute than the DRAM's shared bandwidth (our accelerator's off-chip
/// bandwidth, one bus for reads and writes; the reference leaves it unlimited).
inline void compareWorkedCaseArch(const YAML::Node& ours)
{
    const YAML::Node ref = YAML::LoadFile(workedCaseDir() + "/arch_clusters8_128.yaml")["architecture"];
    QCOMPARE(ours["version"].as<std::string>(), ref["version"].as<std::string>());
    const YAML::Node mine = ours["subtree"][0]["local"];
    const YAML::Node theirs = ref["subtree"][0]["local"];
    QCOMPARE(mine.size(), theirs.size());
    for (std::size_t i = 0; i < theirs.size(); ++i) {
        const std::string name = theirs[i]["name"].as<std::string>();
        QCOMPARE(mine[i]["name"].as<std::string>(), name);
        QCOMPARE(mine[i]["class"].as<std::string>(), theirs[i]["class"].as<std::string>());
        for (const auto& kv : theirs[i]["attributes"]) {
            const std::string key = kv.first.as<std::string>();
            QVERIFY2(mine[i]["attributes"][key], (name + " lacks " + key).c_str());
            // The global buffer's write port takes the DRAM fills too: the NoC's 12 plus the off-chip
            // bandwidth of P1_128pe.json (the reference mirrors the NoC alone).
            if (name == "GlobalBuffer" && key == "write_bandwidth")
                QCOMPARE(mine[i]["attributes"][key].as<std::string>(), std::string("1000012"));
            else
                QCOMPARE(mine[i]["attributes"][key].as<std::string>(), kv.second.as<std::string>());
        }
        for (const auto& kv : mine[i]["attributes"]) {
            const std::string key = kv.first.as<std::string>();
            const bool dramBandwidth = name == "DRAM" && key == "shared_bandwidth";
            QVERIFY2(theirs[i]["attributes"][key] || dramBandwidth, (name + " has " + key).c_str());
        }
    }
}

/// Compares a mapping (the `mapping:` node) with the worked case's map_maestro_ws_128.yaml: the same
/// entries with the same factors and split, permutations equal on the dimensions that iterate (the order
/// of factor-1 loops is notation).
inline void compareWorkedCaseMapping(const YAML::Node& ours)
{
    const YAML::Node ref = YAML::LoadFile(workedCaseDir() + "/map_maestro_ws_128.yaml")["mapping"];
    QCOMPARE(ours.size(), ref.size());
    for (const auto& r : ref) {
        const std::string where = r["target"].as<std::string>() + " " + r["type"].as<std::string>();
        const YAML::Node m = mappingEntry(ours, r["target"].as<std::string>(), r["type"].as<std::string>());
        QVERIFY2(m, ("no " + where).c_str());
        const auto refFactors = factorsOf(r["factors"].as<std::string>());
        QCOMPARE(factorsOf(m["factors"].as<std::string>()), refFactors);
        auto iterating = [&](const std::string& perm) {
            std::string s;
            for (char c : perm)
                if (refFactors.count(std::string(1, c)) && refFactors.at(std::string(1, c)) > 1) s += c;
            return s;
        };
        QCOMPARE(
            iterating(m["permutation"].as<std::string>()), iterating(r["permutation"].as<std::string>()));
        QCOMPARE(bool(m["split"]), bool(r["split"]));
        if (r["split"]) QCOMPARE(m["split"].as<int>(), r["split"].as<int>());
    }
}

/// All three (each a whole file's top-level node).
inline void compareWithWorkedCase(const YAML::Node& problem, const YAML::Node& arch, const YAML::Node& map)
{
    compareWorkedCaseProblem(problem["problem"]);
    if (QTest::currentTestFailed()) return;
    compareWorkedCaseArch(arch["architecture"]);
    if (QTest::currentTestFailed()) return;
    compareWorkedCaseMapping(map["mapping"]);
}

#endif

} // namespace marvel::timeloop_test
