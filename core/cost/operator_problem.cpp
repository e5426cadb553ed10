// cost::fromOperator: the cost model's Problem of a perfectly nested operator of the operator language.
#include <algorithm>
#include <map>
#include <set>

#include "core/cost/problem.h"
#include "core/ir/operator.h"

namespace marvel::cost {

namespace {

[[noreturn]] void fail(const ir::Operator& op, SourceLoc loc, const std::string& message)
{
    Diagnostic d;
    d.file = op.file;
    d.loc = loc.line > 0 ? loc : op.loc;
    d.message = "operator '" + op.name + "': " + message;
    throw InputError(std::move(d));
}

} // namespace

Problem fromOperator(const ir::Operator& op)
{
    std::optional<ir::PerfectNest> nest = ir::perfectNest(op);
    if (!nest || nest->loops.empty()) fail(op, op.loc, "the cost model needs a perfect loop nest (rule R1)");
    if (nest->statements.size() != 1)
        fail(op, op.loc, "the cost model needs exactly one statement in the loop nest");
    const ir::Statement& st = nest->statements.front();

    Problem p;
    p.name = op.name;
    p.type = "OPERATOR";
    p.file = op.file;
    p.loc = op.loc;
    std::map<std::string, const ir::LoopInfo*> loopOf; // iterator -> loop
    for (const auto& l : nest->loops) {
        if (p.dim(l.dimName)) fail(op, l.loc, "two loops share the dimension name '" + l.dimName + "'");
        if (l.extent < 1) fail(op, l.loc, "loop '" + l.iterator + "' has no iteration");
        p.dims.push_back({l.dimName, l.extent, 1, true});
        loopOf[l.iterator] = &l;
    }

    // Output: every subscript a single iterator (or a constant).
    ProblemTensor out;
    out.name = st.target.tensor;
    out.role = ProblemTensor::Role::Output;
    std::set<std::string> outIterators;
    for (const auto& sub : st.target.subscripts) {
        std::vector<std::string> its;
        for (const auto& [name, coeff] : sub.terms)
            if (loopOf.count(name)) its.push_back(name);
        if (its.size() > 1)
            fail(op, st.target.loc, "output subscript '" + sub.toString() + "' uses several loop iterators");
        if (its.size() == 1) {
            out.dims.push_back(loopOf[its[0]]->dimName);
            outIterators.insert(its[0]);
        }
    }

    std::vector<ir::TensorRef> refs;
    st.value.collectRefs(refs);
    std::map<std::string, int> seen;
    for (const auto& ref : refs) {
        if (ref.tensor == st.target.tensor && ref.subscripts == st.target.subscripts)
            continue; // the accumulator read of a reduction
        ProblemTensor t;
        t.role = ProblemTensor::Role::Input;
        int n = ++seen[ref.tensor];
        t.name = n == 1 ? ref.tensor : ref.tensor + "#" + std::to_string(n);
        for (const auto& sub : ref.subscripts) {
            std::vector<std::pair<std::string, std::int64_t>> its;
            for (const auto& [name, coeff] : sub.terms)
                if (loopOf.count(name)) its.emplace_back(name, coeff);
            if (its.empty()) continue;
            if (its.size() == 1) {
                t.dims.push_back(loopOf[its[0].first]->dimName);
                continue;
            }
            if (its.size() > 2)
                fail(op, ref.loc, "subscript '" + sub.toString() + "' combines more than two loop iterators");
            // a*y + b*r: y indexes the output (window output), r does not (sliding, reduced).
            bool firstOut = outIterators.count(its[0].first) > 0;
            bool secondOut = outIterators.count(its[1].first) > 0;
            if (firstOut == secondOut)
                fail(op, ref.loc,
                    "subscript '" + sub.toString()
                        + "' is not a sliding window (exactly one iterator must index the output)");
            auto [y, a] = firstOut ? its[0] : its[1];
            auto [r, b] = firstOut ? its[1] : its[0];
            if (a < 1 || b < 1)
                fail(op, ref.loc, "sliding window '" + sub.toString() + "' needs positive coefficients");
            const std::string& yName = loopOf[y]->dimName;
            if (loopOf[r]->extent == 1) {
                // A window that does not slide (a 1-wide filter) reads exactly the elements a*y reads:
                // the tensor is coupled to y's dimension like a single-iterator subscript. Treating it as
                // a window would make MAESTRO's stride handling (filter narrower than the stride, spec
                // §3.3 step 4) count MACs of input rows the layer never uses.
                t.dims.push_back(yName);
                continue;
            }
            const std::string& rName = loopOf[r]->dimName;
            std::string refName = yName + "+" + rName;
            const SlidingWindow* existing = nullptr;
            for (const auto& w : p.windows)
                if (w.output == yName) existing = &w;
            if (existing && (existing->sliding != rName || existing->stride != a || existing->dilation != b))
                fail(op, ref.loc, "output dimension '" + yName + "' slides in two different windows");
            if (!existing) {
                std::int64_t extent = (loopOf[y]->extent - 1) * a + (loopOf[r]->extent - 1) * b + 1;
                p.windows.push_back({refName, rName, yName, a, b});
                p.dims.push_back({refName, extent, a, true});
            }
            t.dims.push_back(refName);
        }
        p.tensors.push_back(std::move(t));
    }
    if (p.tensors.empty()) fail(op, st.loc, "the statement reads no tensor");
    // The tensor read through sliding windows plays MAESTRO's "input" role, the others "filter".
    std::stable_partition(p.tensors.begin(), p.tensors.end(), [&](const ProblemTensor& t) {
        for (const auto& w : p.windows)
            if (std::find(t.dims.begin(), t.dims.end(), w.reference) != t.dims.end()) return true;
        return false;
    });
    p.tensors.push_back(out);

    // Default-unroll order: MAESTRO sorts the input-class dimension names; a window's reference
    // dimension sorts under its output name (as MAESTRO's input-space Y sorts as "Y").
    std::map<std::string, std::string> key;
    for (const auto& t : p.tensors)
        if (t.role == ProblemTensor::Role::Input)
            for (const auto& d : t.dims)
                key[d] = d;
    for (const auto& w : p.windows)
        if (key.count(w.reference)) key[w.reference] = w.output;
    std::vector<std::pair<std::string, std::string>> order;
    for (const auto& [d, k] : key)
        order.emplace_back(k, d);
    std::sort(order.begin(), order.end());
    for (const auto& [k, d] : order)
        p.unrollOrder.push_back(d);

    std::vector<Diagnostic> problems = p.validate();
    if (!problems.empty()) {
        for (auto& d : problems) {
            d.file = op.file;
            d.loc = op.loc;
        }
        throw InputError(problems);
    }
    p.vectorOps = vectorOpsOf(st);
    return p;
}

} // namespace marvel::cost

namespace marvel::cost {

void setDramLayouts(Problem& problem, const ir::Operator& op, const std::vector<SubscriptLayout>& layouts)
{
    std::optional<ir::PerfectNest> nest = ir::perfectNest(op);
    if (!nest || nest->statements.size() != 1) return;
    const ir::Statement& st = nest->statements.front();
    std::set<std::string> iterators;
    for (const auto& l : nest->loops)
        iterators.insert(l.iterator);
    // fromOperator gives a tensor one dimension per subscript that moves with a loop, in order.
    auto apply = [&](const std::string& problemName, const ir::TensorRef& ref) {
        auto layout = std::find_if(layouts.begin(), layouts.end(),
            [&](const SubscriptLayout& l) { return l.tensor == ref.tensor && !l.subscriptOrder.empty(); });
        auto tensor = std::find_if(problem.tensors.begin(), problem.tensors.end(),
            [&](const ProblemTensor& t) { return t.name == problemName; });
        if (layout == layouts.end() || tensor == problem.tensors.end()) return;
        const int inner = layout->subscriptOrder.back();
        if (inner < 0 || std::size_t(inner) >= ref.subscripts.size()) return;
        int dim = 0;
        for (int s = 0; s < inner; ++s)
            for (const auto& term : ref.subscripts[std::size_t(s)].terms)
                if (iterators.count(term.first)) {
                    ++dim;
                    break;
                }
        bool moves = false;
        for (const auto& term : ref.subscripts[std::size_t(inner)].terms)
            moves = moves || iterators.count(term.first) > 0;
        tensor->dramInnermost = moves ? dim : ProblemTensor::kNoContiguousDim;
    };
    apply(st.target.tensor, st.target);
    std::vector<ir::TensorRef> refs;
    st.value.collectRefs(refs);
    std::map<std::string, int> seen;
    for (const auto& ref : refs) {
        if (ref.tensor == st.target.tensor && ref.subscripts == st.target.subscripts) continue;
        const int n = ++seen[ref.tensor];
        apply(n == 1 ? ref.tensor : ref.tensor + "#" + std::to_string(n), ref);
    }
}

std::int64_t vectorOpsOf(const ir::Statement& statement)
{
    return statement.isMultiplyAccumulate() ? 0 : std::max<std::int64_t>(statement.operations(), 1);
}

arch::Accelerator executionUnit(const Problem& problem, const arch::Accelerator& acc)
{
    if (problem.vectorOps == 0 || acc.vectorUnit.lanes == 0) return acc;
    return arch::vectorUnitView(acc, problem.vectorOps);
}

} // namespace marvel::cost
