#include "importers/onnx/onnx_import.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/ir/parser.h"
#include "core/mdc/maestro_io.h"
#include "core/util/checked_math.h"
#include "core/workloads/transformer.h"

namespace marvel::onnx_import {

namespace {

using workloads::Workload;
using workloads::WorkloadLayer;

// Larger sizes are certainly not a real network's and would only overflow the products downstream.
constexpr std::int64_t kMaxDimension = std::int64_t(1) << 31;
constexpr std::int64_t kMaxRepeat = 1'000'000'000;
// The constant folder only evaluates small shape tensors.
constexpr std::size_t kMaxFoldedElements = 64;

/// A statically known int64 tensor (shape arithmetic): dims and row-major values.
struct IntTensor
{
    std::vector<std::int64_t> dims;
    std::vector<std::int64_t> values;
};

/// Dimensions of a tensor; -1 where unknown.
using Shape = std::vector<std::int64_t>;

class Importer
{
public:
    Importer(std::string fileName, ImportOptions options, workloads::LayerErrors mode)
        : m_file(std::move(fileName))
        , m_options(options)
        , m_mode(mode)
    { }

    Workload run(std::string_view bytes);

private:
    [[noreturn]] void fail(const std::string& field, const std::string& message) const
    {
        throw InputError(Diagnostic{m_file, {}, field, message});
    }
    static std::string nodeField(const onnx::NodeProto& node, int index)
    {
        return "node " + nodeName(node, index) + " (" + node.op_type() + ")";
    }
    static std::string nodeName(const onnx::NodeProto& node, int index)
    {
        return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
    }

    void fixInputs();
    void inferShapes();
    bool foldConstants();
    void collectShapes();
    std::optional<IntTensor> evaluate(const onnx::NodeProto& node) const;
    const IntTensor* constant(const onnx::NodeProto& node, int input) const;

    const Shape* shapeOf(const std::string& name) const
    {
        auto it = m_shapes.find(name);
        return it == m_shapes.end() ? nullptr : &it->second;
    }
    // The fully known shape of a node's input or output, else an error naming the node.
    Shape known(const onnx::NodeProto& node, int index, const std::string& tensor, const char* role) const;

    void mapConv(const onnx::NodeProto& node, int index, std::vector<WorkloadLayer>& out) const;
    void mapGemm(const onnx::NodeProto& node, int index, std::vector<WorkloadLayer>& out) const;
    void mapMatMul(const onnx::NodeProto& node, int index, std::vector<WorkloadLayer>& out) const;

    /// Several nodes that make one operator (a LayerNorm written out, GELU's Erf form, SiLU, a MatMul and
    /// its bias): `input` is the tensor the operator reads (its rows and columns), `nodes` in file order.
    struct Group
    {
        enum class Kind { LayerNorm, RmsNorm, Gelu, Silu, SwiGlu, Bias };
        Kind kind;
        std::vector<int> nodes;
        std::string input;
        std::string reduced; ///< the norms: the ReduceMean whose axes give the normalised width
    };
    void indexGraph();
    bool runtime(const std::string& tensor) const { return m_runtime.count(tensor) != 0; }
    bool anyRuntimeInput(const onnx::NodeProto& node) const;
    /// The node reading `tensor`, when it is the only reader, has op type `op` and `tensor` is no graph
    /// output (a fused operator's intermediate values must not be seen elsewhere); else -1.
    int soleConsumer(const std::string& tensor, const char* op) const;
    /// The scalar value of a constant float tensor (a Constant node's or an initializer).
    std::optional<double> scalar(const std::string& tensor) const;
    /// The other input of a two-input node, when one of them is `tensor`; else empty.
    static std::string otherInput(const onnx::NodeProto& node, const std::string& tensor);
    bool constantOperand(const onnx::NodeProto& node, const std::string& tensor) const;
    std::optional<Group> matchLayerNorm(int index) const;
    std::optional<Group> matchRmsNorm(int index) const;
    std::optional<Group> matchGelu(int index) const;
    std::optional<Group> matchSigmoid(int index) const;
    std::optional<Group> matchBias(int index) const;
    std::vector<Group> matchGroups() const;
    std::string groupName(const Group& group) const;
    void mapGroup(const Group& group, std::vector<WorkloadLayer>& out) const;
    /// Softmax, LayerNormalization, Gelu, Relu and the element-wise Add/Sub/Mul/Div of activations.
    void mapElementwise(const onnx::NodeProto& node, int index, std::vector<WorkloadLayer>& out) const;

    std::string m_file;
    ImportOptions m_options;
    workloads::LayerErrors m_mode;
    onnx::ModelProto m_model;
    std::unordered_map<std::string, Shape> m_shapes;
    std::unordered_map<std::string, IntTensor> m_constants;
    int m_folded = 0;
    std::vector<std::string> m_opTypes; ///< each node's op type as in the file (folding replaces nodes)
    std::set<std::string> m_dataInputs; ///< graph inputs holding the data (not weights)
    std::unordered_map<std::string, int> m_producer; ///< tensor -> the node writing it
    std::unordered_map<std::string, std::vector<int>> m_consumers; ///< tensor -> the nodes reading it
    std::unordered_set<std::string> m_runtime; ///< tensors computed from a data input
    std::set<std::string> m_graphOutputs;
    std::unordered_map<std::string, const onnx::TensorProto*> m_floatConstants;
};

std::int64_t attrInt(const onnx::NodeProto& node, const char* name, std::int64_t fallback)
{
    for (const auto& a : node.attribute())
        if (a.name() == name) return a.i();
    return fallback;
}

std::vector<std::int64_t> attrInts(const onnx::NodeProto& node, const char* name)
{
    for (const auto& a : node.attribute())
        if (a.name() == name) return {a.ints().begin(), a.ints().end()};
    return {};
}

std::int64_t product(const std::vector<std::int64_t>& v, std::size_t from = 0, std::size_t to = SIZE_MAX)
{
    std::int64_t p = 1;
    for (std::size_t i = from; i < std::min(to, v.size()); ++i)
        p = saturatingMul(p, v[i]);
    return p;
}

// The int64 (or int32) values of a tensor, when it holds at most kMaxFoldedElements of them.
std::optional<IntTensor> intTensor(const onnx::TensorProto& t)
{
    IntTensor out{{t.dims().begin(), t.dims().end()}, {}};
    for (std::int64_t d : out.dims)
        if (d < 0 || d > std::int64_t(kMaxFoldedElements)) return std::nullopt;
    const std::int64_t count = product(out.dims);
    if (count > std::int64_t(kMaxFoldedElements)) return std::nullopt;
    if (t.data_type() == onnx::TensorProto::INT64) {
        if (t.has_raw_data()) {
            if (t.raw_data().size() != std::size_t(count) * 8) return std::nullopt;
            out.values.resize(std::size_t(count));
            std::memcpy(out.values.data(), t.raw_data().data(), t.raw_data().size());
        } else {
            out.values.assign(t.int64_data().begin(), t.int64_data().end());
        }
    } else if (t.data_type() == onnx::TensorProto::INT32) {
        if (t.has_raw_data()) {
            if (t.raw_data().size() != std::size_t(count) * 4) return std::nullopt;
            std::vector<std::int32_t> v(static_cast<std::size_t>(count));
            std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
            out.values.assign(v.begin(), v.end());
        } else {
            out.values.assign(t.int32_data().begin(), t.int32_data().end());
        }
    } else {
        return std::nullopt;
    }
    if (std::int64_t(out.values.size()) != count) return std::nullopt;
    return out;
}

Shape shapeFromType(const onnx::TypeProto& type)
{
    Shape s;
    for (const auto& d : type.tensor_type().shape().dim())
        s.push_back(d.has_dim_value() ? d.dim_value() : -1);
    return s;
}

bool fullyKnown(const Shape& s)
{
    return std::all_of(s.begin(), s.end(), [](std::int64_t d) { return d > 0; });
}

std::string shapeText(const Shape& s)
{
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        out += (i ? "x" : "") + (s[i] < 0 ? std::string("?") : std::to_string(s[i]));
    return out + "]";
}

void Importer::fixInputs()
{
    std::set<std::string> initializers;
    for (const auto& t : m_model.graph().initializer())
        initializers.insert(t.name());
    bool first = true;
    for (auto& input : *m_model.mutable_graph()->mutable_input()) {
        if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
        auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
        // The data: the first input, and any of a size given at run time (weights have fixed shapes).
        bool data = first;
        first = false;
        for (int i = 0; i < shape->dim_size(); ++i)
            data = data || !shape->dim(i).has_dim_value();
        if (data) m_dataInputs.insert(input.name());
        for (int i = 0; i < shape->dim_size(); ++i) {
            auto* d = shape->mutable_dim(i);
            const std::string field = "graph input " + input.name() + " dimension " + std::to_string(i);
            if (!d->has_dim_value()) {
                const std::string symbol = d->dim_param().empty() ? "" : " ('" + d->dim_param() + "')";
                // The batch: symbolic ("batch", "N") or missing.
                if (i == 0) {
                    d->set_dim_value(m_options.batch);
                    continue;
                }
                // Any other: the sequence (tokens), set by --seq-len.
                if (!m_options.seqLen)
                    fail(field,
                        "is symbolic" + symbol
                            + " and no value is given: --seq-len sets the sequence dimensions (--batch the "
                              "first, the batch)");
                d->set_dim_value(*m_options.seqLen);
                continue;
            }
            if (d->dim_value() <= 0) fail(field, "is " + std::to_string(d->dim_value()) + ", not positive");
            if (d->dim_value() > kMaxDimension)
                fail(field, "is " + std::to_string(d->dim_value()) + ", too large");
        }
    }
}

// ONNX 1.12's shape inference is not written for hostile graphs (found by fuzz/fuzz_onnx.cpp): the
// convolution/pooling inference (convPoolShapeInference) reads past the input's dimensions when the
// kernel has more spatial dimensions than the input, and inference functions dereference the type of an
// input that has none. Every operator's inference runs behind checks of what it relies on: each required
// input typed, and for convolutions and pooling the ranks and attribute lengths. A failed check is a
// node-level inference error, which inference in error mode 0 skips, leaving the shapes unknown (then our
// own message names the node).
void checkInputsTyped(onnx::InferenceContext& ctx, const onnx::OpSchema& schema)
{
    const auto& formal = schema.inputs();
    for (std::size_t i = 0; i < ctx.getNumInputs(); ++i) {
        const onnx::TypeProto* t = ctx.getInputType(i);
        if (t && t->value_case() != onnx::TypeProto::VALUE_NOT_SET) continue;
        const bool optional = !formal.empty()
            && formal[std::min(i, formal.size() - 1)].GetOption() == onnx::OpSchema::Optional;
        if (!optional) fail_shape_inference("input ", i, " has no type");
    }
}

void checkConvPoolRanks(onnx::InferenceContext& ctx, std::size_t weightInput, bool needsWeight)
{
    const onnx::TypeProto* x = ctx.getNumInputs() > 0 ? ctx.getInputType(0) : nullptr;
    if (!x || !x->has_tensor_type() || !x->tensor_type().has_shape())
        fail_shape_inference("input without a shape");
    const int rank = x->tensor_type().shape().dim_size();
    if (rank < 3) fail_shape_inference("input of rank ", rank, ", not 3 or more");
    const int spatial = rank - 2;
    auto length = [&](const char* name) {
        const onnx::AttributeProto* a = ctx.getAttribute(name);
        return a ? a->ints_size() : -1;
    };
    for (const char* name : {"kernel_shape", "strides", "dilations"})
        if (length(name) >= 0 && length(name) != spatial)
            fail_shape_inference(name, " does not match the input");
    if (length("pads") >= 0 && length("pads") != 2 * spatial)
        fail_shape_inference("pads do not match the input");
    // It divides by strides, dilations and the group.
    auto allAtLeast = [&](const char* name, std::int64_t least) {
        const onnx::AttributeProto* a = ctx.getAttribute(name);
        return !a
            || std::all_of(a->ints().begin(), a->ints().end(), [&](std::int64_t v) { return v >= least; });
    };
    if (!allAtLeast("kernel_shape", 1) || !allAtLeast("strides", 1) || !allAtLeast("dilations", 1)
        || !allAtLeast("pads", 0))
        fail_shape_inference("kernel_shape, strides and dilations must be positive, pads not negative");
    if (const onnx::AttributeProto* group = ctx.getAttribute("group"); group && group->i() < 1)
        fail_shape_inference("group must be positive");
    if (!needsWeight || length("kernel_shape") >= 0) return;
    const onnx::TypeProto* w = ctx.getNumInputs() > weightInput ? ctx.getInputType(weightInput) : nullptr;
    if (!w || !w->has_tensor_type() || !w->tensor_type().has_shape()
        || w->tensor_type().shape().dim_size() != rank)
        fail_shape_inference("weight without a shape of the input's rank");
}

class GuardedSchemas final : public onnx::ISchemaRegistry
{
public:
    const onnx::OpSchema* GetSchema(
        const std::string& key, const int maxInclusiveVersion, const std::string& domain) const override
    {
        const onnx::OpSchema* real
            = onnx::OpSchemaRegistry::Instance()->GetSchema(key, maxInclusiveVersion, domain);
        if (!real || !real->has_type_and_shape_inference_function()) return real;
        static const std::set<std::string> convPool{
            "Conv", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool"};
        std::lock_guard lock(m_mutex);
        std::unique_ptr<onnx::OpSchema>& copy = m_copies[real];
        if (!copy) {
            copy = std::make_unique<onnx::OpSchema>(*real);
            const bool guardRanks = convPool.count(key) != 0;
            const bool conv = key.find("Conv") != std::string::npos;
            const std::size_t weight = key == "QLinearConv" ? 3 : 1;
            copy->TypeAndShapeInferenceFunction([inner = real->GetTypeAndShapeInferenceFunction(), real,
                                                    guardRanks, conv, weight](onnx::InferenceContext& ctx) {
                checkInputsTyped(ctx, *real);
                if (guardRanks) checkConvPoolRanks(ctx, weight, conv);
                inner(ctx);
            });
        }
        return copy.get();
    }

private:
    mutable std::mutex m_mutex;
    mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> m_copies;
};

void Importer::inferShapes()
{
    try {
        static const GuardedSchemas schemas;
        onnx::ShapeInferenceOptions options(false, 0, true);
        onnx::shape_inference::InferShapes(m_model, &schemas, options);
    } catch (const std::exception& e) {
        fail("", std::string("shape inference failed: ") + e.what());
    }
}

void Importer::collectShapes()
{
    m_shapes.clear();
    const auto& g = m_model.graph();
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
        for (const auto& v : *list)
            if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
                m_shapes[v.name()] = shapeFromType(v.type());
    for (const auto& t : g.initializer())
        m_shapes[t.name()] = Shape(t.dims().begin(), t.dims().end());
}

const IntTensor* Importer::constant(const onnx::NodeProto& node, int input) const
{
    if (input >= node.input_size() || node.input(input).empty()) return nullptr;
    auto it = m_constants.find(node.input(input));
    return it == m_constants.end() ? nullptr : &it->second;
}

std::optional<IntTensor> Importer::evaluate(const onnx::NodeProto& node) const
{
    const std::string& op = node.op_type();
    if (op == "Constant") {
        for (const auto& a : node.attribute()) {
            if (a.name() == "value") return intTensor(a.t());
            if (a.name() == "value_int") return IntTensor{{}, {a.i()}};
            if (a.name() == "value_ints" && a.ints_size() <= int(kMaxFoldedElements))
                return IntTensor{{a.ints_size()}, {a.ints().begin(), a.ints().end()}};
        }
        return std::nullopt;
    }
    if (op == "Shape") {
        const Shape* s = node.input_size() ? shapeOf(node.input(0)) : nullptr;
        if (!s || !fullyKnown(*s)) return std::nullopt;
        const std::int64_t rank = std::int64_t(s->size());
        auto clampAxis
            = [&](std::int64_t a) { return std::clamp<std::int64_t>(a < 0 ? a + rank : a, 0, rank); };
        const std::int64_t start = clampAxis(attrInt(node, "start", 0)),
                           end = clampAxis(attrInt(node, "end", rank));
        IntTensor t;
        for (std::int64_t i = start; i < end; ++i)
            t.values.push_back((*s)[std::size_t(i)]);
        t.dims = {std::int64_t(t.values.size())};
        return t;
    }
    if (op == "Identity" || op == "Cast") {
        const IntTensor* in = constant(node, 0);
        if (!in) return std::nullopt;
        if (op == "Cast") {
            const std::int64_t to = attrInt(node, "to", 0);
            if (to != onnx::TensorProto::INT64 && to != onnx::TensorProto::INT32) return std::nullopt;
        }
        return *in;
    }
    if (op == "Gather") {
        const IntTensor *data = constant(node, 0), *indices = constant(node, 1);
        if (!data || !indices || data->dims.size() != 1 || attrInt(node, "axis", 0) != 0) return std::nullopt;
        IntTensor t{indices->dims, {}};
        const std::int64_t n = std::int64_t(data->values.size());
        for (std::int64_t i : indices->values) {
            if (i < -n || i >= n) return std::nullopt;
            t.values.push_back(data->values[std::size_t(i < 0 ? i + n : i)]);
        }
        return t;
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
        const IntTensor* data = constant(node, 0);
        if (!data) return std::nullopt;
        std::vector<std::int64_t> axes = attrInts(node, "axes");
        if (const IntTensor* a = constant(node, 1)) axes = a->values;
        if (axes.size() > kMaxFoldedElements) return std::nullopt;
        IntTensor t = *data;
        if (op == "Squeeze") {
            std::erase(t.dims, std::int64_t(1));
        } else {
            const std::int64_t rank = std::int64_t(t.dims.size() + axes.size());
            for (std::int64_t& a : axes)
                a = a < 0 ? a + rank : a;
            std::sort(axes.begin(), axes.end());
            for (std::int64_t a : axes) {
                if (a < 0 || a > std::int64_t(t.dims.size())) return std::nullopt;
                t.dims.insert(t.dims.begin() + a, 1);
            }
        }
        return t;
    }
    if (op == "Concat") {
        IntTensor t;
        for (int i = 0; i < node.input_size(); ++i) {
            const IntTensor* in = constant(node, i);
            if (!in || in->dims.size() > 1) return std::nullopt;
            t.values.insert(t.values.end(), in->values.begin(), in->values.end());
        }
        if (t.values.size() > kMaxFoldedElements) return std::nullopt;
        t.dims = {std::int64_t(t.values.size())};
        return t;
    }
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
        const IntTensor *a = constant(node, 0), *b = constant(node, 1);
        if (!a || !b) return std::nullopt;
        const std::size_t n = std::max(a->values.size(), b->values.size());
        if ((a->values.size() != n && a->values.size() != 1)
            || (b->values.size() != n && b->values.size() != 1))
            return std::nullopt;
        IntTensor t{a->values.size() == n ? a->dims : b->dims, {}};
        for (std::size_t i = 0; i < n; ++i) {
            const std::int64_t x = a->values[a->values.size() == 1 ? 0 : i];
            const std::int64_t y = b->values[b->values.size() == 1 ? 0 : i];
            std::optional<std::int64_t> r;
            if (op == "Add") r = checkedAdd(x, y);
            if (op == "Sub" && y != kInt64Min) r = checkedAdd(x, -y);
            if (op == "Mul") r = checkedMul(x, y);
            if (op == "Div" && y != 0 && !(x == kInt64Min && y == -1)) r = x / y;
            if (!r) return std::nullopt;
            t.values.push_back(*r);
        }
        return t;
    }
    if (op == "Slice") {
        const IntTensor *data = constant(node, 0), *starts = constant(node, 1), *ends = constant(node, 2);
        if (!data || !starts || !ends || data->dims.size() != 1 || starts->values.size() != 1
            || ends->values.size() != 1)
            return std::nullopt;
        const IntTensor *axes = constant(node, 3), *steps = constant(node, 4);
        if (axes && (axes->values.size() != 1 || (axes->values[0] != 0 && axes->values[0] != -1)))
            return std::nullopt;
        const std::int64_t step = steps && steps->values.size() == 1 ? steps->values[0] : 1;
        if (step != 1) return std::nullopt;
        const std::int64_t n = std::int64_t(data->values.size());
        auto clampIndex = [&](std::int64_t i) {
            return std::clamp<std::int64_t>(i < 0 ? (i < -n ? 0 : i + n) : i, 0, n);
        };
        const std::int64_t from = clampIndex(starts->values[0]), to = clampIndex(ends->values[0]);
        IntTensor t;
        for (std::int64_t i = from; i < to; ++i)
            t.values.push_back(data->values[std::size_t(i)]);
        t.dims = {std::int64_t(t.values.size())};
        return t;
    }
    return std::nullopt;
}

bool Importer::foldConstants()
{
    m_constants.clear();
    for (const auto& t : m_model.graph().initializer())
        if (auto v = intTensor(t)) m_constants[t.name()] = *v;
    bool replaced = false;
    for (auto& node : *m_model.mutable_graph()->mutable_node()) {
        if (node.output_size() != 1) continue;
        std::optional<IntTensor> value = evaluate(node);
        if (!value) continue;
        m_constants[node.output(0)] = *value;
        if (node.op_type() == "Constant") continue;
        // Replaced by a Constant holding its value, so that ONNX's shape inference, run again, sees the
        // sizes the shape arithmetic computes (a Reshape's target, a Slice's bounds).
        onnx::NodeProto c;
        c.set_name(node.name());
        c.set_op_type("Constant");
        c.add_output(node.output(0));
        auto* attr = c.add_attribute();
        attr->set_name("value");
        attr->set_type(onnx::AttributeProto::TENSOR);
        auto* t = attr->mutable_t();
        t->set_data_type(onnx::TensorProto::INT64);
        for (std::int64_t d : value->dims)
            t->add_dims(d);
        for (std::int64_t v : value->values)
            t->add_int64_data(v);
        node = std::move(c);
        replaced = true;
        ++m_folded;
    }
    return replaced;
}

Shape Importer::known(
    const onnx::NodeProto& node, int index, const std::string& tensor, const char* role) const
{
    const Shape* s = shapeOf(tensor);
    if (!s || s->empty() || !fullyKnown(*s)) {
        if (s && std::any_of(s->begin(), s->end(), [](std::int64_t d) { return d == 0; }))
            fail(nodeField(node, index),
                std::string(role) + " '" + tensor + "' has a zero dimension " + shapeText(*s));
        fail(nodeField(node, index),
            std::string("the shape of ") + role + " '" + tensor + "' is "
                + (s && !s->empty() ? "not fully known " + shapeText(*s) : "unknown")
                + " and shape inference cannot fill it");
    }
    for (std::int64_t d : *s)
        if (d > kMaxDimension)
            fail(nodeField(node, index),
                std::string(role) + " '" + tensor + "' has a dimension too large " + shapeText(*s));
    return *s;
}

/// Strides and dilations of the rows (Y) and columns (X) of a convolution's window.
struct WindowSteps
{
    std::int64_t sy = 1, sx = 1, dy = 1, dx = 1;
};

WorkloadLayer convolution(const std::string& name, bool depthwise, std::int64_t n, std::int64_t k,
    std::int64_t c, std::int64_t y, std::int64_t x, std::int64_t r, std::int64_t s, const WindowSteps& w)
{
    if (n == 1 && w.sy == w.sx && w.dy == w.dx)
        return depthwise ? workloads::depthwiseLayer(name, c, y, x, r, s, w.sy, w.dy)
                         : workloads::convLayer(name, k, c, y, x, r, s, w.sy, w.dy);
    WorkloadLayer l;
    l.name = name;
    l.maestro.name = name;
    l.maestro.type = depthwise ? "DSCONV" : "CONV";
    l.maestro.dims = {{"N", n, 1}, {"K", depthwise ? 1 : k, 1}, {"C", c, 1}, {"R", r, 1}, {"S", s, 1},
        {"Y", (y - 1) * w.sy + (r - 1) * w.dy + 1, w.sy, w.dy},
        {"X", (x - 1) * w.sx + (s - 1) * w.dx + 1, w.sx, w.dx}};
    l.op = ir::parseOperator(depthwise
            ? workloads::depthwiseLoopText(c, y, x, r, s, w.sy, w.sx, n, w.dy, w.dx)
            : workloads::conv2dLoopText(k, c, y, x, r, s, w.sy, w.sx, n, w.dy, w.dx),
        "<workload layer " + name + ">");
    return l;
}

void Importer::mapConv(const onnx::NodeProto& node, int index, std::vector<WorkloadLayer>& out) const
{
    const std::string field = nodeField(node, index);
    if (node.input_size() < 2 || node.output_size() < 1) fail(field, "needs inputs X and W and an output");
    const Shape in = known(node, index, node.input(0), "input");
    const Shape w = known(node, index, node.input(1), "weight");
    if (in.size() != 3 && in.size() != 4)
        fail(field, "only 1-D and 2-D convolutions map (input " + shapeText(in) + ")");
    if (w.size() != in.size())
        fail(field, "weight " + shapeText(w) + " does not match input " + shapeText(in));
    const bool oneD = in.size() == 3;
    const std::int64_t batch = in[0], channels = in[1], filters = w[0];
    const std::int64_t group = attrInt(node, "group", 1);
    // Bounded by the channels first: group comes from an attribute, any int64.
    if (group < 1 || group > channels || channels % group != 0 || filters % group != 0
        || w[1] * group != channels)
        fail(field,
            "group " + std::to_string(group) + " does not divide input " + shapeText(in) + " and weight "
                + shapeText(w));
    // Output sizes: from shape inference (which knows pads, auto_pad, dilations), else an error.
    const Shape o = known(node, index, node.output(0), "output");
    if (o.size() != in.size() || o[1] != filters)
        fail(field, "output " + shapeText(o) + " does not match weight " + shapeText(w));
    std::vector<std::int64_t> strides = attrInts(node, "strides");
    strides.resize(in.size() - 2, 1);
    for (std::int64_t s : strides)
        if (s < 1 || s > kMaxDimension)
            fail(field, "stride " + std::to_string(s) + " is not a positive size");
    std::vector<std::int64_t> dilations = attrInts(node, "dilations");
    dilations.resize(in.size() - 2, 1);
    for (std::int64_t d : dilations)
        if (d < 1 || d > kMaxDimension)
            fail(field, "dilation " + std::to_string(d) + " is not a positive size");
    const std::int64_t r = oneD ? 1 : w[2], s = oneD ? w[2] : w[3];
    const std::int64_t y = oneD ? 1 : o[2], x = oneD ? o[2] : o[3];
    // A 1-D convolution is a 2-D one of one row (R = 1), which takes the columns' stride and dilation on
    // its rows too, where they change nothing, so that it stays a plain CONV layer.
    const WindowSteps steps = oneD ? WindowSteps{strides[0], strides[0], dilations[0], dilations[0]}
                                   : WindowSteps{strides[0], strides[1], dilations[0], dilations[1]};
    // Both factors are below 2^31: the products cannot overflow.
    if ((r - 1) * steps.dy + 1 > kMaxDimension || (s - 1) * steps.dx + 1 > kMaxDimension)
        fail(field, "the dilated filter is too large");
    const std::string name = nodeName(node, index);
    WorkloadLayer l;
    if (group == 1) {
        l = convolution(name, false, batch, filters, channels, y, x, r, s, steps);
    } else if (group == channels && filters == channels) {
        l = convolution(name, true, batch, 1, channels, y, x, r, s, steps);
    } else {
        l = convolution(name, false, batch, filters / group, channels / group, y, x, r, s, steps);
        l.repeat = int(group);
    }
    l.sources = {name};
    out.push_back(std::move(l));
}

void Importer::mapGemm(const onnx::NodeProto& node, int index, std::vector<WorkloadLayer>& out) const
{
    const std::string field = nodeField(node, index);
    if (node.input_size() < 2) fail(field, "needs inputs A and B");
    const Shape a = known(node, index, node.input(0), "input A");
    const Shape b = known(node, index, node.input(1), "input B");
    if (a.size() != 2 || b.size() != 2)
        fail(field, "A " + shapeText(a) + " and B " + shapeText(b) + " must be matrices");
    const bool ta = attrInt(node, "transA", 0) != 0, tb = attrInt(node, "transB", 0) != 0;
    const std::int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
    const std::int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
    if (k != kb) fail(field, "A " + shapeText(a) + " and B " + shapeText(b) + " do not multiply");
    WorkloadLayer l = workloads::gemmLayer(nodeName(node, index), m, n, k);
    l.sources = {l.name};
    out.push_back(std::move(l));
}

void Importer::mapMatMul(const onnx::NodeProto& node, int index, std::vector<WorkloadLayer>& out) const
{
    const std::string field = nodeField(node, index);
    if (node.input_size() < 2) fail(field, "needs inputs A and B");
    Shape a = known(node, index, node.input(0), "input A");
    Shape b = known(node, index, node.input(1), "input B");
    if (a.size() == 1) a.insert(a.begin(), 1);
    if (b.size() == 1) b.push_back(1);
    const std::int64_t m = a[a.size() - 2], k = a[a.size() - 1];
    const std::int64_t kb = b[b.size() - 2], n = b[b.size() - 1];
    if (k != kb) fail(field, "A " + shapeText(a) + " and B " + shapeText(b) + " do not multiply");
    const Shape lead(a.begin(), a.end() - 2), leadB(b.begin(), b.end() - 2);
    std::int64_t rows = m, batch = 1;
    if (product(leadB) == 1) {
        // A fully connected layer on a sequence (x @ W): every leading row of A is a row of the GEMM.
        rows = saturatingMul(m, product(lead));
    } else {
        // Broadcast batch dimensions (attention's Q K^T): the GEMM repeated once per batch entry.
        const std::size_t rank = std::max(lead.size(), leadB.size());
        for (std::size_t i = 0; i < rank; ++i) {
            const std::int64_t da = i < rank - lead.size() ? 1 : lead[i - (rank - lead.size())];
            const std::int64_t db = i < rank - leadB.size() ? 1 : leadB[i - (rank - leadB.size())];
            if (da != db && da != 1 && db != 1)
                fail(field,
                    "batch dimensions of A " + shapeText(a) + " and B " + shapeText(b) + " do not broadcast");
            batch = saturatingMul(batch, std::max(da, db));
        }
    }
    if (rows > kMaxDimension || batch > kMaxRepeat)
        fail(field, "is too large (" + shapeText(a) + " x " + shapeText(b) + ")");
    // Two activations (Q·Kᵀ, A·V): neither operand is loaded once like weights.
    WorkloadLayer l = runtime(node.input(0)) && runtime(node.input(1))
        ? workloads::attentionLayer(nodeName(node, index), m, n, k, batch)
        : workloads::gemmLayer(nodeName(node, index), rows, n, k);
    l.repeat = int(batch);
    l.sources = {l.name};
    out.push_back(std::move(l));
}

void Importer::indexGraph()
{
    const auto& g = m_model.graph();
    for (const auto& o : g.output())
        m_graphOutputs.insert(o.name());
    for (const auto& t : g.initializer())
        if (t.dims_size() == 0 || (t.dims_size() == 1 && t.dims(0) == 1)) m_floatConstants[t.name()] = &t;
    m_runtime.insert(m_dataInputs.begin(), m_dataInputs.end());
    // The graph is in topological order (ONNX requires it; the checker ran).
    for (int i = 0; i < g.node_size(); ++i) {
        const auto& node = g.node(i);
        for (const auto& in : node.input())
            if (!in.empty()) m_consumers[in].push_back(i);
        for (const auto& out : node.output())
            m_producer[out] = i;
        if (node.op_type() == "Constant")
            for (const auto& a : node.attribute())
                if (a.name() == "value" && node.output_size() == 1) m_floatConstants[node.output(0)] = &a.t();
        // Shape and Size read a tensor's sizes, not its values: what they compute is known before run time.
        const std::string& op = node.op_type();
        if (op == "Shape" || op == "Size" || !anyRuntimeInput(node)) continue;
        for (const auto& out : node.output())
            m_runtime.insert(out);
    }
}

bool Importer::anyRuntimeInput(const onnx::NodeProto& node) const
{
    return std::any_of(
        node.input().begin(), node.input().end(), [&](const std::string& in) { return runtime(in); });
}

int Importer::soleConsumer(const std::string& tensor, const char* op) const
{
    auto it = m_consumers.find(tensor);
    if (it == m_consumers.end() || it->second.size() != 1 || m_graphOutputs.count(tensor)) return -1;
    const auto& node = m_model.graph().node(it->second[0]);
    // The inputs and the output the matchers read exist (a hostile graph may have a Div of one input).
    static const std::set<std::string> unary{"Sqrt", "Reciprocal", "ReduceMean", "Erf", "Tanh", "Sigmoid"};
    const int inputs = unary.count(op) ? 1 : 2;
    if (node.op_type() != op || node.input_size() < inputs || node.output_size() < 1) return -1;
    return it->second[0];
}

std::optional<double> Importer::scalar(const std::string& tensor) const
{
    auto it = m_floatConstants.find(tensor);
    if (it == m_floatConstants.end()) return std::nullopt;
    const onnx::TensorProto& t = *it->second;
    if (product({t.dims().begin(), t.dims().end()}) != 1) return std::nullopt;
    if (t.data_type() == onnx::TensorProto::FLOAT) {
        if (t.float_data_size() == 1) return t.float_data(0);
        if (t.raw_data().size() != sizeof(float)) return std::nullopt;
        float v;
        std::memcpy(&v, t.raw_data().data(), sizeof v);
        return v;
    }
    if (t.data_type() == onnx::TensorProto::DOUBLE) {
        if (t.double_data_size() == 1) return t.double_data(0);
        if (t.raw_data().size() != sizeof(double)) return std::nullopt;
        double v;
        std::memcpy(&v, t.raw_data().data(), sizeof v);
        return v;
    }
    return std::nullopt;
}

std::string Importer::otherInput(const onnx::NodeProto& node, const std::string& tensor)
{
    if (node.input_size() != 2) return {};
    if (node.input(0) == tensor) return node.input(1);
    if (node.input(1) == tensor) return node.input(0);
    return {};
}

bool Importer::constantOperand(const onnx::NodeProto& node, const std::string& tensor) const
{
    const std::string other = otherInput(node, tensor);
    return !other.empty() && !runtime(other);
}

// ReduceMean(x), Sub(x, mean), Pow(d, 2), ReduceMean, Add eps, Sqrt, Div(d, std) [, Mul w] [, Add b].
std::optional<Importer::Group> Importer::matchLayerNorm(int index) const
{
    const auto& nodes = m_model.graph().node();
    const auto& mean = nodes[index];
    if (mean.input_size() < 1 || !runtime(mean.input(0))) return std::nullopt;
    const std::string x = mean.input(0);
    const int sub = soleConsumer(mean.output(0), "Sub");
    if (sub < 0 || nodes[sub].input(0) != x || nodes[sub].input(1) != mean.output(0)) return std::nullopt;
    const std::string d = nodes[sub].output(0);
    auto readers = m_consumers.find(d);
    if (readers == m_consumers.end() || readers->second.size() != 2 || m_graphOutputs.count(d))
        return std::nullopt;
    int pow = -1, div = -1;
    for (int r : readers->second) {
        if (nodes[r].input_size() != 2 || nodes[r].output_size() < 1 || nodes[r].input(0) != d) continue;
        if (nodes[r].op_type() == "Pow") pow = r;
        if (nodes[r].op_type() == "Div") div = r;
    }
    if (pow < 0 || div < 0 || scalar(nodes[pow].input(1)).value_or(0) != 2) return std::nullopt;
    const int var = soleConsumer(nodes[pow].output(0), "ReduceMean");
    const int eps = var < 0 ? -1 : soleConsumer(nodes[var].output(0), "Add");
    if (eps < 0 || !constantOperand(nodes[eps], nodes[var].output(0))) return std::nullopt;
    const int sqrt = soleConsumer(nodes[eps].output(0), "Sqrt");
    if (sqrt < 0 || nodes[div].input(1) != nodes[sqrt].output(0)
        || soleConsumer(nodes[sqrt].output(0), "Div") != div)
        return std::nullopt;
    Group g{Group::Kind::LayerNorm, {index, sub, pow, var, eps, sqrt, div}, x, mean.output(0)};
    int last = div;
    const int mul = soleConsumer(nodes[last].output(0), "Mul");
    if (mul >= 0 && constantOperand(nodes[mul], nodes[last].output(0))) g.nodes.push_back(last = mul);
    const int add = soleConsumer(nodes[last].output(0), "Add");
    if (add >= 0 && constantOperand(nodes[add], nodes[last].output(0))) g.nodes.push_back(add);
    return g;
}

// Pow(x, 2), ReduceMean, Add eps, Sqrt, then Div(1, s) or Reciprocal and Mul(x, .), or Div(x, s);
// [, Mul w].
std::optional<Importer::Group> Importer::matchRmsNorm(int index) const
{
    const auto& nodes = m_model.graph().node();
    const auto& pow = nodes[index];
    if (pow.input_size() != 2 || !runtime(pow.input(0)) || scalar(pow.input(1)).value_or(0) != 2)
        return std::nullopt;
    const std::string x = pow.input(0);
    const int mean = soleConsumer(pow.output(0), "ReduceMean");
    const int eps = mean < 0 ? -1 : soleConsumer(nodes[mean].output(0), "Add");
    if (eps < 0 || !constantOperand(nodes[eps], nodes[mean].output(0))) return std::nullopt;
    const int sqrt = soleConsumer(nodes[eps].output(0), "Sqrt");
    if (sqrt < 0) return std::nullopt;
    Group g{Group::Kind::RmsNorm, {index, mean, eps, sqrt}, x, nodes[mean].output(0)};
    const std::string s = nodes[sqrt].output(0);
    int last = -1; // the node whose output is x / rms
    const int div = soleConsumer(s, "Div");
    const int reciprocal = soleConsumer(s, "Reciprocal");
    if (div >= 0 && nodes[div].input(0) == x && nodes[div].input(1) == s) {
        g.nodes.push_back(last = div);
    } else {
        // 1 / rms, then times x.
        int inverse = reciprocal;
        if (div >= 0 && nodes[div].input(1) == s && !runtime(nodes[div].input(0))
            && scalar(nodes[div].input(0)).value_or(0) == 1)
            inverse = div;
        if (inverse < 0) return std::nullopt;
        const int mul = soleConsumer(nodes[inverse].output(0), "Mul");
        if (mul < 0 || otherInput(nodes[mul], nodes[inverse].output(0)) != x) return std::nullopt;
        g.nodes.push_back(inverse);
        g.nodes.push_back(last = mul);
    }
    const int weight = soleConsumer(nodes[last].output(0), "Mul");
    if (weight >= 0 && constantOperand(nodes[weight], nodes[last].output(0))) g.nodes.push_back(weight);
    std::sort(g.nodes.begin(), g.nodes.end());
    return g;
}

// GELU: Div(x, sqrt 2) or Mul(x, 1/sqrt 2) and Erf, or the tanh approximation (GPT-2's): Mul(c, x + Mul(
// 0.044715, x^3)) (x^3 a Pow or two Mul) and Tanh; then Add 1, and Mul(x, .) and Mul 0.5, or Mul(0.5 x, .).
std::optional<Importer::Group> Importer::matchGelu(int index) const
{
    const auto& nodes = m_model.graph().node();
    const auto& anchor = nodes[index];
    const std::string& op = anchor.op_type();
    if (anchor.input_size() != 1) return std::nullopt;
    auto pre = m_producer.find(anchor.input(0));
    if (pre == m_producer.end()) return std::nullopt;
    const auto& scale = nodes[pre->second];
    if ((scale.op_type() != "Div" && scale.op_type() != "Mul") || scale.input_size() != 2
        || soleConsumer(anchor.input(0), op.c_str()) != index)
        return std::nullopt;
    Group g{Group::Kind::Gelu, {pre->second, index}, {}, {}};
    if (op == "Erf") {
        g.input = scale.input(0);
        if (!runtime(g.input) || runtime(scale.input(1))) return std::nullopt;
    } else {
        // c * (x + 0.044715 x^3): the scaled operand is an Add of x and the cubic term.
        if (scale.op_type() != "Mul" || runtime(scale.input(0)) == runtime(scale.input(1)))
            return std::nullopt;
        const std::string sum = runtime(scale.input(0)) ? scale.input(0) : scale.input(1);
        auto add = m_producer.find(sum);
        if (add == m_producer.end() || nodes[add->second].op_type() != "Add"
            || soleConsumer(sum, "Mul") != pre->second)
            return std::nullopt;
        const auto& addNode = nodes[add->second];
        for (int k = 0; k < 2 && g.input.empty(); ++k) {
            const std::string x = addNode.input(k), cubic = addNode.input(1 - k);
            auto term = m_producer.find(cubic);
            if (!runtime(x) || term == m_producer.end() || nodes[term->second].op_type() != "Mul"
                || soleConsumer(cubic, "Add") != add->second || nodes[term->second].input_size() != 2
                || runtime(nodes[term->second].input(0)) == runtime(nodes[term->second].input(1)))
                continue;
            const auto& termNode = nodes[term->second];
            const std::string cube = runtime(termNode.input(0)) ? termNode.input(0) : termNode.input(1);
            auto c = m_producer.find(cube);
            if (c == m_producer.end() || soleConsumer(cube, "Mul") != term->second) continue;
            const auto& cubeNode = nodes[c->second];
            std::vector<int> found{c->second};
            if (cubeNode.op_type() == "Pow") {
                if (cubeNode.input_size() != 2 || cubeNode.input(0) != x
                    || scalar(cubeNode.input(1)).value_or(0) != 3)
                    continue;
            } else if (cubeNode.op_type() == "Mul" && cubeNode.input_size() == 2) {
                // x * (x * x), either way round.
                const std::string square = otherInput(cubeNode, x);
                auto sq = m_producer.find(square);
                if (square.empty() || sq == m_producer.end() || nodes[sq->second].op_type() != "Mul"
                    || nodes[sq->second].input_size() != 2 || nodes[sq->second].input(0) != x
                    || nodes[sq->second].input(1) != x || soleConsumer(square, "Mul") != c->second)
                    continue;
                found.push_back(sq->second);
            } else {
                continue;
            }
            g.input = x;
            g.nodes.insert(g.nodes.end(), found.begin(), found.end());
            g.nodes.push_back(term->second);
            g.nodes.push_back(add->second);
        }
        if (g.input.empty()) return std::nullopt;
    }
    const std::string& x = g.input;
    const int one = soleConsumer(anchor.output(0), "Add");
    if (one < 0 || scalar(otherInput(nodes[one], anchor.output(0))).value_or(0) != 1) return std::nullopt;
    const int mul = soleConsumer(nodes[one].output(0), "Mul");
    if (mul < 0) return std::nullopt;
    g.nodes.push_back(one);
    g.nodes.push_back(mul);
    const std::string factor = otherInput(nodes[mul], nodes[one].output(0));
    if (factor == x) {
        const int half = soleConsumer(nodes[mul].output(0), "Mul");
        if (half < 0 || scalar(otherInput(nodes[half], nodes[mul].output(0))).value_or(0) != 0.5)
            return std::nullopt;
        g.nodes.push_back(half);
    } else {
        auto h = m_producer.find(factor);
        if (h == m_producer.end() || nodes[h->second].op_type() != "Mul" || soleConsumer(factor, "Mul") != mul
            || otherInput(nodes[h->second], x).empty()
            || scalar(otherInput(nodes[h->second], x)).value_or(0) != 0.5)
            return std::nullopt;
        g.nodes.push_back(h->second);
    }
    std::sort(g.nodes.begin(), g.nodes.end());
    return g;
}

// Sigmoid(g), Mul(g, .): SiLU; times another activation: the SwiGLU gate.
std::optional<Importer::Group> Importer::matchSigmoid(int index) const
{
    const auto& nodes = m_model.graph().node();
    const auto& sigmoid = nodes[index];
    if (sigmoid.input_size() != 1 || !runtime(sigmoid.input(0))) return std::nullopt;
    const std::string x = sigmoid.input(0);
    const int mul = soleConsumer(sigmoid.output(0), "Mul");
    if (mul < 0 || otherInput(nodes[mul], sigmoid.output(0)) != x) return std::nullopt;
    Group g{Group::Kind::Silu, {index, mul}, x, {}};
    const int gate = soleConsumer(nodes[mul].output(0), "Mul");
    if (gate >= 0) {
        const std::string up = otherInput(nodes[gate], nodes[mul].output(0));
        const Shape *a = shapeOf(x), *b = shapeOf(up);
        if (runtime(up) && a && b && *a == *b) {
            g.kind = Group::Kind::SwiGlu;
            g.nodes.push_back(gate);
        }
    }
    return g;
}

// MatMul(x, W), Add(., bias): the bias belongs to the product.
std::optional<Importer::Group> Importer::matchBias(int index) const
{
    const auto& nodes = m_model.graph().node();
    const auto& matmul = nodes[index];
    if (matmul.input_size() != 2 || matmul.output_size() != 1) return std::nullopt;
    const int add = soleConsumer(matmul.output(0), "Add");
    if (add < 0 || !constantOperand(nodes[add], matmul.output(0))) return std::nullopt;
    // The bias broadcasts along the product's columns: its shape is [N] (or [1, N]...).
    const Shape *out = shapeOf(matmul.output(0)), *bias = shapeOf(otherInput(nodes[add], matmul.output(0)));
    if (!out || !bias || out->empty() || bias->empty() || product(*bias) != out->back()) return std::nullopt;
    return Group{Group::Kind::Bias, {index, add}, matmul.input(0), {}};
}

std::vector<Importer::Group> Importer::matchGroups() const
{
    const auto& nodes = m_model.graph().node();
    std::vector<Group> groups;
    std::vector<bool> taken(std::size_t(nodes.size()), false);
    for (int i = 0; i < nodes.size(); ++i) {
        const std::string& op = nodes[i].op_type();
        if (taken[std::size_t(i)] || nodes[i].output_size() != 1) continue;
        std::optional<Group> g;
        if (op == "ReduceMean") g = matchLayerNorm(i);
        if (op == "Pow") g = matchRmsNorm(i);
        if (op == "Erf" || op == "Tanh") g = matchGelu(i);
        if (op == "Sigmoid") g = matchSigmoid(i);
        if (op == "MatMul") g = matchBias(i);
        if (!g || std::any_of(g->nodes.begin(), g->nodes.end(), [&](int n) { return taken[std::size_t(n)]; }))
            continue;
        for (int n : g->nodes)
            taken[std::size_t(n)] = true;
        groups.push_back(std::move(*g));
    }
    return groups;
}

// The common path of the nodes' names ("/blocks/blocks.0/norm1" for its ReduceMean, Sub...), else the
// first node's name.
std::string Importer::groupName(const Group& group) const
{
    const auto& nodes = m_model.graph().node();
    std::string prefix = nodeName(nodes[group.nodes.front()], group.nodes.front());
    for (int n : group.nodes) {
        const std::string name = nodeName(nodes[n], n);
        std::size_t i = 0;
        while (i < prefix.size() && i < name.size() && prefix[i] == name[i])
            ++i;
        prefix.resize(i);
    }
    const std::size_t slash = prefix.rfind('/');
    prefix = slash == std::string::npos ? std::string() : prefix.substr(0, slash);
    return prefix.empty() ? nodeName(nodes[group.nodes.front()], group.nodes.front()) : prefix;
}

namespace {

/// Rows (every leading dimension) and columns (the last) of a tensor.
std::pair<std::int64_t, std::int64_t> rowsCols(const Shape& s)
{
    if (s.empty()) return {1, 1};
    return {product(s, 0, s.size() - 1), s.back()};
}

/// One decoding step from the layers of a prefill graph instantiated at `tokens` tokens: every layer's
/// token rows (a matrix product's M: B·S for a projection, g·S for an attention product; an operator's R:
/// B·S or B·H·S rows) become one token's, while what the new token attends to (an attention product's N or
/// K, a softmax's columns) stays `tokens`, the KV cache's length. Layers whose rows do not scale with the
/// tokens (a classifier on one token) stay as they are.
void toDecodeStep(std::vector<WorkloadLayer>& layers, std::int64_t tokens)
{
    for (WorkloadLayer& l : layers) {
        if (!l.ok()) continue;
        const workloads::LayerKind kind = l.effectiveKind();
        if (kind == workloads::LayerKind::Gemm || kind == workloads::LayerKind::Attention) {
            std::int64_t m = 0, n = 0, k = 0;
            for (const mdc::LayerDim& d : l.maestro.dims)
                (d.name == "M" ? m : d.name == "N" ? n : k) = d.size;
            if (m < tokens || m % tokens != 0) continue;
            WorkloadLayer one = kind == workloads::LayerKind::Gemm
                ? workloads::gemmLayer(l.name, m / tokens, n, k)
                : workloads::attentionLayer(l.name, m / tokens, n, k, l.repeat);
            one.repeat = l.repeat;
            one.sources = std::move(l.sources);
            l = std::move(one);
            continue;
        }
        if (!l.maestro.type.empty()) continue; // a convolution: no tokens
        const auto rows = l.op.sizeValue("R");
        if (!rows || *rows < tokens || *rows % tokens != 0) continue;
        // The builders' text with its row count replaced (core/workloads/transformer.h: "(R = rows").
        const std::string from = "(R = " + std::to_string(*rows);
        std::string text = l.op.source;
        const std::size_t at = text.find(from);
        if (at == std::string::npos) continue;
        text.replace(at, from.size(), "(R = " + std::to_string(*rows / tokens));
        l.op = ir::parseOperator(text, l.name);
    }
}

std::vector<std::int64_t> reducedAxes(const onnx::NodeProto& reduce, std::size_t rank)
{
    std::vector<std::int64_t> axes = attrInts(reduce, "axes");
    if (axes.empty())
        for (std::size_t i = 0; i < rank; ++i)
            axes.push_back(std::int64_t(i));
    for (auto& a : axes)
        a = a < 0 ? a + std::int64_t(rank) : a;
    return axes;
}

} // namespace

void Importer::mapGroup(const Group& group, std::vector<WorkloadLayer>& out) const
{
    const auto& nodes = m_model.graph().node();
    const int first = group.nodes.front();
    const auto& anchor = nodes[first];
    std::vector<std::string> sources;
    for (int n : group.nodes)
        sources.push_back(nodeName(nodes[n], n));
    std::vector<WorkloadLayer> layers;
    if (group.kind == Group::Kind::Bias) {
        mapMatMul(anchor, first, layers);
    } else {
        const Shape x = known(anchor, first, group.input, "input");
        auto [rows, cols] = rowsCols(x);
        if (group.kind == Group::Kind::LayerNorm || group.kind == Group::Kind::RmsNorm) {
            // The normalised width: the dimensions the mean runs over.
            const auto& reduce = nodes[m_producer.at(group.reduced)];
            std::int64_t width = 1;
            for (std::int64_t a : reducedAxes(reduce, x.size())) {
                if (a < 0 || a >= std::int64_t(x.size()))
                    fail(nodeField(reduce, m_producer.at(group.reduced)),
                        "reduces an axis the input " + shapeText(x) + " does not have");
                width = saturatingMul(width, x[std::size_t(a)]);
            }
            cols = width;
            rows = product(x) / width;
        }
        const std::string name = groupName(group);
        if (rows > kMaxDimension || cols > kMaxDimension)
            fail(nodeField(anchor, first), "is too large (" + shapeText(x) + ")");
        switch (group.kind) {
        case Group::Kind::LayerNorm:
            layers = workloads::layerNormLayers(name, rows, cols);
            break;
        case Group::Kind::RmsNorm:
            layers = workloads::rmsNormLayers(name, rows, cols);
            break;
        case Group::Kind::Gelu:
            layers = {workloads::geluLayer(name, rows, cols)};
            break;
        case Group::Kind::Silu:
            layers = {workloads::siluLayer(name, rows, cols)};
            break;
        case Group::Kind::SwiGlu:
            layers = {workloads::swigluGateLayer(name, rows, cols)};
            break;
        case Group::Kind::Bias:
            break;
        }
    }
    for (auto& l : layers) {
        l.sources = sources;
        out.push_back(std::move(l));
    }
}

void Importer::mapElementwise(const onnx::NodeProto& node, int index, std::vector<WorkloadLayer>& out) const
{
    const std::string& op = node.op_type();
    const std::string name = nodeName(node, index);
    if (node.input_size() < 1 || node.output_size() < 1)
        fail(nodeField(node, index), "needs an input and an output");
    const Shape y = known(node, index, node.output(0), "output");
    auto [rows, cols] = rowsCols(y);
    std::vector<WorkloadLayer> layers;
    if (op == "Softmax" || op == "LayerNormalization") {
        // Along `axis`: Softmax since opset 13 that one axis (the last by default), before it every axis
        // from `axis` (1 by default) on, flattened; LayerNormalization every axis from `axis` on.
        std::int64_t opset = 13;
        for (const auto& o : m_model.opset_import())
            if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
        const bool flattened = op == "LayerNormalization" || opset < 13;
        const std::int64_t rank = std::int64_t(y.size());
        const std::int64_t given = attrInt(node, "axis", op == "Softmax" && opset < 13 ? 1 : -1);
        const std::int64_t axis = given < 0 ? given + rank : given;
        if (axis < 0 || axis >= rank)
            fail(nodeField(node, index),
                "axis " + std::to_string(given) + " is outside the output " + shapeText(y));
        cols = flattened ? product(y, std::size_t(axis)) : y[std::size_t(axis)];
        rows = product(y) / cols;
    }
    // Rows and columns are loop sizes of the operator language.
    if (rows > kMaxDimension || cols > kMaxDimension)
        fail(nodeField(node, index), "is too large (output " + shapeText(y) + ")");
    if (op == "Softmax" || op == "LayerNormalization") {
        layers = op == "Softmax" ? workloads::softmaxLayers(name, rows, cols)
                                 : workloads::layerNormLayers(name, rows, cols);
    } else if (op == "Gelu") {
        layers = {workloads::geluLayer(name, rows, cols)};
    } else if (op == "Relu") {
        layers = {workloads::reluLayer(name, rows, cols)};
    } else if (op == "Add" || op == "Sub") {
        layers = {workloads::addLayer(name, rows, cols)};
    } else {
        layers = {workloads::mulLayer(name, rows, cols)};
    }
    for (auto& l : layers) {
        l.sources = {name};
        out.push_back(std::move(l));
    }
}

// Whether two layers compute the same (they merge): products of the same kind and MAESTRO shape, other
// operators of the same kind, sizes and statements.
bool sameLayer(const WorkloadLayer& a, const WorkloadLayer& b)
{
    if (!a.ok() || !b.ok() || a.effectiveKind() != b.effectiveKind() || a.maestro.type != b.maestro.type)
        return false;
    if (!a.maestro.type.empty()) return a.maestro.dims == b.maestro.dims;
    return workloads::sameOperator(a.op, b.op);
}

Workload Importer::run(std::string_view bytes)
{
    if (bytes.size() > std::size_t(std::numeric_limits<int>::max()))
        fail("", "is larger than the 2 GiB a protobuf message may have");
    // An empty message parses as a model without a graph: said as what it is, as the text readers do.
    if (bytes.empty()) fail("", "empty file");
    if (!m_model.ParseFromArray(bytes.data(), int(bytes.size())))
        fail(
            "", "is not an ONNX model (the protobuf message does not parse: not ONNX, truncated or corrupt)");
    if (!m_model.has_graph() || m_model.graph().node_size() == 0)
        fail("graph", "the model has no graph nodes");
    if (m_options.batch < 1 || m_options.batch > kMaxDimension) fail("batch", "must be a positive size");
    if (m_options.seqLen && (*m_options.seqLen < 1 || *m_options.seqLen > kMaxDimension))
        fail("seq-len", "must be a positive size, not " + std::to_string(*m_options.seqLen));
    if (m_options.kvLen && (*m_options.kvLen < 1 || *m_options.kvLen > kMaxDimension))
        fail("kv-len", "must be a positive size, not " + std::to_string(*m_options.kvLen));
    // A decoding step is read from the prefill graph at the cache's length, its token rows then one token's
    // (toDecodeStep): the graph needs no KV-cache inputs.
    std::optional<std::int64_t> decodeTokens;
    if (m_options.phase == workloads::Phase::Decode) {
        if (m_options.seqLen)
            fail("seq-len",
                "applies to --phase prefill: a decode step has one new token per sequence (--kv-len "
                "sets the cached tokens it attends to)");
        if (!m_options.kvLen)
            fail("kv-len",
                "--phase decode needs --kv-len: the cached tokens a step attends to (an ONNX graph "
                "gives no default)");
        decodeTokens = m_options.kvLen;
        m_options.seqLen = m_options.kvLen;
    }
    fixInputs();
    for (const auto& node : m_model.graph().node())
        m_opTypes.push_back(node.op_type());
    // Shape inference, then folding the shape arithmetic it leaves (data propagation in ONNX 1.12 covers
    // only part of it), until nothing more folds. Each round folds at least one node.
    inferShapes();
    collectShapes();
    for (int round = 0; round < 16 && foldConstants(); ++round) {
        inferShapes();
        collectShapes();
    }

    Workload w;
    // The file name: exporters name every graph alike (PyTorch: "torch_jit").
    w.name = std::filesystem::path(m_file).stem().string();
    indexGraph();
    const std::vector<Group> groups = matchGroups();
    const auto& nodes = m_model.graph().node();
    std::vector<int> groupOf(std::size_t(nodes.size()), -1);
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (int n : groups[g].nodes)
            groupOf[std::size_t(n)] = int(g);
    // Nodes that only move, select or re-type data: no arithmetic to model.
    static const std::set<std::string> dataMovement{"Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze",
        "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND", "Identity", "Cast", "Shape",
        "Size", "Constant", "ConstantOfShape", "Expand", "Tile", "Pad", "Dropout", "Range", "DepthToSpace",
        "SpaceToDepth"};
    static const std::set<std::string> elementwise{
        "Softmax", "LayerNormalization", "Gelu", "Relu", "Add", "Sub", "Mul", "Div"};
    std::vector<WorkloadLayer> layers;
    std::vector<Diagnostic> problems;
    std::map<std::string, std::vector<std::string>> notModelled;
    int biases = 0;
    for (int i = 0; i < nodes.size(); ++i) {
        const auto& node = nodes[i];
        const std::string& op = node.op_type();
        const int group = groupOf[std::size_t(i)];
        // A group maps at its first node; the others are its sources.
        if (group >= 0 && groups[std::size_t(group)].nodes.front() != i) continue;
        const bool computes = anyRuntimeInput(node);
        if (group < 0 && op != "Conv" && op != "Gemm" && op != "MatMul"
            && !(computes && elementwise.count(op))) {
            // Listed with the op type of the file: folded shape arithmetic is a Constant node by now.
            w.notMapped.push_back({nodeName(node, i), m_opTypes[std::size_t(i)]});
            if (computes && !dataMovement.count(op)) notModelled[op].push_back(nodeName(node, i));
            continue;
        }
        try {
            if (group >= 0) {
                mapGroup(groups[std::size_t(group)], layers);
                if (groups[std::size_t(group)].kind == Group::Kind::Bias) ++biases;
            } else if (op == "Conv") {
                mapConv(node, i, layers);
            } else if (op == "Gemm") {
                mapGemm(node, i, layers);
            } else if (op == "MatMul") {
                mapMatMul(node, i, layers);
            } else {
                mapElementwise(node, i, layers);
            }
        } catch (const InputError& e) {
            if (m_mode == workloads::LayerErrors::Throw) {
                problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
                continue;
            }
            WorkloadLayer bad;
            bad.name = nodeName(node, i);
            bad.maestro.name = bad.name;
            bad.sources = {bad.name};
            bad.errors = e.diagnostics();
            layers.push_back(std::move(bad));
        }
    }
    if (!problems.empty()) throw InputError(problems);
    if (layers.empty())
        fail("graph",
            "no node maps to a layer (Conv, Gemm, MatMul or a transformer operator); "
                + std::to_string(w.notMapped.size()) + " nodes are not mapped");
    if (!notModelled.empty()) {
        std::string list;
        std::size_t count = 0;
        for (const auto& [type, names] : notModelled) {
            list += (list.empty() ? "" : ", ") + type + " x" + std::to_string(names.size());
            count += names.size();
        }
        w.notes.push_back(std::to_string(count)
            + " nodes compute on activations but are not modelled (not in "
              "the totals): "
            + list);
    }
    if (biases > 0)
        w.notes.push_back(std::to_string(biases)
            + " bias additions belong to their matrix products (their "
              "element operations are not counted)");
    if (m_folded > 0)
        w.notes.push_back(std::to_string(m_folded) + " nodes of shape arithmetic folded into constants");
    if (decodeTokens) toDecodeStep(layers, *decodeTokens);
    // Identical shapes merge into the first layer; repeats add up (64-bit, then bounded).
    for (WorkloadLayer& l : layers) {
        auto same = std::find_if(
            w.layers.begin(), w.layers.end(), [&](const WorkloadLayer& o) { return sameLayer(l, o); });
        if (same == w.layers.end()) {
            w.layers.push_back(std::move(l));
            continue;
        }
        if (std::int64_t(same->repeat) + l.repeat > kMaxRepeat)
            fail("graph", "layer " + same->name + " repeats too often");
        same->repeat += l.repeat;
        same->sources.insert(same->sources.end(), l.sources.begin(), l.sources.end());
    }
    return w;
}

// CONV, DSCONV, GEMM; ATTENTION; the other kinds in capitals (SOFTMAX, NORM, ACTIVATION, ELEMENTWISE).
std::string typeText(const WorkloadLayer& l)
{
    const workloads::LayerKind kind = l.effectiveKind();
    if (kind != workloads::LayerKind::Attention && !l.maestro.type.empty()) return l.maestro.type;
    std::string out = workloads::toString(kind);
    for (char& c : out)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

std::string dimsText(const WorkloadLayer& l)
{
    std::string out;
    if (l.maestro.type.empty()) {
        // An operator's sizes: R=rows L=cols (softmax), R D (norms), R C (element-wise).
        for (const auto& s : l.op.sizes)
            out += (out.empty() ? "" : " ") + s.name + "=" + std::to_string(s.value);
        return out;
    }
    for (const auto& d : l.maestro.dims)
        if (d.name != "N" || d.size != 1)
            out += (out.empty() ? "" : " ") + d.name + "=" + std::to_string(d.size);
    return out;
}

// "2", "2x1"; a dilation follows as "1 d2" (or "1 d2x4").
std::string strideText(const WorkloadLayer& l)
{
    std::int64_t sy = 1, sx = 1, dy = 1, dx = 1;
    for (const auto& d : l.maestro.dims) {
        if (d.name == "Y") sy = d.stride, dy = d.dilation;
        if (d.name == "X") sx = d.stride, dx = d.dilation;
    }
    auto pair = [](std::int64_t a, std::int64_t b) {
        return a == b ? std::to_string(a) : std::to_string(a) + "x" + std::to_string(b);
    };
    return pair(sy, sx) + (dy == 1 && dx == 1 ? "" : " d" + pair(dy, dx));
}

} // namespace

Workload importOnnx(std::string_view bytes, const std::string& fileName, const ImportOptions& options,
    workloads::LayerErrors mode)
{
    return Importer(fileName, options, mode).run(bytes);
}

Workload importOnnxFile(const std::string& path, const ImportOptions& options, workloads::LayerErrors mode)
{
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(Diagnostic{path, {}, "", "cannot read the file: " + ec.message()});
    // Refused before reading: a multi-GB file would only fill memory to fail in protobuf's parser.
    if (size > options.maxFileBytes)
        throw InputError(Diagnostic{path, {}, "",
            "is " + std::to_string(size) + " bytes, more than the " + std::to_string(options.maxFileBytes)
                + " an ONNX model may have here (export it with export_params=False: the weights are not "
                  "needed)"});
    std::ifstream in(path, std::ios::binary);
    std::string bytes(std::size_t(size), '\0');
    if (!in.read(bytes.data(), std::streamsize(size)))
        throw InputError(Diagnostic{path, {}, "", "cannot read the file"});
    return importOnnx(bytes, path, options, mode);
}

void registerOnnxReader(const ImportOptions& options)
{
    workloads::registerModelFileReader(".onnx",
        [options](const std::string& path, workloads::LayerErrors mode,
            const workloads::SequenceOptions& sequence) {
            ImportOptions o = options;
            if (sequence.batch) o.batch = *sequence.batch;
            if (sequence.seqLen) o.seqLen = sequence.seqLen;
            if (sequence.kvLen) o.kvLen = sequence.kvLen;
            if (sequence.phase != workloads::Phase::Prefill) o.phase = sequence.phase;
            return importOnnxFile(path, o, mode);
        });
}

std::string formatLayerTable(const Workload& workload)
{
    std::ostringstream out;
    std::size_t nameWidth = 4;
    for (const auto& l : workload.layers)
        nameWidth = std::max(nameWidth, l.name.size());
    out << std::left;
    auto pad = [](const std::string& s, std::size_t w) {
        return s + std::string(w > s.size() ? w - s.size() : 1, ' ');
    };
    std::size_t typeWidth = 8;
    for (const auto& l : workload.layers)
        typeWidth = std::max(typeWidth, typeText(l).size() + 2);
    out << pad("name", nameWidth + 2) << pad("type", typeWidth) << pad("dimensions", 44) << pad("stride", 8)
        << pad("repeat", 8) << "source nodes\n";
    for (const auto& l : workload.layers) {
        std::string sources;
        for (const auto& s : l.sources)
            sources += (sources.empty() ? "" : ", ") + s;
        if (!l.ok()) {
            out << pad(l.name, nameWidth + 2) << "error: " << formatDiagnostics(l.errors);
            continue;
        }
        const bool convolution = l.maestro.type == "CONV" || l.maestro.type == "DSCONV";
        out << pad(l.name, nameWidth + 2) << pad(typeText(l), typeWidth) << pad(dimsText(l), 44)
            << pad(convolution ? strideText(l) : "-", 8) << pad(std::to_string(l.repeat), 8) << sources
            << "\n";
    }
    return out.str();
}

std::string formatImportSummary(const Workload& workload, bool brief)
{
    std::map<std::string, std::vector<std::string>> byType;
    for (const auto& n : workload.notMapped)
        byType[n.opType].push_back(n.name);
    // Distinct: the layers of one operator (softmax's four, a norm's) share its nodes.
    std::set<std::string> mappedNodes;
    for (const auto& l : workload.layers)
        mappedNodes.insert(l.sources.begin(), l.sources.end());
    const std::size_t mapped = mappedNodes.size();
    std::ostringstream out;
    out << mapped << " nodes mapped to " << workload.layers.size() << " layers (" << workload.layerCount()
        << " with repeats, " << workload.totalMacs() << " MACs); " << workload.notMapped.size()
        << " nodes not mapped";
    if (brief) {
        std::string counts;
        for (const auto& [type, names] : byType)
            counts += (counts.empty() ? "" : ", ") + type + " x" + std::to_string(names.size());
        out << (counts.empty() ? "" : ": " + counts) << "\n";
        // What the totals leave out is said here too.
        for (const auto& note : workload.notes)
            if (note.find("not modelled") != std::string::npos) out << "  note: " << note << "\n";
        return out.str();
    }
    out << "\n";
    for (const auto& [type, names] : byType) {
        out << "  not mapped: " << type << " (" << names.size() << "):";
        for (const auto& n : names)
            out << " " << n;
        out << "\n";
    }
    for (const auto& note : workload.notes)
        out << "  note: " << note << "\n";
    return out.str();
}

} // namespace marvel::onnx_import
