// Help > The MDC notation (a guide for newcomers whose examples open in one click) and Help > Keyboard
// shortcuts (collected from the window's actions, so the list cannot go stale).
#include <algorithm>

#include <QAbstractButton>
#include <QAction>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QShortcut>
#include <QTabWidget>
#include <QTextBrowser>
#include <QUrlQuery>

#include "ui/animation/animation_panel.h"
#include "ui/main_window.h"
#include "ui/samples_dir.h"

// marvel_ui is a static library: naming the resources' initialiser links them in whatever else the program
// uses (Q_INIT_RESOURCE must be called outside a namespace).
static void initMarvelResources()
{
    Q_INIT_RESOURCE(marvel);
}

namespace marvel::ui {

QTextBrowser* MainWindow::showGuide()
{
    if (!m_guide) {
        auto* browser = new QTextBrowser;
        browser->setObjectName(QStringLiteral("guideBrowser"));
        // The links are ours to follow: sample: links open files in this window.
        browser->setOpenLinks(false);
        initMarvelResources();
        QFile html(QStringLiteral(":/marvel/mdc-guide.html"));
        html.open(QIODevice::ReadOnly);
        browser->setHtml(QString::fromUtf8(html.readAll()));
        connect(browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) { openGuideLink(url); });
        m_guide = new QDockWidget(tr("The MDC notation"), this);
        m_guide->setObjectName(QStringLiteral("guide")); // saveState() keys docks by name
        m_guide->setWidget(browser);
        m_guide->setMinimumWidth(380);
        // Beside the centre, so that an example's animation and the text explaining it show together: a tab
        // over the accelerator's column (its whole height), widened for reading.
        addDockWidget(Qt::RightDockWidgetArea, m_guide);
        for (QDockWidget* d : m_docks)
            if (d->objectName() == QLatin1String("accelerator") && !d->isFloating() && d->isVisible())
                tabifyDockWidget(d, m_guide);
    }
    m_guide->show();
    m_guide->raise();
    resizeDocks({m_guide}, {qMax(m_guide->width(), 460)}, Qt::Horizontal);
    return static_cast<QTextBrowser*>(m_guide->widget());
}

bool MainWindow::openGuideLink(const QUrl& url)
{
    if (url.scheme() != QLatin1String("sample")) return QDesktopServices::openUrl(url);
    const QString root = samplesRoot();
    const QString file = root + QLatin1Char('/') + url.path();
    if (!QFileInfo::exists(file)) {
        reportError(tr("Guide"), tr("The example %1 is not among the samples in %2.").arg(url.path(), root));
        return false;
    }
    if (!confirmDiscard() || !openFile(file)) return false;
    const QUrlQuery query(url);
    if (query.hasQueryItem(QStringLiteral("animate")))
        return animateMappingFile(root + QLatin1Char('/') + query.queryItemValue(QStringLiteral("animate")));
    if (url.fragment() == QLatin1String("animation")) {
        showCentre(m_animation);
    } else if (url.fragment() == QLatin1String("ddg")) {
        for (QDockWidget* d : m_docks) {
            if (d->objectName() != QLatin1String("ddg")) continue;
            d->show();
            d->raise();
        }
    }
    return true;
}

QStringList MainWindow::shortcutList() const
{
    QStringList rows;
    auto add = [&rows](const QKeySequence& keys, QString what) {
        if (keys.isEmpty() || what.isEmpty()) return;
        const QString keyText = keys.toString(QKeySequence::NativeText);
        what.remove(QLatin1Char('&'));
        what.remove(QStringLiteral(" (") + keyText + QLatin1Char(')')); // a tooltip's "Play / pause (Space)"
        const QString row = keyText + QLatin1Char('\t') + what;
        if (!rows.contains(row)) rows << row;
    };
    for (const QAction* a : findChildren<QAction*>()) {
        for (const QKeySequence& keys : a->shortcuts())
            add(keys, a->text());
    }
    // Buttons with keys of their own (the animation's Space for play / pause).
    for (const QAbstractButton* b : findChildren<QAbstractButton*>())
        add(b->shortcut(), b->toolTip().isEmpty() ? b->text() : b->toolTip());
    // QShortcuts have no text: the action with the same keys names what they do (Ctrl+R, Escape).
    for (const QShortcut* s : findChildren<QShortcut*>()) {
        bool named = false;
        for (const QString& row : std::as_const(rows))
            named = named || row.startsWith(s->key().toString(QKeySequence::NativeText) + QLatin1Char('\t'));
        if (!named) add(s->key(), s->whatsThis());
    }
    std::sort(rows.begin(), rows.end(), [](const QString& a, const QString& b) {
        return a.section(QLatin1Char('\t'), 1).localeAwareCompare(b.section(QLatin1Char('\t'), 1)) < 0;
    });
    return rows;
}

QMessageBox* MainWindow::showShortcuts()
{
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
    for (const QString& row : shortcutList())
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(row.section(QLatin1Char('\t'), 0, 0).toHtmlEscaped(),
                        row.section(QLatin1Char('\t'), 1).toHtmlEscaped());
    html += QStringLiteral("</table>");
    auto* box
        = new QMessageBox(QMessageBox::NoIcon, tr("Keyboard shortcuts"), html, QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("shortcutsBox"));
    box->setTextFormat(Qt::RichText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    return box;
}

} // namespace marvel::ui
