#include <nlohmann/json.hpp>
#include <set>

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

namespace {

using Run = clitest::CliRun;
using clitest::runMarvel;

QString sample(const QString& name)
{
    return QStringLiteral(MARVEL_SAMPLES_DIR "/operators/") + name;
}

} // namespace

class TestCliCheck : public QObject
{
    Q_OBJECT
private slots:
    void exitCodes_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("headline");
        QTest::newRow("conformable") << sample("conv2d.loop") << 0
                                     << "operator conv2d: conformable to the MDC notation";
        QTest::newRow("not conformable") << sample("lstm_multicell.loop") << 1
                                         << "operator lstm_multicell: NOT conformable to the MDC notation";
    }
    void exitCodes()
    {
        QFETCH(QString, file);
        QFETCH(int, exitCode);
        QFETCH(QString, headline);
        const auto r = runMarvel({"check", file});
        QCOMPARE(r.exitCode, exitCode);
        QCOMPARE(r.out.section('\n', 0, 0), headline);
        QVERIFY(r.err.isEmpty());
    }

    void json()
    {
        const auto r = runMarvel({"check", sample("conv1d.loop"), "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QVERIFY(j.is_object());
        QCOMPARE(j.size(), std::size_t(6));
        QCOMPARE(j["operator"].get<std::string>(), std::string("conv1d"));
        QCOMPARE(j["conformable"].get<bool>(), true);
        QCOMPARE(j["rules"].size(), std::size_t(4));
        for (const char* rule : {"R1", "R2", "R3", "R4"}) {
            QCOMPARE(j["rules"][rule]["ok"].get<bool>(), true);
            QVERIFY(!j["rules"][rule]["reason"].get<std::string>().empty());
        }
        QCOMPARE(j["ddg"]["nodes"].size(), std::size_t(3));
        QCOMPARE(j["ddg"]["edges"].size(), std::size_t(2));
        for (const auto& e : j["ddg"]["edges"])
            QCOMPARE(e["rule"].get<int>(), 1);
        QCOMPARE(j["topological_order"].size(), std::size_t(3));
        std::set<std::string> independent;
        for (const auto& d : j["independent"])
            independent.insert(d["tensor"].get<std::string>() + std::to_string(d["dim"].get<int>())
                + d["iterator"].get<std::string>());
        QCOMPARE(independent, (std::set<std::string>{"O0x", "W0s"}));
    }

    void jsonNotConformable()
    {
        const auto r = runMarvel({"check", "--json", sample("nonconformable/ddg_cycle.loop")});
        QCOMPARE(r.exitCode, 1);
        const auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["conformable"].get<bool>(), false);
        QCOMPARE(j["rules"]["R3"]["ok"].get<bool>(), false);
        QVERIFY(j["rules"]["R3"]["reason"].get<std::string>().find("cycle") != std::string::npos);
        QVERIFY(j["topological_order"].empty());
    }

    void inputErrors()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.loop");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("operator t(N = 8) {\n  for (i = 0; i < N; i++)\n    O[i] = I[i * i];\n}\n");
        f.close();
        const auto r = runMarvel({"check", path});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err, path + ":3:16: not affine: 'i' times 'i' multiplies two variables\n");
        QVERIFY(r.out.isEmpty());
        // --json does not change how input errors are reported.
        QCOMPARE(runMarvel({"check", path, "--json"}).err, r.err);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing file")
            << QStringList{"check", "/nonexistent/x.loop"} << "/nonexistent/x.loop: cannot read the file";
        QTest::newRow("no file") << QStringList{"check"} << "marvel check: missing FILE.loop";
        QTest::newRow("two files") << QStringList{"check", "a.loop", "b.loop"}
                                   << "marvel check: expects exactly one FILE.loop";
        QTest::newRow("unknown option")
            << QStringList{"check", "--jsn", "a.loop"} << "marvel check: unknown option --jsn";
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = runMarvel(args);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.section('\n', 0, 0), message);
    }
};

QTEST_APPLESS_MAIN(TestCliCheck)
#include "tst_cli_check.moc"
