#include "ui/main_window.h"

#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStatusBar>
#include <QTextBrowser>

namespace marvel::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(tr("Marvel Studio"));
    auto* splitter = new QSplitter(this);
    m_editor = new QPlainTextEdit(splitter);
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlaceholderText(tr("operator name(N = 16) {\n  for (n = 0; n < N; n++)\n    ...\n}"));
    m_report = new QTextBrowser(splitter);
    splitter->addWidget(m_editor);
    splitter->addWidget(m_report);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    setCentralWidget(splitter);
    resize(1100, 700);
    refreshReport();
}

bool MainWindow::openFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_editor->setPlainText(QString::fromUtf8(file.readAll()));
    m_file = path;
    setWindowTitle(tr("%1 - Marvel Studio").arg(QFileInfo(path).fileName()));
    refreshReport();
    return true;
}

void MainWindow::refreshReport()
{
    QFile about(QStringLiteral(":/marvel/about.html"));
    if (about.open(QIODevice::ReadOnly)) m_report->setHtml(QString::fromUtf8(about.readAll()));
}

} // namespace marvel::ui
