#pragma once
// The search settings (objective, fidelity, pruning, capacity checks, threads), Run and Cancel, a
// progress bar with evaluations per second and an ETA, and how the last run ended. It does not run
// anything: the window connects it to the SearchController.

#include <QWidget>

#include "core/search/onchip_search.h"
#include "ui/search/search_controller.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace marvel::ui {

class SearchPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SearchPanel(QWidget* parent = nullptr);

    search::SearchOptions options() const;
    /// Whether each search also searches the mapping styles and past optimisers for comparison.
    bool compareStyles() const;
    void setCompareStyles(bool on);
    void setOptions(const search::SearchOptions& options);
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QString outcomeText() const;

public slots:
    void setRunning(bool running);
    void showProgress(const marvel::ui::SearchProgress& progress);
    void showOutcome(const marvel::ui::SearchOutcome& outcome);

signals:
    void runRequested();
    void cancelRequested();
    void optionsChanged();

private:
    QComboBox* m_objective = nullptr;
    QComboBox* m_fidelity = nullptr;
    QDoubleSpinBox* m_utilisation = nullptr;
    QDoubleSpinBox* m_nearTie = nullptr; ///< SearchOptions::nearTie in percent
    QCheckBox* m_divisors = nullptr;
    QCheckBox* m_l1 = nullptr;
    QCheckBox* m_l2 = nullptr;
    QCheckBox* m_bounds = nullptr;
    QCheckBox* m_refine = nullptr;
    QCheckBox* m_timeloop
        = nullptr; ///< only mappings Timeloop can express (SearchConstraint::dataflowFilter)
    QComboBox* m_timeloopSpace = nullptr; ///< which of them (timeloop::SearchSpace, by index)
    /// Off-chip solutions searched (a project's "offchip_candidates"): no widget, kept as it came.
    int m_offChipCandidates = search::SearchOptions::kDefaultOffChipCandidates;
    QCheckBox* m_styles = nullptr;
    QSpinBox* m_threads = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_outcome = nullptr;
};

} // namespace marvel::ui
