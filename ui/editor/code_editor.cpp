#include "ui/editor/code_editor.h"

#include <QAction>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSet>
#include <QTextBlock>
#include <QToolButton>
#include <QToolTip>

#include "ui/editor/operator_highlighter.h"

namespace marvel::ui {

namespace {
const QColor kErrorColor(0xd3, 0x2f, 0x2f);
const QColor kMatchColor(0xff, 0xe0, 0x82);
const QColor kCurrentMatchColor(0xff, 0xb3, 0x00);

class LineNumberArea : public QWidget
{
public:
    explicit LineNumberArea(CodeEditor* editor)
        : QWidget(editor)
        , m_editor(editor)
    { }
    QSize sizeHint() const override { return {m_editor->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_editor->paintLineNumbers(event); }

private:
    CodeEditor* m_editor;
};

bool isWordChar(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}
} // namespace

QStringList operatorTemplates(const QString& samplesDir)
{
    QStringList out;
    for (const QString& folder : {samplesDir, samplesDir + QStringLiteral("/nonconformable")})
        for (const QFileInfo& info :
            QDir(folder).entryInfoList({QStringLiteral("*.loop")}, QDir::Files, QDir::Name))
            out.push_back(info.absoluteFilePath());
    return out;
}

// ---- FindBar ------------------------------------------------------------------------------------------

FindBar::FindBar(CodeEditor* editor)
    : QWidget(editor)
    , m_editor(editor)
    , m_input(new QLineEdit)
    , m_count(new QLabel)
{
    setAutoFillBackground(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 3, 6, 3);
    layout->setSpacing(4);
    layout->addWidget(new QLabel(tr("Find:")));
    m_input->setPlaceholderText(tr("text to find"));
    m_input->setClearButtonEnabled(true);
    m_input->installEventFilter(this);
    layout->addWidget(m_input, 1);
    auto button = [layout](const QString& text, const QString& tip) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        layout->addWidget(b);
        return b;
    };
    QToolButton* previous = button(QStringLiteral("\u25b2"), tr("Previous match (Shift+Enter)"));
    QToolButton* next = button(QStringLiteral("\u25bc"), tr("Next match (Enter)"));
    layout->addWidget(m_count);
    QToolButton* close = button(QStringLiteral("\u2715"), tr("Close (Esc)"));
    connect(m_input, &QLineEdit::textChanged, this, [this](const QString& text) {
        const int count = m_editor->highlightMatches(text);
        m_count->setText(text.isEmpty() ? QString() : tr("%n match(es)", nullptr, count));
        if (count > 0) {
            // Search from where the current selection starts, so typing refines the same match.
            QTextCursor c = m_editor->textCursor();
            c.setPosition(c.selectionStart());
            m_editor->setTextCursor(c);
            m_editor->findNext();
        }
    });
    connect(previous, &QToolButton::clicked, this, [this] { m_editor->findNext(true); });
    connect(next, &QToolButton::clicked, this, [this] { m_editor->findNext(); });
    connect(close, &QToolButton::clicked, m_editor, &CodeEditor::hideFindBar);
}

bool FindBar::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_input
        && (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress)) {
        auto* key = static_cast<QKeyEvent*>(event);
        const bool enter = key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter;
        if (key->key() == Qt::Key_Escape || enter) {
            // Claims Esc before the window's Esc shortcut (which cancels a search), and Enter before it
            // reaches the editor behind the line edit (which would replace the match with a new line).
            event->accept();
            if (event->type() == QEvent::KeyPress) {
                if (enter)
                    m_editor->findNext(key->modifiers() & Qt::ShiftModifier);
                else
                    m_editor->hideFindBar();
            }
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

// ---- CodeEditor ---------------------------------------------------------------------------------------

CodeEditor::CodeEditor(QWidget* parent)
    : QPlainTextEdit(parent)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTabStopDistance(fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 2);
    m_highlighter = new OperatorHighlighter(document());
    m_lineNumbers = new LineNumberArea(this);
    m_findBar = new FindBar(this);
    m_findBar->hide();

    m_findAction = new QAction(tr("&Find..."), this);
    m_findAction->setShortcut(QKeySequence::Find);
    m_findAction->setShortcutContext(Qt::WindowShortcut);
    connect(m_findAction, &QAction::triggered, this, &CodeEditor::showFindBar);
    addAction(m_findAction);

    connect(this, &QPlainTextEdit::blockCountChanged, this, &CodeEditor::updateMargins);
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy)
            m_lineNumbers->scroll(0, dy);
        else
            m_lineNumbers->update(0, rect.y(), m_lineNumbers->width(), rect.height());
        if (rect.contains(viewport()->rect())) updateMargins();
    });
    connect(this, &QPlainTextEdit::textChanged, this, [this] {
        if (m_findBar->isVisible() && !m_findText.isEmpty()) highlightMatches(m_findText);
    });
    updateMargins();
}

int CodeEditor::lineNumberAreaWidth() const
{
    int digits = 1;
    for (int max = qMax(1, blockCount()); max >= 10; max /= 10)
        ++digits;
    digits = qMax(digits, 2);
    return 10 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void CodeEditor::updateMargins()
{
    const int bottom = m_findBar->isVisible() ? m_findBar->sizeHint().height() : 0;
    setViewportMargins(lineNumberAreaWidth(), 0, 0, bottom);
    layoutChildren();
}

void CodeEditor::layoutChildren()
{
    const QRect cr = contentsRect();
    m_lineNumbers->setGeometry(QRect(cr.left(), cr.top(), lineNumberAreaWidth(), viewport()->height()));
    if (m_findBar->isVisible()) {
        const int h = m_findBar->sizeHint().height();
        m_findBar->setGeometry(QRect(cr.left(), viewport()->geometry().bottom() + 1, cr.width(), h));
    }
}

void CodeEditor::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    layoutChildren();
}

void CodeEditor::paintLineNumbers(QPaintEvent* event)
{
    QPainter painter(m_lineNumbers);
    const QColor background = palette().color(QPalette::Window);
    painter.fillRect(event->rect(), background);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(
        m_lineNumbers->width() - 1, event->rect().top(), m_lineNumbers->width() - 1, event->rect().bottom());
    QSet<int> errorLines;
    for (const auto& s : m_diagnosticSelections)
        errorLines.insert(document()->findBlock(s.cursor.selectionStart()).blockNumber());
    const int currentLine = textCursor().blockNumber();
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top()) {
            const int number = block.blockNumber();
            QFont f = font();
            f.setBold(number == currentLine);
            painter.setFont(f);
            painter.setPen(errorLines.contains(number) ? kErrorColor
                    : number == currentLine            ? palette().color(QPalette::WindowText)
                                                       : palette().color(QPalette::PlaceholderText));
            painter.drawText(0, top, m_lineNumbers->width() - 5, fontMetrics().height(), Qt::AlignRight,
                QString::number(number + 1));
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
    }
}

int CodeEditor::positionOf(SourceLoc loc) const
{
    if (loc.line <= 0) return -1;
    const QTextBlock block = document()->findBlockByNumber(loc.line - 1);
    if (!block.isValid()) return -1;
    // Core counts columns in UTF-8 bytes; the document in UTF-16 code units.
    const QByteArray utf8 = block.text().toUtf8();
    const int bytes = qBound(0, loc.column - 1, int(utf8.size()));
    return block.position() + int(QString::fromUtf8(utf8.left(bytes)).size());
}

SourceLoc CodeEditor::locOf(int position) const
{
    const QTextBlock block = document()->findBlock(position);
    if (!block.isValid()) return {};
    const int column = int(block.text().left(position - block.position()).toUtf8().size()) + 1;
    return {block.blockNumber() + 1, column};
}

std::pair<int, int> CodeEditor::positionsOf(SourceRange range) const
{
    if (!range.valid()) return {-1, -1};
    const int begin = positionOf(range.begin);
    const int end = positionOf(range.end);
    if (begin < 0 || end < begin) return {-1, -1};
    return {begin, end};
}

bool CodeEditor::selectRange(SourceRange range)
{
    const auto [begin, end] = positionsOf(range);
    if (begin < 0) return false;
    QTextCursor c(document());
    c.setPosition(begin);
    c.setPosition(end, QTextCursor::KeepAnchor);
    setTextCursor(c);
    ensureCursorVisible();
    return true;
}

void CodeEditor::setDiagnostics(const std::vector<Diagnostic>& diagnostics)
{
    m_diagnosticSelections.clear();
    m_diagnosticMessages.clear();
    for (const auto& d : diagnostics) {
        int begin = positionOf(d.loc);
        if (begin < 0) continue;
        // The word at the position, or the one character there (or before it at the end of a line).
        const QTextBlock block = document()->findBlock(begin);
        const QString text = block.text();
        int i = begin - block.position();
        int j = i;
        while (j < text.size() && isWordChar(text[j]))
            ++j;
        if (j == i) j = qMin(i + 1, int(text.size()));
        if (j == i && i > 0) --i; // at the end of the line: mark its last character
        QTextEdit::ExtraSelection s;
        s.cursor = QTextCursor(document());
        s.cursor.setPosition(block.position() + i);
        s.cursor.setPosition(block.position() + j, QTextCursor::KeepAnchor);
        s.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        s.format.setUnderlineColor(kErrorColor);
        s.format.setBackground(QColor(0xfd, 0xe4, 0xe4)); // a one-character wave alone is easy to miss
        s.format.setToolTip(QString::fromStdString(d.message));
        m_diagnosticSelections.push_back(s);
        m_diagnosticMessages.push_back(QString::fromStdString(d.message));
    }
    updateExtraSelections();
    m_lineNumbers->update();
}

QString CodeEditor::diagnosticAt(int position) const
{
    QStringList messages;
    for (int i = 0; i < m_diagnosticSelections.size(); ++i) {
        const QTextCursor& c = m_diagnosticSelections[i].cursor;
        if (position >= c.selectionStart() && position < qMax(c.selectionEnd(), c.selectionStart() + 1))
            messages.push_back(m_diagnosticMessages[i]);
    }
    messages.removeDuplicates();
    return messages.join(QLatin1Char('\n'));
}

bool CodeEditor::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString message = diagnosticAt(cursorForPosition(help->pos()).position());
        if (message.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), message, viewport());
        return true;
    }
    return QPlainTextEdit::viewportEvent(event);
}

int CodeEditor::highlightMatches(const QString& text)
{
    m_findText = text;
    m_matchSelections.clear();
    if (!text.isEmpty()) {
        QTextCursor c(document());
        while (true) {
            c = document()->find(text, c);
            if (c.isNull()) break;
            QTextEdit::ExtraSelection s;
            s.cursor = c;
            s.format.setBackground(kMatchColor);
            m_matchSelections.push_back(s);
        }
    }
    updateExtraSelections();
    return int(m_matchSelections.size());
}

bool CodeEditor::findNext(bool backward)
{
    if (m_findText.isEmpty()) return false;
    const QTextDocument::FindFlags flags
        = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    QTextCursor found = document()->find(m_findText, textCursor(), flags);
    if (found.isNull()) {
        QTextCursor wrap(document());
        if (backward) wrap.movePosition(QTextCursor::End);
        found = document()->find(m_findText, wrap, flags);
    }
    if (found.isNull()) return false;
    setTextCursor(found);
    ensureCursorVisible();
    updateExtraSelections();
    return true;
}

void CodeEditor::showFindBar()
{
    const QString selected = textCursor().selectedText();
    m_findBar->show();
    updateMargins();
    if (!selected.isEmpty() && !selected.contains(QChar::ParagraphSeparator))
        m_findBar->input()->setText(selected);
    else if (!m_findBar->input()->text().isEmpty())
        highlightMatches(m_findBar->input()->text());
    m_findBar->input()->selectAll();
    m_findBar->input()->setFocus();
}

void CodeEditor::hideFindBar()
{
    m_findBar->hide();
    m_matchSelections.clear();
    updateMargins();
    updateExtraSelections();
    setFocus();
}

void CodeEditor::updateExtraSelections()
{
    QList<QTextEdit::ExtraSelection> all = m_matchSelections;
    const QTextCursor current = textCursor();
    for (auto& s : all)
        if (s.cursor.selectionStart() == current.selectionStart()
            && s.cursor.selectionEnd() == current.selectionEnd())
            s.format.setBackground(kCurrentMatchColor);
    all += m_diagnosticSelections;
    setExtraSelections(all);
}

} // namespace marvel::ui
