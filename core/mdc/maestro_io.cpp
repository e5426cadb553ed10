#include "core/mdc/maestro_io.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "core/mdc/maestro_lexer.h"
#include "core/util/text_file.h"

namespace marvel::mdc {

namespace {

// Past this many problems the rest are usually consequences of the first ones.
constexpr std::size_t kMaxDiagnostics = 20;

// Thrown inside the parser when the token stream cannot be followed any further.
struct StopParsing
{ };

std::string inQuotes(std::string_view s)
{
    return "'" + std::string(s) + "'";
}

class Parser
{
public:
    Parser(std::string_view text, const std::string& fileName)
        : m_tokens(tokenizeMaestro(text))
        , m_file(fileName)
    {
        if (!m_tokens.empty()) {
            m_endLoc = m_tokens.back().loc;
            m_endLoc.column += static_cast<int>(m_tokens.back().text.size());
        }
    }

    Network parse()
    {
        try {
            while (!atEnd()) {
                const Token& t = next();
                if (t.text == "Constant")
                    parseConstant(t);
                else if (t.text == "Network")
                    parseNetwork(t);
                else if (t.text == "Accelerator")
                    skipAccelerator(t);
                // MAESTRO ignores every other top-level token; so do we.
            }
        } catch (const StopParsing&) { }
        if (m_diagnostics.empty() && m_network.layers.empty()) {
            // MAESTRO reads such a file as a network of nothing and prints nothing; it is a mistake.
            Diagnostic d;
            d.file = m_file;
            if (m_tokens.empty()) {
                d.loc = {1, 1};
                d.message
                    = "the file is empty: it holds no layer (expected Network NAME { Layer NAME { ... } })";
            } else if (m_networkLoc.line > 0) {
                d.loc = m_networkLoc;
                d.message = "the Network block holds no layer (expected Layer NAME { ... })";
            } else {
                d.loc = m_tokens.front().loc;
                d.message
                    = "the file holds no Network block and no layer (expected Network NAME { Layer NAME { "
                      "... } })";
            }
            m_diagnostics.push_back(std::move(d));
        }
        if (!m_diagnostics.empty()) throw InputError(std::move(m_diagnostics));
        return std::move(m_network);
    }

private:
    bool atEnd() const { return m_pos >= m_tokens.size(); }
    const Token& peek() const { return m_tokens[m_pos]; }
    const Token& next() { return m_tokens[m_pos++]; }

    void error(SourceLoc loc, std::string message)
    {
        Diagnostic d;
        d.file = m_file;
        d.loc = loc;
        d.message = std::move(message);
        m_diagnostics.push_back(std::move(d));
        if (m_diagnostics.size() >= kMaxDiagnostics) throw StopParsing{};
    }

    [[noreturn]] void fatal(SourceLoc loc, std::string message)
    {
        error(loc, std::move(message));
        throw StopParsing{};
    }

    /// The next token, or a fatal error at the end of the input saying what was expected.
    const Token& expectToken(std::string_view what, const Token& opener, std::string_view block)
    {
        if (atEnd())
            fatal(opener.loc,
                std::string(block) + " is not closed: end of file while expecting " + std::string(what));
        return next();
    }

    void expectOpenBrace(const Token& keyword)
    {
        const Token& t = expectToken("'{'", keyword, std::string(keyword.text));
        if (t.text != "{")
            fatal(t.loc,
                "expected '{' after " + std::string(keyword.text) + ", found " + inQuotes(t.text)
                    + (t.text.starts_with("{") ? " (braces must be separated by spaces)" : ""));
    }

    /// Names cannot hold braces: a brace glued to a word is a missing space, not part of a name.
    void checkName(const Token& t, std::string_view what)
    {
        if (t.text.find_first_of("{}") != std::string_view::npos)
            fatal(t.loc,
                "unexpected " + inQuotes(t.text) + " as " + std::string(what)
                    + " (braces must be separated by spaces)");
    }

    // Every token between the keyword and '{' is a name; the last one wins (as in MAESTRO).
    std::string parseNamesUntilBrace(const Token& keyword)
    {
        std::string name;
        for (;;) {
            const Token& t = expectToken("'{'", keyword, std::string(keyword.text));
            if (t.text == "{") return name;
            if (t.text == "}")
                fatal(t.loc, "expected '{' after " + std::string(keyword.text) + ", found '}'");
            checkName(t, std::string(keyword.text) + " name");
            name = std::string(t.text);
        }
    }

    void parseConstant(const Token& keyword)
    {
        const Token& name = expectToken("a constant name", keyword, "Constant");
        const Token& value = expectToken("a constant value", keyword, "Constant");
        const auto v = parseMaestroInteger(value.text);
        if (!v || value.afterMinus) {
            error(value.loc,
                "value of constant " + inQuotes(name.text) + " must be a non-negative integer, not "
                    + inQuotes(value.afterMinus ? "-" + std::string(value.text) : value.text));
            return;
        }
        m_constants[std::string(name.text)] = *v;
    }

    /// INT or a constant name; nullopt (with an error) otherwise. `what` names the value in messages.
    std::optional<std::int64_t> parseValue(const Token& t, const std::string& what)
    {
        if (t.afterMinus) {
            error(t.loc,
                what + " must not be negative (MAESTRO would silently read " + std::string(t.text) + ")");
            return std::nullopt;
        }
        if (auto v = parseMaestroInteger(t.text)) return v;
        if (const auto it = m_constants.find(t.text); it != m_constants.end()) return it->second;
        error(t.loc, what + " must be an integer or a declared constant, not " + inQuotes(t.text));
        return std::nullopt;
    }

    void parseNetwork(const Token& keyword)
    {
        if (m_networkLoc.line == 0) m_networkLoc = keyword.loc;
        std::string name = parseNamesUntilBrace(keyword);
        if (!name.empty()) m_network.name = name;
        for (;;) {
            const Token& t = expectToken("'}'", keyword, "Network block");
            if (t.text == "}") return;
            if (t.text == "Layer")
                parseLayer(t);
            else if (t.text == "Constant")
                parseConstant(t);
            else
                fatal(t.loc, "unexpected " + inQuotes(t.text) + " in Network block (expected Layer or '}')");
        }
    }

    void parseLayer(const Token& keyword)
    {
        Layer layer;
        layer.loc = keyword.loc;
        layer.name = parseNamesUntilBrace(keyword);
        const std::string block = "Layer " + inQuotes(layer.name);
        bool haveType = false;
        bool haveDimensions = false;
        bool haveDataflow = false;
        std::map<std::string, std::int64_t, std::less<>> strides;
        for (;;) {
            const Token& t = expectToken("'}'", keyword, block);
            if (t.text == "}") break;
            if (t.text == "Type") {
                const Token& type = expectToken("a layer type", keyword, block);
                if (haveType) error(t.loc, "layer " + inQuotes(layer.name) + " has more than one Type");
                haveType = true;
                parseType(type, layer);
            } else if (t.text == "Stride") {
                if (haveDimensions) error(t.loc, "Stride must come before Dimensions");
                parseStride(t, block, strides);
            } else if (t.text == "Dimensions") {
                parseDimensions(t, block, strides, layer);
                haveDimensions = true;
            } else if (t.text == "Dataflow") {
                if (haveDataflow)
                    error(t.loc, "layer " + inQuotes(layer.name) + " has more than one Dataflow block");
                haveDataflow = true;
                parseDataflow(t, block, layer);
            } else {
                fatal(t.loc,
                    "unexpected " + inQuotes(t.text) + " in " + block
                        + " (expected Type, Stride, Dimensions, Dataflow or '}')");
            }
        }
        if (!haveType) error(keyword.loc, "layer " + inQuotes(layer.name) + " has no Type");
        m_network.layers.push_back(std::move(layer));
    }

    void parseType(const Token& type, Layer& layer)
    {
        const std::string_view t = type.text;
        if (t == "CONV" || t == "DSCONV" || t == "NGCONV" || t == "GEMM")
            layer.type = std::string(t);
        else if (t == "TRCONV")
            layer.type = "CONV"; // MAESTRO never stores TRCONV's inner stride: it is a CONV
        else if (t == "FC" || t == "POOL" || t == "LSTM")
            error(type.loc, "layer type " + std::string(t) + " is not supported by the MDC cost model");
        else
            error(type.loc,
                "unknown layer type " + inQuotes(t) + " (expected CONV, DSCONV, NGCONV, GEMM or TRCONV)");
    }

    // `{ NAME VALUE ... }`, calling `entry` for each pair.
    template <typename Entry> void parsePairs(const Token& keyword, const std::string& block, Entry&& entry)
    {
        expectOpenBrace(keyword);
        const std::string what = std::string(keyword.text) + " block of " + block;
        for (;;) {
            const Token& name = expectToken("'}'", keyword, what);
            if (name.text == "}") return;
            if (name.text == "{") fatal(name.loc, "unexpected '{' in " + what);
            checkName(name, "a name in the " + what);
            const Token& value = expectToken("a value", keyword, what);
            if (value.text == "}" || value.text == "{")
                fatal(value.loc, "missing value for " + inQuotes(name.text) + " in " + what);
            entry(name, value);
        }
    }

    void parseStride(const Token& keyword, const std::string& block,
        std::map<std::string, std::int64_t, std::less<>>& strides)
    {
        parsePairs(keyword, block, [&](const Token& name, const Token& value) {
            const auto v = parseValue(value, "stride of " + std::string(name.text));
            if (!v) return;
            if (*v < 1)
                error(value.loc, "stride of " + std::string(name.text) + " must be at least 1");
            else
                strides[std::string(name.text)] = *v;
        });
    }

    void parseDimensions(const Token& keyword, const std::string& block,
        const std::map<std::string, std::int64_t, std::less<>>& strides, Layer& layer)
    {
        parsePairs(keyword, block, [&](const Token& name, const Token& value) {
            const auto v = parseValue(value, "size of dimension " + std::string(name.text));
            if (!v) return;
            if (*v < 1) {
                error(value.loc, "size of dimension " + std::string(name.text) + " must be at least 1");
                return;
            }
            const bool duplicate = std::any_of(
                layer.dims.begin(), layer.dims.end(), [&](const LayerDim& d) { return d.name == name.text; });
            if (duplicate) {
                error(name.loc, "dimension " + std::string(name.text) + " is declared twice");
                return;
            }
            LayerDim dim;
            dim.name = std::string(name.text);
            dim.size = *v;
            if (const auto it = strides.find(name.text); it != strides.end()) dim.stride = it->second;
            layer.dims.push_back(std::move(dim));
        });
    }

    /// SIZE := INT | CONSTNAME | Sz DIM, at least 1.
    std::optional<std::int64_t> parseSize(
        const Token& keyword, const std::string& block, const Layer& layer, const std::string& what)
    {
        const Token& t = expectToken("a size", keyword, block);
        if (t.text == "}" || t.text == "{" || t.text == ";")
            fatal(t.loc, "missing " + what + " in " + std::string(keyword.text));
        std::optional<std::int64_t> v;
        if (t.text == "Sz") {
            const Token& dim = expectToken("a dimension name after Sz", keyword, block);
            checkName(dim, "a dimension name");
            const auto it = std::find_if(
                layer.dims.begin(), layer.dims.end(), [&](const LayerDim& d) { return d.name == dim.text; });
            if (it == layer.dims.end()) {
                error(dim.loc,
                    "Sz(" + std::string(dim.text) + "): dimension " + std::string(dim.text)
                        + " is not declared in the Dimensions of layer " + inQuotes(layer.name)
                        + " before this point");
                return std::nullopt;
            }
            v = it->size;
        } else {
            v = parseValue(t, what);
            if (!v) return std::nullopt;
        }
        if (*v < 1) {
            error(t.loc, what + " must be at least 1");
            return std::nullopt;
        }
        return v;
    }

    void parseDataflow(const Token& keyword, const std::string& block, Layer& layer)
    {
        expectOpenBrace(keyword);
        const std::string what = "Dataflow block of " + block;
        for (;;) {
            const Token& t = expectToken("'}'", keyword, what);
            if (t.text == "}") return;
            parseDirective(t, what, layer);
        }
    }

    /// One TemporalMap, SpatialMap or Cluster directive starting at `t`, appended to layer.dataflow.
    void parseDirective(const Token& t, const std::string& what, Layer& layer)
    {
        if (t.text == "TemporalMap" || t.text == "SpatialMap") {
            Directive d;
            d.kind = t.text == "TemporalMap" ? Directive::Kind::TemporalMap : Directive::Kind::SpatialMap;
            d.loc = t.loc;
            const auto size = parseSize(t, what, layer, "map size");
            const auto offset = parseSize(t, what, layer, "map offset");
            const Token& dim = expectToken("a dimension name", t, what);
            if (dim.text == "}" || dim.text == "{")
                fatal(dim.loc, "missing dimension name after " + std::string(t.text));
            checkName(dim, "a dimension name");
            if (!size || !offset) return;
            d.size = *size;
            d.offset = *offset;
            d.dim = std::string(dim.text);
            layer.dataflow.push_back(std::move(d));
        } else if (t.text == "Cluster") {
            Directive d;
            d.kind = Directive::Kind::Cluster;
            d.loc = t.loc;
            const auto size = parseSize(t, what, layer, "cluster size");
            const Token& type = expectToken("a cluster type", t, what);
            if (type.text != "P" && type.text != "L") {
                if (type.text == "}") fatal(type.loc, "missing cluster type (P or L) in Cluster");
                error(type.loc, "cluster type must be P or L, not " + inQuotes(type.text));
                return;
            }
            if (!size) return;
            d.size = *size;
            layer.dataflow.push_back(std::move(d));
        } else {
            fatal(t.loc,
                "unknown directive " + inQuotes(t.text) + " in " + what
                    + " (expected TemporalMap, SpatialMap, Cluster or '}')");
        }
    }

public:
    /// A bare directive list (no Network or Layer around it) over the dimensions `dims`.
    Dataflow parseDirectives(const std::vector<LayerDim>& dims)
    {
        Layer layer;
        layer.name = "directives";
        layer.dims = dims;
        try {
            while (!atEnd())
                parseDirective(next(), "the directives", layer);
        } catch (const StopParsing&) { }
        if (!m_diagnostics.empty()) throw InputError(std::move(m_diagnostics));
        return std::move(layer.dataflow);
    }

private:
    // The block's contents are never used by the analysis; only its braces matter.
    void skipAccelerator(const Token& keyword)
    {
        int depth = 0;
        bool opened = false;
        while (!atEnd()) {
            const Token& t = next();
            for (char c : t.text) {
                if (c == '{') {
                    ++depth;
                    opened = true;
                } else if (c == '}') {
                    --depth;
                }
            }
            if (opened && depth <= 0) return;
        }
        fatal(keyword.loc, "Accelerator block is not closed: missing '}'");
    }

    std::vector<Token> m_tokens;
    std::size_t m_pos = 0;
    std::string m_file;
    SourceLoc m_endLoc;
    SourceLoc m_networkLoc; ///< the first Network keyword
    std::map<std::string, std::int64_t, std::less<>> m_constants;
    Network m_network;
    std::vector<Diagnostic> m_diagnostics;
};

std::string tokenSafe(const std::string& name)
{
    std::string out = name;
    for (char& c : out)
        if (isMaestroSeparator(c) || c == '\n' || c == '{' || c == '}') c = '_';
    if (out.starts_with("//")) out[0] = '_';
    return out;
}

} // namespace

Network readMaestroMapping(std::string_view text, const std::string& fileName)
{
    return Parser(text, fileName).parse();
}

Dataflow readDirectives(std::string_view text, const std::vector<LayerDim>& dims, const std::string& fileName)
{
    return Parser(text, fileName).parseDirectives(dims);
}

Network readMaestroMappingFile(const std::string& path)
{
    return readMaestroMapping(readTextFile(path), path);
}

std::string writeMaestroMapping(const Network& network, const std::string& fileName)
{
    for (const Layer& layer : network.layers)
        for (const LayerDim& d : layer.dims)
            if (d.dilation != 1)
                throw InputError(Diagnostic{fileName, {}, "",
                    "layer '" + layer.name + "' is a dilated convolution (dilation "
                        + std::to_string(d.dilation) + " on " + d.name
                        + "), which MAESTRO's layer format cannot express"});
    std::ostringstream out;
    // An empty name is written as no name at all, which reads back as empty.
    auto named = [](const std::string& name) { return name.empty() ? std::string() : tokenSafe(name) + " "; };
    out << "Network " << named(network.name) << "{\n";
    for (const Layer& layer : network.layers) {
        out << "\tLayer " << named(layer.name) << "{\n";
        out << "\t\tType: " << layer.type << "\n";
        bool anyStride = false;
        for (const LayerDim& d : layer.dims)
            anyStride = anyStride || d.stride != 1;
        if (anyStride) {
            out << "\t\tStride {";
            const char* sep = " ";
            for (const LayerDim& d : layer.dims) {
                if (d.stride == 1) continue;
                out << sep << tokenSafe(d.name) << ": " << d.stride;
                sep = ", ";
            }
            out << " }\n";
        }
        out << "\t\tDimensions {";
        const char* sep = " ";
        for (const LayerDim& d : layer.dims) {
            out << sep << tokenSafe(d.name) << ": " << d.size;
            sep = ", ";
        }
        out << " }\n";
        if (!layer.dataflow.empty()) {
            out << "\t\tDataflow {\n";
            for (const Directive& d : layer.dataflow) {
                out << "\t\t\t";
                switch (d.kind) {
                case Directive::Kind::TemporalMap:
                    out << "TemporalMap(" << d.size << "," << d.offset << ") " << tokenSafe(d.dim) << ";\n";
                    break;
                case Directive::Kind::SpatialMap:
                    out << "SpatialMap(" << d.size << "," << d.offset << ") " << tokenSafe(d.dim) << ";\n";
                    break;
                case Directive::Kind::Cluster:
                    out << "Cluster(" << d.size << ",P);\n";
                    break;
                }
            }
            out << "\t\t}\n";
        }
        out << "\t}\n";
    }
    out << "}\n";
    return out.str();
}

namespace {

struct TypeRule
{
    std::string_view type;
    std::vector<std::string_view> required; ///< besides Y/X (or Y'/X') for convolutions
    std::vector<std::string_view> inputVariables; ///< IV without N (spec §2.3)
    bool convolution;
};

const TypeRule* ruleFor(std::string_view type)
{
    static const std::vector<TypeRule> rules{
        {"CONV", {"K", "C", "R", "S"}, {"C", "K", "R", "S", "X", "Y"}, true},
        {"DSCONV", {"C", "R", "S"}, {"C", "R", "S", "X", "Y"}, true},
        {"NGCONV", {"G", "K", "C", "R", "S"}, {"C", "G", "K", "R", "S", "X", "Y"}, true},
        {"GEMM", {"M", "N", "K"}, {"K", "M", "N"}, false},
    };
    for (const auto& r : rules)
        if (r.type == type) return &r;
    return nullptr;
}

} // namespace

std::vector<Diagnostic> checkMaestroRules(const Layer& layer, const std::string& file)
{
    std::vector<Diagnostic> out;
    const std::string layerName = inQuotes(layer.name);
    auto add = [&](SourceLoc loc, std::string message) {
        Diagnostic d;
        d.file = file;
        d.loc = loc;
        d.message = std::move(message);
        out.push_back(std::move(d));
    };
    auto declared = [&](std::string_view name) -> const LayerDim* {
        for (const auto& d : layer.dims)
            if (d.name == name) return &d;
        return nullptr;
    };

    const TypeRule* rule = ruleFor(layer.type);
    if (!rule) {
        add(layer.loc,
            "layer " + layerName + ": layer type " + inQuotes(layer.type)
                + " is not supported by the MDC cost model");
        return out;
    }

    // Dimensions the type needs; convolutions accept the input (Y, X) or the output (Y', X') size.
    for (auto name : rule->required)
        if (!declared(name))
            add(layer.loc,
                "layer " + layerName + " (" + layer.type + ") does not declare dimension "
                    + std::string(name));
    if (rule->convolution) {
        for (std::string_view axis : {"Y", "X"}) {
            const std::string primed = std::string(axis) + "'";
            const bool in = declared(axis) != nullptr;
            const bool outp = declared(primed) != nullptr;
            if (in && outp)
                add(layer.loc,
                    "layer " + layerName + " declares both " + std::string(axis) + " and " + primed
                        + " (give the input or the output size, not both)");
            else if (!in && !outp)
                add(layer.loc,
                    "layer " + layerName + " declares neither " + std::string(axis) + " nor " + primed);
        }
    }
    std::set<std::string, std::less<>> known;
    for (const auto& d : layer.dims)
        known.insert(d.name);
    if (rule->convolution)
        for (std::string_view name : {"Y", "X", "Y'", "X'"})
            known.insert(std::string(name));
    std::set<std::string, std::less<>> inputVariables(
        rule->inputVariables.begin(), rule->inputVariables.end());
    if (declared("N")) inputVariables.insert("N");

    if (layer.dataflow.empty()) {
        add(layer.loc, "layer " + layerName + " has no Dataflow block (MAESTRO needs one in every layer)");
        return out;
    }

    // Split into cluster levels; a Cluster directive closes the level above it.
    std::vector<std::vector<const Directive*>> levels(1);
    int clusters = 0;
    for (const Directive& d : layer.dataflow) {
        if (d.kind == Directive::Kind::Cluster) {
            if (++clusters == 4)
                add(d.loc, "more than 3 Cluster directives (MAESTRO supports at most 4 cluster levels)");
            levels.emplace_back();
        } else {
            levels.back().push_back(&d);
        }
    }

    for (std::size_t level = 0; level < levels.size(); ++level) {
        const auto& directives = levels[level];
        int spatial = 0;
        bool mapsR = false;
        bool mapsS = false;
        bool mapsY = false;
        bool mapsX = false;
        SourceLoc thirdSpatial;
        for (const Directive* d : directives) {
            if (d->kind == Directive::Kind::SpatialMap && ++spatial == 3) thirdSpatial = d->loc;
            mapsR = mapsR || d->dim == "R";
            mapsY = mapsY || d->dim == "Y";
            mapsX = mapsX || d->dim == "X";
            mapsS = mapsS || d->dim == "S";
        }
        const SourceLoc levelLoc = directives.empty() ? layer.loc : directives.front()->loc;
        const std::string levelName = "cluster level " + std::to_string(level);
        if (spatial == 0)
            add(levelLoc, levelName + " of layer " + layerName + " has no SpatialMap");
        else if (spatial > 2)
            add(thirdSpatial, levelName + " of layer " + layerName + " has more than two SpatialMaps");

        for (const Directive* d : directives) {
            if (!known.count(d->dim)) {
                add(d->loc, "directive on " + d->dim + ", which layer " + layerName + " does not declare");
                continue;
            }
            // Inner levels only know the input-tensor variables; Y'/X' are renamed to Y/X first (§3.3).
            const bool primed = d->dim == "Y'" || d->dim == "X'";
            if (level > 0 && !primed && !inputVariables.count(d->dim))
                add(d->loc,
                    "directive on " + d->dim + " in an inner cluster level (MAESTRO only maps the input "
                        + "and filter dimensions there)");
            if (d->kind == Directive::Kind::TemporalMap && (d->dim == "R" || d->dim == "S")) {
                if (const LayerDim* full = declared(d->dim);
                    full && (d->size != full->size || d->offset != full->size))
                    add(d->loc,
                        "TemporalMap on " + d->dim
                            + " must cover the whole filter: size and offset must both be "
                            + std::to_string(full->size) + " (MAESTRO rejects TemporalMap("
                            + std::to_string(d->size) + "," + std::to_string(d->offset) + ") " + d->dim
                            + ")");
            }
            if ((d->dim == "Y'" && mapsY) || (d->dim == "X'" && mapsX))
                add(d->loc,
                    levelName + " of layer " + layerName + " maps both " + d->dim.substr(0, 1) + " and "
                        + d->dim);
            if ((d->dim == "Y'" && !mapsR) || (d->dim == "X'" && !mapsS))
                add(d->loc,
                    d->dim + " is mapped in a cluster level without a directive on "
                        + (d->dim == "Y'" ? "R" : "S") + " (MAESTRO's result would be undefined)");
        }
    }
    return out;
}

} // namespace marvel::mdc
