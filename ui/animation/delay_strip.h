#pragma once
// Each time step's ingress, compute and egress delays (cycles) as three bars, around the current step,
// so that a teacher can point at the step, and the kind of delay, that dominates. Steps of the
// outermost level are separated; steps where a highlighted level starts a step are marked. Clicking a
// step seeks to it.

#include <vector>

#include <QWidget>

#include "core/sim/simulator.h"

namespace marvel::ui {

class DelayStrip : public QWidget
{
    Q_OBJECT
public:
    explicit DelayStrip(QWidget* parent = nullptr);

    /// Per frame, per level (SimulationSummary::delays).
    void setDelays(const std::vector<std::vector<sim::StepDelays>>* delays);
    void setCurrent(std::int64_t frame);
    void setHighlightedLevel(int level);
    int highlightedLevel() const { return m_highlightLevel; }
    /// The frame drawn at x, or -1.
    std::int64_t frameAt(double x) const;
    /// Width of one step's bars (wide for few steps, narrow for many).
    double stepWidth() const;

    QSize sizeHint() const override { return {600, 110}; }

signals:
    void frameClicked(std::int64_t frame);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;

private:
    std::int64_t firstVisible() const;
    int visibleCount() const;

    const std::vector<std::vector<sim::StepDelays>>* m_delays = nullptr;
    std::int64_t m_current = 0;
    std::int64_t m_max = 1;
    int m_highlightLevel = -1;
};

} // namespace marvel::ui
