// warpscope: the workbench GUI.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTableView>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/analysis_window.h"
#include "charts/charts_panel.h"
#include "charts/summary_tables_page.h"
#include "export_charts.h"
#include "main_window.h"
#include "report_command.h"
#include "serving/itl_outliers_panel.h"
#include "store/store.h"
#include "theme.h"
#include "timeline/timeline_view.h"
#include "util/version.h"

namespace {

// --help and --version answer without a display (on a GPU server over ssh).
bool asksOnlyForHelpOrVersion(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string_view a(argv[i]);
        if (a == "--help" || a == "-h" || a == "--help-all" || a == "--version" || a == "-v")
            return true;
    }
    return false;
}

void nameApplication() {
    QCoreApplication::setApplicationName(QStringLiteral("Warpscope"));
    QCoreApplication::setOrganizationName(QStringLiteral("Warpscope"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(ws::kWarpscopeVersion));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "export-charts")
        return runExportCharts(argc, argv);
    if (argc > 1 && std::string_view(argv[1]) == "report") return runReportCommand(argc, argv);
    std::unique_ptr<QCoreApplication> app;
    if (asksOnlyForHelpOrVersion(argc, argv))
        app = std::make_unique<QCoreApplication>(argc, argv);
    else
        app = std::make_unique<QApplication>(argc, argv);
    nameApplication();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "GPU inference optimization workbench.\n\nHeadless, without a display:\n"
        "  warpscope export-charts --db FILE --runs 1,2 --out DIR --format png|svg|pdf\n"
        "  warpscope report RUN [--baseline RUN] -o report.html|report.pdf|report.md\n"
        "Recording, statistics and comparisons: warpscope-cli --help"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption db(QStringLiteral("db"), QStringLiteral("Open this store."),
                          QStringLiteral("FILE"));
    QCommandLineOption select(QStringLiteral("select"),
                              QStringLiteral("Select these runs (comma separated); the first is "
                                             "shown in detail, the charts compare them all."),
                              QStringLiteral("RUNS"));
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window once loaded, then quit."), QStringLiteral("PNG"));
    QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark theme."));
    QCommandLineOption find(QStringLiteral("find"),
                            QStringLiteral("Find this kernel name in the timeline and select "
                                           "its first instance."),
                            QStringLiteral("NAME"));
    QCommandLineOption chart(QStringLiteral("chart"),
                             QStringLiteral("Show this chart tab (its title, e.g. Roofline)."),
                             QStringLiteral("TAB"));
    QCommandLineOption stack(QStringLiteral("stack"),
                             QStringLiteral("Stack the first two selected runs' timelines, "
                                            "aligned at the first range containing RANGE."),
                             QStringLiteral("RANGE"));
    QCommandLineOption dashboard(
        QStringLiteral("dashboard"),
        QStringLiteral("Start on the dashboard (latency, comparison, roofline and occupancy of "
                       "the selected runs side by side) instead of the timeline."));
    QCommandLineOption outlier(
        QStringLiteral("outlier"),
        QStringLiteral("Show the selected run's Nth slowest inter-token latency on the timeline, "
                       "with the ITL outliers panel in front (a run of bench serve --server)."),
        QStringLiteral("N"));
    QCommandLineOption whatIf(
        QStringLiteral("whatif"),
        QStringLiteral("Show the What-if panel in front, with what the selected run's next "
                       "optimization would buy."));
    QCommandLineOption launch(
        QStringLiteral("launch"),
        QStringLiteral("Show the Launch panel in front, to record a workload."));
    QCommandLineOption table(
        QStringLiteral("table"),
        QStringLiteral(
            "Show the Tables tab with this table: kernels, ranges, api, copies or diff."),
        QStringLiteral("TABLE"));
    QCommandLineOption windowOption(
        QStringLiteral("window"),
        QStringLiteral("The part of each run the tables and kernel charts cover: requests, run, "
                       "range:NAME, or FROM:TO (e.g. 1.2s:1.5s), which is also selected on the "
                       "timeline."),
        QStringLiteral("WINDOW"));
    parser.addOptions({db, select, screenshot, find, dark, chart, stack, dashboard, outlier, whatIf,
                       launch, table, windowOption});
    parser.process(*app);        // --help and --version print and exit here
    Q_INIT_RESOURCE(warpscope);  // lives in the static warpscope_ui library
    // A mistyped --db is refused, as warpscope-cli does, instead of creating
    // an empty store (and its folders) at the typo.
    if (parser.isSet(db) && !QFileInfo::exists(parser.value(db))) {
        std::fprintf(stderr, "warpscope: %s: no such store\n", qPrintable(parser.value(db)));
        return 1;
    }
    ws::ui::applyTheme(parser.isSet(dark) ||
                       QSettings().value(QStringLiteral("view/dark")).toBool());

    std::optional<ws::WindowChoice> startWindow;
    if (parser.isSet(windowOption)) {
        try {
            startWindow = ws::parseWindowChoice(parser.value(windowOption).toStdString());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "warpscope: --window: %s\n", e.what());
            return 1;
        }
    }
    const std::map<QString, ws::ui::SummaryTablesPage::Table> tables = {
        {QStringLiteral("kernels"), ws::ui::SummaryTablesPage::Table::Kernels},
        {QStringLiteral("ranges"), ws::ui::SummaryTablesPage::Table::Ranges},
        {QStringLiteral("api"), ws::ui::SummaryTablesPage::Table::Api},
        {QStringLiteral("copies"), ws::ui::SummaryTablesPage::Table::Memcpys},
        {QStringLiteral("diff"), ws::ui::SummaryTablesPage::Table::KernelDiff}};
    if (parser.isSet(table) && !tables.count(parser.value(table))) {
        std::fprintf(stderr,
                     "warpscope: --table: '%s' is none of kernels, ranges, api, copies, diff\n",
                     qPrintable(parser.value(table)));
        return 1;
    }
    // A FROM:TO window is selected on the timeline once it is shown; the
    // screenshot waits for the charts of that window.
    const bool spanWindow = startWindow && startWindow->kind == ws::WindowChoice::Kind::Span;

    ws::ui::MainWindow window;
    if (startWindow && !spanWindow) window.charts()->setWindow(*startWindow);
    if (parser.isSet(table)) {
        window.charts()->tables()->showTable(tables.at(parser.value(table)));
        window.charts()->setCurrentWidget(window.charts()->tables());
    }
    if (spanWindow) {
        // Once, on the first timeline shown: not again on every run the user
        // goes to afterwards.
        auto once = std::make_shared<QMetaObject::Connection>();
        *once = QObject::connect(&window, &ws::ui::MainWindow::timelineShown, &window,
                                 [&window, span = *startWindow, once] {
                                     QObject::disconnect(*once);
                                     const auto* data = window.timeline()->data();
                                     if (data && !window.timeline()->selectedRange())
                                         window.timeline()->selectRange(
                                             data->firstRecordNs + span.fromNs,
                                             data->firstRecordNs + span.toNs);
                                 });
    }
    QString path =
        parser.isSet(db) ? parser.value(db) : QString::fromStdString(ws::Store::defaultPath());
    if (parser.isSet(select)) {
        std::vector<ws::RunId> ids;
        for (const auto& id : parser.value(select).split(QLatin1Char(','), Qt::SkipEmptyParts))
            ids.push_back(id.toLongLong());
        window.selectRuns(ids);
    }
    if (parser.isSet(screenshot)) {
        QString png = parser.value(screenshot);
        auto grab = [&window, png, spanWindow](bool failed) {
            if (!failed && spanWindow && !window.timeline()->selectedRange()) return;
            QTimer::singleShot(300, &window, [&window, png] {
                window.grab().save(png);
                QApplication::quit();
            });
        };
        // The timeline and the charts load in parallel; the charts come last,
        // unless an outlier is to be shown, which waits for the run's details.
        if (parser.isSet(outlier))
            QObject::connect(&window, &ws::ui::MainWindow::intervalShown, &window,
                             [grab] { grab(false); });
        else if (parser.isSet(whatIf))
            QObject::connect(&window, &ws::ui::MainWindow::whatIfShown, &window,
                             [grab] { grab(false); });
        else
            QObject::connect(&window, &ws::ui::MainWindow::chartsShown, &window,
                             [grab] { grab(false); });
        // A failed load is shown as it is, range or not.
        QObject::connect(&window, &ws::ui::MainWindow::loadFailed, &window, [grab] { grab(true); });
        // So is a store without runs: no charts will follow.
        QObject::connect(&window, &ws::ui::MainWindow::storeLoaded, &window, [&window, grab] {
            if (window.runView()->model()->rowCount() == 0) grab(true);
        });
    }
    if (parser.isSet(find)) {
        QString name = parser.value(find);
        // Through the toolbar, as a user searches: a paged run's search then
        // covers the whole run in Find Results too.
        auto once = std::make_shared<QMetaObject::Connection>();
        *once = QObject::connect(&window, &ws::ui::MainWindow::timelineShown, &window,
                                 [&window, name, once] {
                                     QObject::disconnect(*once);
                                     window.findInTimeline(window.timeline()->data()->run, name);
                                 });
    }
    if (parser.isSet(stack)) window.setStackedTimeline(true, parser.value(stack));
    if (parser.isSet(chart)) {
        QString wanted = parser.value(chart);
        auto pick = [&window, wanted] {
            auto* tabs = window.charts();
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->tabText(i).compare(wanted, Qt::CaseInsensitive) == 0 &&
                    tabs->isTabVisible(i))
                    tabs->setCurrentIndex(i);
        };
        pick();
        // The sweep tab is shown only once the selected runs' sweeps are read.
        QObject::connect(&window, &ws::ui::MainWindow::sweepsShown, &window, pick);
        QObject::connect(&window, &ws::ui::MainWindow::collectivesShown, &window, pick);
    }
    if (parser.isSet(dashboard)) window.setDashboardShown(true);
    if (parser.isSet(outlier)) {
        int row = parser.value(outlier).toInt() - 1;
        QObject::connect(&window, &ws::ui::MainWindow::detailsShown, &window, [&window, row] {
            window.showOutliersPanel();
            window.outliers()->activateRow(std::max(row, 0));
        });
    }
    if (parser.isSet(whatIf)) window.showWhatIfPanel();
    if (parser.isSet(launch)) window.showLaunchPanel();
    window.show();
    window.openStore(QDir::cleanPath(path));
    return app->exec();
}
