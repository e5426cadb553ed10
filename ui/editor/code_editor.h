#pragma once
// The operator editor: a QPlainTextEdit with syntax colouring, a line-number gutter, parse errors
// underlined in red (the message shows when hovering), a find bar (Ctrl+F) that highlights every match,
// and the mapping between core's line:column positions and the document.

#include <vector>

#include <QList>
#include <QPlainTextEdit>

#include "core/util/diagnostic.h"

class QAction;
class QLabel;
class QLineEdit;
class QToolButton;

namespace marvel::ui {

/// The sample operators offered as templates: `*.loop` in `samplesDir` by name, then those of its
/// `nonconformable/` folder.
QStringList operatorTemplates(const QString& samplesDir);

class OperatorHighlighter;
class CodeEditor;

/// The small bar under the editor: the text to find, previous/next, the number of matches.
class FindBar : public QWidget
{
    Q_OBJECT
public:
    explicit FindBar(CodeEditor* editor);
    QLineEdit* input() const { return m_input; }
    QLabel* countLabel() const { return m_count; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    CodeEditor* m_editor;
    QLineEdit* m_input;
    QLabel* m_count;
};

class CodeEditor : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit CodeEditor(QWidget* parent = nullptr);

    OperatorHighlighter* highlighter() const { return m_highlighter; }

    /// Document position of a 1-based line and column as core counts them (bytes of UTF-8); -1 if the
    /// line does not exist. Columns past the end of the line clamp to it.
    int positionOf(SourceLoc loc) const;
    /// Selects a range of the text (scrolling to it); false when the range is unknown.
    bool selectRange(SourceRange range);
    /// The 1-based line and column (UTF-8 bytes, as core counts) of a document position.
    SourceLoc locOf(int position) const;
    /// The start and end positions of a range, or {-1, -1}.
    std::pair<int, int> positionsOf(SourceRange range) const;

    /// Underlines each diagnostic's token (or character) at its line:column with a red wave; hovering it
    /// shows the message.
    void setDiagnostics(const std::vector<Diagnostic>& diagnostics);
    /// The underlined spans, as cursors with their selection, and their messages.
    QList<QTextEdit::ExtraSelection> diagnosticSelections() const { return m_diagnosticSelections; }
    /// The messages of the diagnostics underlined at a document position, one per line; empty if none.
    QString diagnosticAt(int position) const;

    /// Highlights every occurrence of `text` (case-insensitive) and returns how many there are.
    int highlightMatches(const QString& text);
    QList<QTextEdit::ExtraSelection> matchSelections() const { return m_matchSelections; }
    /// Moves the selection to the next (or previous) match of the find text, wrapping around.
    bool findNext(bool backward = false);
    FindBar* findBar() const { return m_findBar; }
    /// Shows the find bar with the selected word, focused (Ctrl+F).
    void showFindBar();
    void hideFindBar();
    QAction* findAction() const { return m_findAction; }

    int lineNumberAreaWidth() const;
    void paintLineNumbers(QPaintEvent* event);

protected:
    void resizeEvent(QResizeEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    void updateMargins();
    void updateExtraSelections();
    void layoutChildren();

    OperatorHighlighter* m_highlighter = nullptr;
    QWidget* m_lineNumbers = nullptr;
    FindBar* m_findBar = nullptr;
    QAction* m_findAction = nullptr;
    QString m_findText;
    QList<QTextEdit::ExtraSelection> m_diagnosticSelections;
    QStringList m_diagnosticMessages; ///< parallel to m_diagnosticSelections
    QList<QTextEdit::ExtraSelection> m_matchSelections;
};

} // namespace marvel::ui
