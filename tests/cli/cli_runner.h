#pragma once
// Runs the real `marvel` binary (or `mpirun marvel-mpi`) for the CLI tests and captures what it printed.

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

/// Runs `program` with `args`; a process still running after `timeoutMs` is killed (exitCode -1).
inline CliRun runProgram(const QString& program, const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
        QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

inline CliRun runMarvel(const QStringList& args, int timeoutMs = 120000)
{
    return runProgram(QStringLiteral(MARVEL_CLI_PATH), args, timeoutMs);
}

} // namespace clitest
