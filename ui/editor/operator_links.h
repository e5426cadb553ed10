#pragma once
// What ties the Operator panel together: clicking a DDG node selects its subscript in the editor, moving
// the editor's cursor onto a subscript selects its node, and each failed rule's reason in the rules table
// links to the statements, loops, references and nodes it names (a click selects that text). Parse
// errors are underlined in the editor.

#include <QObject>
#include <QStyledItemDelegate>

#include "ui/editor/operator_analysis.h"

class QTableWidget;

namespace marvel::ui {

class CodeEditor;
class GraphView;

/// Draws a cell's Qt::UserRole + 1 HTML (the rules' reasons with their links) and reports link clicks.
class RichTextDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    static constexpr int kHtmlRole = Qt::UserRole + 1;
    using QStyledItemDelegate::QStyledItemDelegate;

    /// The link under `pos` (viewport coordinates) in the cell drawn in `cell`, or an empty string.
    QString anchorAt(const QRect& cell, const QModelIndex& index, QPoint pos) const;

    void paint(
        QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

signals:
    void linkActivated(const QString& href);

protected:
    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
        const QModelIndex& index) override;
};

class OperatorLinks : public QObject
{
    Q_OBJECT
public:
    /// `analysis` is the window's current analysis (it must outlive this object).
    OperatorLinks(const OperatorAnalysis* analysis, CodeEditor* editor, GraphView* ddg, QTableWidget* rules,
        QObject* parent = nullptr);

    /// Call after the window showed a new analysis: underlines the parse errors, puts the links into the
    /// rules' reasons and re-selects the node under the cursor.
    void refresh();
    /// Follows a link of the rules table ("rule:R:I": link I of rule R, 0-based); false when unknown.
    bool followLink(const QString& href);
    /// The link target of rule `rule`'s link `index` as the text it selects, for tests and tooltips.
    QString linkHref(int rule, int index) const;
    RichTextDelegate* delegate() const { return m_delegate; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void selectNodeText(int node);
    void cursorMoved();

    const OperatorAnalysis* m_analysis;
    CodeEditor* m_editor;
    GraphView* m_ddg;
    QTableWidget* m_rules;
    RichTextDelegate* m_delegate;
    bool m_stale = false; ///< the text changed since the analysis: its locations may be off
    bool m_selectingText = false;
};

} // namespace marvel::ui
