#include "ui/mapping/mapping_view.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/cost/report.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/tech/technology.h"
#include "ui/search/result_basis.h"

namespace marvel::ui {

namespace {
QString bar(std::int64_t need, std::int64_t capacity)
{
    const double share = capacity > 0 ? static_cast<double>(need) / static_cast<double>(capacity) : 0.0;
    const int filled = std::clamp(static_cast<int>(share * 20 + 0.5), 0, 20);
    const QString colour = need <= capacity ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828");
    return QStringLiteral("<span style='color:%1; font-family:monospace'>%2</span>"
                          "<span style='color:#bbb; font-family:monospace'>%3</span> %L4 / %L5 bytes (%6%)")
        .arg(colour, QString(filled, QChar(0x2588)), QString(20 - filled, QChar(0x2591)))
        .arg(need)
        .arg(capacity)
        .arg(share * 100, 0, 'f', 0);
}
} // namespace

MappingView::MappingView(QWidget* parent)
    : QWidget(parent)
{
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_loopNest = new QPlainTextEdit;
    m_mdc = new QPlainTextEdit;
    for (QPlainTextEdit* e : {m_loopNest, m_mdc}) {
        e->setReadOnly(true);
        e->setFont(mono);
        e->setLineWrapMode(QPlainTextEdit::NoWrap);
    }
    m_loopNest->setToolTip(tr("The mapping as a tiled loop nest: level 3 (DRAM to L2), level 2 (L2 to the "
                              "PE array), the parallel loops and level 1 (inside a PE)"));
    connect(m_mdc, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (!m_mdc->toPlainText().isEmpty()) emit directiveSelected(m_mdc->textCursor().blockNumber());
    });
    m_mdc->setToolTip(tr("The same mapping as MDC directives; each Cluster starts a lower level"));
    m_metrics = new QLabel;
    m_metrics->setTextFormat(Qt::RichText);
    m_metrics->setWordWrap(true);
    m_metrics->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_metrics->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* texts = new QSplitter;
    texts->addWidget(m_loopNest);
    texts->addWidget(m_mdc);
    texts->setStretchFactor(0, 5);
    texts->setStretchFactor(1, 2);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(texts, 3);
    auto* metricsScroll = new QScrollArea;
    metricsScroll->setWidget(m_metrics);
    metricsScroll->setWidgetResizable(true);
    metricsScroll->setFrameShape(QFrame::NoFrame);
    // The ratios first and the long parallel-dimension list last: the panel is narrow.
    m_styleTable = new QTableWidget(0, StyleColumns);
    m_styleTable->setHorizontalHeaderLabels({tr("Best of"), tr("Runtime \u00d7"), tr("Cycles"),
        tr("Energy \u00d7"), tr("Energy"), tr("Spread over the PEs")});
    m_styleTable->horizontalHeaderItem(RuntimeRatio)
        ->setToolTip(
            tr("The style's best runtime over the selected mapping's (above 1: the selected is faster)"));
    m_styleTable->horizontalHeaderItem(EnergyRatio)
        ->setToolTip(
            tr("The style's best energy over the selected mapping's (above 1: the selected uses less)"));
    m_styleTable->horizontalHeaderItem(Parallel)->setToolTip(tr("The dimensions its SpatialMaps spread"));
    m_styleTable->horizontalHeader()->setStretchLastSection(true);
    m_styleTable->verticalHeader()->setVisible(false);
    // Compact rows: the five styles fit the panel's usual height without scrolling.
    m_styleTable->verticalHeader()->setDefaultSectionSize(m_styleTable->fontMetrics().height() + 6);
    m_styleTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_styleTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_styleTable->setToolTip(tr("The best mapping under each style of past work, searched on the same layer "
                                "and accelerator; a ratio above 1 means the selected mapping does better"));
    m_styleTable->setVisible(false);
    // Tabs rather than a stack: the panel is short, and each part needs its whole height to be read.
    m_right = new QTabWidget;
    m_right->setDocumentMode(true);
    m_right->addTab(metricsScroll, tr("Cost"));
    auto* stylesPage = new QWidget;
    auto* stylesLayout = new QVBoxLayout(stylesPage);
    stylesLayout->setContentsMargins(0, 0, 0, 0);
    stylesLayout->addWidget(m_styleTable);
    m_stylesTab = m_right->addTab(stylesPage, tr("Against the styles"));
    m_right->setTabVisible(m_stylesTab, false);
    layout->addWidget(m_right, 2);
    clear();
}

void MappingView::clear()
{
    m_result.reset();
    m_selected.reset();
    m_styles.clear();
    fillStyleTable();
    m_loopNest->setPlainText(idleText());
    m_mdc->clear();
    m_metricsHtml.clear();
    m_metricsTip.clear();
    m_stale.clear();
    showMetrics();
}

QString MappingView::idleText() const
{
    return m_idleText.isEmpty() ? tr("Select a point on the Pareto front, or run a search (Ctrl+R): the best "
                                     "mapping shows here as a tiled loop nest and as MDC directives.")
                                : m_idleText;
}

void MappingView::setIdleText(const QString& text)
{
    m_idleText = text;
    if (!m_result) m_loopNest->setPlainText(idleText());
}

void MappingView::setMapping(const search::Candidate& c, const cost::Problem& problem,
    const std::string& body, const arch::Accelerator& acc, search::Fidelity fidelity,
    std::int64_t rooflineCycles)
{
    m_selected = c.metrics;
    fillStyleTable();
    // Compact, so that a 4-level nest of a convolution shows whole in the panel (exports keep the full form).
    m_loopNest->setPlainText(QString::fromStdString(mapping::printTiledLoopNest(
        c.mapping, body, {.omitSingleIterationLoops = true, .closeOnOneLine = true})));
    // Directives grouped by level: each Cluster opens a deeper, indented block.
    QString mdc;
    int depth = 0;
    for (const mdc::Directive& d : c.dataflow) {
        if (d.kind == mdc::Directive::Kind::Cluster) {
            mdc += QString(depth * 2, QLatin1Char(' ')) + QString::fromStdString(d.toString()) + ";\n";
            ++depth;
            continue;
        }
        mdc += QString(depth * 2, QLatin1Char(' ')) + QString::fromStdString(d.toString()) + ";\n";
    }
    m_mdc->setPlainText(mdc);

    const cost::Options options = search::costOptions(fidelity);
    try {
        cost::Evaluator evaluator(problem, acc, options);
        m_result = evaluator.evaluate(c.dataflow);
    } catch (const InputError& e) {
        m_result.reset();
        m_metricsHtml = tr("The cost model rejects this mapping: %1").arg(QString::fromStdString(e.what()));
        m_metricsTip.clear();
        showMetrics();
        return;
    }
    const cost::Result& r = *m_result;
    const double seconds = static_cast<double>(r.m.runtimeCycles) / (acc.clockMHz * 1e6);
    QString html = QStringLiteral("<table cellspacing=3>");
    auto row = [&](const QString& k, const QString& v) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, v);
    };
    // A figure no execution can have (MAESTRO's edge-case accounting, doc/cost-model.md) is marked, with
    // why and the corrected runtime beside it; the tooltip says it in full.
    const bool impossible = r.undercount != cost::Undercount::None;
    const QString mark = impossible ? QStringLiteral(" <span style=\"color:#c62828\"><b>\u26a0 %1</b></span>")
                                          .arg(QString::fromStdString(cost::evaluationStatus(r)))
                                    : QString();
    row(tr("Runtime"), tr("%L1 cycles (%2 ms)").arg(r.m.runtimeCycles).arg(seconds * 1e3, 0, 'g', 4) + mark);
    if (impossible) {
        row(tr("&nbsp;&nbsp;why"),
            r.undercount == cost::Undercount::WrongMacs
                ? tr("%L1 MACs counted, %L2 performed").arg(r.m.macs).arg(r.exactMacs)
                : tr("below the compute bound, %L1 cycles").arg(r.computeBound));
        if (r.fidelity == cost::Fidelity::Maestro)
            row(tr("&nbsp;&nbsp;corrected"),
                r.correctedRuntime ? tr("%L1 cycles").arg(*r.correctedRuntime) : tr("rejects the mapping"));
    }
    m_metricsTip = impossible
        ? QString::fromStdString(cost::evaluationStatus(r) + ": " + cost::undercountWarning(r))
        : QString();
    if (rooflineCycles > 0)
        row(tr("Over roofline"),
            QStringLiteral("%1\u00d7")
                .arg(static_cast<double>(r.m.runtimeCycles) / rooflineCycles, 0, 'f', 3));
    // Total energy, as the plot and the search rank it: MAESTRO's on-chip energy and the DRAM transfers.
    row(tr("Energy"), tr("%1 %2").arg(r.m.totalEnergy(), 0, 'g', 6).arg(energyUnit(acc)));
    row(tr("&nbsp;&nbsp;MAC / L1 / L2 / NoC / DRAM"),
        QStringLiteral("%1 / %2 / %3 / %4 / %5")
            .arg(r.m.macEnergy, 0, 'g', 4)
            .arg(r.m.l1Energy, 0, 'g', 4)
            .arg(r.m.l2Energy, 0, 'g', 4)
            .arg(r.m.nocEnergy, 0, 'g', 4)
            .arg(r.m.dramEnergy, 0, 'g', 4));
    {
        const tech::Physical ph = tech::physical(acc,
            tech::EnergyParts{r.m.macEnergy, r.m.l1Energy, r.m.l2Energy, r.m.nocEnergy, r.m.dramEnergy},
            r.m.runtimeCycles);
        row(tr("Physical"),
            tr("%1, %2 mm\u00b2, %3 mW")
                .arg(QString::fromStdString(tech::formatPicojoules(ph.energyPj)))
                .arg(ph.areaMm2, 0, 'g', 4)
                .arg(ph.powerMw, 0, 'g', 4));
    }
    row(tr("EDP"), QString::number(static_cast<double>(r.m.runtimeCycles) * r.m.totalEnergy(), 'g', 6));
    row(tr("PE utilisation"),
        QStringLiteral("%1 of %2 PEs (%3%)")
            .arg(r.m.avgUtilizedPes, 0, 'f', 1)
            .arg(acc.numPes)
            .arg(100.0 * r.m.avgUtilizedPes / std::max<std::int64_t>(1, acc.numPes), 0, 'f', 1));
    row(tr("L1 per PE"), bar(r.m.l1SizeReq * acc.bytesPerElement, acc.l1Bytes));
    row(tr("L2"), bar(r.m.l2SizeReq * acc.bytesPerElement, acc.l2Bytes));
    html += QStringLiteral("</table><br><table cellspacing=3><tr><th align=left>tensor</th><th>L2 read</th>"
                           "<th>L2 write</th><th>L1 read</th><th>L1 write</th></tr>");
    for (int t = 0; t < r.m.numTensors; ++t) {
        const cost::TensorCounts& tc = r.m.tensors[static_cast<std::size_t>(t)];
        html += QStringLiteral("<tr><td>%1</td><td align=right>%L2</td><td align=right>%L3</td>"
                               "<td align=right>%L4</td><td align=right>%L5</td></tr>")
                    .arg(QString::fromStdString(r.tensorNames[static_cast<std::size_t>(t)]))
                    .arg(tc.l2Read)
                    .arg(tc.l2Write)
                    .arg(tc.l1Read)
                    .arg(tc.l1Write);
    }
    // DRAM <-> L2 over the level-3 steps: elements read into L2 and written back, and the bytes of the DRAM
    // blocks those transfers touch (what the DRAM energy and a finite off-chip bandwidth charge).
    html += QStringLiteral("</table><br><table cellspacing=3><tr><th align=left>DRAM</th><th>read</th>"
                           "<th>written</th><th>read bytes</th><th>written bytes</th></tr>");
    for (int t = 0; t < r.m.numTensors; ++t) {
        const cost::TensorCounts& tc = r.m.tensors[static_cast<std::size_t>(t)];
        html += QStringLiteral("<tr><td>%1</td><td align=right>%L2</td><td align=right>%L3</td>"
                               "<td align=right>%L4</td><td align=right>%L5</td></tr>")
                    .arg(QString::fromStdString(r.tensorNames[static_cast<std::size_t>(t)]))
                    .arg(tc.dramRead)
                    .arg(tc.dramWrite)
                    .arg(tc.dramReadBytes)
                    .arg(tc.dramWriteBytes);
    }
    html += QStringLiteral("</table>");
    m_metricsHtml = html;
    showMetrics();
}

void MappingView::setStale(const QString& change)
{
    if (change == m_stale) return;
    m_stale = change;
    showMetrics();
    fillStyleTable();
}

QString MappingView::staleNote() const
{
    return m_stale.isEmpty() || m_metricsHtml.isEmpty() ? QString() : staleText(m_stale);
}

void MappingView::showMetrics()
{
    const QString note = staleNote();
    if (note.isEmpty()) {
        m_metrics->setText(m_metricsHtml);
        m_metrics->setToolTip(m_metricsTip);
        return;
    }
    m_metrics->setText(
        QStringLiteral("<p style='color:%1'><b>%2</b></p><div style='color:%3'>%4</div>")
            .arg(QLatin1String(kStaleNote), note.toHtmlEscaped(), QLatin1String(kStaleGrey), m_metricsHtml));
    m_metrics->setToolTip(m_metricsTip.isEmpty() ? note : note + QStringLiteral("\n\n") + m_metricsTip);
}

QString MappingView::loopNestText() const
{
    return m_loopNest->toPlainText();
}

QString MappingView::mdcText() const
{
    return m_mdc->toPlainText();
}

QString MappingView::metricsText() const
{
    return m_metrics->text();
}

void MappingView::setStyleComparison(const std::vector<StyleBest>& styles)
{
    m_styles = styles;
    fillStyleTable();
}

void MappingView::fillStyleTable()
{
    m_styleTable->setVisible(!m_styles.empty());
    m_right->setTabVisible(m_stylesTab, !m_styles.empty());
    m_styleTable->setRowCount(int(m_styles.size()));
    const QString note = m_stale.isEmpty() ? QString() : staleText(m_stale);
    auto cell = [&](int row, int column, const QString& text, Qt::Alignment align = Qt::AlignRight) {
        auto* item = new QTableWidgetItem(text);
        item->setTextAlignment(align | Qt::AlignVCenter);
        if (!note.isEmpty()) {
            item->setForeground(QColor(kStaleGrey));
            item->setToolTip(note);
        }
        m_styleTable->setItem(row, column, item);
    };
    for (int r = 0; r < int(m_styles.size()); ++r) {
        const StyleBest& s = m_styles[std::size_t(r)];
        cell(r, Name, s.label, Qt::AlignLeft);
        m_styleTable->item(r, Name)->setToolTip(s.description);
        cell(r, Parallel, s.parallel, Qt::AlignLeft);
        if (!s.metrics) {
            cell(r, RuntimeRatio, tr("no fit"), Qt::AlignLeft);
            for (int c : {Runtime, EnergyRatio, Energy})
                cell(r, c, {});
            continue;
        }
        cell(r, Runtime, QLocale().toString(qlonglong(s.metrics->runtime)));
        cell(r, Energy, QString::number(s.metrics->energy, 'g', 4));
        const bool ratios = m_selected && m_selected->runtime > 0 && m_selected->energy > 0;
        cell(r, RuntimeRatio,
            ratios ? QString::number(double(s.metrics->runtime) / double(m_selected->runtime), 'f', 2)
                   : QString());
        cell(r, EnergyRatio,
            ratios ? QString::number(s.metrics->energy / m_selected->energy, 'f', 2) : QString());
    }
    m_styleTable->resizeColumnsToContents();
}

} // namespace marvel::ui
