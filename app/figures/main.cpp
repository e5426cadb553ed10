// `marvel-figures`: draws one grouped bar chart of `marvel reproduce` off-screen as NAME.png and NAME.pdf,
// with the app's own chart code (ui/plot/comparison_chart), so that `marvel` itself needs no Qt.
//   marvel-figures --out DIR --name NAME [--title T] [--y-label L] [--log] DATA.csv
// DATA.csv: "group,SERIES1,SERIES2,..." then one line per group (an empty field: no bar).
//   marvel-figures --svg-to-png ICON.svg SIZE OUT.png
// renders the app's SVG icon as a SIZE x SIZE PNG (the build's icon set, with no other tool needed).
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include "core/util/csv.h"
#include "core/util/diagnostic.h"
#include "core/util/text_file.h"
#include "ui/plot/comparison_chart.h"

namespace {
/// Drops Qt's note that XDG_RUNTIME_DIR is unset (always so under `marvel reproduce` in a container);
/// everything else goes to stderr as usual.
void quietHandler(QtMsgType, const QMessageLogContext&, const QString& message)
{
    if (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR"))) return;
    std::cerr << message.toStdString() << '\n';
}

int svgToPng(int argc, char** argv)
{
    const int size = argc == 5 ? std::atoi(argv[3]) : 0;
    if (size <= 0 || size > 4096) {
        std::cerr << "usage: marvel-figures --svg-to-png ICON.svg SIZE OUT.png\n";
        return 2;
    }
    QApplication app(argc, argv);
    QSvgRenderer svg(QString::fromLocal8Bit(argv[2]));
    if (!svg.isValid()) {
        std::cerr << "marvel-figures: cannot read the SVG " << argv[2] << '\n';
        return 2;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    svg.render(&painter, QRectF(0, 0, size, size));
    painter.end();
    if (!image.save(QString::fromLocal8Bit(argv[4]), "PNG")) {
        std::cerr << "marvel-figures: cannot write " << argv[4] << '\n';
        return 2;
    }
    return 0;
}
} // namespace

int main(int argc, char** argv)
{
    // Off-screen unless the caller chose a platform: the renderer runs from a terminal or CI.
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    if (argc >= 2 && std::string(argv[1]) == "--svg-to-png") {
        qInstallMessageHandler(quietHandler);
        return svgToPng(argc, argv);
    }
    std::string out = ".", name, title, yLabel, csvPath;
    bool logScale = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "marvel-figures: " << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--out")
            out = next();
        else if (a == "--name")
            name = next();
        else if (a == "--title")
            title = next();
        else if (a == "--y-label")
            yLabel = next();
        else if (a == "--log")
            logScale = true;
        else if (!a.empty() && a[0] != '-' && csvPath.empty())
            csvPath = a;
        else {
            std::cerr << "marvel-figures: unexpected argument '" << a
                      << "'\nusage: marvel-figures --out DIR --name NAME [--title T] [--y-label L] [--log] "
                         "DATA.csv\n";
            return 2;
        }
    }
    if (name.empty() || csvPath.empty()) {
        std::cerr
            << "usage: marvel-figures --out DIR --name NAME [--title T] [--y-label L] [--log] DATA.csv\n";
        return 2;
    }
    std::string text;
    try {
        text = marvel::readTextFile(csvPath);
    } catch (const marvel::InputError& e) {
        std::cerr << "marvel-figures: " << marvel::formatDiagnostics(e.diagnostics());
        return 2;
    }
    QStringList groups, series;
    std::vector<std::vector<double>> values;
    std::istringstream lines(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(lines, line)) {
        ++lineNo;
        if (line.empty()) continue;
        auto fields = marvel::splitCsvRecord(line);
        if (!fields || fields->size() < 2) {
            std::cerr << "marvel-figures: " << csvPath << ":" << lineNo
                      << ":1: expected group,value,... fields\n";
            return 2;
        }
        if (lineNo == 1) {
            for (std::size_t i = 1; i < fields->size(); ++i)
                series << QString::fromStdString((*fields)[i]);
            values.resize(series.size());
            continue;
        }
        if (fields->size() != static_cast<std::size_t>(series.size()) + 1) {
            std::cerr << "marvel-figures: " << csvPath << ":" << lineNo << ":1: expected "
                      << series.size() + 1 << " fields\n";
            return 2;
        }
        groups << QString::fromStdString((*fields)[0]);
        for (int s = 0; s < series.size(); ++s) {
            const std::string& f = (*fields)[static_cast<std::size_t>(s) + 1];
            char* end = nullptr;
            const double v = f.empty() ? std::nan("") : std::strtod(f.c_str(), &end);
            if (!f.empty() && (end == f.c_str() || *end != '\0')) {
                std::cerr << "marvel-figures: " << csvPath << ":" << lineNo << ": '" << f
                          << "' is not a number\n";
                return 2;
            }
            values[static_cast<std::size_t>(s)].push_back(v);
        }
    }
    qInstallMessageHandler(quietHandler);
    QApplication app(argc, argv);
    marvel::ui::ComparisonChart chart;
    const int width = std::max(700, 70 * static_cast<int>(groups.size()) + 200);
    chart.resize(width, 420);
    chart.setData(
        QString::fromStdString(title), QString::fromStdString(yLabel), logScale, groups, series, values);
    const QString base = QString::fromStdString(out) + "/" + QString::fromStdString(name);
    if (!chart.savePng(base + ".png", width, 420) || !chart.savePdf(base + ".pdf", width, 420)) {
        std::cerr << "marvel-figures: cannot write " << base.toStdString() << ".png/.pdf\n";
        return 2;
    }
    return 0;
}
