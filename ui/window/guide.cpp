// Help > The MDC notation (a guide for newcomers whose examples open in one click) and Help > Keyboard
// shortcuts (collected from the window's actions, so the list cannot go stale).
#include <algorithm>
#include <functional>

#include <QAbstractButton>
#include <QAction>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
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

QList<QPair<QString, QStringList>> MainWindow::shortcutGroups() const
{
    QList<QPair<QString, QStringList>> groups;
    QStringList seen; // "keys\twhat" rows listed already (an action in two menus, a key bound twice)
    auto add = [&](const QString& group, const QKeySequence& keys, QString what) {
        if (keys.isEmpty() || what.isEmpty()) return;
        const QString keyText = keys.toString(QKeySequence::NativeText);
        what.remove(QLatin1Char('&'));
        what.remove(QStringLiteral(" (") + keyText + QLatin1Char(')')); // a tooltip's "Play / pause (Space)"
        const QString row = keyText + QLatin1Char('\t') + what;
        if (seen.contains(row)) return;
        // A key listed already under another name (a QShortcut beside its menu action: Ctrl+R, Escape).
        for (const QString& r : std::as_const(seen))
            if (r.startsWith(keyText + QLatin1Char('\t'))) return;
        seen << row;
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == group; });
        if (it == groups.end()) it = groups.insert(groups.end(), {group, {}});
        it->second << row;
    };
    // The menus first, in the menu bar's order and each in its own order: what a user finds there.
    std::function<void(const QString&, const QMenu*)> walk = [&](const QString& group, const QMenu* menu) {
        for (const QAction* a : menu->actions()) {
            if (a->menu()) {
                walk(group, a->menu());
                continue;
            }
            for (const QKeySequence& keys : a->shortcuts())
                add(group, keys, a->text());
        }
    };
    for (const QAction* top : menuBar()->actions())
        if (top->menu()) walk(top->text().remove(QLatin1Char('&')), top->menu());
    // Then the keys of the panels (buttons, QShortcuts, actions outside the menus), each under the panel
    // it works in: the dock's title or the centre's tab.
    auto area = [this](const QObject* o) {
        for (const QObject* p = o; p; p = p->parent()) {
            if (const auto* dock = qobject_cast<const QDockWidget*>(p)) return dock->windowTitle();
            if (const int tab
                = m_centre ? m_centre->indexOf(qobject_cast<QWidget*>(const_cast<QObject*>(p))) : -1;
                tab >= 0)
                return m_centre->tabText(tab).remove(QLatin1Char('&'));
        }
        return tr("Window");
    };
    for (const QAction* a : findChildren<QAction*>())
        for (const QKeySequence& keys : a->shortcuts())
            add(area(a), keys,
                a->toolTip().isEmpty() || a->toolTip() == a->text() ? a->text() : a->toolTip());
    for (const QAbstractButton* b : findChildren<QAbstractButton*>())
        add(area(b), b->shortcut(), b->toolTip().isEmpty() ? b->text() : b->toolTip());
    for (const QShortcut* sc : findChildren<QShortcut*>())
        add(area(sc), sc->key(), sc->whatsThis());
    return groups;
}

QStringList MainWindow::shortcutList() const
{
    QStringList rows;
    for (const auto& group : shortcutGroups())
        rows << group.second;
    return rows;
}

QMessageBox* MainWindow::showShortcuts()
{
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
    for (const auto& [group, rows] : shortcutGroups()) {
        html += QStringLiteral("<tr><td colspan=\"2\" style=\"padding-top: 8px\"><b>%1</b></td></tr>")
                    .arg(group.toHtmlEscaped());
        for (const QString& row : rows)
            html += QStringLiteral("<tr><td style=\"padding-left: 12px\">%1</td><td>%2</td></tr>")
                        .arg(row.section(QLatin1Char('\t'), 0, 0).toHtmlEscaped(),
                            row.section(QLatin1Char('\t'), 1).toHtmlEscaped());
    }
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
