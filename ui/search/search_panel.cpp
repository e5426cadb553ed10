#include "ui/search/search_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/export/timeloop.h"

namespace marvel::ui {

SearchPanel::SearchPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_objective = new QComboBox;
    m_objective->addItems({tr("runtime"), tr("energy"), tr("EDP")});
    m_objective->setToolTip(tr("What the search minimises; the Pareto front is kept whatever you choose"));
    m_fidelity = new QComboBox;
    m_fidelity->addItems({tr("maestro"), tr("corrected")});
    m_fidelity->setToolTip(tr("corrected (the default): what the mappings really move; maestro: MAESTRO's "
                              "numbers, quirks included, for reproducing MAESTRO (doc/cost-model.md)"));
    m_utilisation = new QDoubleSpinBox;
    m_utilisation->setRange(0, 1);
    m_utilisation->setSingleStep(0.05);
    // What the paper's bound does: it prunes the decoupled search's tiles. It is no constraint on the result
    // (the refinement may return a mapping using fewer PEs), so the label says
    // pruning rather than "min. PE utilisation".
    m_utilisation->setObjectName(QStringLiteral("tilePruning"));
    m_utilisation->setSuffix(tr(" of the PEs"));
    m_utilisation->setToolTip(
        tr("The decoupled search skips level-2 tiles that keep fewer than this fraction of the PEs busy (the "
           "paper's pruning, marvel search --pe-util-bound). Not a constraint on the result: the refinement "
           "after it (Refine) can return a mapping that uses fewer PEs (the Selected mapping panel shows "
           "its PE use)."));
    // In percent on screen (0.1 % is a typical margin), a fraction in SearchOptions::nearTie.
    m_nearTie = new QDoubleSpinBox;
    m_nearTie->setObjectName(QStringLiteral("nearTie"));
    m_nearTie->setRange(0, 100 * search::kMaxNearTie);
    m_nearTie->setDecimals(3);
    m_nearTie->setSingleStep(0.1);
    m_nearTie->setSuffix(tr(" %"));
    m_nearTie->setSpecialValueText(tr("exact best"));
    m_nearTie->setToolTip(tr(
        "Runtime objective: a mapping slower than the fastest by at most this much but cheaper in energy "
        "is chosen as the best; energy and EDP objectives: one faster within this much of the least "
        "energy (EDP). Default 0.002 % (one cycle in 50,000: far below any runtime difference that matters, "
        "while the energy of such mappings can differ by 5-10 %); 0: the exact best of the objective "
        "(marvel search --near-tie, as a fraction: 0.1 % is 0.001)."));
    m_threads = new QSpinBox;
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("all cores"));
    m_threads->setToolTip(tr("Worker threads; the results do not depend on it"));
    form->addRow(tr("Objective"), m_objective);
    form->addRow(tr("Cost model"), m_fidelity);
    form->addRow(tr("Prune tiles below"), m_utilisation);
    form->addRow(tr("Near ties within"), m_nearTie);
    form->addRow(tr("Threads"), m_threads);
    layout->addLayout(form);

    m_divisors = new QCheckBox(tr("Divisor tiles only"));
    m_divisors->setToolTip(tr(
        "Only tiles that divide the enclosing tile (no edge tiles): a much smaller space. Where those give "
        "no mapping, or (runtime objective) none within 2x the roofline (loop bounds with large prime "
        "factors, odd PE counts), the search goes on with other tile sizes and the status line says so."));
    m_l1 = new QCheckBox(tr("Fit in L1"));
    m_l1->setToolTip(tr("Keep only mappings whose L1 requirement fits. Unchecked, the results may not fit "
                        "the accelerator."));
    m_l2 = new QCheckBox(tr("Fit in L2"));
    m_l2->setToolTip(tr("Keep only mappings whose L2 requirement fits. Unchecked, the results may not fit "
                        "the accelerator."));
    m_bounds = new QCheckBox(tr("Prune by bounds"));
    m_bounds->setToolTip(tr("Skip candidates whose exact lower bound cannot beat the best so far (never "
                            "loses the optimum)"));
    m_refine = new QCheckBox(tr("Refine"));
    m_refine->setToolTip(
        tr("Run the genetic search first (its best lets the decoupled search skip what cannot win), "
           "then local moves from the best mapping found: never worse than either search. "
           "Unchecked: the paper's decoupled search alone"));
    m_styles = new QCheckBox(tr("Compare styles"));
    m_styles->setToolTip(tr("After the search, also search under the row-, weight- and output-stationary "
                            "styles and the Interstellar-like and dMazeRunner-like optimisers' restrictions, "
                            "and with the GAMMA-like genetic search, and show their best mappings beside "
                            "Marvel's"));
    m_styles->setChecked(true);
    m_timeloop = new QCheckBox(tr("Timeloop only"));
    m_timeloop->setToolTip(tr("Search only mappings Timeloop can express, so that File > Export Selected "
                              "Mapping can write the selected one as Timeloop input (doc/timeloop.md)"));
    m_timeloopSpace = new QComboBox;
    // Indexed by timeloop::SearchSpace.
    m_timeloopSpace->addItem(tr("narrow space"));
    m_timeloopSpace->addItem(tr("wide space"));
    m_timeloopSpace->setToolTip(
        tr("With \"Timeloop only\": the wide space (the default) keeps every mapping the export writes; the "
           "narrow one also leaves out more than two loops over the PEs and filter rows or columns spread "
           "over them (--timeloop-space, doc/timeloop.md)"));
    // Two columns of short labels (the tooltips explain): the panel shares the left column with the
    // operator, which needs the height more.
    auto* options = new QGridLayout;
    options->setVerticalSpacing(2);
    options->addWidget(m_divisors, 0, 0);
    options->addWidget(m_bounds, 0, 1);
    options->addWidget(m_l1, 1, 0);
    options->addWidget(m_l2, 1, 1);
    options->addWidget(m_refine, 2, 0);
    options->addWidget(m_styles, 2, 1);
    options->addWidget(m_timeloop, 3, 0);
    options->addWidget(m_timeloopSpace, 3, 1);
    layout->addLayout(options);

    auto* buttons = new QHBoxLayout;
    m_run = new QPushButton(tr("Run search"));
    m_run->setToolTip(tr("Search the mappings of the workload on the accelerator (Ctrl+R)"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop the search (Esc)"));
    m_cancel->setEnabled(false);
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    layout->addLayout(buttons);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setFormat(tr("idle"));
    m_progress->setTextVisible(true);
    layout->addWidget(m_progress);
    m_outcome = new QLabel(tr("No search run yet."));
    m_outcome->setWordWrap(true);
    layout->addWidget(m_outcome);
    layout->addStretch(1);

    connect(m_run, &QPushButton::clicked, this, &SearchPanel::runRequested);
    connect(m_cancel, &QPushButton::clicked, this, &SearchPanel::cancelRequested);
    connect(m_timeloop, &QCheckBox::toggled, m_timeloopSpace, &QWidget::setEnabled);
    for (QComboBox* c : {m_objective, m_fidelity, m_timeloopSpace})
        connect(c, &QComboBox::currentIndexChanged, this, &SearchPanel::optionsChanged);
    for (QCheckBox* c : {m_divisors, m_l1, m_l2, m_bounds, m_refine, m_timeloop})
        connect(c, &QCheckBox::toggled, this, &SearchPanel::optionsChanged);
    for (QDoubleSpinBox* b : {m_utilisation, m_nearTie})
        connect(b, &QDoubleSpinBox::valueChanged, this, &SearchPanel::optionsChanged);
    connect(m_threads, &QSpinBox::valueChanged, this, &SearchPanel::optionsChanged);
    setOptions({});
}

search::SearchOptions SearchPanel::options() const
{
    search::SearchOptions o;
    o.objective = static_cast<search::Objective>(m_objective->currentIndex());
    o.fidelity = m_fidelity->currentIndex() == 1 ? search::Fidelity::Corrected : search::Fidelity::Maestro;
    o.peUtilizationBound = m_utilisation->value();
    // The box shows 3 decimals of a percent: the default, 0.002 %, comes back as exactly kDefaultNearTie.
    o.nearTie = m_nearTie->value() / 100;
    o.divisorsOnly = m_divisors->isChecked();
    o.l1Capacity = m_l1->isChecked();
    o.l2Capacity = m_l2->isChecked();
    o.boundSkipping = m_bounds->isChecked();
    o.refine = m_refine->isChecked();
    o.offChipCandidates = m_offChipCandidates;
    o.threads = static_cast<unsigned>(m_threads->value());
    if (m_timeloop->isChecked())
        timeloop::restrictSearch(
            o.constraint, {}, static_cast<timeloop::SearchSpace>(m_timeloopSpace->currentIndex()));
    return o;
}

void SearchPanel::setOptions(const search::SearchOptions& o)
{
    const QSignalBlocker blockers[] = {QSignalBlocker(m_objective), QSignalBlocker(m_fidelity),
        QSignalBlocker(m_utilisation), QSignalBlocker(m_nearTie), QSignalBlocker(m_divisors),
        QSignalBlocker(m_l1), QSignalBlocker(m_l2), QSignalBlocker(m_bounds), QSignalBlocker(m_refine),
        QSignalBlocker(m_threads), QSignalBlocker(m_timeloop), QSignalBlocker(m_timeloopSpace)};
    m_objective->setCurrentIndex(static_cast<int>(o.objective));
    m_fidelity->setCurrentIndex(o.fidelity == search::Fidelity::Corrected ? 1 : 0);
    m_utilisation->setValue(o.peUtilizationBound);
    m_nearTie->setValue(100 * o.nearTie);
    m_divisors->setChecked(o.divisorsOnly);
    m_l1->setChecked(o.l1Capacity);
    m_l2->setChecked(o.l2Capacity);
    m_bounds->setChecked(o.boundSkipping);
    m_refine->setChecked(o.refine);
    m_timeloop->setChecked(o.constraint.expressibleIn == "timeloop");
    m_timeloopSpace->setEnabled(m_timeloop->isChecked()); // the blocker keeps toggled() from doing it
    m_timeloopSpace->setCurrentIndex(static_cast<int>(
        timeloop::searchSpaceNamed(o.constraint.expressibleSpace).value_or(timeloop::kDefaultSearchSpace)));
    m_offChipCandidates = o.offChipCandidates;
    m_threads->setValue(static_cast<int>(o.threads));
}

void SearchPanel::setRunning(bool running)
{
    m_run->setEnabled(true); // a new run supersedes the current one
    m_cancel->setEnabled(running);
    if (running) {
        m_progress->setValue(0);
        m_progress->setFormat(tr("starting..."));
    }
}

bool SearchPanel::compareStyles() const
{
    return m_styles->isChecked();
}

void SearchPanel::setCompareStyles(bool on)
{
    m_styles->setChecked(on);
}

void SearchPanel::showProgress(const SearchProgress& p)
{
    m_progress->setValue(static_cast<int>(p.fraction * 1000));
    QString text = tr("%L1 mappings evaluated \u00b7 %L2/s \u00b7 ETA %3 s")
                       .arg(p.evaluated)
                       .arg(qRound64(p.perSecond))
                       .arg(p.etaSeconds, 0, 'f', 1);
    if (p.comparingStyles)
        text = tr("searching the mapping styles (RS, WS, OS, Interstellar, dMazeRunner) for comparison...");
    if (p.layers > 1) text = tr("layer %1/%2 \u00b7 ").arg(p.layer + 1).arg(p.layers) + text;
    m_progress->setFormat(text);
}

void SearchPanel::showOutcome(const SearchOutcome& o)
{
    setRunning(false);
    QString text;
    switch (o.status) {
    case SearchOutcome::Status::Finished:
        text = tr("Finished in %1 s.").arg(o.seconds, 0, 'f', 2);
        m_progress->setValue(1000);
        break;
    case SearchOutcome::Status::Cancelled:
        text = tr("Cancelled.");
        break;
    case SearchOutcome::Status::Truncated:
        text = tr("Truncated: stopped before the bound proved it the best; the best of the part searched.");
        break;
    case SearchOutcome::Status::NotMappable:
        text = tr("No mapping fits the accelerator's buffers: %1").arg(o.message);
        break;
    case SearchOutcome::Status::Failed:
        text = tr("Failed: %1").arg(o.message);
        break;
    }
    m_progress->setFormat(o.status == SearchOutcome::Status::Finished ? tr("done") : tr("stopped"));
    QString tip;
    if (!o.widenedLayers.isEmpty()) {
        // One short line: a long one wraps and squeezes the settings above it.
        text += QLatin1Char(' ') + tr("Other tile sizes searched too.");
        tip = tr("%1: the tile sizes that divide the loop bounds kept too few PEs busy or ran above 2x the "
                 "roofline (loop bounds with large prime factors, odd PE counts), so tile sizes that do not "
                 "divide were searched as well, starting from the divisor-only result.")
                  .arg(o.widenedLayers.join(QStringLiteral(", ")));
    }
    m_outcome->setText(text);
    m_outcome->setToolTip(tip);
}

QString SearchPanel::outcomeText() const
{
    return m_outcome->text();
}

} // namespace marvel::ui
