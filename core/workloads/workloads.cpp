#include "core/workloads/workloads.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/search/roofline.h"
#include "core/util/checked_math.h"
#include "core/util/json_text.h"
#include "core/util/text_file.h"
#include "core/workloads/transformer.h"
#include "core/workloads/transformer_models.h"

namespace marvel::workloads {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (auto& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string subscript(const char* it, const char* filterIt, std::int64_t stride, std::int64_t dilation)
{
    std::string s = stride == 1 ? std::string(it) : std::to_string(stride) + " * " + it;
    return s + " + " + (dilation == 1 ? std::string(filterIt) : std::to_string(dilation) + " * " + filterIt);
}

std::string header(const std::string& name, const std::vector<std::pair<const char*, std::int64_t>>& sizes)
{
    std::string out = "operator " + name + "(";
    for (std::size_t i = 0; i < sizes.size(); ++i)
        out += (i ? ", " : "") + std::string(sizes[i].first) + " = " + std::to_string(sizes[i].second);
    return out + ") {\n";
}

std::string loops(const std::vector<std::pair<const char*, const char*>>& itBound)
{
    std::string out;
    std::string indent = "  ";
    for (const auto& [it, bound] : itBound) {
        out += indent + "for (int " + it + " = 0; " + it + " < " + bound + "; " + it + "++)\n";
        indent += "  ";
    }
    return out + indent;
}

ir::Operator parse(const std::string& text, const std::string& layerName)
{
    return ir::parseOperator(text, "<workload layer " + layerName + ">");
}

mdc::LayerDim dim(const char* name, std::int64_t size, std::int64_t stride = 1, std::int64_t dilation = 1)
{
    return mdc::LayerDim{name, size, stride, dilation};
}

const mdc::LayerDim* findDim(const mdc::Layer& layer, std::string_view name)
{
    for (const auto& d : layer.dims)
        if (d.name == name) return &d;
    return nullptr;
}

std::int64_t dimSize(const mdc::Layer& layer, std::string_view name, std::int64_t fallback)
{
    const auto* d = findDim(layer, name);
    return d ? d->size : fallback;
}

// Output rows of a MAESTRO conv dimension: Y' when given, else (Y - (R - 1) * dilation - 1) / stride + 1.
std::int64_t outputSize(const mdc::Layer& layer, const char* in, const char* out, const char* filter)
{
    if (const auto* o = findDim(layer, out)) return o->size;
    const auto* i = findDim(layer, in);
    if (!i) return 0;
    const std::int64_t taps = dimSize(layer, filter, 1);
    const std::int64_t r
        = taps < 1 ? taps : saturatingAdd(saturatingMul(taps - 1, std::max<std::int64_t>(i->dilation, 1)), 1);
    std::int64_t stride = std::max<std::int64_t>(i->stride, 1);
    return i->size < r ? 0 : (i->size - r) / stride + 1;
}

std::int64_t strideOf(const mdc::Layer& layer, const char* in)
{
    const auto* d = findDim(layer, in);
    return d ? std::max<std::int64_t>(d->stride, 1) : 1;
}

std::int64_t dilationOf(const mdc::Layer& layer, const char* in)
{
    const auto* d = findDim(layer, in);
    return d ? std::max<std::int64_t>(d->dilation, 1) : 1;
}

} // namespace

std::string conv2dLoopText(std::int64_t K, std::int64_t C, std::int64_t Y, std::int64_t X, std::int64_t R,
    std::int64_t S, std::int64_t strideY, std::int64_t strideX, std::int64_t batch, std::int64_t dilationY,
    std::int64_t dilationX)
{
    bool batched = batch > 1;
    std::vector<std::pair<const char*, std::int64_t>> sizes;
    if (batched) sizes.push_back({"N", batch});
    for (auto s : std::vector<std::pair<const char*, std::int64_t>>{
             {"K", K}, {"C", C}, {"Y", Y}, {"X", X}, {"R", R}, {"S", S}})
        sizes.push_back(s);
    std::vector<std::pair<const char*, const char*>> nest;
    if (batched) nest.push_back({"n", "N"});
    for (auto l : std::vector<std::pair<const char*, const char*>>{
             {"k", "K"}, {"c", "C"}, {"y", "Y"}, {"x", "X"}, {"r", "R"}, {"s", "S"}})
        nest.push_back(l);
    std::string n = batched ? "[n]" : "";
    const char* opName = dilationY != 1 || dilationX != 1 ? "conv2d_dilated"
        : strideY == 1 && strideX == 1                    ? "conv2d"
                                                          : "conv2d_strided";
    return header(opName, sizes) + loops(nest) + "O" + n + "[k][y][x] += W[k][c][r][s] * I" + n + "[c]["
        + subscript("y", "r", strideY, dilationY) + "][" + subscript("x", "s", strideX, dilationX)
        + "];\n}\n";
}

std::string depthwiseLoopText(std::int64_t C, std::int64_t Y, std::int64_t X, std::int64_t R, std::int64_t S,
    std::int64_t strideY, std::int64_t strideX, std::int64_t batch, std::int64_t dilationY,
    std::int64_t dilationX)
{
    bool batched = batch > 1;
    std::vector<std::pair<const char*, std::int64_t>> sizes;
    if (batched) sizes.push_back({"N", batch});
    for (auto s :
        std::vector<std::pair<const char*, std::int64_t>>{{"C", C}, {"Y", Y}, {"X", X}, {"R", R}, {"S", S}})
        sizes.push_back(s);
    std::vector<std::pair<const char*, const char*>> nest;
    if (batched) nest.push_back({"n", "N"});
    for (auto l : std::vector<std::pair<const char*, const char*>>{
             {"c", "C"}, {"y", "Y"}, {"x", "X"}, {"r", "R"}, {"s", "S"}})
        nest.push_back(l);
    std::string n = batched ? "[n]" : "";
    return header("conv2d_depthwise", sizes) + loops(nest) + "O" + n + "[c][y][x] += W[c][r][s] * I" + n
        + "[c][" + subscript("y", "r", strideY, dilationY) + "][" + subscript("x", "s", strideX, dilationX)
        + "];\n}\n";
}

std::string gemmLoopText(std::int64_t M, std::int64_t N, std::int64_t K)
{
    return header("gemm", {{"M", M}, {"N", N}, {"K", K}}) + loops({{"m", "M"}, {"n", "N"}, {"k", "K"}})
        + "C[m][n] += A[m][k] * B[k][n];\n}\n";
}

WorkloadLayer convLayer(const std::string& name, std::int64_t K, std::int64_t C, std::int64_t Y,
    std::int64_t X, std::int64_t R, std::int64_t S, std::int64_t stride, std::int64_t dilation)
{
    WorkloadLayer l;
    l.name = name;
    l.maestro.name = name;
    l.maestro.type = "CONV";
    l.kind = LayerKind::Conv;
    l.maestro.dims = {dim("K", K), dim("C", C), dim("R", R), dim("S", S),
        dim("Y", (Y - 1) * stride + (R - 1) * dilation + 1, stride, dilation),
        dim("X", (X - 1) * stride + (S - 1) * dilation + 1, stride, dilation)};
    l.op = parse(conv2dLoopText(K, C, Y, X, R, S, stride, stride, 1, dilation, dilation), name);
    return l;
}

WorkloadLayer depthwiseLayer(const std::string& name, std::int64_t C, std::int64_t Y, std::int64_t X,
    std::int64_t R, std::int64_t S, std::int64_t stride, std::int64_t dilation)
{
    WorkloadLayer l;
    l.name = name;
    l.maestro.name = name;
    l.maestro.type = "DSCONV";
    l.kind = LayerKind::Depthwise;
    l.maestro.dims = {dim("K", 1), dim("C", C), dim("R", R), dim("S", S),
        dim("Y", (Y - 1) * stride + (R - 1) * dilation + 1, stride, dilation),
        dim("X", (X - 1) * stride + (S - 1) * dilation + 1, stride, dilation)};
    l.op = parse(depthwiseLoopText(C, Y, X, R, S, stride, stride, 1, dilation, dilation), name);
    return l;
}

WorkloadLayer gemmLayer(const std::string& name, std::int64_t M, std::int64_t N, std::int64_t K)
{
    WorkloadLayer l;
    l.name = name;
    l.maestro.name = name;
    l.maestro.type = "GEMM";
    l.kind = LayerKind::Gemm;
    l.maestro.dims = {dim("M", M), dim("N", N), dim("K", K)};
    l.op = parse(gemmLoopText(M, N, K), name);
    return l;
}

const char* toString(LayerKind kind)
{
    switch (kind) {
    case LayerKind::Conv:
        return "conv";
    case LayerKind::Depthwise:
        return "dsconv";
    case LayerKind::Gemm:
        return "gemm";
    case LayerKind::Attention:
        return "attention";
    case LayerKind::Softmax:
        return "softmax";
    case LayerKind::Norm:
        return "norm";
    case LayerKind::Activation:
        return "activation";
    case LayerKind::Elementwise:
        return "elementwise";
    case LayerKind::Operator:
        return "operator";
    }
    return "operator";
}

bool isMatrixProduct(LayerKind kind)
{
    return kind == LayerKind::Conv || kind == LayerKind::Depthwise || kind == LayerKind::Gemm
        || kind == LayerKind::Attention;
}

const char* toString(Phase phase)
{
    return phase == Phase::Decode ? "decode" : "prefill";
}

LayerKind WorkloadLayer::effectiveKind() const
{
    if (kind != LayerKind::Operator) return kind;
    if (maestro.type == "CONV") return LayerKind::Conv;
    if (maestro.type == "DSCONV") return LayerKind::Depthwise;
    if (maestro.type == "GEMM") return LayerKind::Gemm;
    return LayerKind::Operator;
}

std::int64_t maestroMacs(const mdc::Layer& layer)
{
    // Saturating: a MAESTRO dimension may be any int64, and the product must not wrap.
    std::int64_t n = dimSize(layer, "N", 1);
    if (layer.type == "GEMM")
        return saturatingMul(
            saturatingMul(dimSize(layer, "M", 1), dimSize(layer, "N", 1)), dimSize(layer, "K", 1));
    if (layer.type != "CONV" && layer.type != "DSCONV") return 0;
    const std::int64_t spatial = saturatingMul(std::max<std::int64_t>(outputSize(layer, "Y", "Y'", "R"), 0),
        std::max<std::int64_t>(outputSize(layer, "X", "X'", "S"), 0));
    std::int64_t common = n;
    for (std::int64_t f : {dimSize(layer, "C", 1), dimSize(layer, "R", 1), dimSize(layer, "S", 1), spatial})
        common = saturatingMul(common, f);
    return layer.type == "CONV" ? saturatingMul(common, dimSize(layer, "K", 1)) : common;
}

std::int64_t operatorMacs(const ir::Operator& op)
{
    auto nest = ir::perfectNest(op);
    if (!nest) return 0;
    return search::iterationCount(*nest, op.sizes) * std::int64_t(nest->statements.size());
}

std::int64_t Workload::layerCount() const
{
    std::int64_t n = 0;
    for (const auto& l : layers)
        if (l.ok()) n += l.repeat;
    return n;
}

std::int64_t Workload::totalMacs() const
{
    std::int64_t total = 0;
    for (const auto& l : layers)
        if (l.ok() && (isMatrixProduct(l.effectiveKind()) || l.effectiveKind() == LayerKind::Operator))
            total = saturatingAdd(total,
                saturatingMul(std::int64_t(l.repeat),
                    l.maestro.type.empty() ? operatorMacs(l.op) : maestroMacs(l.maestro)));
    return total;
}

bool sameOperator(const ir::Operator& a, const ir::Operator& b)
{
    if (a.name != b.name || a.sizes.size() != b.sizes.size()) return false;
    for (std::size_t i = 0; i < a.sizes.size(); ++i)
        if (a.sizes[i].name != b.sizes[i].name || a.sizes[i].value != b.sizes[i].value) return false;
    const auto na = ir::perfectNest(a), nb = ir::perfectNest(b);
    if (!na || !nb || na->loops.size() != nb->loops.size() || na->statements.size() != nb->statements.size())
        return false;
    for (std::size_t i = 0; i < na->loops.size(); ++i)
        if (na->loops[i].iterator != nb->loops[i].iterator || na->loops[i].lower != nb->loops[i].lower
            || na->loops[i].upper != nb->loops[i].upper)
            return false;
    for (std::size_t i = 0; i < na->statements.size(); ++i)
        if (na->statements[i].text != nb->statements[i].text) return false;
    return true;
}

namespace { } // namespace

std::vector<WorkloadLayer> mergeRepeats(std::vector<WorkloadLayer> layers)
{
    std::vector<WorkloadLayer> out;
    for (auto& l : layers) {
        auto same = std::find_if(out.begin(), out.end(), [&](const WorkloadLayer& o) {
            if (!l.ok() || !o.ok() || o.effectiveKind() != l.effectiveKind()) return false;
            if (l.maestro.type.empty()) return o.maestro.type.empty() && sameOperator(o.op, l.op);
            return o.maestro.type == l.maestro.type && o.maestro.dims == l.maestro.dims;
        });
        if (same != out.end()) {
            same->repeat += l.repeat;
            same->sources.insert(same->sources.end(), l.sources.begin(), l.sources.end());
        } else
            out.push_back(std::move(l));
    }
    return out;
}

namespace {

Workload alexnet()
{
    // Y, X below are output sizes: 227 -> 55 (stride 4), 31 -> 27, 15 -> 13 (README section 4).
    return {"alexnet",
        {convLayer("CONV1", 96, 3, 55, 55, 11, 11, 4), convLayer("CONV2", 256, 48, 27, 27, 5, 5),
            convLayer("CONV3", 384, 256, 13, 13, 3, 3), convLayer("CONV4", 384, 192, 13, 13, 3, 3),
            convLayer("CONV5", 256, 192, 13, 13, 3, 3)}};
}

Workload vgg16()
{
    struct Row
    {
        const char* name;
        std::int64_t k, c, size;
    };
    const Row rows[] = {{"CONV1_1", 64, 3, 224}, {"CONV1_2", 64, 64, 224}, {"CONV2_1", 128, 64, 112},
        {"CONV2_2", 128, 128, 112}, {"CONV3_1", 256, 128, 56}, {"CONV3_2", 256, 256, 56},
        {"CONV3_3", 256, 256, 56}, {"CONV4_1", 512, 256, 28}, {"CONV4_2", 512, 512, 28},
        {"CONV4_3", 512, 512, 28}, {"CONV5_1", 512, 512, 14}, {"CONV5_2", 512, 512, 14},
        {"CONV5_3", 512, 512, 14}};
    std::vector<WorkloadLayer> layers;
    for (const auto& r : rows)
        layers.push_back(convLayer(r.name, r.k, r.c, r.size, r.size, 3, 3));
    return {"vgg16", mergeRepeats(std::move(layers))};
}

Workload resnet50()
{
    std::vector<WorkloadLayer> layers;
    layers.push_back(convLayer("conv1", 64, 3, 112, 112, 7, 7, 2));
    struct Stage
    {
        int index, blocks;
        std::int64_t mid, out, size, stride;
    };
    const Stage stages[] = {
        {2, 3, 64, 256, 56, 1}, {3, 4, 128, 512, 28, 2}, {4, 6, 256, 1024, 14, 2}, {5, 3, 512, 2048, 7, 2}};
    std::int64_t channels = 64;
    for (const auto& st : stages) {
        for (int b = 0; b < st.blocks; ++b) {
            std::string prefix = "res" + std::to_string(st.index) + char('a' + b) + "_branch";
            std::int64_t stride = b == 0 ? st.stride : 1;
            layers.push_back(convLayer(prefix + "2a", st.mid, channels, st.size, st.size, 1, 1, stride));
            layers.push_back(convLayer(prefix + "2b", st.mid, st.mid, st.size, st.size, 3, 3));
            layers.push_back(convLayer(prefix + "2c", st.out, st.mid, st.size, st.size, 1, 1));
            if (b == 0)
                layers.push_back(convLayer(prefix + "1", st.out, channels, st.size, st.size, 1, 1, stride));
            channels = st.out;
        }
    }
    return {"resnet50", mergeRepeats(std::move(layers))};
}

Workload mobilenetv2()
{
    std::vector<WorkloadLayer> layers;
    layers.push_back(convLayer("conv1", 32, 3, 112, 112, 3, 3, 2));
    struct Stage
    {
        std::int64_t t, c, n, s;
    };
    const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1},
        {6, 160, 3, 2}, {6, 320, 1, 1}};
    std::int64_t channels = 32, size = 112;
    int block = 0;
    for (const auto& st : stages) {
        for (std::int64_t i = 0; i < st.n; ++i) {
            std::string prefix = "b" + std::to_string(++block) + "_";
            std::int64_t stride = i == 0 ? st.s : 1;
            std::int64_t hidden = channels * st.t;
            std::int64_t out = size / stride;
            if (st.t != 1) layers.push_back(convLayer(prefix + "expand", hidden, channels, size, size, 1, 1));
            layers.push_back(depthwiseLayer(prefix + "dw", hidden, out, out, 3, 3, stride));
            layers.push_back(convLayer(prefix + "project", st.c, hidden, out, out, 1, 1));
            channels = st.c;
            size = out;
        }
    }
    layers.push_back(convLayer("conv_last", 1280, channels, size, size, 1, 1));
    return {"mobilenetv2", mergeRepeats(std::move(layers))};
}

Workload gemmTable()
{
    return {"gemm",
        {gemmLayer("GNMT1", 128, 2048, 4096), gemmLayer("GNMT2", 320, 3072, 4096),
            gemmLayer("GNMT3", 1632, 36548, 1024), gemmLayer("GNMT4", 2048, 4096, 32),
            gemmLayer("DeepBench1", 1024, 16, 500000), gemmLayer("DeepBench2", 35, 8457, 2560),
            gemmLayer("Transformer1", 31999, 1024, 84), gemmLayer("Transformer2", 84, 1024, 84),
            gemmLayer("NCF1", 2048, 1, 128), gemmLayer("NCF2", 256, 256, 2048)}};
}

constexpr std::int64_t kRnnBatch = 128;

Workload mlp(const char* name, std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d)
{
    return {name,
        {gemmLayer("FC1", kRnnBatch, b, a), gemmLayer("FC2", kRnnBatch, c, b),
            gemmLayer("FC3", kRnnBatch, d, c)}};
}

Workload lstm(const char* name, std::int64_t embedding)
{
    return {name, {gemmLayer("GATES", kRnnBatch, embedding, 2 * embedding)}};
}

} // namespace

std::vector<std::string> builtinWorkloadNames()
{
    std::vector<std::string> names{
        "alexnet", "vgg16", "resnet50", "mobilenetv2", "gemm", "mlp-m", "mlp-l", "lstm-m", "lstm-l", "rhn"};
    for (const TransformerConfig& c : builtinTransformerConfigs())
        names.push_back(c.name);
    return names;
}

Workload builtinWorkload(std::string_view name, const SequenceOptions& sequence)
{
    std::string n = lower(name);
    if (const std::optional<TransformerConfig> c = findTransformerConfig(n))
        return transformerWorkload(*c, sequence);
    if (!sequence.empty() && isBuiltinWorkloadName(n))
        throw InputError(Diagnostic{"", {}, "",
            "model '" + n
                + "' has no sequence: --seq-len, --batch, --phase and --kv-len apply to transformer models"});
    if (n == "alexnet") return alexnet();
    if (n == "vgg16") return vgg16();
    if (n == "resnet50") return resnet50();
    if (n == "mobilenetv2") return mobilenetv2();
    if (n == "gemm") return gemmTable();
    if (n == "mlp-m") return mlp("mlp-m", 784, 1000, 500, 250);
    if (n == "mlp-l") return mlp("mlp-l", 784, 1500, 1000, 500);
    if (n == "lstm-m") return lstm("lstm-m", 500);
    if (n == "lstm-l") return lstm("lstm-l", 1000);
    if (n == "rhn") return lstm("rhn", 1500);
    std::string known;
    for (const auto& k : builtinWorkloadNames())
        known += (known.empty() ? "" : ", ") + k;
    throw InputError(Diagnostic{
        "", {}, "", "unknown built-in model '" + std::string(name) + "' (built-in: " + known + ")"});
}

Workload workloadFromNetwork(const mdc::Network& network, const std::string& fileName, LayerErrors mode)
{
    Workload w;
    w.name = network.name;
    std::vector<Diagnostic> problems;
    for (const auto& layer : network.layers) {
        auto fail = [&](const std::string& message) {
            problems.push_back(Diagnostic{fileName, layer.loc, "", "layer " + layer.name + ": " + message});
        };
        WorkloadLayer l;
        l.name = layer.name;
        l.maestro = layer;
        const std::size_t before = problems.size();
        [&] {
            std::int64_t batch = dimSize(layer, "N", 1);
            try {
                if (layer.type == "GEMM") {
                    for (const char* d : {"M", "N", "K"})
                        if (!findDim(layer, d)) fail(std::string("GEMM layer needs dimension ") + d);
                    if (!findDim(layer, "M") || !findDim(layer, "N") || !findDim(layer, "K")) return;
                    l.op = parse(
                        gemmLoopText(dimSize(layer, "M", 1), dimSize(layer, "N", 1), dimSize(layer, "K", 1)),
                        layer.name);
                } else if (layer.type == "CONV" || layer.type == "DSCONV") {
                    std::int64_t y = outputSize(layer, "Y", "Y'", "R"), x = outputSize(layer, "X", "X'", "S");
                    if (y < 1 || x < 1) {
                        fail("needs Y and X (or Y' and X') of at least the filter size");
                        return;
                    }
                    const char* yIn = findDim(layer, "Y'") ? "Y'" : "Y";
                    const char* xIn = findDim(layer, "X'") ? "X'" : "X";
                    std::int64_t sy = strideOf(layer, yIn), sx = strideOf(layer, xIn);
                    std::int64_t dy = dilationOf(layer, yIn), dx = dilationOf(layer, xIn);
                    std::int64_t r = dimSize(layer, "R", 1), s = dimSize(layer, "S", 1),
                                 c = dimSize(layer, "C", 1);
                    l.op = parse(layer.type == "CONV"
                            ? conv2dLoopText(dimSize(layer, "K", 1), c, y, x, r, s, sy, sx, batch, dy, dx)
                            : depthwiseLoopText(c, y, x, r, s, sy, sx, batch, dy, dx),
                        layer.name);
                } else {
                    fail("type " + layer.type
                        + " is not supported as a workload layer (CONV, DSCONV or GEMM)");
                    return;
                }
            } catch (const InputError& e) {
                for (const auto& d : e.diagnostics())
                    fail(d.message);
                return;
            }
        }();
        l.maestro.dataflow.clear();
        if (problems.size() != before) {
            if (mode == LayerErrors::Throw) continue;
            // Kept with its errors, in file order, so that the good layers around it are still reported.
            l.errors.assign(problems.begin() + std::ptrdiff_t(before), problems.end());
            problems.resize(before);
        }
        w.layers.push_back(std::move(l));
    }
    if (!problems.empty()) throw InputError(problems);
    if (w.layers.empty()) throw InputError(Diagnostic{fileName, {}, "", "the model has no layers"});
    return w;
}

namespace {

// Replaces the values of the size parameters `overrides` in an operator's header text.
std::string withSizes(const std::string& text, const ir::Operator& op,
    const std::vector<std::pair<std::string, std::int64_t>>& overrides, const std::string& file,
    const std::string& field, std::vector<Diagnostic>& problems)
{
    // Offsets of each line start, to turn SourceLoc into positions.
    std::vector<std::size_t> lineStart{0};
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') lineStart.push_back(i + 1);
    struct Edit
    {
        std::size_t begin, end;
        std::string value;
    };
    std::vector<Edit> edits;
    for (const auto& [name, value] : overrides) {
        const std::string& sizeName = name; // clang 14 cannot capture a structured binding
        auto it = std::find_if(
            op.sizes.begin(), op.sizes.end(), [&](const ir::SizeParam& p) { return p.name == sizeName; });
        if (it == op.sizes.end()) {
            problems.push_back(
                Diagnostic{file, {}, field + "." + name, "operator " + op.name + " has no size " + name});
            continue;
        }
        if (it->loc.line < 1 || std::size_t(it->loc.line) > lineStart.size()) {
            problems.push_back(Diagnostic{file, {}, field + "." + name, "cannot locate size " + name});
            continue;
        }
        std::size_t pos
            = lineStart[std::size_t(it->loc.line - 1)] + std::size_t(std::max(it->loc.column - 1, 0));
        std::size_t eq = text.find('=', pos);
        if (eq == std::string::npos) {
            problems.push_back(Diagnostic{file, {}, field + "." + name, "cannot locate size " + name});
            continue;
        }
        std::size_t b = eq + 1;
        while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b])))
            ++b;
        std::size_t e = b;
        while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e])))
            ++e;
        edits.push_back({b, e, std::to_string(value)});
    }
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
    std::string out = text;
    for (const auto& e : edits)
        out.replace(e.begin, e.end - e.begin, e.value);
    return out;
}

std::string readText(const std::string& path, const std::string& referrer, const std::string& field)
{
    try {
        return readTextFile(path);
    } catch (const InputError& e) {
        if (referrer.empty()) throw;
        // Name the model file and field that pointed at the unreadable file, then why it is unreadable.
        throw InputError(Diagnostic{referrer, {}, field, e.diagnostics().front().format()});
    }
}

} // namespace

namespace {

/// A JSON model type of the operators that are not matrix products and its builder (rows, cols).
struct ElementType
{
    const char* type;
    std::vector<WorkloadLayer> (*build)(const std::string& name, std::int64_t rows, std::int64_t cols);
};

const std::vector<ElementType>& elementTypes()
{
    static const std::vector<ElementType> types{{"SOFTMAX", softmaxLayers}, {"LAYERNORM", layerNormLayers},
        {"RMSNORM", rmsNormLayers},
        {"GELU",
            [](const std::string& n, std::int64_t r, std::int64_t c) {
                return std::vector<WorkloadLayer>{geluLayer(n, r, c)};
            }},
        {"SILU",
            [](const std::string& n, std::int64_t r, std::int64_t c) {
                return std::vector<WorkloadLayer>{siluLayer(n, r, c)};
            }},
        {"SWIGLU",
            [](const std::string& n, std::int64_t r, std::int64_t c) {
                return std::vector<WorkloadLayer>{swigluGateLayer(n, r, c)};
            }},
        {"RELU",
            [](const std::string& n, std::int64_t r, std::int64_t c) {
                return std::vector<WorkloadLayer>{reluLayer(n, r, c)};
            }},
        {"ADD",
            [](const std::string& n, std::int64_t r, std::int64_t c) {
                return std::vector<WorkloadLayer>{addLayer(n, r, c)};
            }},
        {"MUL", [](const std::string& n, std::int64_t r, std::int64_t c) {
             return std::vector<WorkloadLayer>{mulLayer(n, r, c)};
         }}};
    return types;
}

const ElementType* findElementType(const std::string& type)
{
    for (const auto& t : elementTypes())
        if (type == t.type) return &t;
    return nullptr;
}

/// Same name, kind, operator sizes and statements: what a layer written to JSON must read back as.
bool sameOperatorLayer(const WorkloadLayer& a, const WorkloadLayer& b)
{
    return a.name == b.name && a.effectiveKind() == b.effectiveKind() && sameOperator(a.op, b.op);
}

} // namespace

Workload readWorkloadJson(
    std::string_view text, const std::string& fileName, const std::string& baseDir, LayerErrors mode)
{
    using nlohmann::json;
    const json doc = parseJsonText(text, fileName);
    std::vector<Diagnostic> problems;
    auto problem = [&](const std::string& field, const std::string& message) {
        problems.push_back(Diagnostic{fileName, {}, field, message});
    };
    if (!doc.is_object())
        throw InputError(Diagnostic{fileName, topLevelLoc(text), "", "a model must be a JSON object"});
    for (const auto& [key, value] : doc.items())
        if (key != "schema_version" && key != "name" && key != "layers") problem(key, "unknown field");
    if (doc.contains("schema_version")
        && (!doc["schema_version"].is_number_integer() || doc["schema_version"] != 1))
        problem("schema_version", "must be 1");
    Workload w;
    if (doc.contains("name")) {
        if (doc["name"].is_string())
            w.name = doc["name"].get<std::string>();
        else
            problem("name", "must be a string");
    }
    if (w.name.empty()) w.name = std::filesystem::path(fileName).stem().string();
    if (!doc.contains("layers") || !doc["layers"].is_array() || doc["layers"].empty()) {
        problem("layers", "must be a non-empty array of layers");
        throw InputError(problems);
    }
    const auto& layers = doc["layers"];
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const std::size_t firstProblem = problems.size();
        std::string name = "L" + std::to_string(i + 1);
        [&] {
            std::string at = "layers[" + std::to_string(i) + "]";
            const auto& L = layers[i];
            if (!L.is_object()) {
                problem(at, "must be an object");
                return;
            }
            std::size_t before = problems.size();
            auto integer = [&](const char* key, bool required, std::int64_t fallback) -> std::int64_t {
                if (!L.contains(key)) {
                    if (required) problem(at + "." + key, "missing integer field");
                    return fallback;
                }
                const auto& v = L[key];
                if (!v.is_number_integer() || v.get<std::int64_t>() < 1
                    || v.get<std::int64_t>() > ir::kMaxExtent) {
                    problem(
                        at + "." + key, "must be an integer between 1 and " + std::to_string(ir::kMaxExtent));
                    return fallback;
                }
                return v.get<std::int64_t>();
            };
            name = "L" + std::to_string(i + 1);
            if (L.contains("name")) {
                if (L["name"].is_string() && !L["name"].get<std::string>().empty())
                    name = L["name"].get<std::string>();
                else
                    problem(at + ".name", "must be a non-empty string");
            }
            std::int64_t repeat = integer("repeat", false, 1);
            bool custom = L.contains("operator_file");
            std::string type
                = L.contains("type") && L["type"].is_string() ? L["type"].get<std::string>() : "";
            std::vector<std::string> allowed{"name", "repeat"};
            if (custom) {
                allowed.insert(allowed.end(), {"operator_file", "sizes"});
            } else if (type == "CONV") {
                allowed.insert(allowed.end(), {"type", "K", "C", "R", "S", "Y", "X", "stride", "dilation"});
            } else if (type == "DSCONV") {
                allowed.insert(allowed.end(), {"type", "C", "R", "S", "Y", "X", "stride", "dilation"});
            } else if (type == "GEMM" || type == "ATTENTION") {
                allowed.insert(allowed.end(), {"type", "M", "N", "K"});
            } else if (findElementType(type)) {
                allowed.insert(allowed.end(), {"type", "rows", "cols"});
            } else {
                problem(at + ".type",
                    "must be CONV, DSCONV, GEMM, ATTENTION, SOFTMAX, LAYERNORM, RMSNORM, GELU, SILU, SWIGLU, "
                    "RELU, ADD or MUL (or give operator_file)");
                return;
            }
            for (const auto& [key, value] : L.items())
                if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
                    problem(at + "." + key, "unknown field");
            WorkloadLayer layer;
            std::vector<WorkloadLayer> parts; // an operator of several layers (softmax: NAME.max ...)
            try {
                if (custom) {
                    if (!L["operator_file"].is_string()) {
                        problem(at + ".operator_file", "must be a string");
                        return;
                    }
                    std::filesystem::path p = L["operator_file"].get<std::string>();
                    if (p.is_relative()) p = std::filesystem::path(baseDir) / p;
                    std::string opText = readText(p.string(), fileName, at + ".operator_file");
                    ir::Operator op = ir::parseOperator(opText, p.string());
                    std::vector<std::pair<std::string, std::int64_t>> overrides;
                    if (L.contains("sizes")) {
                        if (!L["sizes"].is_object()) {
                            problem(at + ".sizes", "must be an object of integers");
                        } else {
                            for (const auto& [key, value] : L["sizes"].items()) {
                                if (!value.is_number_integer() || value.get<std::int64_t>() < 1
                                    || value.get<std::int64_t>() > ir::kMaxExtent)
                                    problem(at + ".sizes." + key, "must be a positive integer");
                                else
                                    overrides.push_back({key, value.get<std::int64_t>()});
                            }
                        }
                    }
                    if (problems.size() != before) return;
                    std::string instantiated
                        = withSizes(opText, op, overrides, fileName, at + ".sizes", problems);
                    if (problems.size() != before) return;
                    layer.op = ir::parseOperator(instantiated, p.string());
                    layer.maestro.name = name;
                    for (const auto& s : layer.op.sizes)
                        layer.maestro.dims.push_back(mdc::LayerDim{s.name, s.value, 1});
                } else if (type == "GEMM" || type == "ATTENTION") {
                    std::int64_t m = integer("M", true, 1), n = integer("N", true, 1),
                                 k = integer("K", true, 1);
                    if (problems.size() != before) return;
                    // An attention product's batch is its repeat, set below.
                    layer = type == "GEMM" ? gemmLayer(name, m, n, k) : attentionLayer(name, m, n, k, 1);
                } else if (const ElementType* element = findElementType(type)) {
                    std::int64_t rows = integer("rows", true, 1), cols = integer("cols", true, 1);
                    if (problems.size() != before) return;
                    parts = element->build(name, rows, cols);
                } else {
                    std::int64_t k = type == "CONV" ? integer("K", true, 1) : 1;
                    std::int64_t c = integer("C", true, 1), r = integer("R", true, 1),
                                 s = integer("S", true, 1);
                    std::int64_t y = integer("Y", true, 1), x = integer("X", true, 1);
                    std::int64_t stride = integer("stride", false, 1);
                    std::int64_t dilation = integer("dilation", false, 1);
                    if (problems.size() != before) return;
                    layer = type == "CONV" ? convLayer(name, k, c, y, x, r, s, stride, dilation)
                                           : depthwiseLayer(name, c, y, x, r, s, stride, dilation);
                }
            } catch (const InputError& e) {
                for (const auto& d : e.diagnostics()) {
                    Diagnostic copy = d;
                    if (copy.file.empty() || copy.file.rfind("<workload", 0) == 0) {
                        copy.file = fileName;
                        copy.field = at;
                        copy.loc = {};
                    }
                    problems.push_back(copy);
                }
                return;
            }
            if (parts.empty()) {
                layer.name = name;
                layer.maestro.name = name;
                parts.push_back(std::move(layer));
            }
            for (auto& part : parts) {
                part.repeat = int(std::min<std::int64_t>(repeat, 1'000'000));
                w.layers.push_back(std::move(part));
            }
        }();
        if (problems.size() != firstProblem && mode == LayerErrors::Keep) {
            // Kept with its errors, in file order, so that the good layers around it are still reported.
            WorkloadLayer bad;
            bad.name = name;
            bad.maestro.name = name;
            bad.errors.assign(problems.begin() + std::ptrdiff_t(firstProblem), problems.end());
            problems.resize(firstProblem);
            w.layers.push_back(std::move(bad));
        }
    }
    if (!problems.empty()) throw InputError(problems);
    return w;
}

namespace {

std::map<std::string, ModelFileReader>& modelFileReaders()
{
    static std::map<std::string, ModelFileReader> readers;
    return readers;
}

} // namespace

void registerModelFileReader(const std::string& extension, ModelFileReader reader)
{
    modelFileReaders()[extension] = std::move(reader);
}

bool hasModelFileReader(const std::string& extension)
{
    return modelFileReaders().count(extension) != 0;
}

std::string writeWorkloadJson(const Workload& workload, const std::string& fileName)
{
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < workload.layers.size(); ++i) {
        const WorkloadLayer& l = workload.layers[i];
        const mdc::Layer& m = l.maestro;
        auto fail = [&](const std::string& why) {
            throw InputError(Diagnostic{fileName, {}, "", "layer " + l.name + ": " + why});
        };
        if (!l.ok()) fail("has errors");
        nlohmann::ordered_json j;
        if (m.type.empty() && l.effectiveKind() != LayerKind::Operator) {
            // One entry per operator: the builder of its type, given its rows and columns, must give
            // back these layers (a softmax's four parts, with one repeat).
            const auto nest = ir::perfectNest(l.op);
            bool written = false;
            for (const ElementType& type : elementTypes()) {
                if (!nest || nest->loops.size() != 2) break;
                const std::int64_t rows = nest->loops[0].extent, cols = nest->loops[1].extent;
                for (const std::string& base : {l.name, l.name.substr(0, l.name.rfind('.'))}) {
                    const std::vector<WorkloadLayer> built = type.build(base, rows, cols);
                    bool same = i + built.size() <= workload.layers.size();
                    for (std::size_t k = 0; same && k < built.size(); ++k)
                        same = workload.layers[i + k].ok() && workload.layers[i + k].repeat == l.repeat
                            && sameOperatorLayer(built[k], workload.layers[i + k]);
                    if (!same) continue;
                    j["name"] = base;
                    j["type"] = type.type;
                    j["rows"] = rows;
                    j["cols"] = cols;
                    i += built.size() - 1;
                    written = true;
                    break;
                }
                if (written) break;
            }
            if (!written)
                fail("is no operator the JSON model format holds (SOFTMAX, LAYERNORM, RMSNORM: every part in "
                     "order with one repeat; GELU, SILU, SWIGLU, RELU, ADD, MUL)");
            if (l.repeat != 1) j["repeat"] = l.repeat;
            layers.push_back(std::move(j));
            continue;
        }
        if (m.type != "CONV" && m.type != "DSCONV" && m.type != "GEMM")
            fail("the JSON model format holds the CONV, DSCONV, GEMM, ATTENTION and transformer operator "
                 "layers only");
        j["name"] = l.name;
        j["type"] = l.effectiveKind() == LayerKind::Attention ? "ATTENTION" : m.type;
        if (m.type == "GEMM") {
            for (const char* d : {"M", "N", "K"})
                j[d] = dimSize(m, d, 1);
        } else {
            if (dimSize(m, "N", 1) != 1) fail("the JSON model format has no batch (write a MAESTRO .m file)");
            if (strideOf(m, "Y") != strideOf(m, "X"))
                fail("the JSON model format has one stride for Y and X (write a MAESTRO .m file)");
            if (dilationOf(m, "Y") != dilationOf(m, "X"))
                fail("the JSON model format has one dilation for Y and X");
            if (m.type == "CONV") j["K"] = dimSize(m, "K", 1);
            for (const char* d : {"C", "R", "S"})
                j[d] = dimSize(m, d, 1);
            j["Y"] = outputSize(m, "Y", "Y'", "R");
            j["X"] = outputSize(m, "X", "X'", "S");
            j["stride"] = strideOf(m, "X");
            if (dilationOf(m, "X") != 1) j["dilation"] = dilationOf(m, "X");
        }
        if (l.repeat != 1) j["repeat"] = l.repeat;
        layers.push_back(std::move(j));
    }
    nlohmann::ordered_json doc;
    doc["schema_version"] = 1;
    doc["name"] = workload.name;
    doc["layers"] = std::move(layers);
    return doc.dump(2) + "\n";
}

bool isBuiltinWorkloadName(std::string_view nameOrPath)
{
    const std::string n = lower(std::string(nameOrPath));
    for (const auto& known : builtinWorkloadNames())
        if (n == known) return true;
    return false;
}

Workload loadWorkload(const std::string& nameOrPath, LayerErrors mode, const SequenceOptions& sequence)
{
    if (isBuiltinWorkloadName(nameOrPath)) return builtinWorkload(lower(nameOrPath), sequence);
    std::filesystem::path p(nameOrPath);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) {
        std::string known;
        for (const auto& k : builtinWorkloadNames())
            known += (known.empty() ? "" : ", ") + k;
        throw InputError(Diagnostic{
            nameOrPath, {}, "", "no such model file and not a built-in model (built-in: " + known + ")"});
    }
    std::string ext = lower(p.extension().string());
    if (!sequence.empty() && (ext == ".json" || ext == ".m"))
        throw InputError(Diagnostic{nameOrPath, {}, "",
            "a " + ext
                + " model has fixed sizes: --seq-len, --batch, --phase and --kv-len apply to "
                  "built-in transformers and ONNX models with symbolic dimensions"});
    if (ext == ".json") {
        std::string text = readText(nameOrPath, "", "");
        return readWorkloadJson(
            text, nameOrPath, p.parent_path().empty() ? "." : p.parent_path().string(), mode);
    }
    if (ext == ".m") {
        mdc::Network network = mdc::readMaestroMappingFile(nameOrPath);
        Workload w = workloadFromNetwork(network, nameOrPath, mode);
        if (w.name.empty()) w.name = p.stem().string();
        return w;
    }
    auto reader = modelFileReaders().find(ext);
    if (reader != modelFileReaders().end()) return reader->second(nameOrPath, mode, sequence);
    if (ext == ".onnx")
        throw InputError(Diagnostic{nameOrPath, {}, "", "this program is built without the ONNX reader"});
    throw InputError(
        Diagnostic{nameOrPath, {}, "", "unknown model file extension (expected .json, .m or .onnx)"});
}

} // namespace marvel::workloads
