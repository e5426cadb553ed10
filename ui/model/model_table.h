#pragma once
// A model's layers as a table (name, shape, repeat, MACs, then the search's best runtime, energy, PE
// utilisation, runtime over the roofline, each mapping style's best over it in the objective, and status),
// filled layer by layer as the whole model is searched, with the model's totals (runtime and energy counted
// with each layer's repeat). Each layer's figures come from its own search and the accelerator and
// settings that search ran with (its ResultBasis: the roofline too); a layer searched before the
// current accelerator or settings is shown greyed and "stale" until it is searched again.

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <QAbstractTableModel>

#include "core/search/search.h"
#include "core/styles/styles.h"
#include "core/workloads/workloads.h"
#include "ui/search/result_basis.h"

namespace marvel::ui {

class ModelTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Name,
        Kind,
        Shape,
        Repeat,
        Macs,
        Runtime,
        Energy,
        Utilisation,
        OverRoofline,
        /// One column per compared style (styles::allStyles() order): its best over the layer's, in the
        /// objective the layer was searched for.
        FirstStyle,
        LastStyle = FirstStyle + 5,
        Status,
        ColumnCount
    };
    /// Numbers for sorting (Qt::DisplayRole shows them formatted).
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ModelTableModel(QObject* parent = nullptr);

    void setWorkload(workloads::Workload workload);
    const workloads::Workload& workload() const { return m_workload; }
    /// Every result and status back to "pending" (a new search of the whole model).
    void resetResults();
    void setLayerStatus(int row, const QString& status);
    /// Layer `row`'s search, run on `basis` (its accelerator gives the roofline, its objective the best
    /// mapping shown). Drops the row's compared styles: those of this search follow.
    void setLayerResult(
        int row, std::shared_ptr<const search::LayerSearchResult> result, const ResultBasis& basis);
    std::shared_ptr<const search::LayerSearchResult> layerResult(int row) const;
    /// What layer `row`'s result was computed for (null while it has none).
    const ResultBasis* layerBasis(int row) const;
    /// The compared styles' searches of layer `row` (its style columns), from the search of its result.
    void setLayerStyles(int row, std::shared_ptr<const std::vector<styles::StyleSearch>> styles);
    /// Style `style`'s best over the layer's own best in the objective the layer was searched for (runtime,
    /// energy or EDP); nullopt until both are known or when the style has no mapping that fits.
    std::optional<double> styleRatio(int row, styles::Style style) const;
    std::shared_ptr<const std::vector<styles::StyleSearch>> layerStyles(int row) const;
    /// Evaluated mappings of layer `row`'s last search, for its plot's cloud: all of them up to
    /// kCloudPoints, then a uniform sample of that many. clearLayerPoints starts a new search's.
    void addLayerPoints(int row, std::span<const search::EvaluatedPoint> points);
    void clearLayerPoints(int row);
    const std::vector<search::EvaluatedPoint>& layerPoints(int row) const;
    static constexpr std::size_t kCloudPoints = 20000;
    /// The roofline of layer `row` on the accelerator its result was searched on (0 while it has none).
    std::int64_t rooflineCycles(int row) const;

    /// The accelerator and settings of the panels now: results searched otherwise are stale.
    void setCurrent(const arch::Accelerator& acc, const search::SearchOptions& options);
    /// What changed since layer `row` was searched (empty: its figures are current or it has none).
    QString staleChange(int row) const;
    /// Searched layers whose figures are stale.
    int staleLayers() const;

    /// Sums over the searched layers, each times its repeat.
    std::int64_t totalRuntime() const;
    /// The searched layers' runtime (with repeats) per kind, the kinds in LayerKind order; empty kinds left
    /// out.
    std::vector<std::pair<workloads::LayerKind, std::int64_t>> runtimeByKind() const;
    double totalEnergy() const;
    /// The accelerator the panels hold (the figures' units follow it).
    const arch::Accelerator& currentAccelerator() const { return m_current.accelerator; }
    std::int64_t totalRoofline() const;
    int searchedLayers() const;
    /// Searched layers whose best runtime is below their roofline (marked "!": maestro fidelity).
    int layersBelowRoofline() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    static QString styleRatioTip(styles::Style style, search::Objective objective);
    struct Row
    {
        QString status;
        std::int64_t roofline = 0; ///< on the basis's accelerator
        std::string belowRoofline; ///< why the best runtime is below the roofline (search::belowRooflineNote)
        std::shared_ptr<const search::LayerSearchResult> result;
        ResultBasis basis; ///< of `result`
        std::optional<search::Candidate> best;
        std::shared_ptr<const std::vector<styles::StyleSearch>> styles;
        std::vector<search::EvaluatedPoint> cloud;
        std::uint64_t cloudSeen = 0; ///< points offered to `cloud` (the sample's denominator)
    };
    void updateStale();
    workloads::Workload m_workload;
    std::vector<Row> m_rows;
    ResultBasis m_current; ///< the panels' accelerator and settings (no workload: each row has its own)
    std::vector<QString> m_stale; ///< per row: what changed since its search, empty when current
};

/// A short shape such as "K64 C3 Y224 X224 R3 S3 /2" from the layer's MAESTRO dimensions.
QString layerShape(const workloads::WorkloadLayer& layer);
/// The layer as loop-nest text of the operator language (a CNN layer written from its MAESTRO view; an
/// operator of the language, such as a softmax part or an attention product, as it was parsed).
QString layerLoopText(const workloads::WorkloadLayer& layer);

} // namespace marvel::ui
