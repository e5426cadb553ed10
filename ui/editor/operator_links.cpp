#include "ui/editor/operator_links.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QHeaderView>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QTableWidget>
#include <QTextDocument>

#include "ui/ddg/graph_view.h"
#include "ui/editor/code_editor.h"

namespace marvel::ui {

namespace {
constexpr int kCellMargin = 4;

void prepareDocument(QTextDocument& doc, const QString& html, int width, const QFont& font)
{
    doc.setDefaultFont(font);
    doc.setDocumentMargin(0);
    doc.setDefaultStyleSheet(QStringLiteral("a { color: #1565c0; text-decoration: underline; }"));
    doc.setHtml(html);
    doc.setTextWidth(qMax(10, width - 2 * kCellMargin));
}

/// The reason as HTML, each link's part wrapped in an anchor "rule:R:I".
QString reasonHtml(const conform::RuleResult& rule, int ruleIndex)
{
    const std::string& text = rule.reason;
    QString html;
    std::size_t at = 0;
    for (int i = 0; i < int(rule.links.size()); ++i) {
        const auto& link = rule.links[std::size_t(i)];
        if (link.offset < at || link.offset + link.length > text.size()) continue;
        html += QString::fromStdString(text.substr(at, link.offset - at)).toHtmlEscaped();
        html += QStringLiteral("<a href=\"rule:%1:%2\">").arg(ruleIndex).arg(i)
            + QString::fromStdString(text.substr(link.offset, link.length)).toHtmlEscaped()
            + QStringLiteral("</a>");
        at = link.offset + link.length;
    }
    html += QString::fromStdString(text.substr(at)).toHtmlEscaped();
    return html;
}
} // namespace

// ---- RichTextDelegate ---------------------------------------------------------------------------------

void RichTextDelegate::paint(
    QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const QString html = index.data(kHtmlRole).toString();
    if (html.isEmpty()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    QTextDocument doc;
    prepareDocument(doc, html, option.rect.width(), opt.font);
    painter->save();
    painter->translate(option.rect.topLeft() + QPoint(kCellMargin, kCellMargin / 2));
    QAbstractTextDocumentLayout::PaintContext context;
    context.palette = option.palette;
    if (option.state & QStyle::State_Selected)
        context.palette.setColor(QPalette::Text, option.palette.color(QPalette::HighlightedText));
    painter->setClipRect(QRect(QPoint(0, 0), option.rect.size()));
    doc.documentLayout()->draw(painter, context);
    painter->restore();
}

QSize RichTextDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const QString html = index.data(kHtmlRole).toString();
    if (html.isEmpty()) return QStyledItemDelegate::sizeHint(option, index);
    QTextDocument doc;
    prepareDocument(doc, html, option.rect.width() > 0 ? option.rect.width() : 400, option.font);
    return QSize(int(doc.idealWidth()) + 2 * kCellMargin, int(std::ceil(doc.size().height())) + kCellMargin);
}

QString RichTextDelegate::anchorAt(const QRect& cell, const QModelIndex& index, QPoint pos) const
{
    const QString html = index.data(kHtmlRole).toString();
    if (html.isEmpty() || !cell.contains(pos)) return {};
    QTextDocument doc;
    const QWidget* widget = qobject_cast<const QWidget*>(parent());
    prepareDocument(doc, html, cell.width(), widget ? widget->font() : QApplication::font());
    return doc.documentLayout()->anchorAt(pos - cell.topLeft() - QPoint(kCellMargin, kCellMargin / 2));
}

bool RichTextDelegate::editorEvent(
    QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option, const QModelIndex& index)
{
    if (event->type() == QEvent::MouseMove || event->type() == QEvent::MouseButtonRelease) {
        auto* mouse = static_cast<QMouseEvent*>(event);
        const QString href = anchorAt(option.rect, index, mouse->position().toPoint());
        if (auto* view = qobject_cast<QAbstractItemView*>(parent()))
            view->viewport()->setCursor(href.isEmpty() ? Qt::ArrowCursor : Qt::PointingHandCursor);
        if (event->type() == QEvent::MouseButtonRelease && mouse->button() == Qt::LeftButton
            && !href.isEmpty()) {
            emit linkActivated(href);
            return true;
        }
    }
    return QStyledItemDelegate::editorEvent(event, model, option, index);
}

// ---- OperatorLinks ------------------------------------------------------------------------------------

OperatorLinks::OperatorLinks(const OperatorAnalysis* analysis, CodeEditor* editor, GraphView* ddg,
    QTableWidget* rules, QObject* parent)
    : QObject(parent)
    , m_analysis(analysis)
    , m_editor(editor)
    , m_ddg(ddg)
    , m_rules(rules)
    , m_delegate(new RichTextDelegate(rules))
{
    m_rules->setItemDelegateForColumn(1, m_delegate);
    m_rules->setMouseTracking(true);
    // The reasons are the explanation: the rule titles wrap in a narrower column so the reasons get the
    // room, and rows grow to show a whole reason whenever the panel is resized.
    m_rules->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_rules->setColumnWidth(0, 150);
    connect(m_rules->horizontalHeader(), &QHeaderView::sectionResized, m_rules,
        &QTableWidget::resizeRowsToContents);
    m_rules->viewport()->installEventFilter(this); // the stretched reason column follows the panel's width
    connect(m_delegate, &RichTextDelegate::linkActivated, this, &OperatorLinks::followLink);
    connect(m_ddg, &GraphView::nodeActivated, this, &OperatorLinks::selectNodeText);
    connect(m_editor, &QPlainTextEdit::cursorPositionChanged, this, &OperatorLinks::cursorMoved);
    connect(m_editor, &QPlainTextEdit::textChanged, this, [this] { m_stale = true; });
}

bool OperatorLinks::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_rules->viewport() && event->type() == QEvent::Resize) {
        auto* resize = static_cast<QResizeEvent*>(event);
        if (resize->size().width() != resize->oldSize().width())
            QMetaObject::invokeMethod(m_rules, &QTableWidget::resizeRowsToContents, Qt::QueuedConnection);
    }
    return QObject::eventFilter(watched, event);
}

void OperatorLinks::refresh()
{
    m_stale = false;
    m_editor->setDiagnostics(m_analysis->diagnostics);
    if (m_analysis->report) {
        for (int r = 0; r < 4 && r < m_rules->rowCount(); ++r) {
            const auto& rule = m_analysis->report->rules[std::size_t(r)];
            QTableWidgetItem* item = m_rules->item(r, 1);
            if (!item) continue;
            item->setData(RichTextDelegate::kHtmlRole, reasonHtml(rule, r));
            if (!rule.links.empty())
                item->setToolTip(
                    item->text() + tr("\n\nClick an underlined part to select it in the editor."));
        }
        m_rules->resizeRowsToContents();
    }
    cursorMoved();
}

QString OperatorLinks::linkHref(int rule, int index) const
{
    return QStringLiteral("rule:%1:%2").arg(rule).arg(index);
}

bool OperatorLinks::followLink(const QString& href)
{
    const QStringList parts = href.split(QLatin1Char(':'));
    if (parts.size() != 3 || parts[0] != QLatin1String("rule") || !m_analysis->report || m_stale)
        return false;
    const int rule = parts[1].toInt();
    const int index = parts[2].toInt();
    if (rule < 0 || rule >= 4) return false;
    const auto& links = m_analysis->report->rules[std::size_t(rule)].links;
    if (index < 0 || index >= int(links.size())) return false;
    const auto& link = links[std::size_t(index)];
    bool selected = false;
    if (link.range.valid()) {
        m_selectingText = true;
        selected = m_editor->selectRange(link.range);
        m_selectingText = false;
    }
    if (link.node >= 0) m_ddg->selectNode(link.node);
    m_editor->setFocus();
    return selected || link.node >= 0;
}

void OperatorLinks::selectNodeText(int node)
{
    if (node < 0 || !m_analysis->report || m_stale) return;
    const auto& nodes = m_analysis->report->ddg.nodes;
    if (node >= int(nodes.size()) || nodes[std::size_t(node)].occurrences.empty()) return;
    m_selectingText = true;
    m_editor->selectRange(nodes[std::size_t(node)].occurrences.front());
    m_selectingText = false;
}

void OperatorLinks::cursorMoved()
{
    if (m_selectingText || m_stale || !m_analysis->report) return;
    const QTextCursor cursor = m_editor->textCursor();
    m_ddg->selectNode(m_analysis->nodeAt(m_editor->locOf(cursor.position())));
}

} // namespace marvel::ui
