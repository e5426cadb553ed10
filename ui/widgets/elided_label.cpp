#include "ui/widgets/elided_label.h"

#include <algorithm>

#include <QFontMetrics>
#include <QResizeEvent>

namespace marvel::ui {

ElidedLabel::ElidedLabel(QWidget* parent)
    : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void ElidedLabel::setFullText(const QString& text, const QString& name)
{
    m_full = text;
    m_name = name;
    updateGeometry();
    elide();
}

QSize ElidedLabel::sizeHint() const
{
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(m_full) + 2 * margin() + m.left() + m.right(),
        QLabel::sizeHint().height()};
}

QSize ElidedLabel::minimumSizeHint() const
{
    return {fontMetrics().averageCharWidth() * 8, QLabel::minimumSizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::elide()
{
    const int room = std::max(0, contentsRect().width() - 2 * margin());
    const QFontMetrics fm = fontMetrics();
    const QString ellipsis(QChar(0x2026));
    QString shown = m_full;
    const qsizetype at = m_name.isEmpty() ? -1 : m_full.indexOf(m_name);
    if (fm.horizontalAdvance(m_full) > room && at >= 0) {
        // What follows the name goes first, then the middle of the name.
        const QString head = m_full.left(at);
        const QString tail = at + m_name.size() < m_full.size() ? ellipsis : QString();
        shown = head + m_name + tail;
        if (fm.horizontalAdvance(shown) > room) {
            const int nameRoom = room - fm.horizontalAdvance(head + tail);
            shown = nameRoom > fm.horizontalAdvance(ellipsis) * 4
                ? head + fm.elidedText(m_name, Qt::ElideMiddle, nameRoom) + tail
                : fm.elidedText(m_full, Qt::ElideRight, room);
        }
    } else if (fm.horizontalAdvance(m_full) > room) {
        shown = fm.elidedText(m_full, Qt::ElideMiddle, room);
    }
    if (shown != text()) QLabel::setText(shown);
    setToolTip(shown == m_full ? QString() : m_full);
}

} // namespace marvel::ui
