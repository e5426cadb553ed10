#include "ui/samples_dir.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace marvel::ui {

QString samplesRoot()
{
    const QByteArray fromEnv = qgetenv("MARVEL_SAMPLES_DIR");
    if (!fromEnv.isEmpty()) return QString::fromLocal8Bit(fromEnv);
    // Installed: bin/marvel-studio and share/marvel-studio/samples under the same prefix. Checked before
    // the compiled-in path, which on another machine is a build directory that does not exist (or, worse,
    // an older checkout's).
    if (QCoreApplication::instance()) {
        const QString installed = QDir::cleanPath(
            QCoreApplication::applicationDirPath() + QStringLiteral("/../share/marvel-studio/samples"));
        if (QFileInfo(installed).isDir()) return installed;
    }
    return QStringLiteral(MARVEL_SAMPLES_DIR);
}

} // namespace marvel::ui
