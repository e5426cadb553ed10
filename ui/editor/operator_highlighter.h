#pragma once
// Syntax colouring for the `.loop` operator language (core/ir/parser.cpp): keywords, the `int` type,
// numbers, `//` and `/* */` comments, max/min, tensor names and the subscripts between their brackets.

#include <array>

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace marvel::ui {

class OperatorHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    enum class Role { Keyword, Type, Number, Comment, Function, Tensor, Subscript, OperatorName, Count };

    explicit OperatorHighlighter(QTextDocument* document);

    /// The format used for one kind of text (tests compare the formats found in the document with these).
    QTextCharFormat format(Role role) const { return m_formats[std::size_t(role)]; }

protected:
    void highlightBlock(const QString& text) override;

private:
    std::array<QTextCharFormat, std::size_t(Role::Count)> m_formats;
};

} // namespace marvel::ui
