#pragma once
// One selected mapping: the tiled loop nest beside its MDC directives, and what the cost model says of
// it (runtime, energy and its parts, EDP, utilisation, L1/L2 needs against capacity, runtime over the
// roofline, per-tensor traffic). When the accelerator, the settings or the operator change after the
// mapping was computed, the window marks the numbers stale: greyed under a note saying what changed.

#include <optional>

#include <QWidget>

#include "core/arch/accelerator.h"
#include "core/cost/costmodel.h"
#include "core/search/onchip_search.h"

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTableWidget;

namespace marvel::ui {

class MappingView : public QWidget
{
    Q_OBJECT
public:
    explicit MappingView(QWidget* parent = nullptr);

    /// Shows `candidate`, evaluating it once more with the full cost model for the detailed numbers.
    void setMapping(const search::Candidate& candidate, const cost::Problem& problem, const std::string& body,
        const arch::Accelerator& acc, search::Fidelity fidelity, std::int64_t rooflineCycles);
    void clear();
    /// What the view says while no mapping is shown (empty: how to get one), e.g. that the operator has
    /// none; replaces the text at once when no mapping is shown.
    void setIdleText(const QString& text);
    QString loopNestText() const;
    QString mdcText() const;
    QString metricsText() const;
    /// Greys the cost and the styles' numbers under a note that they were computed before `change`
    /// changed (see staleText); empty: they are current.
    void setStale(const QString& change);
    /// The stale note shown (empty when the numbers are current).
    QString staleNote() const;
    const std::optional<cost::Result>& result() const { return m_result; }

    /// One mapping style's best for the same layer and accelerator, to compare the selected mapping with.
    struct StyleBest
    {
        QString label; ///< "RS": the plot's label
        QString description; ///< "Eyeriss-like row-stationary (rs)": the row's tooltip
        std::optional<search::Metrics> metrics; ///< empty: no mapping under the style fits the buffers
        QString parallel; ///< the dimensions its SpatialMaps spread ("K, C")
    };
    /// Shows each style's best beside the selected mapping (runtime and energy, and their ratios to the
    /// selected mapping's); an empty list hides the table.
    void setStyleComparison(const std::vector<StyleBest>& styles);
    QTableWidget* styleTable() const { return m_styleTable; }
    /// The style table's columns.
    enum StyleColumn { Name, RuntimeRatio, Runtime, EnergyRatio, Energy, Parallel, StyleColumns };

signals:
    /// The cursor moved onto directive `index` of the dataflow (one directive per line).
    void directiveSelected(int index);

private:
    QString idleText() const;
    QString m_idleText; ///< setIdleText's
    QPlainTextEdit* m_loopNest = nullptr;
    QPlainTextEdit* m_mdc = nullptr;
    QLabel* m_metrics = nullptr;
    QTableWidget* m_styleTable = nullptr;
    QTabWidget* m_right = nullptr; ///< the cost model's numbers | the styles' best mappings
    int m_stylesTab = -1;
    std::optional<cost::Result> m_result;
    std::optional<search::Metrics> m_selected; ///< of the shown mapping, for the style ratios
    std::vector<StyleBest> m_styles;
    QString m_metricsHtml; ///< the cost model's numbers as computed
    QString m_metricsTip; ///< why the figure is impossible (maestro-undercount), else empty
    QString m_stale; ///< what changed since, or empty
    void fillStyleTable();
    void showMetrics();
};

} // namespace marvel::ui
