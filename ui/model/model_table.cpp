#include "ui/model/model_table.h"

#include <map>

#include <QColor>

#include "core/search/roofline.h"
#include "core/tech/technology.h"
#include "core/workloads/transformer.h"

namespace marvel::ui {

namespace {
std::int64_t sizeOf(const ir::Operator& op, const char* name, std::int64_t fallback = 1)
{
    for (const ir::SizeParam& p : op.sizes)
        if (p.name == name) return p.value;
    return fallback;
}

std::int64_t strideOf(const mdc::Layer& layer, const char* dim)
{
    for (const mdc::LayerDim& d : layer.dims)
        if (d.name == dim) return d.stride;
    return 1;
}

std::int64_t dilationOf(const mdc::Layer& layer, const char* dim)
{
    for (const mdc::LayerDim& d : layer.dims)
        if (d.name == dim) return d.dilation;
    return 1;
}
} // namespace

QString layerShape(const workloads::WorkloadLayer& layer)
{
    QStringList parts;
    // An operator of the language (a transformer's softmax, a user's `.loop`): its size parameters.
    if (layer.maestro.type.empty()) {
        for (const ir::SizeParam& size : layer.op.sizes)
            parts << QStringLiteral("%1%2").arg(QString::fromStdString(size.name)).arg(size.value);
        return parts.join(QLatin1Char(' '));
    }
    for (const mdc::LayerDim& d : layer.maestro.dims)
        parts << QStringLiteral("%1%2").arg(QString::fromStdString(d.name)).arg(d.size);
    for (const mdc::LayerDim& d : layer.maestro.dims)
        if (d.stride > 1) {
            parts << QStringLiteral("/%1").arg(d.stride);
            break;
        }
    for (const mdc::LayerDim& d : layer.maestro.dims)
        if (d.dilation > 1) {
            parts << QStringLiteral("d%1").arg(d.dilation);
            break;
        }
    return QString::fromStdString(layer.maestro.type) + QLatin1Char(' ') + parts.join(QLatin1Char(' '));
}

QString layerLoopText(const workloads::WorkloadLayer& layer)
{
    const ir::Operator& op = layer.op;
    const std::string& type = layer.maestro.type;
    std::string text;
    if (type == "CONV")
        text = workloads::conv2dLoopText(sizeOf(op, "K"), sizeOf(op, "C"), sizeOf(op, "Y"), sizeOf(op, "X"),
            sizeOf(op, "R"), sizeOf(op, "S"), strideOf(layer.maestro, "Y"), strideOf(layer.maestro, "X"),
            sizeOf(op, "N"), dilationOf(layer.maestro, "Y"), dilationOf(layer.maestro, "X"));
    else if (type == "DSCONV")
        text = workloads::depthwiseLoopText(sizeOf(op, "C"), sizeOf(op, "Y"), sizeOf(op, "X"),
            sizeOf(op, "R"), sizeOf(op, "S"), strideOf(layer.maestro, "Y"), strideOf(layer.maestro, "X"),
            sizeOf(op, "N"), dilationOf(layer.maestro, "Y"), dilationOf(layer.maestro, "X"));
    else if (type == "GEMM" && layer.effectiveKind() == workloads::LayerKind::Gemm)
        text = workloads::gemmLoopText(sizeOf(op, "M"), sizeOf(op, "N"), sizeOf(op, "K"));
    else
        text = op.source; // an operator of the language: an attention product, a softmax, a user's file
    return QString::fromStdString(text);
}

ModelTableModel::ModelTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void ModelTableModel::setWorkload(workloads::Workload workload)
{
    beginResetModel();
    m_workload = std::move(workload);
    m_rows.assign(m_workload.layers.size(), Row{});
    m_stale.assign(m_rows.size(), QString());
    endResetModel();
    resetResults();
}

void ModelTableModel::resetResults()
{
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        Row& r = m_rows[i];
        r = Row{};
        r.status = tr("pending");
        if (!m_workload.layers[i].ok())
            r.status
                = tr("error: %1").arg(QString::fromStdString(m_workload.layers[i].errors.front().format()));
    }
    m_stale.assign(m_rows.size(), QString());
    if (!m_rows.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void ModelTableModel::addLayerPoints(int row, std::span<const search::EvaluatedPoint> points)
{
    if (row < 0 || row >= rowCount()) return;
    Row& r = m_rows[static_cast<std::size_t>(row)];
    for (const search::EvaluatedPoint& p : points) {
        ++r.cloudSeen;
        if (r.cloud.size() < kCloudPoints) {
            r.cloud.push_back(p);
            continue;
        }
        // Reservoir sampling, with a hash of the count for the draw: the same search keeps the same sample.
        const std::uint64_t draw = (r.cloudSeen * 0x9e3779b97f4a7c15ull) >> 11;
        if (const std::uint64_t slot = draw % r.cloudSeen; slot < kCloudPoints) r.cloud[slot] = p;
    }
}

void ModelTableModel::clearLayerPoints(int row)
{
    if (row < 0 || row >= rowCount()) return;
    Row& r = m_rows[static_cast<std::size_t>(row)];
    r.cloud.clear();
    r.cloudSeen = 0;
}

const std::vector<search::EvaluatedPoint>& ModelTableModel::layerPoints(int row) const
{
    static const std::vector<search::EvaluatedPoint> none;
    return row < 0 || row >= rowCount() ? none : m_rows[static_cast<std::size_t>(row)].cloud;
}

void ModelTableModel::setLayerStatus(int row, const QString& status)
{
    if (row < 0 || row >= rowCount()) return;
    m_rows[static_cast<std::size_t>(row)].status = status;
    emit dataChanged(index(row, Status), index(row, Status));
}

void ModelTableModel::setLayerResult(
    int row, std::shared_ptr<const search::LayerSearchResult> result, const ResultBasis& basis)
{
    if (row < 0 || row >= rowCount()) return;
    Row& r = m_rows[static_cast<std::size_t>(row)];
    const ir::Operator& op = m_workload.layers[static_cast<std::size_t>(row)].op;
    r.result = std::move(result);
    r.basis = basis;
    r.styles.reset();
    const auto nest = ir::perfectNest(op);
    const search::Roofline roofline
        = nest ? search::roofline(*nest, op.sizes, basis.accelerator) : search::Roofline{};
    r.roofline = nest ? roofline.cycles : 0;
    r.best = r.result->result.best(basis.options.objective);
    r.belowRoofline
        = r.best && nest ? search::belowRooflineNote(r.best->metrics.runtime, roofline) : std::string();
    r.status = r.best ? tr("ok") : r.result->result.notMappable() ? tr("not mappable") : tr("no mapping");
    m_stale[static_cast<std::size_t>(row)] = basisChange(r.basis, m_current, AcceleratorPart | SettingsPart);
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

const ResultBasis* ModelTableModel::layerBasis(int row) const
{
    return row >= 0 && row < rowCount() && m_rows[static_cast<std::size_t>(row)].result
        ? &m_rows[static_cast<std::size_t>(row)].basis
        : nullptr;
}

void ModelTableModel::setCurrent(const arch::Accelerator& acc, const search::SearchOptions& options)
{
    const bool objective = options.objective != m_current.options.objective;
    const bool unit = tech::physicalUnits(acc) != tech::physicalUnits(m_current.accelerator);
    m_current.accelerator = acc;
    m_current.options = options;
    if (objective) emit headerDataChanged(Qt::Horizontal, FirstStyle, LastStyle); // their tooltips
    if (unit) emit headerDataChanged(Qt::Horizontal, Energy, Energy);
    updateStale();
}

void ModelTableModel::updateStale()
{
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const QString change = m_rows[i].result
            ? basisChange(m_rows[i].basis, m_current, AcceleratorPart | SettingsPart)
            : QString();
        if (change == m_stale[i]) continue;
        m_stale[i] = change;
        emit dataChanged(index(int(i), 0), index(int(i), ColumnCount - 1));
    }
}

QString ModelTableModel::staleChange(int row) const
{
    return row >= 0 && row < rowCount() ? m_stale[static_cast<std::size_t>(row)] : QString();
}

int ModelTableModel::staleLayers() const
{
    int n = 0;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].best && !m_stale[i].isEmpty()) ++n;
    return n;
}

std::shared_ptr<const search::LayerSearchResult> ModelTableModel::layerResult(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].result : nullptr;
}

void ModelTableModel::setLayerStyles(int row, std::shared_ptr<const std::vector<styles::StyleSearch>> styles)
{
    if (row < 0 || row >= rowCount()) return;
    m_rows[static_cast<std::size_t>(row)].styles = std::move(styles);
    emit dataChanged(index(row, FirstStyle), index(row, LastStyle));
}

std::shared_ptr<const std::vector<styles::StyleSearch>> ModelTableModel::layerStyles(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].styles : nullptr;
}

std::optional<double> ModelTableModel::styleRatio(int row, styles::Style style) const
{
    if (row < 0 || row >= rowCount()) return std::nullopt;
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    // The objective the layer was searched for: under energy, comparing runtimes would rank the styles by
    // what neither search minimised (x0.00 when Marvel's cheapest mapping is slow).
    const search::Objective objective = r.basis.options.objective;
    if (!r.best || !r.styles || !(r.best->metrics.value(objective) > 0)) return std::nullopt;
    for (const styles::StyleSearch& s : *r.styles)
        if (s.style == style && s.best)
            return s.best->metrics.value(objective) / r.best->metrics.value(objective);
    return std::nullopt;
}

std::int64_t ModelTableModel::rooflineCycles(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].roofline : 0;
}

std::int64_t ModelTableModel::totalRuntime() const
{
    std::int64_t total = 0;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].best) total += m_rows[i].best->metrics.runtime * m_workload.layers[i].repeat;
    return total;
}

std::vector<std::pair<workloads::LayerKind, std::int64_t>> ModelTableModel::runtimeByKind() const
{
    std::map<workloads::LayerKind, std::int64_t> byKind;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].best)
            byKind[m_workload.layers[i].effectiveKind()]
                += m_rows[i].best->metrics.runtime * m_workload.layers[i].repeat;
    return {byKind.begin(), byKind.end()};
}

double ModelTableModel::totalEnergy() const
{
    double total = 0;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].best) total += m_rows[i].best->metrics.energy * m_workload.layers[i].repeat;
    return total;
}

std::int64_t ModelTableModel::totalRoofline() const
{
    std::int64_t total = 0;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].best) total += m_rows[i].roofline * m_workload.layers[i].repeat;
    return total;
}

int ModelTableModel::searchedLayers() const
{
    return static_cast<int>(std::count_if(m_rows.begin(), m_rows.end(), [](const Row& r) { return r.best; }));
}

int ModelTableModel::layersBelowRoofline() const
{
    return static_cast<int>(
        std::count_if(m_rows.begin(), m_rows.end(), [](const Row& r) { return !r.belowRoofline.empty(); }));
}

int ModelTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ModelTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ModelTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const workloads::WorkloadLayer& layer = m_workload.layers[static_cast<std::size_t>(index.row())];
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Repeat && index.column() < Status
            ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
            : QVariant();
    // A layer searched before the accelerator or the settings changed: its figures greyed, saying so.
    const QString& stale = m_stale[static_cast<std::size_t>(index.row())];
    const bool staleFigure = !stale.isEmpty() && index.column() >= Runtime;
    if (role == Qt::ForegroundRole) return staleFigure ? QVariant(QColor(kStaleGrey)) : QVariant();
    if (role == Qt::ToolTipRole && staleFigure)
        return staleText(stale, tr("Search the layer or the model again."));
    if (role == Qt::DisplayRole && index.column() == Status && !stale.isEmpty())
        return tr("stale: %1 changed").arg(stale);
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole) return {};
    const bool sort = role == SortRole;
    const std::optional<search::Metrics> m = r.best ? std::optional(r.best->metrics) : std::nullopt;
    switch (index.column()) {
    case Name:
        return QString::fromStdString(layer.name);
    case Kind:
        return QString::fromLatin1(workloads::toString(layer.effectiveKind()));
    case Shape:
        return layerShape(layer);
    case Repeat:
        return layer.repeat;
    case Macs: {
        // Matrix products count multiply-accumulates; the other operators their element operations.
        const bool product = workloads::isMatrixProduct(layer.effectiveKind());
        const qlonglong work = layer.op.sizes.empty() ? 0
            : product                                 ? workloads::operatorMacs(layer.op)
                                                      : workloads::elementOps(layer);
        if (sort) return work;
        return product ? QStringLiteral("%L1").arg(work) : tr("%L1 ops").arg(work);
    }
    case Runtime:
        if (!m) return sort ? QVariant(-1.0) : QVariant();
        return sort ? QVariant(double(m->runtime))
                    : QVariant(QStringLiteral("%L1").arg(qlonglong(m->runtime)));
    case Energy:
        if (!m) return sort ? QVariant(-1.0) : QVariant();
        return sort ? QVariant(m->energy) : QVariant(QString::number(m->energy, 'g', 5));
    case Utilisation:
        if (!m) return sort ? QVariant(-1.0) : QVariant();
        return sort ? QVariant(m->utilization)
                    : QVariant(QStringLiteral("%1%").arg(m->utilization * 100, 0, 'f', 1));
    case OverRoofline: {
        if (!m || r.roofline <= 0) return sort ? QVariant(-1.0) : QVariant();
        const double ratio = double(m->runtime) / double(r.roofline);
        if (sort) return ratio;
        // Below 1 only where maestro fidelity keeps MAESTRO's formulas: marked, and said why.
        if (role == Qt::ToolTipRole)
            return r.belowRoofline.empty()
                ? QVariant()
                : QVariant(tr("Runtime %1").arg(QString::fromStdString(r.belowRoofline)));
        return QString::number(ratio, 'f', 3) + (r.belowRoofline.empty() ? QString() : QStringLiteral(" !"));
    }
    case Status:
        // The search refuses mappings whose figure is impossible (doc/search.md): say how many.
        if (role == Qt::ToolTipRole && r.result && r.result->result.stats.impossibleFigures > 0)
            return tr(
                "%1: %L2 mappings refused as maestro-undercount (a runtime below the compute bound or a "
                "wrong MAC count, which MAESTRO's accounting gives some mappings)")
                .arg(r.status)
                .arg(qulonglong(r.result->result.stats.impossibleFigures));
        return r.status;
    default:
        if (index.column() >= FirstStyle && index.column() <= LastStyle) {
            const styles::Style style = styles::allStyles()[std::size_t(index.column() - FirstStyle)];
            const std::optional<double> ratio = styleRatio(index.row(), style);
            if (role == Qt::ToolTipRole) return styleRatioTip(style, r.basis.options.objective);
            if (!ratio) {
                if (sort) return -1.0;
                return r.styles && r.best ? tr("no fit") : QVariant();
            }
            return sort ? QVariant(*ratio) : QVariant(QStringLiteral("\u00d7%1").arg(*ratio, 0, 'f', 2));
        }
        return {};
    }
}

QString ModelTableModel::styleRatioTip(styles::Style style, search::Objective objective)
{
    switch (objective) {
    case search::Objective::Energy:
        return tr("The best %1 mapping's energy over this layer's best (the objective is energy; above 1: "
                  "Marvel's is cheaper)")
            .arg(QString::fromStdString(styles::description(style)));
    case search::Objective::Edp:
        return tr("The best %1 mapping's EDP over this layer's best (the objective is EDP; above 1: Marvel's "
                  "is better)")
            .arg(QString::fromStdString(styles::description(style)));
    case search::Objective::Runtime:
        break;
    }
    return tr("The best %1 mapping's runtime over this layer's best (the objective is runtime; above 1: "
              "Marvel's is faster)")
        .arg(QString::fromStdString(styles::description(style)));
}

QVariant ModelTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    // Short headers keep every column in view beside the accelerator panel; the tooltips say the rest.
    // The columns before the styles' (the styles name theirs, Status follows them): sized by the enum, so
    // a style added to it cannot shift the Status header into a style's place.
    static const char* const names[FirstStyle]
        = {"Layer", "Kind", "Shape", "Repeat", "MACs", "Cycles", "Energy", "PE use", "\u00d7 roofline"};
    static const char* const tips[FirstStyle] = {"The layer's name in the model",
        "What the layer computes: conv, dsconv, gemm (activations times weights), attention (a product of "
        "two activations), softmax, norm, activation, elementwise, or a user's operator",
        "The layer's loop bounds (/2: a stride of 2, d2: a dilation of 2)",
        "How many times the model runs this layer",
        "Multiply-accumulates of one run of the layer; for the operators that are not matrix products, their "
        "element operations (each + - * /, max, min, exp... one)",
        "Runtime of the best mapping, in cycles",
        "Total energy of the best mapping (on chip and DRAM), in MAC units (MAESTRO's energies)",
        "Average share of the PEs the best mapping keeps busy",
        "Runtime of the best mapping over the layer's roofline (1 is the bound)"};
    if (section == Status) {
        if (role == Qt::DisplayRole) return tr("Status");
        if (role == Qt::ToolTipRole) return tr("Whether the layer has been searched, and its outcome");
        return {};
    }
    const bool style = section >= FirstStyle && section <= LastStyle;
    const styles::Style st = style ? styles::allStyles()[std::size_t(section - FirstStyle)] : styles::Style{};
    // The energies are in the units of the accelerator the panels hold (pJ under a technology table).
    const bool pj = tech::physicalUnits(m_current.accelerator);
    if (section == Energy && role == Qt::DisplayRole) return pj ? tr("Energy (pJ)") : tr("Energy");
    if (section == Energy && role == Qt::ToolTipRole)
        return pj ? tr("Total energy of the best mapping (on chip and DRAM), in pJ (%1)")
                        .arg(QString::fromStdString(tech::describe(m_current.accelerator)))
                  : tr(tips[section]);
    if (role == Qt::DisplayRole)
        return style ? QString::fromStdString(styles::shortLabel(st)) : tr(names[section]);
    if (role == Qt::ToolTipRole)
        return style ? styleRatioTip(st, m_current.options.objective) : tr(tips[section]);
    return {};
}

} // namespace marvel::ui
