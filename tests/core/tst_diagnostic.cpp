#include <QTest>

#include "core/util/diagnostic.h"

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
};

QTEST_APPLESS_MAIN(TestDiagnostic)
#include "tst_diagnostic.moc"
