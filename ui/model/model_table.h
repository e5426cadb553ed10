#pragma once
// A model's layers as a table (name, shape, repeat, MACs, then the search's best runtime, energy, PE
// utilisation, runtime over the roofline, each mapping style's best runtime over it, and status), filled
// layer by layer as the whole model is searched, with the model's totals (runtime and energy counted
// with each layer's repeat).

#include <memory>
#include <optional>
#include <vector>

#include <QAbstractTableModel>

#include "core/search/search.h"
#include "core/styles/styles.h"
#include "core/workloads/workloads.h"

namespace marvel::ui {

class ModelTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Name,
        Shape,
        Repeat,
        Macs,
        Runtime,
        Energy,
        Utilisation,
        OverRoofline,
        /// One column per compared style (styles::allStyles() order): its best runtime over the layer's.
        FirstStyle,
        LastStyle = FirstStyle + 5,
        Status,
        ColumnCount
    };
    /// Numbers for sorting (Qt::DisplayRole shows them formatted).
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ModelTableModel(QObject* parent = nullptr);

    void setWorkload(workloads::Workload workload, const arch::Accelerator& acc);
    const workloads::Workload& workload() const { return m_workload; }
    /// Every result and status back to "pending" (the accelerator or the settings changed).
    void resetResults(const arch::Accelerator& acc);
    void setLayerStatus(int row, const QString& status);
    void setLayerResult(
        int row, std::shared_ptr<const search::LayerSearchResult> result, search::Objective objective);
    std::shared_ptr<const search::LayerSearchResult> layerResult(int row) const;
    /// The compared styles' searches of layer `row` (its style columns).
    void setLayerStyles(int row, std::shared_ptr<const std::vector<styles::StyleSearch>> styles);
    /// Style `style`'s best runtime over the layer's own best; nullopt until both are known or when the
    /// style has no mapping that fits.
    std::optional<double> styleRatio(int row, styles::Style style) const;
    std::shared_ptr<const std::vector<styles::StyleSearch>> layerStyles(int row) const;
    std::int64_t rooflineCycles(int row) const;

    /// Sums over the searched layers, each times its repeat.
    std::int64_t totalRuntime() const;
    double totalEnergy() const;
    std::int64_t totalRoofline() const;
    int searchedLayers() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    static QString styleRatioTip(styles::Style style);
    struct Row
    {
        QString status;
        std::int64_t roofline = 0;
        std::shared_ptr<const search::LayerSearchResult> result;
        std::optional<search::Candidate> best;
        std::shared_ptr<const std::vector<styles::StyleSearch>> styles;
    };
    workloads::Workload m_workload;
    std::vector<Row> m_rows;
};

/// A short shape such as "K64 C3 Y224 X224 R3 S3 /2" from the layer's MAESTRO dimensions.
QString layerShape(const workloads::WorkloadLayer& layer);
/// The layer as loop-nest text of the operator language (empty for custom operators).
QString layerLoopText(const workloads::WorkloadLayer& layer);

} // namespace marvel::ui
