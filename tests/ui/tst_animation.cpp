// The PE-array animation, offscreen: it shows the simulator's frames of a mapping (the CONV1D classroom
// project: X over 4 PEs, 4 steps), plays, steps, seeks with the slider and the delay strip, links the
// directives to what they govern, and fetches windows of frames for long runs.
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "core/cost/problem.h"
#include "core/ir/parser.h"
#include "core/mapping/loop_nest_mapping.h"
#include "core/project/project.h"
#include "core/sim/simulator.h"
#include "core/workloads/workloads.h"
#include "ui/animation/animation_panel.h"
#include "ui/animation/delay_strip.h"
#include "ui/animation/pe_array_view.h"
#include "ui/main_window.h"

using namespace marvel;
using namespace marvel::ui;

using Dir = marvel::mdc::Directive;

namespace {
const QString kClassroom = QStringLiteral(MARVEL_SAMPLES_DIR "/projects/conv1d_classroom.json");

SimulationRequest classroomRequest()
{
    const project::Project p = project::loadProject(kClassroom.toStdString());
    const ir::Operator op = ir::parseOperator(p.workload.text, "conv1d.loop");
    return {QStringLiteral("conv1d"), cost::fromOperator(op),
        mapping::toMdc(p.selectedMapping->mapping, p.accelerator), p.accelerator};
}

bool load(AnimationPanel& panel, SimulationRequest request)
{
    QSignalSpy ready(&panel, &AnimationPanel::ready);
    panel.setMapping(std::move(request));
    return ready.wait(30000);
}
} // namespace

class TestAnimation : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    /// Every frame on screen is the simulator's frame: X = 16 over 4 PEs is 4 steps of 4 outputs each;
    /// each PE does 3 MACs (its 3 filter taps) per step; the window moves by 4, so after the first step
    /// each PE keeps the 3 filter weights and receives 1 new input of its 3.
    void showsTheSimulatorsFrames()
    {
        AnimationPanel panel;
        panel.resize(900, 600);
        const SimulationRequest request = classroomRequest();
        QVERIFY(load(panel, request));
        QCOMPARE(panel.frameCount(), 4);
        QCOMPARE(panel.summary()->totals.macs, 48);
        QCOMPARE(panel.summary()->layout.pes, 4);
        sim::Simulator simulator(request.problem, request.dataflow, request.accelerator);
        const std::vector<sim::Frame> expected = simulator.frames(0, 4);
        for (std::int64_t f = 0; f < 4; ++f) {
            panel.seek(f);
            const sim::Frame* shown = panel.shownFrame();
            QVERIFY(shown);
            QCOMPARE(shown->index, f);
            for (std::size_t pe = 0; pe < 4; ++pe) {
                QCOMPARE(shown->pes[pe].macs, 3);
                QCOMPARE(shown->pes[pe].macs, expected[std::size_t(f)].pes[pe].macs);
                QCOMPARE(shown->pes[pe].tensors.size(), expected[std::size_t(f)].pes[pe].tensors.size());
            }
        }
        // Step 2, PE 0: holds outputs 4, inputs 4..6 and all 3 weights; the weights stayed.
        panel.seek(1);
        const QString tip = panel.arrayView()->describePe(0);
        QVERIFY2(tip.contains(QStringLiteral("loop indices")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("MACs this step: 3")), qPrintable(tip));
        QVERIFY(panel.statusLabel()->text().startsWith(QStringLiteral("Step 2 of 4")));

        // The cost model beside the simulation: corrected fidelity walks this mapping and agrees with it;
        // maestro fidelity gives MAESTRO's estimate, 31 cycles (doc/cost-model.md says why they differ).
        QCOMPARE(panel.summary()->correctedCycles, panel.summary()->totals.runtimeCycles);
        QCOMPARE(panel.summary()->maestroCycles, 31);
        const QString totals = panel.totalsLabel()->text();
        QVERIFY2(totals.contains(QStringLiteral("corrected fidelity %1 cycles, as simulated")
                                     .arg(panel.summary()->totals.runtimeCycles)),
            qPrintable(totals));
        QVERIFY2(totals.contains(QStringLiteral("maestro fidelity 31 cycles")), qPrintable(totals));
    }

    void playStepAndSlider()
    {
        AnimationPanel panel;
        QVERIFY(load(panel, classroomRequest()));
        QCOMPARE(panel.currentFrame(), 0);
        panel.stepForward();
        QCOMPARE(panel.currentFrame(), 1);
        QCOMPARE(panel.slider()->value(), 1);
        panel.stepBack();
        panel.stepBack(); // already at the start: stays
        QCOMPARE(panel.currentFrame(), 0);
        panel.slider()->setValue(3);
        QCOMPARE(panel.currentFrame(), 3);
        panel.stepForward(); // already at the end: stays
        QCOMPARE(panel.currentFrame(), 3);

        QSignalSpy shown(&panel, &AnimationPanel::frameShown);
        panel.setSpeed(30);
        panel.play(); // from the end: starts again at step 1
        QVERIFY(panel.isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isPlaying(), 5000);
        QCOMPARE(panel.currentFrame(), 3);
        QVERIFY(shown.count() >= 4); // 0, 1, 2, 3 in order
        QList<std::int64_t> order;
        for (const QList<QVariant>& args : shown)
            order << args.at(0).value<std::int64_t>();
        QCOMPARE(order.mid(order.size() - 4), (QList<std::int64_t>{0, 1, 2, 3}));

        // Clicking the delay strip seeks: the third step is drawn in the third slot.
        panel.resize(900, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const std::int64_t target = panel.delayStrip()->frameAt(8 + 2.5 * panel.delayStrip()->stepWidth());
        QCOMPARE(target, 2);
        emit panel.delayStrip()->frameClicked(target);
        QCOMPARE(panel.currentFrame(), 2);
    }

    /// Space plays and pauses, Left and Right step, wherever the focus is in the panel (the PE array, the
    /// slider, the delay strip), not only on the play button.
    void keysWorkAnywhereInThePanel()
    {
        AnimationPanel panel;
        panel.resize(900, 600);
        panel.show();
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        QVERIFY(load(panel, classroomRequest()));
        panel.setSpeed(1);
        for (QWidget* w : {static_cast<QWidget*>(panel.arrayView()), static_cast<QWidget*>(panel.slider()),
                 static_cast<QWidget*>(panel.delayStrip())}) {
            panel.seek(1);
            w->setFocus();
            QTRY_VERIFY(w->hasFocus());
            QTest::keyClick(w, Qt::Key_Right);
            QCOMPARE(panel.currentFrame(), 2);
            QTest::keyClick(w, Qt::Key_Left);
            QCOMPARE(panel.currentFrame(), 1);
            QTest::keyClick(w, Qt::Key_Space);
            QVERIFY2(panel.isPlaying(), w->metaObject()->className());
            QTest::keyClick(w, Qt::Key_Space);
            QVERIFY(!panel.isPlaying());
        }
    }

    /// 256 PEs (16 clusters of 16) in a panel of 900 x 600: the cells stay at least 20 pixels, where a
    /// band per tensor reads (the view scrolls), rather than shrinking to dots.
    void largeArraysKeepReadableCells()
    {
        AnimationPanel panel;
        panel.resize(900, 600);
        SimulationRequest request = classroomRequest();
        request.accelerator.numPes = 256;
        request.dataflow
            = {Dir::spatial(1, 1, "X"), Dir::temporal(3, 3, "S"), Dir::cluster(16), Dir::spatial(1, 1, "S")};

        QVERIFY2(load(panel, request), qPrintable(panel.statusLabel()->text()));
        QCOMPARE(panel.summary()->layout.pes, 256);
        QVERIFY2(panel.arrayView()->peRect(0).width() >= 20,
            qPrintable(QString::number(panel.arrayView()->peRect(0).width())));
        QVERIFY(panel.arrayView()->peRect(255).height() >= 20);
    }

    /// In the window, picking the Animation tab puts the focus in the panel: Space plays at once.
    void spacePlaysOnceTheTabIsPicked()
    {
        MainWindow w;
        w.resize(1440, 900);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy ready(w.animationPanel(), &AnimationPanel::ready);
        QVERIFY(w.openProject(kClassroom));
        QVERIFY(ready.wait(30000) || w.animationPanel()->isReady());
        auto* tabs = qobject_cast<QTabWidget*>(w.centralWidget());
        QVERIFY(tabs);
        tabs->setCurrentIndex(0);
        tabs->setFocus();
        tabs->setCurrentIndex(1); // the Animation tab (its panel in a scroll area)
        QTRY_VERIFY(w.animationPanel()->isAncestorOf(QApplication::focusWidget()));
        w.animationPanel()->seek(0);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QVERIFY(w.animationPanel()->isPlaying());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QVERIFY(!w.animationPanel()->isPlaying());
    }

    /// A SpatialMap or Cluster lights its level's sub-units; a TemporalMap marks its level's steps.
    void directivesHighlightWhatTheyGovern()
    {
        AnimationPanel panel;
        QVERIFY(load(panel, classroomRequest()));
        const mdc::Dataflow& df = panel.summary()->dataflow;
        QCOMPARE(panel.directiveList()->count(), int(df.size()));
        int spatialInner = -1, temporalOuter = -1;
        int level = 0;
        for (int i = 0; i < int(df.size()); ++i) {
            const auto kind = df[std::size_t(i)].kind;
            if (kind == mdc::Directive::Kind::Cluster) ++level;
            if (kind == mdc::Directive::Kind::SpatialMap && level == 1) spatialInner = i;
            if (kind == mdc::Directive::Kind::TemporalMap && level == 0 && temporalOuter < 0)
                temporalOuter = i;
        }
        QVERIFY(spatialInner >= 0 && temporalOuter >= 0);
        panel.directiveList()->setCurrentRow(spatialInner);
        QCOMPARE(panel.arrayView()->highlightedLevel(), 1);
        QCOMPARE(panel.delayStrip()->highlightedLevel(), -1);
        panel.highlightDirective(temporalOuter);
        QCOMPARE(panel.arrayView()->highlightedLevel(), -1);
        QCOMPARE(panel.delayStrip()->highlightedLevel(), 0);
        QCOMPARE(panel.directiveList()->currentRow(), temporalOuter);
    }

    /// The step on screen as PNG (the array as drawn) and as SVG; every step as numbered PNGs, each the
    /// drawing of its own step, and the step shown before the export is shown again after it.
    void exportStepsAsImages()
    {
        AnimationPanel panel;
        panel.resize(900, 600);
        // Weight-stationary: every weight arrives at step 1, they stay from step 2 on (drawn pale).
        SimulationRequest ws = classroomRequest();
        ws.dataflow = {Dir::spatial(1, 1, "X"), Dir::temporal(3, 3, "S")};
        QVERIFY(load(panel, ws));
        QTemporaryDir dir;
        panel.seek(1);
        QVERIFY(panel.exportStep(dir.filePath("step.png")));
        const QImage png(dir.filePath("step.png"));
        QCOMPARE(png.size(), panel.arrayView()->size());
        QVERIFY(panel.exportStep(dir.filePath("step.svg")));
        QFile svg(dir.filePath("step.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("step 2"));

        QSignalSpy done(&panel, &AnimationPanel::sequenceExported);
        QVERIFY(panel.exportSequence(dir.filePath("steps")));
        QVERIFY(panel.isExporting());
        QVERIFY(done.wait(30000));
        QCOMPARE(done.front().at(0).toLongLong(), 4);
        QVERIFY(done.front().at(2).toString().isEmpty());
        const QStringList files
            = QDir(dir.filePath("steps")).entryList({QStringLiteral("*.png")}, QDir::Files);
        QCOMPARE(files, (QStringList{"step_0001.png", "step_0002.png", "step_0003.png", "step_0004.png"}));
        // Step 2 exported on its own and in the sequence are the same picture; step 1 differs (everything
        // arrives at the first step, the weights stay afterwards).
        QCOMPARE(QImage(dir.filePath("steps/step_0002.png")), png);
        QVERIFY(QImage(dir.filePath("steps/step_0001.png")) != png);
        QVERIFY(!panel.isExporting());
        QCOMPARE(panel.shownFrame()->index, 1);

        // Cancelled at once: fewer files, no error.
        done.clear();
        QVERIFY(panel.exportSequence(dir.filePath("cancelled")));
        panel.cancelExport();
        QCOMPARE(done.size(), 1);
        QVERIFY(done.front().at(0).toLongLong() < 4);
        QVERIFY(done.front().at(2).toString().isEmpty());
    }

    /// A MAESTRO mapping file is animated on the accelerator of the accelerator panel: spec example 1
    /// (K over 4 PEs; C 2 x Y 4 x X 4 steps = 32 steps, 4 x 2 x 16 x 9 = 1152 MACs). A missing layer is
    /// reported, naming the file.
    void animatesAMaestroMappingFile()
    {
        MainWindow w;
        QSignalSpy ready(w.animationPanel(), &AnimationPanel::ready);
        const QString file = QStringLiteral(MARVEL_SAMPLES_DIR "/mappings/tiny_conv.m");
        QVERIFY(w.animateMappingFile(file));
        QVERIFY(w.centreTabs()->currentWidget()->isAncestorOf(w.animationPanel()));
        QVERIFY(ready.wait(30000));
        QCOMPARE(w.animationPanel()->frameCount(), 32);
        QCOMPARE(w.animationPanel()->summary()->totals.macs, 1152);
        QVERIFY(w.animationPanel()->summary()->title.startsWith(QStringLiteral("L1 of tiny_conv.m on ")));

        // The two-level CONV2D sample on the 8-PE classroom accelerator: 4 clusters of 2 PEs, 2 channels x 4
        // input windows at level 0, 2 row folds inside: 16 steps.
        QVERIFY(w.openProject(QStringLiteral(MARVEL_SAMPLES_DIR "/projects/conv2d_classroom.json")));
        QVERIFY(ready.wait(30000));
        QVERIFY(w.animateMappingFile(QStringLiteral(MARVEL_SAMPLES_DIR "/mappings/conv2d_two_levels.m")));
        QVERIFY(ready.wait(30000));
        const SimulationSummary* two = w.animationPanel()->summary();
        QCOMPARE(int(two->layout.levels.size()), 2);
        QCOMPARE(two->layout.levels[0].subUnits, 4);
        QCOMPARE(two->layout.levels[1].subUnits, 2);
        QCOMPARE(w.animationPanel()->frameCount(), 16);
        QCOMPARE(two->totals.macs, 1152);
        QCOMPARE(two->correctedCycles, two->totals.runtimeCycles);

        QVERIFY(!w.animateMappingFile(file, QStringLiteral("L7")));
        const QString status = w.animationPanel()->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("tiny_conv.m"))
                && status.contains(QStringLiteral("no layer 'L7'")),
            qPrintable(status));
    }

    /// A mapping too large to simulate is refused with the simulator's advice and the offer of a shrunken
    /// copy, which is animated at a click. GEMM M=400, N=10, K=8 on 4 PEs (K spread: 2 folds) is 8 000
    /// steps x 4 PEs; under a limit of 10 000 PE-steps M halves twice: 100 x 10 x 2 = 2 000 steps.
    void tooLargeOffersAShrunkenCopy()
    {
        const ir::Operator op = ir::parseOperator(workloads::gemmLoopText(400, 10, 8), "gemm.loop");
        SimulationRequest r{QStringLiteral("gemm"), cost::fromOperator(op),
            {Dir::temporal(1, 1, "M"), Dir::spatial(1, 1, "K"), Dir::temporal(1, 1, "N")},
            classroomRequest().accelerator};
        r.limits.maxPeSteps = 10000;
        AnimationPanel panel;
        panel.show();
        QSignalSpy failed(panel.controller(), &SimulationController::failed);
        panel.setMapping(r);
        QVERIFY(failed.wait(30000));
        QVERIFY2(panel.statusLabel()->text().contains(QStringLiteral("too large to simulate")),
            qPrintable(panel.statusLabel()->text()));
        QVERIFY(panel.shrinkButton()->isVisible());
        QSignalSpy ready(&panel, &AnimationPanel::ready);
        panel.shrinkButton()->click();
        QVERIFY(ready.wait(30000));
        QVERIFY(!panel.shrinkButton()->isVisible());
        QCOMPARE(panel.frameCount(), 2000);
        QVERIFY2(panel.summary()->title.contains(QStringLiteral("shrunken copy (M 400 -> 100)")),
            qPrintable(panel.summary()->title));
        // Directives typed now map the shrunken layer (M 100): M spread instead, K in time, 25 folds x 8
        // x 10.
        QVERIFY(panel.applyDirectives(
            QStringLiteral("SpatialMap(1,1) M; TemporalMap(1,1) K; TemporalMap(1,1) N;")));
        QVERIFY(ready.wait(30000));
        QCOMPARE(panel.summary()->problem.dim("M")->size, 100);
        QCOMPARE(panel.frameCount(), 25 * 10 * 8);
    }

    /// A run longer than the frames kept is fetched window by window: a far step is simulated on
    /// request and equals the simulator's own frame.
    void longRunsFetchWindows()
    {
        const ir::Operator op = ir::parseOperator(workloads::gemmLoopText(64, 64, 16), "gemm.loop");
        SimulationRequest r{QStringLiteral("gemm"), cost::fromOperator(op),
            {mdc::Directive::spatial(1, 1, "M"), mdc::Directive::temporal(1, 1, "N"),
                mdc::Directive::temporal(1, 1, "K")},
            classroomRequest().accelerator};
        AnimationPanel panel;
        QVERIFY(load(panel, r));
        QCOMPARE(panel.frameCount(), 64 * 64 * 16 / 4);
        const std::int64_t far = panel.frameCount() - 3;
        panel.seek(far);
        QVERIFY(!panel.shownFrame()); // not kept: being simulated
        QTRY_VERIFY_WITH_TIMEOUT(panel.shownFrame() != nullptr, 30000);
        QCOMPARE(panel.shownFrame()->index, far);
        sim::Simulator simulator(r.problem, r.dataflow, r.accelerator);
        const sim::Frame expected = simulator.frames(far, 1).front();
        for (std::size_t pe = 0; pe < 4; ++pe) {
            QCOMPARE(panel.shownFrame()->pes[pe].macs, expected.pes[pe].macs);
            QCOMPARE(panel.shownFrame()->pes[pe].tensors[0].ranges, expected.pes[pe].tensors[0].ranges);
        }
    }

    /// The classroom samples open on the animation of their mapping, before any search: the CONV1D (two
    /// levels, 4 steps), a CONV2D in nested clusters (K over 4 clusters of 2 PEs, X inside: three levels, 16
    /// steps) and a GEMM (one cluster of 8 PEs: N spread, M and K in time: two levels, 8 steps).
    void projectOpensOnTheAnimation_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<int>("levels");
        QTest::addColumn<int>("frames");
        QTest::newRow("conv1d") << kClassroom << 2 << 4;
        QTest::newRow("conv2d") << QStringLiteral(MARVEL_SAMPLES_DIR "/projects/conv2d_classroom.json") << 3
                                << 16;
        QTest::newRow("gemm") << QStringLiteral(MARVEL_SAMPLES_DIR "/projects/gemm_classroom.json") << 2 << 8;
    }
    void projectOpensOnTheAnimation()
    {
        QFETCH(QString, project);
        QFETCH(int, levels);
        QFETCH(int, frames);
        MainWindow w;
        QSignalSpy ready(w.animationPanel(), &AnimationPanel::ready);
        QVERIFY(w.openProject(project));
        QVERIFY(w.centreTabs()->currentWidget()->isAncestorOf(w.animationPanel()));
        QVERIFY(ready.wait(30000));
        QCOMPARE(int(w.animationPanel()->summary()->layout.levels.size()), levels);
        QCOMPARE(w.animationPanel()->frameCount(), frames);
        // Corrected fidelity walks each of them exactly as the simulation runs.
        QCOMPARE(w.animationPanel()->summary()->correctedCycles,
            w.animationPanel()->summary()->totals.runtimeCycles);
    }

    /// The fan-out of each input follows the cluster hierarchy (the CONV2D sample: 4 clusters of 2 PEs
    /// inside one cluster inside the array): over all 16 steps, every line runs along a frame's margin or
    /// the gap above a row of sub-units, so none enters a frame or a PE it does not end in, and each PE
    /// an input reached this step, and only those, gets a drop ending on its top edge. At step 3 both
    /// inputs reach all 8 PEs (the chips read "I -> 8 PEs", "W -> 8 PEs").
    void fanOutFollowsTheClusters()
    {
        MainWindow w;
        QSignalSpy ready(w.animationPanel(), &AnimationPanel::ready);
        QVERIFY(w.openProject(QStringLiteral(MARVEL_SAMPLES_DIR "/projects/conv2d_classroom.json")));
        QVERIFY(ready.wait(30000));
        AnimationPanel* panel = w.animationPanel();
        const PeArrayView* view = panel->arrayView();
        const std::int64_t pes = panel->summary()->layout.pes;
        QCOMPARE(pes, 8);
        std::vector<QRectF> boxes = view->clusterRects();
        QCOMPARE(boxes.size(), std::size_t(1 + 1 + 4));
        for (std::int64_t pe = 0; pe < pes; ++pe)
            boxes.push_back(view->peRect(pe));
        constexpr double eps = 1e-6;
        const auto inside = [&](const QRectF& b, QPointF q) {
            return q.x() >= b.left() - eps && q.x() <= b.right() + eps && q.y() >= b.top() - eps
                && q.y() <= b.bottom() + eps;
        };
        // Open intervals overlap: the segment passes through the box's interior.
        const auto overlaps = [](double a0, double a1, double b0, double b1) {
            return std::max(std::min(a0, a1), b0) < std::min(std::max(a0, a1), b1) - eps;
        };
        for (std::int64_t f = 0; f < panel->frameCount(); ++f) {
            panel->seek(f);
            const sim::Frame* frame = panel->shownFrame();
            QVERIFY(frame);
            for (int t = 0; t < 2; ++t) {
                const PeArrayView::FanOut tree = view->fanOut(t);
                std::vector<std::int64_t> receivers;
                for (std::int64_t pe = 0; pe < pes; ++pe)
                    if (frame->pes[std::size_t(pe)].tensors[std::size_t(t)].arrived > 0)
                        receivers.push_back(pe);
                if (f == 2) QCOMPARE(receivers.size(), std::size_t(8));
                QCOMPARE(tree.dots.size(), receivers.size());
                QCOMPARE(tree.lines.empty(), receivers.empty());
                for (std::int64_t pe : receivers) {
                    const QRectF r = view->peRect(pe);
                    QVERIFY(std::any_of(tree.dots.begin(), tree.dots.end(), [&](QPointF d) {
                        return qAbs(d.y() - r.top()) < eps && d.x() > r.left() && d.x() < r.right();
                    }));
                }
                for (const QLineF& l : tree.lines) {
                    const bool vertical = qAbs(l.x1() - l.x2()) < eps,
                               horizontal = qAbs(l.y1() - l.y2()) < eps;
                    QVERIFY(vertical || horizontal);
                    for (const QRectF& b : boxes) {
                        if (inside(b, l.p1()) && inside(b, l.p2())) continue;
                        const bool crosses = vertical ? l.x1() > b.left() && l.x1() < b.right()
                                && overlaps(l.y1(), l.y2(), b.top(), b.bottom())
                                                      : l.y1() > b.top() && l.y1() < b.bottom()
                                && overlaps(l.x1(), l.x2(), b.left(), b.right());
                        QVERIFY2(!crosses,
                            qPrintable(
                                QStringLiteral("step %1, tensor %2: line (%3,%4)-(%5,%6) crosses a frame")
                                    .arg(f + 1)
                                    .arg(t)
                                    .arg(l.x1())
                                    .arg(l.y1())
                                    .arg(l.x2())
                                    .arg(l.y2())));
                    }
                }
            }
        }
    }

    /// A teacher types directives: the same layer is simulated under them (one level, X over the 4 PEs,
    /// the 3 taps in time: 4 folds x 1 step = 4 steps, where the weights are kept between steps); a typo
    /// is located and the animation shown stays.
    void typedDirectivesAreSimulated()
    {
        AnimationPanel panel;
        QVERIFY(load(panel, classroomRequest()));
        QSignalSpy ready(&panel, &AnimationPanel::ready);
        QVERIFY(panel.applyDirectives(QStringLiteral("SpatialMap(1,1) X;\nTemporalMap(Sz(S),Sz(S)) S;")));
        QVERIFY(ready.wait(30000));
        QCOMPARE(panel.summary()->dataflow.size(), 2u);
        QCOMPARE(panel.summary()->layout.levels.size(), 1u);
        QCOMPARE(panel.frameCount(), 4);
        panel.seek(1);
        const sim::Frame* f = panel.shownFrame();
        QVERIFY(f);
        int w = -1;
        for (std::size_t t = 0; t < panel.summary()->layout.tensors.size(); ++t)
            if (panel.summary()->layout.tensors[t].name == "W") w = int(t);
        QVERIFY(w >= 0);
        QCOMPARE(f->pes[0].tensors[std::size_t(w)].stayed, 3); // the filter stays: weight-stationary
        QCOMPARE(f->pes[0].tensors[std::size_t(w)].arrived, 0);

        QVERIFY(!panel.applyDirectives(QStringLiteral("SpatialMap(1,1) X;\n  TempralMap(3,3) S;")));
        QVERIFY2(panel.editorMessage()->text().startsWith(
                     QStringLiteral("directives:2:3: unknown directive 'TempralMap'")),
            qPrintable(panel.editorMessage()->text()));
        QCOMPARE(panel.summary()->dataflow.size(), 2u); // still the last good one
        QVERIFY(!panel.applyDirectives(QStringLiteral("SpatialMap(1,1) X;\nTemporalMap(Sz(Q),1) S;")));
        QVERIFY(panel.editorMessage()->text().contains(QStringLiteral("Sz(Q)")));
        // Parses, but maps a dimension the layer does not have: the simulator says so, the animation stays.
        QVERIFY(panel.applyDirectives(QStringLiteral("SpatialMap(1,1) Q;")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.editorMessage()->text().isEmpty(), 30000);
        QVERIFY(panel.editorMessage()->text().contains(QStringLiteral("Q: dimension not found")));
        QCOMPARE(panel.summary()->dataflow.size(), 2u);
    }

    void invalidMappingIsExplained()
    {
        AnimationPanel panel;
        SimulationRequest r = classroomRequest();
        r.dataflow = {mdc::Directive::spatial(1, 1, "Q")}; // no such dimension
        panel.setMapping(r);
        QTRY_VERIFY_WITH_TIMEOUT(panel.statusLabel()->styleSheet().contains(QStringLiteral("c62828")), 30000);
        QVERIFY(!panel.isReady());
        QVERIFY(!panel.statusLabel()->text().isEmpty());
    }
};

QTEST_MAIN(TestAnimation)
#include "tst_animation.moc"
