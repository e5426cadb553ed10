#pragma once
// Runs the real `marvel` binary for the CLI tests and captures what it printed.

#include <QProcess>
#include <QString>
#include <QStringList>

namespace clitest {

struct CliRun
{
    int exitCode = -1; ///< -1 when the process crashed or did not finish
    QString out;
    QString err;
};

inline CliRun runMarvel(const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(QStringLiteral(MARVEL_CLI_PATH), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
        QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

} // namespace clitest
