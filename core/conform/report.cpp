// Presentation of a conformability Report: the JSON object of issue 2 and the readable text of `marvel
// check`.
#include <nlohmann/json.hpp>

#include "core/conform/conformability.h"

namespace marvel::conform {

nlohmann::json toJson(const Report& report)
{
    nlohmann::json rules = nlohmann::json::object();
    for (std::size_t r = 0; r < report.rules.size(); ++r)
        rules["R" + std::to_string(r + 1)] = {{"ok", report.rules[r].ok}, {"reason", report.rules[r].reason}};
    nlohmann::json nodes = nlohmann::json::array();
    for (std::size_t n = 0; n < report.ddg.nodes.size(); ++n) {
        const auto& node = report.ddg.nodes[n];
        nodes.push_back({{"id", n}, {"tensor", node.tensor}, {"dim", node.dim}, {"subscript", node.subscript},
            {"label", node.label()}});
    }
    nlohmann::json edges = nlohmann::json::array();
    for (const auto& e : report.ddg.edges)
        edges.push_back({{"from", e.from}, {"to", e.to}, {"rule", e.rule}});
    nlohmann::json independent = nlohmann::json::array();
    for (const auto& d : report.independent)
        independent.push_back({{"tensor", d.tensor}, {"dim", d.dim}, {"iterator", d.iterator}});
    return {{"operator", report.operatorName}, {"conformable", report.conformable}, {"rules", rules},
        {"ddg", {{"nodes", nodes}, {"edges", edges}}}, {"topological_order", report.topologicalOrder},
        {"independent", independent}};
}

std::string toText(const Report& report)
{
    std::string out = "operator " + report.operatorName + ": "
        + (report.conformable ? "conformable to the MDC notation" : "NOT conformable to the MDC notation")
        + "\n\n";
    for (std::size_t r = 0; r < report.rules.size(); ++r)
        out += "  R" + std::to_string(r + 1) + (report.rules[r].ok ? "  holds   " : "  FAILS   ")
            + report.rules[r].reason + "\n";
    const auto& ddg = report.ddg;
    out += "\ndimension dependence graph (" + std::to_string(ddg.nodes.size()) + " nodes, "
        + std::to_string(ddg.edges.size()) + " edges):\n";
    for (std::size_t n = 0; n < ddg.nodes.size(); ++n)
        out += "  n" + std::to_string(n) + "  " + ddg.nodes[n].label() + "\n";
    for (const auto& e : ddg.edges)
        out += "  " + ddg.nodes[std::size_t(e.from)].label() + " -> " + ddg.nodes[std::size_t(e.to)].label()
            + "  (rule " + std::to_string(e.rule) + ")\n";
    out += "\ntopological order: ";
    if (report.topologicalOrder.empty() && !ddg.nodes.empty()) {
        out += "none (the graph has a cycle)\n";
    } else {
        for (std::size_t i = 0; i < report.topologicalOrder.size(); ++i)
            out += (i ? ", " : "") + ddg.nodes[std::size_t(report.topologicalOrder[i])].label();
        out += "\n";
    }
    out += "independent dimension variables:";
    if (report.independent.empty()) out += " none";
    out += "\n";
    for (const auto& d : report.independent) {
        out += "  " + d.tensor + " dim " + std::to_string(d.dim) + "  <- loop " + d.iterator;
        if (d.mergedIterators.size() > 1) out += "  (iterators merged into one loop)";
        out += "\n";
    }
    return out;
}

} // namespace marvel::conform
