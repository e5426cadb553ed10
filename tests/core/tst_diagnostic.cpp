#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "core/util/diagnostic.h"
#include "core/util/text_file.h"

using marvel::Diagnostic;

class TestDiagnostic : public QObject
{
    Q_OBJECT
private slots:
    void format_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("expected");
        QTest::newRow("file line col") << "a.loop" << 3 << 7 << ""
                                       << "a.loop:3:7: boom";
        QTest::newRow("file line") << "a.loop" << 3 << 0 << ""
                                   << "a.loop:3: boom";
        QTest::newRow("file field") << "p1.json" << 0 << 0 << "num_pes"
                                    << "p1.json: num_pes: boom";
        QTest::newRow("bare") << "" << 0 << 0 << ""
                              << "boom";
    }
    void format()
    {
        QFETCH(QString, file);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, field);
        QFETCH(QString, expected);
        Diagnostic d{file.toStdString(), {line, column}, field.toStdString(), "boom"};
        QCOMPARE(QString::fromStdString(d.format()), expected);
    }

    // A device that never ends (/dev/zero) or a huge file is refused after 64 MiB instead of filling
    // the memory.
    void oversizedFilesAreRefused()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("huge.m");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QVERIFY(f.resize(qint64(marvel::kMaxTextFileBytes) + 1)); // sparse: no disk used
        f.close();
        try {
            marvel::readTextFile(path.toStdString());
            QFAIL("no error");
        } catch (const marvel::InputError& e) {
            QCOMPARE(QString::fromStdString(e.diagnostics().at(0).format()),
                path + ": the file is larger than 64 MiB: this is not an input Marvel Studio reads");
        }
        if (QFile::exists("/dev/zero")) {
            QVERIFY_THROWS_EXCEPTION(marvel::InputError, marvel::readTextFile("/dev/zero"));
        }
    }
};

QTEST_APPLESS_MAIN(TestDiagnostic)
#include "tst_diagnostic.moc"
