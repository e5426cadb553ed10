#include "ui/search/result_basis.h"

#include <cstdio>

#include <QCoreApplication>
#include <QStringList>

#include "core/arch/accelerator_io.h"
#include "core/tech/technology.h"

namespace marvel::ui {

namespace {
void appendRef(std::string& out, const ir::TensorRef& ref)
{
    out += ref.tensor;
    for (const ir::AffineExpr& s : ref.subscripts)
        out += '[' + s.toString() + ']';
}

void appendExpr(std::string& out, const ir::Expr& e)
{
    using K = ir::Expr::Kind;
    switch (e.kind) {
    case K::Number: {
        char number[32];
        std::snprintf(number, sizeof number, "%.17g", e.number);
        out += number;
        return;
    }
    case K::Ref:
        appendRef(out, e.ref);
        return;
    case K::Neg:
        out += "-";
        break;
    case K::Max:
        out += "max";
        break;
    case K::Min:
        out += "min";
        break;
    case K::Call:
        out += ir::kFunctionNames[std::size_t(e.function)];
        break;
    default:
        break;
    }
    const char* op = e.kind == K::Add ? "+"
        : e.kind == K::Sub            ? "-"
        : e.kind == K::Mul            ? "*"
        : e.kind == K::Div            ? "/"
                                      : ",";
    out += '(';
    for (std::size_t i = 0; i < e.operands.size(); ++i) {
        if (i > 0) out += op;
        appendExpr(out, e.operands[i]);
    }
    out += ')';
}

void appendNodes(std::string& out, const std::vector<ir::Node>& nodes)
{
    for (const ir::Node& n : nodes) {
        switch (n.kind) {
        case ir::Node::Kind::Loop:
            out += "for " + n.iterator + " in [" + n.lower.toString() + ", " + n.upper.toString() + ") {";
            appendNodes(out, n.body);
            out += '}';
            break;
        case ir::Node::Kind::If:
            out += "if (" + n.condition + ") {";
            appendNodes(out, n.body);
            out += '}';
            break;
        case ir::Node::Kind::Statement:
            appendRef(out, n.statement.target);
            out += n.statement.op == ir::Statement::Op::AddAssign ? " += " : " = ";
            appendExpr(out, n.statement.value);
            out += ';';
            break;
        }
    }
}

QString tr(const char* text)
{
    return QCoreApplication::translate("marvel::ui::ResultBasis", text);
}
} // namespace

std::string workloadKey(const ir::Operator& op)
{
    std::string key = op.name + '(';
    for (const ir::SizeParam& s : op.sizes)
        key += s.name + '=' + std::to_string(s.value) + ',';
    key += ") {";
    appendNodes(key, op.body);
    return key + '}';
}

std::string workloadKey(const workloads::Workload& workload)
{
    std::string key;
    for (const workloads::WorkloadLayer& l : workload.layers)
        key += workloadKey(l.op) + " x" + std::to_string(l.repeat) + '\n';
    return key;
}

bool sameResultOptions(const search::SearchOptions& a, const search::SearchOptions& b)
{
    // The seeds and the constraint's factory are set by core's style searches and tests, never by the
    // panels whose options the app compares; of the constraint, the panels set only the Timeloop filter
    // (its box and space). The rest shapes what a search finds.
    return a.objective == b.objective && a.refine == b.refine
        && bool(a.constraint.dataflowFilter) == bool(b.constraint.dataflowFilter)
        && a.constraint.expressibleSpace == b.constraint.expressibleSpace
        && a.peUtilizationBound == b.peUtilizationBound && a.nearTie == b.nearTie
        && a.divisorsOnly == b.divisorsOnly && a.everyTileSize == b.everyTileSize
        && a.l1Capacity == b.l1Capacity && a.l2Capacity == b.l2Capacity && a.boundSkipping == b.boundSkipping
        && a.exhaustive == b.exhaustive && a.fidelity == b.fidelity && a.batchSize == b.batchSize
        && a.maxCandidates == b.maxCandidates && a.nonDivisorBudget == b.nonDivisorBudget
        && a.maxTileAssignments == b.maxTileAssignments && a.maxTileVisits == b.maxTileVisits
        && a.widenWhenEmpty == b.widenWhenEmpty && a.widenAboveRoofline == b.widenAboveRoofline
        && a.offChipCandidates == b.offChipCandidates && a.seeds.size() == b.seeds.size();
}

namespace {
/// "the accelerator (PEs, L2)": the part and the fields that differ (those the panels show by name).
QString namedChange(const QString& part, const QStringList& fields)
{
    return fields.isEmpty() ? part : QStringLiteral("%1 (%2)").arg(part, fields.join(QStringLiteral(", ")));
}

QStringList acceleratorFields(const arch::Accelerator& a, const arch::Accelerator& b)
{
    QStringList f;
    auto add = [&f](bool differs, const char* name) {
        if (differs) f << tr(name);
    };
    add(a.numPes != b.numPes, "PEs");
    add(a.simdLanes != b.simdLanes, "SIMD lanes");
    add(a.clockMHz != b.clockMHz, "clock");
    add(a.l1Bytes != b.l1Bytes, "L1");
    add(a.l2Bytes != b.l2Bytes, "L2");
    add(a.bytesPerElement != b.bytesPerElement, "word size");
    add(a.nocBandwidth != b.nocBandwidth, "NoC bandwidth");
    add(a.nocLatency != b.nocLatency, "NoC latency");
    add(a.offchipBandwidth != b.offchipBandwidth, "off-chip bandwidth");
    add(a.dramBlockBytes != b.dramBlockBytes, "DRAM block");
    add(a.multicast != b.multicast, "multicast");
    add(a.spatialReduction != b.spatialReduction, "spatial reduction");
    add(a.vectorUnit != b.vectorUnit, "vector unit");
    add(a.energy.vectorOp != b.energy.vectorOp || a.energy.mac != b.energy.mac
            || a.energy.l1Access != b.energy.l1Access || a.energy.l2Access != b.energy.l2Access
            || a.energy.dramAccess != b.energy.dramAccess
            || a.energy.macEnergyNanojoule != b.energy.macEnergyNanojoule,
        "energy");
    return f;
}

QStringList optionFields(const search::SearchOptions& a, const search::SearchOptions& b)
{
    QStringList f;
    auto add = [&f](bool differs, const char* name) {
        if (differs) f << tr(name);
    };
    add(a.objective != b.objective, "objective");
    add(a.fidelity != b.fidelity, "cost model");
    add(a.peUtilizationBound != b.peUtilizationBound, "tile pruning");
    add(a.nearTie != b.nearTie, "near ties");
    add(a.divisorsOnly != b.divisorsOnly, "tile sizes");
    add(a.l1Capacity != b.l1Capacity || a.l2Capacity != b.l2Capacity, "buffer checks");
    add(a.boundSkipping != b.boundSkipping, "bound skipping");
    add(a.offChipCandidates != b.offChipCandidates, "off-chip solutions");
    add(a.refine != b.refine, "refinement");
    add(bool(a.constraint.dataflowFilter) != bool(b.constraint.dataflowFilter), "Timeloop only");
    add(a.constraint.expressibleSpace != b.constraint.expressibleSpace, "Timeloop space");
    return f;
}
} // namespace

QString basisChange(const ResultBasis& shown, const ResultBasis& current, int parts)
{
    QStringList changed;
    if ((parts & AcceleratorPart) && !arch::sameParameters(shown.accelerator, current.accelerator))
        changed << namedChange(
            tr("the accelerator"), acceleratorFields(shown.accelerator, current.accelerator));
    if ((parts & SettingsPart) && !sameResultOptions(shown.options, current.options))
        changed << namedChange(tr("the search settings"), optionFields(shown.options, current.options));
    if ((parts & WorkloadPart) && shown.workload != current.workload) changed << tr("the workload");
    if (changed.size() <= 1) return changed.join(QString());
    const QString last = changed.takeLast();
    return tr("%1 and %2").arg(changed.join(QStringLiteral(", ")), last);
}

QString energyUnit(const arch::Accelerator& acc)
{
    return tech::physicalUnits(acc) ? tr("pJ") : tr("MAC units");
}

QString staleText(const QString& change, const QString& next)
{
    const QString text = tr("Stale: computed before %1 changed.").arg(change);
    return next.isEmpty() ? text : text + QLatin1Char(' ') + next;
}

} // namespace marvel::ui
