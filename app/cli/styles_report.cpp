#include "app/cli/styles_report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/search_report.h"

namespace marvel::cli {

namespace {

/// Totals and per-layer ratio products of one column (Marvel or a style) of the comparison.
struct CompareTotals
{
    std::int64_t runtime = 0;
    double energy = 0.0;
    double logRuntimeRatio = 0.0, logEnergyRatio = 0.0;
    int layers = 0; ///< layers where both Marvel and the style found a mapping
};

double ratio(double style, double marvel)
{
    return marvel > 0 ? style / marvel : 0.0;
}

/// Per style (allStyles order): totals over the layers every column mapped, and the log-ratio sums.
/// Marvel's totals are over the same layers.
std::pair<CompareTotals, std::vector<CompareTotals>> compareTotals(const std::vector<ComparedLayer>& layers)
{
    const std::size_t n = styles::allStyles().size();
    CompareTotals marvel;
    std::vector<CompareTotals> out(n);
    for (const ComparedLayer& l : layers) {
        if (!l.marvel.best) continue;
        bool all = l.styles.size() == n;
        for (const SearchedLayer& s : l.styles)
            all = all && s.best;
        const search::Metrics& m = l.marvel.best->metrics;
        const int repeat = l.marvel.layer.repeat;
        for (std::size_t i = 0; i < l.styles.size() && i < n; ++i) {
            if (!l.styles[i].best) continue;
            const search::Metrics& sm = l.styles[i].best->metrics;
            out[i].logRuntimeRatio
                += repeat * std::log(ratio(static_cast<double>(sm.runtime), static_cast<double>(m.runtime)));
            out[i].logEnergyRatio += repeat * std::log(ratio(sm.energy, m.energy));
            out[i].layers += repeat;
            if (all) {
                out[i].runtime += sm.runtime * repeat;
                out[i].energy += sm.energy * repeat;
            }
        }
        if (all) {
            marvel.runtime += m.runtime * repeat;
            marvel.energy += m.energy * repeat;
            marvel.layers += repeat;
        }
    }
    return {marvel, out};
}

double geomean(double logSum, int count)
{
    return count > 0 ? std::exp(logSum / count) : 0.0;
}

} // namespace

nlohmann::json compareStylesJson(const std::vector<ComparedLayer>& layers,
    const search::SearchOptions& options, double elapsed, const arch::Accelerator& acc)
{
    nlohmann::json out;
    out["objective"] = search::toString(options.objective);
    out["energy_unit"] = tech::physicalUnits(acc) ? "pJ" : "MAC units";
    out["technology"] = tech::describe(acc);
    // A figure in pJ of a total: the same conversion as each mapping's (energy_pj is linear in the parts).
    const double pjPerUnit = acc.energy.macEnergyNanojoule * 1e3;
    out["ratios"] = "style / marvel: above 1 where Marvel's mapping is better";
    nlohmann::json names = nlohmann::json::array();
    for (styles::Style st : styles::allStyles())
        names.push_back(styles::toString(st));
    out["styles"] = names;
    nlohmann::json array = nlohmann::json::array();
    for (const ComparedLayer& l : layers) {
        nlohmann::json j;
        j["name"] = l.marvel.layer.name;
        j["repeat"] = l.marvel.layer.repeat;
        j["roofline_cycles"] = l.marvel.roofline.cycles;
        if (!l.marvel.best) {
            j["marvel"] = {{"status", l.marvel.layer.ok() ? "not_mappable" : "error"}};
            array.push_back(std::move(j));
            continue;
        }
        const search::Metrics& m = l.marvel.best->metrics;
        j["marvel"] = {{"status", "ok"}, {"runtime_cycles", m.runtime}, {"energy", m.energy},
            {"mapping", mapping::toJson(l.marvel.best->mapping)}};
        addPhysicalJson(j["marvel"], physicalOf(m, acc));
        nlohmann::json st = nlohmann::json::object();
        for (const SearchedLayer& s : l.styles) {
            nlohmann::json e;
            if (!s.best) {
                const search::SearchStats& st = s.search.result.stats;
                e = {{"status", "not_mappable"},
                    {"smallest_requirement",
                        {{"l1_bytes_per_pe", st.minL1Bytes}, {"l2_bytes", st.minL2Bytes}}}};
            } else {
                const search::Metrics& sm = s.best->metrics;
                e = {{"status", "ok"}, {"runtime_cycles", sm.runtime}, {"energy", sm.energy},
                    {"runtime_ratio", ratio(static_cast<double>(sm.runtime), static_cast<double>(m.runtime))},
                    {"energy_ratio", ratio(sm.energy, m.energy)},
                    {"mapping", mapping::toJson(s.best->mapping)}};
                addPhysicalJson(e, physicalOf(sm, acc));
            }
            if (!s.convForm.empty()) e["conv_form"] = s.convForm;
            st[styles::toString(*s.style)] = std::move(e);
        }
        j["styles"] = std::move(st);
        array.push_back(std::move(j));
    }
    out["layers"] = std::move(array);
    const auto [marvel, totals] = compareTotals(layers);
    nlohmann::json total = {{"marvel",
                                {{"runtime_cycles", marvel.runtime}, {"energy", marvel.energy},
                                    {"energy_pj", marvel.energy * pjPerUnit}}},
        {"layers", marvel.layers}};
    nlohmann::json perStyle = nlohmann::json::object();
    for (std::size_t i = 0; i < totals.size(); ++i) {
        const CompareTotals& t = totals[i];
        perStyle[styles::toString(styles::allStyles()[i])]
            = {{"runtime_cycles", t.runtime}, {"energy", t.energy}, {"energy_pj", t.energy * pjPerUnit},
                {"runtime_ratio", ratio(static_cast<double>(t.runtime), static_cast<double>(marvel.runtime))},
                {"energy_ratio", ratio(t.energy, marvel.energy)},
                {"geomean_runtime_ratio", geomean(t.logRuntimeRatio, t.layers)},
                {"geomean_energy_ratio", geomean(t.logEnergyRatio, t.layers)}, {"geomean_layers", t.layers}};
    }
    total["styles"] = std::move(perStyle);
    out["total"] = std::move(total);
    out["elapsed_seconds"] = elapsed;
    return out;
}

std::string compareStylesText(const std::vector<ComparedLayer>& layers, const search::SearchOptions& options,
    double elapsed, const arch::Accelerator& acc)
{
    std::ostringstream os;
    os << "best " << search::toString(options.objective)
       << " mapping of Marvel and of each style; ratios are style / Marvel (above 1: Marvel is better)\n"
       << "energy in " << (tech::physicalUnits(acc) ? "pJ" : "MAC units") << " (" << tech::describe(acc)
       << ")\n";
    char line[256];
    auto header = [&] {
        std::snprintf(line, sizeof line, "   %-44s %16s %14s %10s %10s\n", "search", "runtime cycles",
            "energy", "runtime x", "energy x");
        os << line;
    };
    auto row = [&](const std::string& label, std::int64_t runtime, double energy, double rr, double er) {
        std::snprintf(line, sizeof line, "   %-44s %16lld %14.6g %10.3f %10.3f\n", label.c_str(),
            static_cast<long long>(runtime), energy, rr, er);
        os << line;
    };
    auto label = [](styles::Style s) { return styles::toString(s) + " (" + styles::description(s) + ")"; };
    for (const ComparedLayer& l : layers) {
        os << "== " << l.marvel.layer.name
           << (l.marvel.layer.repeat > 1 ? " (x" + std::to_string(l.marvel.layer.repeat) + ")"
                                         : std::string())
           << '\n';
        if (!l.marvel.best) {
            os << "   no mapping found by Marvel's search\n\n";
            continue;
        }
        header();
        const search::Metrics& m = l.marvel.best->metrics;
        row("marvel", m.runtime, m.energy, 1.0, 1.0);
        for (const SearchedLayer& s : l.styles) {
            if (!s.best) {
                os << "   " << label(*s.style) << ": "
                   << (s.search.result.notMappable() ? notMappableReason(s, acc) : "no mapping found")
                   << '\n';
                continue;
            }
            const search::Metrics& sm = s.best->metrics;
            row(label(*s.style), sm.runtime, sm.energy,
                ratio(static_cast<double>(sm.runtime), static_cast<double>(m.runtime)),
                ratio(sm.energy, m.energy));
            if (!s.convForm.empty()) os << "      searched in convolution form: " << s.convForm << '\n';
        }
        os << '\n';
    }
    const auto [marvel, totals] = compareTotals(layers);
    os << "== total over " << marvel.layers << " layer(s) (with repeats) that every search mapped\n";
    header();
    row("marvel", marvel.runtime, marvel.energy, 1.0, 1.0);
    for (std::size_t i = 0; i < totals.size(); ++i)
        row(label(styles::allStyles()[i]), totals[i].runtime, totals[i].energy,
            ratio(static_cast<double>(totals[i].runtime), static_cast<double>(marvel.runtime)),
            ratio(totals[i].energy, marvel.energy));
    os << "geometric mean of the per-layer ratios (runtime x, energy x):\n";
    for (std::size_t i = 0; i < totals.size(); ++i) {
        std::snprintf(line, sizeof line, "   %-44s %10.3f %10.3f\n", label(styles::allStyles()[i]).c_str(),
            geomean(totals[i].logRuntimeRatio, totals[i].layers),
            geomean(totals[i].logEnergyRatio, totals[i].layers));
        os << line;
    }
    os << "elapsed " << elapsed << " s\n";
    return os.str();
}

} // namespace marvel::cli
