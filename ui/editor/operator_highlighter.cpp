#include "ui/editor/operator_highlighter.h"

#include "core/ir/operator.h"

namespace marvel::ui {

namespace {
enum BlockState { Normal = 0, InBlockComment = 1 };

bool isIdentStart(QChar c)
{
    return c.isLetter() || c == u'_';
}
/// max, min and the unary functions of the operator language (core/ir/operator.h).
bool isFunctionName(QStringView word)
{
    if (word == u"max" || word == u"min") return true;
    for (const char* f : ir::kFunctionNames)
        if (word == QLatin1String(f)) return true;
    return false;
}

bool isIdentPart(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}
} // namespace

OperatorHighlighter::OperatorHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document)
{
    auto make = [this](Role role, QColor color, bool bold = false, bool italic = false) {
        QTextCharFormat f;
        f.setForeground(color);
        if (bold) f.setFontWeight(QFont::Bold);
        f.setFontItalic(italic);
        m_formats[std::size_t(role)] = f;
    };
    make(Role::Keyword, QColor(0x1a, 0x4f, 0xa0), true);
    make(Role::Type, QColor(0x00, 0x7a, 0x7a), true);
    make(Role::Number, QColor(0xb3, 0x5c, 0x00));
    make(Role::Comment, QColor(0x6a, 0x73, 0x7d), false, true);
    make(Role::Function, QColor(0x7b, 0x1f, 0xa2), true);
    make(Role::Tensor, QColor(0x2e, 0x7d, 0x32), true);
    make(Role::Subscript, QColor(0x8e, 0x24, 0x4c));
    make(Role::OperatorName, QColor(0x1a, 0x4f, 0xa0), false, true);
}

void OperatorHighlighter::highlightBlock(const QString& text)
{
    const int n = int(text.size());
    int i = 0;
    int bracketDepth = 0;
    int subscriptStart = -1;
    bool afterOperator = false;
    // A block comment left open by the previous line.
    if (previousBlockState() == InBlockComment) {
        const int close = int(text.indexOf(QStringLiteral("*/")));
        if (close < 0) {
            setFormat(0, n, format(Role::Comment));
            setCurrentBlockState(InBlockComment);
            return;
        }
        setFormat(0, close + 2, format(Role::Comment));
        i = close + 2;
    }
    setCurrentBlockState(Normal);
    while (i < n) {
        const QChar c = text[i];
        if (c == u'/' && i + 1 < n && text[i + 1] == u'/') {
            setFormat(i, n - i, format(Role::Comment));
            break;
        }
        if (c == u'/' && i + 1 < n && text[i + 1] == u'*') {
            const int close = int(text.indexOf(QStringLiteral("*/"), i + 2));
            if (close < 0) {
                setFormat(i, n - i, format(Role::Comment));
                setCurrentBlockState(InBlockComment);
                break;
            }
            setFormat(i, close + 2 - i, format(Role::Comment));
            i = close + 2;
            continue;
        }
        if (c == u'[') {
            if (bracketDepth++ == 0) subscriptStart = i + 1;
            ++i;
            continue;
        }
        if (c == u']') {
            if (bracketDepth > 0 && --bracketDepth == 0 && subscriptStart >= 0)
                setFormat(subscriptStart, i - subscriptStart, format(Role::Subscript));
            ++i;
            continue;
        }
        if (c.isDigit() || (c == u'.' && i + 1 < n && text[i + 1].isDigit())) {
            int j = i;
            while (j < n
                && (text[j].isLetterOrNumber() || text[j] == u'.'
                    || ((text[j] == u'+' || text[j] == u'-')
                        && (text[j - 1] == u'e' || text[j - 1] == u'E'))))
                ++j;
            // Numbers inside a subscript keep the subscript colour, which is applied at the ']'.
            if (bracketDepth == 0) setFormat(i, j - i, format(Role::Number));
            i = j;
            continue;
        }
        if (isIdentStart(c)) {
            int j = i;
            while (j < n && isIdentPart(text[j]))
                ++j;
            const QStringView word = QStringView(text).mid(i, j - i);
            int k = j;
            while (k < n && text[k].isSpace())
                ++k;
            const QChar next = k < n ? text[k] : QChar();
            if (bracketDepth == 0) {
                if (word == u"operator" || word == u"for" || word == u"if" || word == u"else") {
                    setFormat(i, j - i, format(Role::Keyword));
                    afterOperator = word == u"operator";
                    i = j;
                    continue;
                }
                if (word == u"int")
                    setFormat(i, j - i, format(Role::Type));
                else if (next == u'(' && isFunctionName(word))
                    setFormat(i, j - i, format(Role::Function));
                else if (next == u'[')
                    setFormat(i, j - i, format(Role::Tensor));
                else if (afterOperator)
                    setFormat(i, j - i, format(Role::OperatorName));
            }
            afterOperator = false;
            i = j;
            continue;
        }
        if (!c.isSpace()) afterOperator = false;
        ++i;
    }
}

} // namespace marvel::ui
