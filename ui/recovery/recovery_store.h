#pragma once
// Autosave of unsaved work: each running window writes its state to its own recovery file every few
// seconds while something is unsaved, and removes it when the work is saved or the window closes. A
// recovery file whose process is gone (killed, crashed) is offered back at the next start.

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace marvel::ui {

class RecoveryStore
{
public:
    /// The file of this process: `directory()/session-<pid>.json`.
    RecoveryStore();

    /// The folder of every recovery file (the app's data folder).
    static QString directory();
    /// Recovery files of processes that no longer run, newest first.
    static QStringList orphans();

    QString path() const { return m_path; }
    /// Writes `content` atomically unless it is what was last written; false (with the reason in
    /// errorString()) when the folder or file cannot be written.
    bool write(const QByteArray& content);
    /// Removes this process's file (the work was saved or deliberately discarded).
    void discard();
    QString errorString() const { return m_error; }

private:
    QString m_path;
    QByteArray m_lastWritten;
    QString m_error;
};

} // namespace marvel::ui
