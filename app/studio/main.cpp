// `marvel-studio`: the desktop application.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include "ui/main_window.h"

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Marvel Studio"));
    QApplication::setApplicationName(QStringLiteral("Marvel Studio"));
    QApplication::setApplicationVersion(QStringLiteral(MARVEL_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Map DNN operators onto spatial accelerators"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window to <file> and quit."), QStringLiteral("file"));
    QCommandLineOption quitAfter(
        QStringLiteral("quit-after"), QStringLiteral("Quit after <ms> milliseconds."), QStringLiteral("ms"));
    parser.addOption(screenshot);
    parser.addOption(quitAfter);
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Operator (.loop) to open."));
    parser.process(app);

    marvel::ui::MainWindow window;
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty()) window.openFile(files.first());
    window.show();

    if (parser.isSet(screenshot)) {
        const QString path = parser.value(screenshot);
        QTimer::singleShot(500, &window, [&window, &app, path] {
            const bool saved = window.grab().save(path);
            app.exit(saved ? 0 : 1);
        });
    } else if (parser.isSet(quitAfter)) {
        QTimer::singleShot(parser.value(quitAfter).toInt(), &app, &QApplication::quit);
    }
    return app.exec();
}
