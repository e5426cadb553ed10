#include "core/cost/problem.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/mdc/maestro_io.h"

namespace marvel::cost {

namespace {

constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();

std::int64_t saturatingMul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return kSaturated;
    return r;
}

std::int64_t effectiveWindow(std::int64_t taps, std::int64_t dilation)
{
    return taps <= 0 ? taps : (taps - 1) * dilation + 1;
}

[[noreturn]] void fail(const mdc::Layer& layer, const std::string& fileName, const std::string& message)
{
    Diagnostic d;
    d.file = fileName;
    d.loc = layer.loc;
    d.message = "layer '" + layer.name + "': " + message;
    throw InputError(std::move(d));
}

} // namespace

const ProblemDim* Problem::dim(std::string_view dimName) const
{
    for (const auto& d : dims)
        if (d.name == dimName) return &d;
    return nullptr;
}

const ProblemTensor* Problem::output() const
{
    for (const auto& t : tensors)
        if (t.role == ProblemTensor::Role::Output) return &t;
    return nullptr;
}

std::int64_t Problem::analyticMacs() const
{
    std::set<std::string> iteration;
    std::set<std::string> references;
    for (const auto& w : windows)
        references.insert(w.reference);
    for (const auto& t : tensors)
        for (const auto& d : t.dims)
            if (!references.count(d)) iteration.insert(d);
    for (const auto& w : windows) {
        iteration.insert(w.sliding);
        iteration.insert(w.output);
    }
    std::int64_t macs = 1;
    for (const auto& name : iteration) {
        const ProblemDim* d = dim(name);
        if (!d) return 0;
        std::int64_t extent = d->size;
        for (const auto& w : windows) {
            if (w.output != name || d->declared) continue;
            const ProblemDim* ref = dim(w.reference);
            const ProblemDim* slide = dim(w.sliding);
            if (!ref || !slide) return 0;
            std::int64_t span = effectiveWindow(slide->size, w.dilation);
            extent = ref->size < span ? 0 : (ref->size - span) / std::max<std::int64_t>(w.stride, 1) + 1;
        }
        macs = saturatingMul(macs, extent);
    }
    return macs;
}

std::int64_t Problem::declaredTensorElements(const ProblemTensor& tensor) const
{
    std::int64_t n = 1;
    for (const auto& name : tensor.dims) {
        std::string lookup = name;
        // The output lists window outputs; MAESTRO counts its output tensor over the reference names.
        for (const auto& w : windows)
            if (w.output == name && tensor.role == ProblemTensor::Role::Output) lookup = w.reference;
        const ProblemDim* d = dim(lookup);
        if (d && d->declared) n = saturatingMul(n, d->size);
    }
    return n;
}

std::vector<Diagnostic> Problem::validate() const
{
    std::vector<Diagnostic> out;
    auto add = [&](std::string field, std::string message) {
        Diagnostic d;
        d.file = file;
        d.loc = loc;
        d.field = std::move(field);
        d.message = (name.empty() ? std::string() : "'" + name + "': ") + std::move(message);
        out.push_back(std::move(d));
    };
    std::set<std::string> names;
    for (const auto& d : dims) {
        if (!names.insert(d.name).second) add("dims", "dimension '" + d.name + "' is declared twice");
        if (d.size < 1) add("dims." + d.name, "size must be at least 1");
        if (d.stride < 1) add("dims." + d.name, "stride must be at least 1");
        if (d.size > (std::int64_t(1) << 40)) add("dims." + d.name, "size is absurdly large");
    }
    int outputs = 0;
    int inputs = 0;
    for (const auto& t : tensors) {
        (t.role == ProblemTensor::Role::Output ? outputs : inputs)++;
        for (const auto& d : t.dims)
            if (!names.count(d)) add("tensors." + t.name, "dimension '" + d + "' is not declared");
    }
    if (outputs != 1) add("tensors", "exactly one output tensor is required");
    if (inputs < 1) add("tensors", "at least one input tensor is required");
    for (const auto& w : windows) {
        for (const auto* n : {&w.reference, &w.sliding, &w.output})
            if (!names.count(*n))
                add("windows", "dimension '" + *n + "' of a sliding window is not declared");
        if (w.stride < 1 || w.dilation < 1) add("windows", "window stride and dilation must be at least 1");
        for (const auto& t : tensors) {
            bool hasOut = std::find(t.dims.begin(), t.dims.end(), w.output) != t.dims.end();
            bool hasRef = std::find(t.dims.begin(), t.dims.end(), w.reference) != t.dims.end();
            if (t.role == ProblemTensor::Role::Input && hasOut)
                add("tensors." + t.name,
                    "input tensor indexed directly by window output dimension '" + w.output + "'");
            if (t.role == ProblemTensor::Role::Output && hasRef)
                add("tensors." + t.name,
                    "output tensor indexed by window reference dimension '" + w.reference + "'");
        }
    }
    return out;
}

Problem fromMaestroLayer(const mdc::Layer& layer, std::optional<bool> withBatch, const std::string& fileName)
{
    Problem p;
    p.name = layer.name;
    p.loc = layer.loc;
    p.file = fileName;
    std::string type = layer.type == "TRCONV" ? "CONV" : layer.type;
    p.type = type;
    if (type != "CONV" && type != "DSCONV" && type != "NGCONV" && type != "GEMM")
        fail(layer, fileName,
            "unsupported layer type '" + layer.type + "' (CONV, DSCONV, NGCONV, GEMM, TRCONV)");

    for (const auto& d : layer.dims) {
        if (p.dim(d.name)) continue; // MAESTRO: the first declaration wins
        if (d.size < 1) fail(layer, fileName, "dimension '" + d.name + "' must have a size of at least 1");
        if (d.stride < 1) fail(layer, fileName, "stride of '" + d.name + "' must be at least 1");
        if (d.dilation < 1) fail(layer, fileName, "dilation of '" + d.name + "' must be at least 1");
        p.dims.push_back({d.name, d.size, d.stride, true});
    }
    // A window's dilation sits on its declared input (Y) or output (Y') dimension, the first declared.
    auto dilationOf = [&](const char* ref, const char* out) {
        for (const auto& d : layer.dims)
            if (d.name == ref || d.name == out) return d.dilation;
        return std::int64_t{1};
    };
    bool batch = withBatch.value_or(p.dim("N") != nullptr);
    using Role = ProblemTensor::Role;
    std::vector<std::string> in, filter, outDims;
    if (type == "GEMM") {
        in = {"M", "K"};
        filter = {"K", "N"};
        outDims = {"M", "N"};
    } else if (type == "CONV") {
        in = {"C", "Y", "X"};
        filter = {"K", "C", "R", "S"};
        outDims = {"K", "Y'", "X'"};
    } else if (type == "DSCONV") {
        in = {"C", "Y", "X"};
        filter = {"C", "R", "S"};
        outDims = {"C", "Y'", "X'"};
    } else {
        in = {"G", "C", "Y", "X"};
        filter = {"G", "K", "C", "R", "S"};
        outDims = {"G", "K", "C", "Y'", "X'"};
    }
    if (batch && type != "GEMM") {
        in.insert(in.begin(), "N");
        outDims.insert(outDims.begin(), "N");
    }

    if (type != "GEMM") {
        if (!p.dim("R") || !p.dim("S")) fail(layer, fileName, "a convolution needs dimensions R and S");
        for (auto [ref, out] : {std::pair{"Y", "Y'"}, std::pair{"X", "X'"}}) {
            if (p.dim(ref) && p.dim(out))
                fail(layer, fileName,
                    std::string("both input- and output-centric sizes given for ") + ref + " and " + out);
            if (!p.dim(ref) && !p.dim(out))
                fail(layer, fileName, std::string("dimension ") + ref + " (or " + out + ") is missing");
        }
        for (auto [ref, slide, out, other] :
            {std::tuple{"X", "S", "X'", "Y'"}, std::tuple{"Y", "R", "Y'", "X'"}}) {
            // The input rows one output row reads: the taps spread by the dilation.
            std::int64_t w = effectiveWindow(p.dim(slide)->size, dilationOf(ref, out));
            if (const ProblemDim* r = p.dim(ref)) {
                // The derived output extent ignores the stride (MAESTRO quirk Q-PARSE-3).
                p.dims.push_back({out, r->size - w + 1, r->stride, false});
            } else {
                // The derived input extent takes the stride of the *other* primed dimension (Q-PARSE-3).
                const ProblemDim* oth = p.dim(other);
                p.dims.push_back({ref, p.dim(out)->size + w - 1, oth ? oth->stride : 1, false});
            }
        }
        p.windows.push_back({"Y", "R", "Y'", p.dim("Y")->stride, dilationOf("Y", "Y'")});
        p.windows.push_back({"X", "S", "X'", p.dim("X")->stride, dilationOf("X", "X'")});
    }
    for (const auto* list : {&in, &filter, &outDims})
        for (const auto& d : *list)
            if (!p.dim(d))
                fail(layer, fileName,
                    "dimension '" + d + "' is required by a " + type + " layer"
                        + (d == "N" ? " (batch coupling)" : ""));
    p.tensors.push_back({"input", in, Role::Input});
    p.tensors.push_back({"filter", filter, Role::Input});
    p.tensors.push_back({"output", outDims, Role::Output});
    std::set<std::string> iv(in.begin(), in.end());
    iv.insert(filter.begin(), filter.end());
    p.unrollOrder.assign(iv.begin(), iv.end()); // std::set orders std::string byte-wise, like MAESTRO
    return p;
}

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

std::optional<mdc::Layer> toMaestroLayer(const Problem& problem, const mdc::Dataflow& dataflow)
{
    if (!problem.validate().empty()) return std::nullopt;
    const ProblemTensor* out = problem.output();
    std::vector<const ProblemTensor*> inputs;
    for (const auto& t : problem.tensors)
        if (t.role == ProblemTensor::Role::Input) inputs.push_back(&t);
    if (inputs.size() != 2 || !out) return std::nullopt;

    std::map<std::string, std::string> rename;
    mdc::Layer layer;
    layer.name = problem.name;
    auto sizeOf = [&](const std::string& n) { return problem.dim(n)->size; };
    auto setOnce = [&](const std::string& from, const std::string& to) {
        auto it = rename.find(from);
        if (it != rename.end()) return it->second == to;
        for (const auto& [k, v] : rename)
            if (v == to) return false;
        rename[from] = to;
        return true;
    };

    if (problem.windows.empty() && (inputs[0]->dims.size() > 2 || inputs[1]->dims.size() > 2)) {
        // A point-wise convolution A[n][c][y][x] * W[k][c][r][s] (r, s of extent 1, or absent) ->
        // O[n][k][y][x]. fromOperator gives a strided 1x1 convolution this form too: its activation
        // subscripts a*y select exactly Y x X input elements, so the MAESTRO CONV with R = S = 1 over
        // that subsampled input (input Y/X = output Y/X, no Stride block) performs the same MACs on the
        // same distinct elements. The strided form would not: MAESTRO's stride rule for a filter
        // narrower than the stride (spec section 3.3 step 4) counts input rows the layer skips.
        const ProblemTensor* act = nullptr;
        const ProblemTensor* wgt = nullptr;
        std::vector<std::string> spatial;
        for (int i = 0; i < 2; ++i) {
            const ProblemTensor* t = inputs[static_cast<std::size_t>(i)];
            const ProblemTensor* u = inputs[static_cast<std::size_t>(1 - i)];
            std::vector<std::string> s;
            for (const auto& d : t->dims)
                if (contains(out->dims, d) && !contains(u->dims, d)) s.push_back(d);
            if (s.size() >= 2) {
                if (act) return std::nullopt;
                act = t, wgt = u, spatial = s;
            }
        }
        if (!act || spatial.size() > 3) return std::nullopt;
        const std::string y = spatial[spatial.size() - 2], x = spatial.back();
        const std::string n = spatial.size() == 3 ? spatial.front() : std::string();
        std::string c, k;
        std::vector<std::string> taps;
        for (const auto& d : act->dims)
            if (!contains(spatial, d)) {
                if (!c.empty() || !contains(wgt->dims, d) || contains(out->dims, d)) return std::nullopt;
                c = d;
            }
        for (const auto& d : wgt->dims) {
            if (d == c) continue;
            if (contains(out->dims, d) && !contains(act->dims, d) && k.empty())
                k = d;
            else if (!contains(out->dims, d) && !contains(act->dims, d) && sizeOf(d) == 1 && taps.size() < 2)
                taps.push_back(d);
            else
                return std::nullopt;
        }
        if (c.empty() || k.empty()) return std::nullopt;
        for (const auto& d : out->dims)
            if (d != k && d != y && d != x && d != n) return std::nullopt;
        if (out->dims.size() != spatial.size() + 1) return std::nullopt;
        if (!setOnce(y, "Y") || !setOnce(x, "X") || !setOnce(c, "C") || !setOnce(k, "K")
            || (!n.empty() && !setOnce(n, "N")))
            return std::nullopt;
        for (std::size_t i = 0; i < taps.size(); ++i)
            if (!setOnce(taps[i], i == 0 ? "R" : "S")) return std::nullopt;
        layer.type = "CONV";
        if (!n.empty()) layer.dims.push_back({"N", sizeOf(n), 1});
        layer.dims.push_back({"K", sizeOf(k), 1});
        layer.dims.push_back({"C", sizeOf(c), 1});
        layer.dims.push_back({"R", 1, 1});
        layer.dims.push_back({"S", 1, 1});
        layer.dims.push_back({"Y", sizeOf(y), 1});
        layer.dims.push_back({"X", sizeOf(x), 1});
    } else if (problem.windows.empty()) {
        // GEMM: A[m][k] * B[k][n] -> C[m][n]
        const auto& a = *inputs[0];
        const auto& b = *inputs[1];
        if (a.dims.size() != 2 || b.dims.size() != 2 || out->dims.size() != 2) return std::nullopt;
        std::vector<std::string> shared;
        for (const auto& d : a.dims)
            if (contains(b.dims, d) && !contains(out->dims, d)) shared.push_back(d);
        if (shared.size() != 1) return std::nullopt;
        std::string k = shared[0];
        std::string m = a.dims[0] == k ? a.dims[1] : a.dims[0];
        std::string n = b.dims[0] == k ? b.dims[1] : b.dims[0];
        if (!contains(out->dims, m) || !contains(out->dims, n) || m == n) return std::nullopt;
        if (!setOnce(m, "M") || !setOnce(n, "N") || !setOnce(k, "K")) return std::nullopt;
        layer.type = "GEMM";
        layer.dims = {{"M", sizeOf(m), 1}, {"N", sizeOf(n), 1}, {"K", sizeOf(k), 1}};
    } else {
        if (problem.windows.size() != 2) return std::nullopt;
        for (const auto& w : problem.windows)
            if (w.dilation != 1) return std::nullopt;
        const ProblemTensor* act = nullptr;
        const ProblemTensor* wgt = nullptr;
        for (const auto* t : inputs)
            (contains(t->dims, problem.windows[0].reference) ? act : wgt) = t;
        if (!act || !wgt || act == wgt) return std::nullopt;
        // Rows are the first window the activation subscripts use.
        auto pos = [&](const std::string& d) {
            return std::find(act->dims.begin(), act->dims.end(), d) - act->dims.begin();
        };
        const SlidingWindow* wy = &problem.windows[0];
        const SlidingWindow* wx = &problem.windows[1];
        if (!contains(act->dims, wx->reference)) return std::nullopt;
        if (pos(wx->reference) < pos(wy->reference)) std::swap(wy, wx);
        if (!setOnce(wy->reference, "Y") || !setOnce(wy->sliding, "R") || !setOnce(wy->output, "Y'")
            || !setOnce(wx->reference, "X") || !setOnce(wx->sliding, "S") || !setOnce(wx->output, "X'"))
            return std::nullopt;
        auto plain = [&](const ProblemTensor& t) {
            std::vector<std::string> r;
            for (const auto& d : t.dims)
                if (d != wy->reference && d != wx->reference && d != wy->sliding && d != wx->sliding
                    && d != wy->output && d != wx->output)
                    r.push_back(d);
            return r;
        };
        auto actP = plain(*act), wgtP = plain(*wgt), outP = plain(*out);
        if (!contains(wgt->dims, wy->sliding) || !contains(wgt->dims, wx->sliding)
            || !contains(out->dims, wy->output) || !contains(out->dims, wx->output))
            return std::nullopt;
        std::string n, c, k;
        for (const auto& d : actP) {
            if (contains(wgtP, d) && contains(outP, d) && c.empty())
                c = d, layer.type = "DSCONV";
            else if (contains(wgtP, d) && !contains(outP, d) && c.empty())
                c = d, layer.type = "CONV";
            else if (!contains(wgtP, d) && contains(outP, d) && n.empty())
                n = d;
            else
                return std::nullopt;
        }
        if (c.empty()) return std::nullopt;
        for (const auto& d : wgtP) {
            if (d == c) continue;
            if (layer.type == "CONV" && k.empty() && contains(outP, d) && !contains(actP, d))
                k = d;
            else
                return std::nullopt;
        }
        if (layer.type == "CONV" && k.empty()) return std::nullopt;
        for (const auto& d : outP)
            if (d != c && d != k && d != n) return std::nullopt;
        if (actP.size() != (n.empty() ? 1u : 2u) || outP.size() != (n.empty() ? 1u : 2u)) return std::nullopt;
        if (!setOnce(c, "C") || (!k.empty() && !setOnce(k, "K")) || (!n.empty() && !setOnce(n, "N")))
            return std::nullopt;
        if (!n.empty()) layer.dims.push_back({"N", sizeOf(n), 1});
        if (!k.empty()) layer.dims.push_back({"K", sizeOf(k), 1});
        layer.dims.push_back({"C", sizeOf(c), 1});
        layer.dims.push_back({"R", sizeOf(wy->sliding), 1});
        layer.dims.push_back({"S", sizeOf(wx->sliding), 1});
        layer.dims.push_back({"Y", sizeOf(wy->reference), wy->stride});
        layer.dims.push_back({"X", sizeOf(wx->reference), wx->stride});
    }
    for (const auto& d : dataflow) {
        mdc::Directive copy = d;
        if (d.kind != mdc::Directive::Kind::Cluster) {
            auto it = rename.find(d.dim);
            if (it == rename.end()) return std::nullopt;
            copy.dim = it->second;
        }
        layer.dataflow.push_back(copy);
    }
    return layer;
}

std::string maestroMappingFile(
    const std::string& networkName, const std::vector<NamedMapping>& layers, const std::string& fileName)
{
    mdc::Network network;
    network.name = networkName;
    std::string notes, leftOut;
    for (const NamedMapping& l : layers) {
        if (l.problem->vectorOps > 0) {
            leftOut += (leftOut.empty() ? "" : ", ") + l.name;
            continue;
        }
        std::optional<mdc::Layer> layer = toMaestroLayer(*l.problem, *l.dataflow);
        if (!layer) {
            Diagnostic d;
            d.file = fileName;
            const bool dilated = std::any_of(l.problem->windows.begin(), l.problem->windows.end(),
                [](const SlidingWindow& w) { return w.dilation != 1; });
            d.message = "layer '" + l.name + "' "
                + (dilated ? "is a dilated convolution, which MAESTRO's layer format cannot express"
                           : "has no MAESTRO layer type (CONV, DSCONV or GEMM) to export");
            throw InputError(d);
        }
        layer->name = l.name;
        network.layers.push_back(std::move(*layer));
        if (!l.note.empty()) notes += "// " + l.name + ": " + l.note + "\n";
    }
    if (network.layers.empty())
        throw InputError(Diagnostic{fileName, {}, "",
            "no layer to export: " + leftOut + (leftOut.find(',') == std::string::npos ? " is" : " are")
                + " not a matrix product, which MAESTRO's layer types (CONV, DSCONV, GEMM) cannot express"});
    if (!leftOut.empty())
        notes += "// Not in this file (not matrix products; no MAESTRO layer type expresses them): " + leftOut
            + ".\n";
    return notes + mdc::writeMaestroMapping(network);
}

} // namespace marvel::cost
