// `marvel-studio`: the desktop application.
#include <cstdio>
#include <string_view>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QStatusBar>
#include <QTimer>

#include "core/export/timeloop.h"
#include "marvel_build_info.h"
#include "ui/animation/animation_panel.h"
#include "ui/bench/studio_bench.h"
#include "ui/codesign/codesign_controller.h"
#include "ui/codesign/codesign_panel.h"
#include "ui/main_window.h"
#include "ui/search/search_panel.h"
#include "ui/sweep/sweep_controller.h"
#include "ui/sweep/sweep_panel.h"

int main(int argc, char** argv)
{
    // The benchmark measures the window without showing it, whatever display there is; a screenshot,
    // --help and --version need no display either, so without one they run off-screen.
    const bool noDisplay
        = qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg(argv[i]);
        const bool headless = arg == "--screenshot" || arg.starts_with("--screenshot=") || arg == "--help"
            || arg == "-h" || arg == "--version" || arg == "-v";
        if ((arg == "--bench" || (headless && noDisplay)) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Marvel Studio"));
    QApplication::setApplicationName(QStringLiteral("Marvel Studio"));
    QApplication::setApplicationVersion(QStringLiteral(MARVEL_VERSION " (commit " MARVEL_GIT_COMMIT ")"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Map DNN operators onto spatial accelerators"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window to <file> and quit."), QStringLiteral("file"));
    QCommandLineOption quitAfter(
        QStringLiteral("quit-after"), QStringLiteral("Quit after <ms> milliseconds."), QStringLiteral("ms"));
    QCommandLineOption search(QStringLiteral("search"), QStringLiteral("Run the search at start."));
    QCommandLineOption size(QStringLiteral("size"),
        QStringLiteral("Window size, as asked even beyond the screen (for screenshots); default: the last "
                       "session's, else 1440x900 within the screen's available area."),
        QStringLiteral("WxH"));
    parser.addOption(screenshot);
    parser.addOption(quitAfter);
    parser.addOption(search);
    parser.addOption(size);
    QCommandLineOption bench(QStringLiteral("bench"),
        QStringLiteral(
            "Measure the app's responsiveness (GUI-thread stall, retune latency, replot, streaming "
            "cost) idle and under a load it starts (a busy process per core), print the figures with "
            "the load average and quit."));
    parser.addOption(bench);
    QCommandLineOption animationStep(QStringLiteral("animation-step"),
        QStringLiteral("Show step <n> (from 1) of the animation once it is ready."), QStringLiteral("n"));
    parser.addOption(animationStep);
    QCommandLineOption animationDirectives(QStringLiteral("animation-directives"),
        QStringLiteral("Animate the layer under these MDC directives (as in a Dataflow block)."),
        QStringLiteral("text"));
    parser.addOption(animationDirectives);
    QCommandLineOption animateMapping(QStringLiteral("animate-mapping"),
        QStringLiteral("Animate a layer of a MAESTRO mapping file (FILE.m, or FILE.m:LAYER) on the "
                       "accelerator of the opened project."),
        QStringLiteral("file"));
    parser.addOption(animateMapping);
    QCommandLineOption exportMapping(QStringLiteral("export-mapping"),
        QStringLiteral(
            "With --search: export the selected mapping to <file> once the search is done, as "
            "File > Export Selected Mapping does (.m, .json, .txt, or NAME.timeloop: Timeloop input)."),
        QStringLiteral("file"));
    parser.addOption(exportMapping);
    QCommandLineOption timeloopOnly(QStringLiteral("timeloop-compatible"),
        QStringLiteral("Check the search's \"Timeloop only\" option: only mappings Timeloop can express."));
    parser.addOption(timeloopOnly);
    QCommandLineOption timeloopSpace(QStringLiteral("timeloop-space"),
        QStringLiteral("With --timeloop-compatible: which of those mappings, narrow or wide (the default), "
                       "as marvel search --timeloop-space."),
        QStringLiteral("space"));
    parser.addOption(timeloopSpace);
    QCommandLineOption sweep(QStringLiteral("sweep"),
        QStringLiteral(
            "Run a design sweep at start over two parameters, given twice as NAME=VALUES the "
            "way `marvel sweep --vary` takes them (e.g. --sweep pes=64,256 --sweep l2=32K:1M:x2); seq=VALUES "
            "or kv=VALUES varies the model's context (a built-in transformer: --sweep kv=16:1024:x4)."),
        QStringLiteral("spec"));
    parser.addOption(sweep);
    QCommandLineOption sweepColour(QStringLiteral("sweep-colour"),
        QStringLiteral("Colour the sweep's heat map by <metric>: runtime, energy, edp, dram-bytes, "
                       "dram-energy, area, power, utilization or roofline."),
        QStringLiteral("metric"));
    parser.addOption(sweepColour);
    QCommandLineOption codesignBudget(QStringLiteral("codesign"),
        QStringLiteral("Run the Co-design tab at start with an area budget of <mm2> (the accelerator needs a "
                       "technology table), over the tab's default axes or those of --codesign-vary."),
        QStringLiteral("mm2"));
    parser.addOption(codesignBudget);
    QCommandLineOption codesignVary(QStringLiteral("codesign-vary"),
        QStringLiteral("With --codesign: vary this parameter, NAME=VALUES as `marvel codesign --vary` takes "
                       "it (repeat it; the parameters not named stay the accelerator's)."),
        QStringLiteral("spec"));
    parser.addOption(codesignVary);
    QCommandLineOption guide(QStringLiteral("guide"),
        QStringLiteral("Open Help > The MDC notation at start (for --screenshot too)."));
    parser.addOption(guide);
    parser.addPositionalArgument(
        QStringLiteral("file"), QStringLiteral("Project (.json) or operator (.loop) to open."));
    parser.process(app);
    if (parser.isSet(bench)) return marvel::ui::runStudioBench();

    marvel::ui::MainWindow window;
    const QStringList files = parser.positionalArguments();
    window.openFile(files.isEmpty()
            ? marvel::ui::MainWindow::projectSamplesDirectory() + QStringLiteral("/vgg16_conv_edge_dram.json")
            : files.first());
    // Without --size the window keeps the size it chose (MainWindow: the last session's or the preferred
    // one, within the screen).
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        if (wh.size() != 2 || wh[0].toInt() <= 0 || wh[1].toInt() <= 0) {
            std::fprintf(stderr, "marvel-studio: --size takes WIDTHxHEIGHT, e.g. 1280x800, not '%s'\n",
                qPrintable(parser.value(size)));
            return 2;
        }
        window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    if (parser.isSet(guide)) window.showGuide();
    if (parser.isSet(animateMapping)) {
        const QString value = parser.value(animateMapping);
        const qsizetype colon = value.lastIndexOf(QLatin1Char(':'));
        const bool named = colon > 0 && !value.mid(colon + 1).contains(QLatin1Char('/'));
        window.animateMappingFile(
            named ? value.left(colon) : value, named ? value.mid(colon + 1) : QString());
    }
    if (parser.isSet(animationStep) || parser.isSet(animationDirectives)) {
        // The first ready animation is the project's; typed directives replace it, then the step is shown.
        const qint64 step = parser.isSet(animationStep) ? parser.value(animationStep).toLongLong() : 1;
        const QString directives = parser.value(animationDirectives);
        QObject::connect(window.animationPanel(), &marvel::ui::AnimationPanel::ready, &window,
            [&window, step, directives, applied = directives.isEmpty()]() mutable {
                if (!applied) {
                    applied = true;
                    if (window.animationPanel()->applyDirectives(directives)) return;
                }
                window.animationPanel()->seek(step - 1);
            });
    }
    // A session that was killed left its unsaved work behind; scripted runs never ask.
    if (!parser.isSet(screenshot) && !parser.isSet(search) && !parser.isSet(quitAfter))
        QTimer::singleShot(0, &window, [&window] { window.offerRecovery(); });

    auto grab = [&window, &app](const QString& path) {
        // Let queued replots and layouts settle before grabbing.
        QTimer::singleShot(400, &window, [&window, &app, path] {
            const bool saved = window.grab().save(path);
            app.exit(saved ? 0 : 1);
        });
    };
    // After the opened project's settings, which it overrides, with or without --search.
    if (parser.isSet(timeloopOnly)) {
        const std::string name = parser.isSet(timeloopSpace)
            ? parser.value(timeloopSpace).toStdString()
            : marvel::timeloop::searchSpaceName(marvel::timeloop::kDefaultSearchSpace);
        const std::optional<marvel::timeloop::SearchSpace> space = marvel::timeloop::searchSpaceNamed(name);
        if (!space) {
            std::fprintf(
                stderr, "marvel-studio: --timeloop-space takes narrow or wide, not '%s'\n", name.c_str());
            return 2;
        }
        marvel::search::SearchOptions o = window.searchPanel()->options();
        marvel::timeloop::restrictSearch(o.constraint, {}, *space);
        window.searchPanel()->setOptions(o);
    } else if (parser.isSet(timeloopSpace)) {
        std::fprintf(stderr, "marvel-studio: --timeloop-space needs --timeloop-compatible\n");
        return 2;
    }
    if (parser.isSet(codesignBudget)) {
        bool ok = false;
        const double area = parser.value(codesignBudget).toDouble(&ok);
        if (!ok || area <= 0) {
            std::fprintf(stderr, "marvel-studio: --codesign takes a positive area in mm2, not '%s'\n",
                qPrintable(parser.value(codesignBudget)));
            return 2;
        }
        marvel::ui::CodesignPanel* panel = window.codesignPanel();
        panel->setBudget({area, std::nullopt});
        if (parser.isSet(codesignVary)) {
            for (const char* name : {"pes", "simd", "l1", "l2", "noc_bw", "offchip_bw"})
                panel->setAxis(QString::fromLatin1(name), false);
            for (const QString& spec : parser.values(codesignVary))
                panel->setAxis(spec.section(QLatin1Char('='), 0, 0), true, spec.section(QLatin1Char('='), 1));
        }
        if (parser.isSet(screenshot)) {
            const QString path = parser.value(screenshot);
            QObject::connect(window.codesignController(), &marvel::ui::CodesignController::finished, &window,
                [grab, path] { grab(path); });
        }
        QTimer::singleShot(0, &window, [&window, &app, &parser, &screenshot] {
            if (!window.runCodesign() && parser.isSet(screenshot)) {
                QTimer::singleShot(400, &window, [&window, &app, path = parser.value(screenshot)] {
                    window.grab().save(path);
                    app.exit(1);
                });
            }
        });
    } else if (parser.isSet(sweep)) {
        const QStringList specs = parser.values(sweep);
        auto part = [&specs](int i, int field) {
            return i < specs.size() ? specs[i].section(QLatin1Char('='), field, field) : QString();
        };
        window.sweepPanel()->setAxes(part(0, 0), part(0, 1), part(1, 0), part(1, 1));
        if (parser.isSet(sweepColour)) {
            const auto metric = marvel::ui::SweepPanel::metricByName(parser.value(sweepColour));
            if (!metric) {
                std::fprintf(stderr, "marvel-studio: unknown --sweep-colour '%s'\n",
                    qPrintable(parser.value(sweepColour)));
                return 2;
            }
            window.sweepPanel()->setMetric(*metric);
        }
        if (parser.isSet(screenshot)) {
            const QString path = parser.value(screenshot);
            QObject::connect(window.sweepController(), &marvel::ui::SweepController::finished, &window,
                [grab, path] { grab(path); });
        }
        QTimer::singleShot(0, &window, [&window, &app, &parser, &screenshot] {
            if (!window.runSweep() && parser.isSet(screenshot)) app.exit(1);
        });
    } else if (parser.isSet(search)) {
        if (parser.isSet(exportMapping))
            QObject::connect(&window, &marvel::ui::MainWindow::searchFinished, &window,
                [&window, path = parser.value(exportMapping)] { window.exportMapping(path); });
        if (parser.isSet(screenshot)) {
            const QString path = parser.value(screenshot);
            QObject::connect(
                &window, &marvel::ui::MainWindow::searchFinished, &window, [grab, path] { grab(path); });
        }
        QTimer::singleShot(0, &window, [&window, &app, &parser, &screenshot] {
            if (window.runSearch()) return;
            std::fprintf(stderr, "marvel-studio: %s\n", qPrintable(window.statusBar()->currentMessage()));
            if (!parser.isSet(screenshot)) return;
            // The window says why it cannot search: grab that, and fail.
            QTimer::singleShot(400, &window, [&window, &app, path = parser.value(screenshot)] {
                window.grab().save(path);
                app.exit(1);
            });
        });
    } else if (parser.isSet(screenshot) && parser.isSet(animateMapping)) {
        // The mapping file is simulated in the background: grab once its animation is shown (an earlier
        // ready animation is the project's).
        const QString value = parser.value(animateMapping);
        const qsizetype colon = value.lastIndexOf(QLatin1Char(':'));
        const bool named = colon > 0 && !value.mid(colon + 1).contains(QLatin1Char('/'));
        const QString file = QFileInfo(named ? value.left(colon) : value).fileName();
        QObject::connect(window.animationPanel(), &marvel::ui::AnimationPanel::ready, &window,
            [&window, grab, path = parser.value(screenshot), file, done = false]() mutable {
                const marvel::ui::SimulationSummary* s = window.animationPanel()->summary();
                if (done || !s || !s->title.contains(file)) return;
                done = true;
                grab(path);
            });
    } else if (parser.isSet(screenshot)) {
        grab(parser.value(screenshot));
    } else if (parser.isSet(quitAfter)) {
        QTimer::singleShot(parser.value(quitAfter).toInt(), &app, &QApplication::quit);
    }
    return app.exec();
}
