#pragma once

#include <QMainWindow>

#include "ui/operator_analysis.h"

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QTableWidget;
class QTimer;

namespace marvel::ui {

class GraphView;

/// The Marvel Studio main window: the loop-nest editor, the conformability verdict with the reason for
/// each rule, the operator's dimension dependence graph and the diagnostics of text that does not parse.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    /// Loads a `.loop` file into the editor; false (with the reason in the status bar) when unreadable.
    bool openFile(const QString& path);
    /// Writes the editor to `path` atomically (a failed write leaves the old file untouched).
    bool saveTo(const QString& path);
    QString currentFile() const { return m_file; }
    bool hasUnsavedChanges() const;

    /// Re-analyses the editor text now instead of after the typing pause.
    void analyseNow();
    const OperatorAnalysis& analysis() const { return m_analysis; }

    QPlainTextEdit* editor() const { return m_editor; }
    QTableWidget* rulesTable() const { return m_rules; }
    QListWidget* diagnosticsList() const { return m_diagnostics; }
    GraphView* ddgView() const { return m_ddg; }
    QLabel* verdictLabel() const { return m_verdict; }

    /// The folder the "Open Sample" menu lists (samples/operators of the source tree unless
    /// MARVEL_SAMPLES_DIR is set in the environment).
    static QString samplesDirectory();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildMenus();
    void newOperator();
    void openDialog();
    bool save();
    bool saveAsDialog();
    /// Asks what to do with unsaved changes; false when the user cancels.
    bool confirmDiscard();
    void jumpToDiagnostic(int row);
    void showAnalysis();
    void updateTitle();

    QPlainTextEdit* m_editor = nullptr;
    QLabel* m_verdict = nullptr;
    QTableWidget* m_rules = nullptr;
    QListWidget* m_diagnostics = nullptr;
    GraphView* m_ddg = nullptr;
    QTimer* m_analyseTimer = nullptr;
    OperatorAnalysis m_analysis;
    QString m_file;
};

} // namespace marvel::ui
