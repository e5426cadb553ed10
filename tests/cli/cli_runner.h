#pragma once
// Runs the real `marvel` binary (or `mpirun marvel-mpi`) for the CLI tests and captures what it printed.

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTest>

namespace clitest {

struct CliRun
{
    int exitCode = -1; ///< -1 when the process crashed or did not finish
    QString out;
    QString err;
};

/// Runs `program` with `args` (in `workingDir` when given); a process still running after `timeoutMs` is
/// killed (exitCode -1).
inline CliRun runProgram(
    const QString& program, const QStringList& args, int timeoutMs = 120000, const QString& workingDir = {})
{
    QProcess p;
    if (!workingDir.isEmpty()) p.setWorkingDirectory(workingDir);
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

inline const QString kSamples = QStringLiteral(MARVEL_SAMPLES_DIR);
inline const QString kP1 = kSamples + QStringLiteral("/accelerators/P1_eyeriss.json");

/// Writes a test's input file (fails the test when it cannot).
inline void writeFile(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}

/// A file's text, empty when it cannot be read.
inline QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// A file's bytes; a marker naming the file when it cannot be read, so that two missing files never
/// compare equal to each other or to an empty output.
inline QByteArray readBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing " + path.toUtf8() + ">");
}

/// A small convolution (16x8 channels, 8x8 outputs, 3x3 filter) whose searches stay fast under the
/// sanitizers.
inline const QByteArray kSmallConv = "operator smallconv(K = 16, C = 8, Y = 8, X = 8, R = 3, S = 3) {\n"
                                     "  for (k = 0; k < K; k++)\n"
                                     "    for (c = 0; c < C; c++)\n"
                                     "      for (y = 0; y < Y; y++)\n"
                                     "        for (x = 0; x < X; x++)\n"
                                     "          for (r = 0; r < R; r++)\n"
                                     "            for (s = 0; s < S; s++)\n"
                                     "              O[k][y][x] += W[k][c][r][s] * I[c][y + r][x + s];\n"
                                     "}\n";

/// The JSON object a command printed (a warning names the parse error, if any).
inline QJsonObject parse(const QString& text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError) qWarning("%s", qPrintable(error.errorString()));
    return doc.object();
}

} // namespace clitest
