#include "export_charts.h"

#include <QApplication>
#include <QCommandLineParser>
#include <iostream>

#include "analysis/run_analysis.h"
#include "analysis/sweep.h"
#include "charts/charts_panel.h"
#include "charts/dashboard_view.h"
#include "store/store.h"

int runExportCharts(int argc, char** argv) {
    // Charts render offscreen: no display is needed.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Render Warpscope charts for runs, headless"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("export-charts"), QStringLiteral("the command"));
    QCommandLineOption db(QStringLiteral("db"), QStringLiteral("Store file."),
                          QStringLiteral("FILE"));
    QCommandLineOption runs(QStringLiteral("runs"), QStringLiteral("Run ids, comma separated."),
                            QStringLiteral("A,B,..."));
    QCommandLineOption out(QStringLiteral("out"), QStringLiteral("Output folder."),
                           QStringLiteral("DIR"));
    QCommandLineOption format(QStringLiteral("format"), QStringLiteral("png, svg or pdf."),
                              QStringLiteral("FORMAT"), QStringLiteral("png"));
    QCommandLineOption width(QStringLiteral("width"), QStringLiteral("Pixels."),
                             QStringLiteral("W"), QStringLiteral("1600"));
    QCommandLineOption height(QStringLiteral("height"), QStringLiteral("Pixels."),
                              QStringLiteral("H"), QStringLiteral("900"));
    QCommandLineOption dashboard(QStringLiteral("dashboard"),
                                 QStringLiteral("Also write every chart on one page (PNG or PDF)."),
                                 QStringLiteral("FILE"));
    QCommandLineOption view(
        QStringLiteral("dashboard-view"),
        QStringLiteral("Also write the dashboard as the GUI shows it (latency, comparison, "
                       "roofline, occupancy under a header naming runs, GPU, dates and store) "
                       "at 1920x1080: PNG, SVG or PDF."),
        QStringLiteral("FILE"));
    parser.addOptions({db, runs, out, format, width, height, dashboard, view});
    if (!parser.parse(QApplication::arguments())) {
        std::cerr << "warpscope export-charts: " << parser.errorText().toStdString() << '\n';
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::cout << parser.helpText().toStdString();
        return 0;
    }
    if (!parser.isSet(runs) || !parser.isSet(out)) {
        std::cerr << "warpscope export-charts: --runs and --out are required\n";
        return 2;
    }
    QString fmt = parser.value(format).toLower();
    if (fmt != QLatin1String("png") && fmt != QLatin1String("svg") && fmt != QLatin1String("pdf")) {
        std::cerr << "warpscope export-charts: --format must be png, svg or pdf\n";
        return 2;
    }
    bool okW = false, okH = false;
    int w = parser.value(width).toInt(&okW), h = parser.value(height).toInt(&okH);
    if (!okW || !okH || w < 100 || h < 100 || w > 20000 || h > 20000) {
        std::cerr << "warpscope export-charts: --width and --height must be 100..20000\n";
        return 2;
    }
    try {
        ws::Store store(parser.isSet(db) ? parser.value(db).toStdString()
                                         : ws::Store::defaultPath());
        std::vector<ws::RunId> ids;
        for (const auto& id : parser.value(runs).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            auto run = id.trimmed().toLongLong(&ok);
            if (!ok) {
                std::cerr << "warpscope export-charts: '" << id.toStdString()
                          << "' is not a run id\n";
                return 2;
            }
            ids.push_back(run);
        }
        auto analyses = ws::analyzeRuns(store, ids);
        ws::ui::ChartsPanel panel;
        panel.resize(w, h);
        panel.setRuns(analyses);
        panel.setSweeps(ws::sweepTablesOf(store, ids));  // pareto.<format> for sweep points
        QString error;
        auto files = panel.exportAll(parser.value(out), fmt, w, h, &error);
        if (!error.isEmpty()) {
            std::cerr << "warpscope export-charts: " << error.toStdString() << '\n';
            return 1;
        }
        for (const auto& f : files)
            std::cout << f.toStdString() << '\n';
        if (parser.isSet(dashboard)) {
            QString problem = panel.exportDashboard(parser.value(dashboard));
            if (!problem.isEmpty()) {
                std::cerr << "warpscope export-charts: " << problem.toStdString() << '\n';
                return 1;
            }
            std::cout << parser.value(dashboard).toStdString() << '\n';
        }
        if (parser.isSet(view)) {
            ws::ui::DashboardView board;
            board.setStorePath(parser.isSet(db) ? parser.value(db)
                                                : QString::fromStdString(ws::Store::defaultPath()));
            board.setRuns(analyses);
            QString problem = board.exportTo(parser.value(view));
            if (!problem.isEmpty()) {
                std::cerr << "warpscope export-charts: " << problem.toStdString() << '\n';
                return 1;
            }
            std::cout << parser.value(view).toStdString() << '\n';
        }
    } catch (const std::exception& e) {
        std::cerr << "warpscope export-charts: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
