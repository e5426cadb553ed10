#pragma once

#include <QMainWindow>

class QPlainTextEdit;
class QTextBrowser;

namespace marvel::ui {

/// The Marvel Studio main window: the loop-nest editor and what core says about the operator.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    /// Loads a `.loop` file into the editor; false (with a message box suppressed) when unreadable.
    bool openFile(const QString& path);
    QString currentFile() const { return m_file; }
    QPlainTextEdit* editor() const { return m_editor; }
    QTextBrowser* report() const { return m_report; }

private:
    void refreshReport();

    QPlainTextEdit* m_editor = nullptr;
    QTextBrowser* m_report = nullptr;
    QString m_file;
};

} // namespace marvel::ui
