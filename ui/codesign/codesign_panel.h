#pragma once
// The co-design view (issue 34): the budgets (area in mm^2, optionally average power in mW), the
// objective, the accelerator parameters to vary and their values, Run and Cancel with a progress bar and
// ETA, and a live plot of the evaluated designs (objective against area) with the budget line, the
// designs within budget, their front and the best one. Hovering a design shows its figures; clicking it
// asks for it to be loaded into the accelerator panel and searched. It runs nothing itself: the window
// connects it to the CodesignController.

#include <memory>
#include <optional>
#include <vector>

#include <QWidget>

#include "core/codesign/codesign.h"
#include "ui/codesign/codesign_controller.h"

class QCheckBox;
class QComboBox;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace marvel::ui {

class CodesignPanel : public QWidget
{
    Q_OBJECT
public:
    explicit CodesignPanel(QWidget* parent = nullptr);

    codesign::Budget budget() const;
    void setBudget(const codesign::Budget& budget);
    search::Objective objective() const;
    void setObjective(search::Objective objective);
    std::uint64_t seed() const;
    /// The evaluation budget asked for; 0: the co-design's default (a share of the grid).
    std::size_t maxDesigns() const;
    /// The ticked axes as the user wrote them. Throws InputError naming the field when a range does not
    /// parse or none is ticked.
    std::vector<sweep::Axis> axes() const;
    /// Ticks (or unticks) the axis of parameter `name` ("pes", "l2", ... as --vary takes them) and sets
    /// its values' text.
    void setAxis(const QString& name, bool varied, const QString& values = {});

    /// Designs searched on the whole workload in the current run, in evaluation order.
    const std::vector<codesign::Design>& designs() const { return m_designs; }
    /// Designs scored on the workload's heaviest layers only (the co-design's first rung), in order.
    const std::vector<codesign::Design>& probes() const { return m_probes; }
    /// The best design within budget so far (the run's, once it has ended).
    const std::optional<codesign::Design>& best() const { return m_best; }
    std::shared_ptr<const sweep::Grid> grid() const { return m_grid; }
    /// The plot's pixel of the design of grid index `index` (for tests and tours); nullopt when absent.
    std::optional<QPoint> designPixel(std::size_t index) const;
    QCustomPlot* plot() const { return m_plot; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* loadBestButton() const { return m_loadBest; }
    QString statusText() const;
    QString bestText() const;
    /// The x of the budget line as drawn (NaN when hidden).
    double budgetLine() const;
    /// Greys the plot under a note that it was computed before `change` changed (see staleText); empty:
    /// it is current.
    void setStale(const QString& change);
    /// The stale note shown (empty when the figures are current).
    QString staleNote() const;

public slots:
    void startGrid(std::shared_ptr<const marvel::sweep::Grid> grid);
    void addDesigns(const std::vector<marvel::codesign::Design>& designs);
    void showProgress(const marvel::codesign::Progress& progress);
    void showOutcome(const marvel::ui::CodesignOutcome& outcome);
    void showError(const QString& message);
    void setRunning(bool running);

signals:
    void runRequested();
    void cancelRequested();
    /// The user clicked a design, or asked for the best one.
    void designActivated(std::size_t index);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void replot();
    void updateBest();
    void updateBudgetLine();
    double objectiveOf(const codesign::Design& d) const;
    QString objectiveLabel() const;
    QString designText(const codesign::Design& d, bool withHint) const;
    /// The design whose mark is nearest `pixel` (within a few pixels), whole-workload designs first.
    const codesign::Design* designAt(const QPoint& pixel) const;
    void saveBest();

    QDoubleSpinBox* m_area = nullptr;
    QCheckBox* m_powerOn = nullptr;
    QDoubleSpinBox* m_power = nullptr;
    QComboBox* m_objective = nullptr;
    QSpinBox* m_seed = nullptr;
    QSpinBox* m_maxDesigns = nullptr;
    std::vector<QCheckBox*> m_axisOn; ///< per parameter (kParameters order)
    std::vector<QLineEdit*> m_axisValues;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_loadBest = nullptr;
    QPushButton* m_saveBest = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_bestLabel = nullptr;
    QLabel* m_staleNote = nullptr;
    QString m_stale; ///< what changed since the shown run, or empty
    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_probeGraph = nullptr; ///< scored on the heaviest layers only (another scale)
    QCPGraph* m_outside = nullptr; ///< evaluated, over a budget or without a mapping for some layer
    QCPGraph* m_within = nullptr;
    QCPGraph* m_frontGraph = nullptr;
    QCPGraph* m_bestGraph = nullptr;
    QCPItemStraightLine* m_budgetLine = nullptr;
    QCPItemText* m_budgetText = nullptr;

    std::shared_ptr<const sweep::Grid> m_grid;
    codesign::Budget m_runBudget; ///< the budgets of the shown run
    search::Objective m_runObjective = search::Objective::Runtime;
    std::vector<codesign::Design> m_designs;
    std::vector<codesign::Design> m_probes;
    std::optional<codesign::Design> m_best;
};

} // namespace marvel::ui
