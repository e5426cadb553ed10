#pragma once

#include <QLabel>

namespace marvel::ui {

/// A one-line plain-text label that never widens its window: a text longer than the room it has is
/// elided, and the whole text is then its tooltip. A text about a name ("Layer NAME of model M") loses
/// what follows the name first, then the middle of the name (the start and the end of a node path such
/// as /layer/self_attn/MatMul_1 stay, which tell its siblings apart).
class ElidedLabel : public QLabel
{
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    /// The whole text (plain), and the name in it that shows longest; what shows is shownText().
    void setFullText(const QString& text, const QString& name = {});
    QString fullText() const { return m_full; }
    /// What the label shows at its current width.
    QString shownText() const { return text(); }
    bool isElided() const { return text() != m_full; }

    QSize sizeHint() const override;
    /// A few characters wide, whatever the text: the layout decides the width, not the text.
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();

    QString m_full;
    QString m_name;
};

} // namespace marvel::ui
