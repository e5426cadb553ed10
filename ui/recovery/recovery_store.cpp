#include "ui/recovery/recovery_store.h"

#include <cerrno>
#include <csignal>

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

namespace marvel::ui {

namespace {
bool processRuns(qint64 pid)
{
    // Signal 0 checks existence only; EPERM means it runs under another user.
    return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}
} // namespace

RecoveryStore::RecoveryStore()
    : m_path(directory() + QStringLiteral("/session-%1.json").arg(QCoreApplication::applicationPid()))
{ }

QString RecoveryStore::directory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/recovery");
}

QStringList RecoveryStore::orphans()
{
    static const QRegularExpression name(QStringLiteral("^session-(\\d+)\\.json$"));
    QStringList out;
    const QDir dir(directory());
    for (const QFileInfo& info :
        dir.entryInfoList({QStringLiteral("session-*.json")}, QDir::Files, QDir::Time)) {
        const QRegularExpressionMatch m = name.match(info.fileName());
        if (!m.hasMatch()) continue;
        const qint64 pid = m.captured(1).toLongLong();
        if (pid == QCoreApplication::applicationPid() || processRuns(pid)) continue;
        out << info.absoluteFilePath();
    }
    return out;
}

bool RecoveryStore::write(const QByteArray& content)
{
    if (content == m_lastWritten && QFileInfo::exists(m_path)) return true;
    if (!QDir().mkpath(directory())) {
        m_error = QCoreApplication::translate("RecoveryStore", "cannot create %1").arg(directory());
        return false;
    }
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size() || !file.commit()) {
        m_error = file.errorString();
        return false;
    }
    m_lastWritten = content;
    m_error.clear();
    return true;
}

void RecoveryStore::discard()
{
    QFile::remove(m_path);
    m_lastWritten.clear();
}

} // namespace marvel::ui
