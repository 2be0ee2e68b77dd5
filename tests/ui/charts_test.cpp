// Charts on fixture runs, and export to PNG / SVG / PDF of the requested size.
#include <gtest/gtest.h>

#include <filesystem>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>

#include "charts/chart_style.h"
#include "charts/charts_panel.h"
#include "charts/comparison_chart.h"
#include "charts/export_size_dialog.h"
#include "charts/kernel_chart.h"
#include "charts/latency_chart.h"
#include "charts/occupancy_chart.h"
#include "charts/roofline_chart.h"
#include "charts/throughput_chart.h"
#include "charts/token_latency_chart.h"
#include "store/store.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"
#include "theme.h"
#include "viewmodels/kernel_table_model.h"
#include "viewmodels/table_export.h"

namespace ws::ui {
namespace {

std::vector<RunAnalysis> fixtureAnalyses() {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);
    Store store(path);
    return {analyzeRun(store, runs.decoderOk), analyzeRun(store, runs.kernelFailed)};
}

TEST(Charts, LatencyAndKernelChartsShowTheRuns) {
    ChartsPanel panel;
    panel.resize(1200, 500);
    auto runs = fixtureAnalyses();
    panel.setRuns(runs);
    // Only the decoder run has tokens.
    EXPECT_EQ(panel.latencyChart()->plottedSeries(), 1);
    EXPECT_EQ(panel.latencyChart()->cdfCurves(), 2);  // its TTFT and TPOT curves
    EXPECT_EQ(panel.latencyChart()->boxes(), 2);      // and a box for each
    auto names = panel.kernelChart()->kernelNames();
    EXPECT_EQ(names.size(), 5);
    EXPECT_TRUE(names.contains("gemm_bf16_wgmma_tma"));
    EXPECT_EQ(panel.kernelChart()->plottableCount(),
              6 + 2);                               // five kernels + "other", copies per run
    EXPECT_GT(panel.kernelChart()->copyBars(), 0);  // the fixture runs copy
    EXPECT_EQ(panel.tokenChart()->graphCount(), 1);
    EXPECT_EQ(panel.throughputChart()->points(), 1);  // the GEMM run has no requests
    // Both runs were recorded on the fixture H200: a bar per top kernel.
    EXPECT_GT(panel.occupancyChart()->bars(), 2);
    ASSERT_FALSE(runs[0].occupancy.empty());
    EXPECT_GT(runs[0].occupancy[0].occupancy.occupancy, 0.0);
    // What-if curves for the first run's top kernel, then for another kernel.
    auto* occupancy = panel.occupancyChart();
    ASSERT_NE(occupancy->selectedKernel(), nullptr);
    EXPECT_EQ(occupancy->selectedKernel()->name, runs[0].occupancy[0].name);
    int points = occupancy->curvePoints();
    EXPECT_GT(points, 30);  // three curves and the launch's dot on each
    ASSERT_GE(runs[0].occupancy.size(), 2u);
    EXPECT_TRUE(occupancy->selectKernel(0, 1));
    EXPECT_EQ(occupancy->selectedKernel()->name, runs[0].occupancy[1].name);
    EXPECT_FALSE(occupancy->selectKernel(5, 0));
    EXPECT_EQ(runs[0].latency.maxConcurrency, 2);
    // Fixture tokens are 0.16 ms apart: 4 gaps per request.
    auto itl = meanItlByTokenIndex(runs[0].latency);
    ASSERT_EQ(itl.size(), 4u);
    EXPECT_NEAR(itl[2], 0.16, 1e-9);
    auto* table = panel.kernelTable();
    EXPECT_EQ(table->rowCount(), 5);  // 4 decoder kernels + 1 GEMM
    QString csv = tableToCsv(*table);
    EXPECT_TRUE(csv.startsWith("run,time_percent,total_ns,instances,mean_ns"));
    EXPECT_TRUE(csv.contains("\"gemm_bf16_wgmma_tma<128, 256, 64>\""));
    auto json = QJsonDocument::fromJson(tableToJson(*table)).array();
    ASSERT_EQ(json.size(), 5);
    EXPECT_GT(json[0].toObject()["total_ns"].toDouble(), 0.0);  // numbers, not "1.2 ms"
    EXPECT_TRUE(json[0].toObject()["dram_gb_per_s"].isNull());  // no counters in the fixture
}

// Runs imported from a client that kept only each request's first and last
// token (GuideLLM) draw no line here, and the chart says why.
TEST(Charts, PerTokenLatencySaysWhyItIsEmpty) {
    TokenLatencyChart chart;
    chart.resize(900, 400);
    auto runs = fixtureAnalyses();
    chart.setRuns(runs);
    EXPECT_GT(chart.graphCount(), 0);
    EXPECT_TRUE(chart.note().contains("one line per run"));
    for (auto& r : runs) {
        for (auto& q : r.latency.requests)
            q.itlMs.clear();
        r.latency.requestsWithoutTokenTimes = static_cast<int>(r.latency.requests.size());
    }
    chart.setRuns(runs);
    EXPECT_EQ(chart.graphCount(), 0);
    EXPECT_TRUE(chart.note().contains("first and last token")) << chart.note().toStdString();
    chart.setRuns({});
    EXPECT_TRUE(chart.note().contains("None of the selected runs")) << chart.note().toStdString();
}

TEST(Charts, BoxAndCdfShareOneZoomableMillisecondAxis) {
    LatencyChart chart;
    chart.resize(1000, 600);
    chart.setRuns(fixtureAnalyses());
    for (int c = 0; c < 2; ++c) {
        EXPECT_EQ(chart.boxAxis(c)->range(), chart.cdfAxis(c)->range());
        // Zooming the distribution zooms the box plot above it, and back.
        chart.cdfAxis(c)->scaleRange(0.5, chart.cdfAxis(c)->range().center());
        EXPECT_EQ(chart.boxAxis(c)->range(), chart.cdfAxis(c)->range());
        chart.boxAxis(c)->moveRange(1.0);
        EXPECT_EQ(chart.cdfAxis(c)->range(), chart.boxAxis(c)->range());
    }
    // TTFT and TPOT stay independent quantities.
    EXPECT_NE(chart.boxAxis(0)->range(), chart.boxAxis(1)->range());
    EXPECT_TRUE(chart.interactions().testFlag(QCP::iRangeZoom));
}

TEST(Charts, ExportSizeIsChosenWithinLimits) {
    ExportSizeDialog dialog(QStringLiteral("Chart"));
    EXPECT_EQ(dialog.chosenSize(), QSize(1600, 900));
    dialog.setChosenSize(QSize(3840, 2160));
    EXPECT_EQ(dialog.chosenSize(), QSize(3840, 2160));
    // The preset list names a size that matches one.
    auto* presets = dialog.findChild<QComboBox*>();
    ASSERT_NE(presets, nullptr);
    EXPECT_EQ(presets->currentData().toSize(), QSize(3840, 2160));
    dialog.setChosenSize(QSize(10, 50000));  // clamped, never a 10-pixel or huge file
    EXPECT_EQ(dialog.chosenSize(), QSize(100, 20000));
}

TEST(Charts, FollowTheDarkTheme) {
    ChartsPanel panel;
    panel.resize(1000, 600);
    panel.setRuns(fixtureAnalyses());
    auto cornerLightness = [&] {
        return panel.rooflineChart()->toPixmap(400, 300).toImage().pixelColor(2, 2).lightness();
    };
    // Qt tells widgets of a new application palette only while the event loop
    // runs; here the test delivers that notice itself.
    auto switchTheme = [](bool dark) {
        applyTheme(dark);
        for (auto* widget : QApplication::allWidgets()) {
            QEvent changed(QEvent::ApplicationPaletteChange);
            QApplication::sendEvent(widget, &changed);
        }
    };
    EXPECT_GT(cornerLightness(), 200);
    switchTheme(true);
    EXPECT_TRUE(chartColors().dark);
    EXPECT_LT(cornerLightness(), 60);
    EXPECT_GT(panel.rooflineChart()->xAxis->labelColor().lightness(), 180);
    // The runs were redrawn, not dropped.
    EXPECT_EQ(panel.latencyChart()->plottedSeries(), 1);
    switchTheme(false);
    EXPECT_GT(cornerLightness(), 200);
    EXPECT_LT(panel.rooflineChart()->xAxis->labelColor().lightness(), 100);
}

TEST(Charts, RooflineDrawsCeilingsAndNamesPointsOnHover) {
    RunAnalysis a;
    a.run.id = 7;
    a.run.label = "gemm ladder";
    a.roofline.ceilings.dramGBs = 4000;
    a.roofline.ceilings.tensorTflops = 800;
    a.roofline.ceilings.fp32Tflops = 67;
    RooflinePoint slow{"gemm_bf16/naive", "declared", 2e9, 1e8, 400e3, 2, 0.8, {}, {}};
    RooflinePoint fast{"gemm_bf16/mma", "declared", 2e9, 1e8, 100e3, 2, 0.2, {}, {}};
    a.roofline.points = {slow, fast};
    RooflineChart chart;
    chart.resize(900, 600);
    chart.setViewport(QRect(0, 0, 900, 600));  // a hidden widget gets no resize event
    chart.setRuns({a});
    EXPECT_EQ(chart.points(), 2);
    EXPECT_EQ(chart.graphCount(), 4);  // roof, FP32 roof, two points
    QPointF at(chart.xAxis->coordToPixel(20), chart.yAxis->coordToPixel(20));  // mma: 20 TFLOP/s
    QString text = chart.describeAt(at);
    EXPECT_TRUE(text.contains("gemm_bf16/mma")) << text.toStdString();
    EXPECT_TRUE(text.contains("25% of the roof")) << text.toStdString();  // 20 of 80 at 20 FLOP/B
    EXPECT_TRUE(chart.describeAt(QPointF(1, 1)).isEmpty());
    // A click names the point so the timeline can find it.
    QSignalSpy clicked(&chart, &RooflineChart::pointClicked);
    EXPECT_TRUE(chart.clickAt(at));
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked[0][0].value<RunId>(), 7);
    EXPECT_EQ(clicked[0][1].toString(), "gemm_bf16/mma");
    EXPECT_FALSE(chart.clickAt(QPointF(1, 1)));
    EXPECT_EQ(clicked.count(), 1);
}

TEST(Charts, RooflineLabelsKeepOffTheRoofLines) {
    // Points just under the DRAM slope: a label to the right of each, as
    // placed first, would be struck through by the roof.
    RunAnalysis a;
    a.run.id = 3;
    a.roofline.ceilings.dramGBs = 4800;
    a.roofline.ceilings.tensorTflops = 989;
    a.roofline.ceilings.fp32Tflops = 67;
    for (double intensity : {0.9, 1.1, 1.7, 2.1, 6.8, 9.0}) {
        const double tflops = 0.7 * a.roofline.ceilings.attainableTflops(intensity);
        const double bytes = 1e8;  // meanNs from TFLOP/s: flops / (tflops * 1e3)
        a.roofline.points.push_back({"gemvSplitKVariant" + std::to_string(intensity),
                                     "counters",
                                     intensity * bytes,
                                     bytes,
                                     intensity * bytes / (tflops * 1e3),
                                     10,
                                     0.1,
                                     {},
                                     {}});
    }
    RooflineChart chart;
    chart.resize(1300, 260);
    chart.setViewport(QRect(0, 0, 1300, 260));
    chart.setRuns({a});
    chart.toPixmap(1300, 260);  // a render places the labels
    const auto rects = chart.labelRects();
    ASSERT_FALSE(rects.empty());
    const auto& c = a.roofline.ceilings;
    auto roofY = [&](double px) {  // the roof's pixel height over a pixel column
        const double x = chart.xAxis->pixelToCoord(px);
        return chart.yAxis->coordToPixel(std::min(c.attainableTflops(x), c.tensorTflops));
    };
    auto fp32Y = [&](double px) {
        const double x = chart.xAxis->pixelToCoord(px);
        return x >= c.fp32Tflops * 1e3 / c.dramGBs ? chart.yAxis->coordToPixel(c.fp32Tflops) : -1e9;
    };
    for (const auto& r : rects)
        for (double px = r.left(); px <= r.right(); px += 1) {
            for (double y : {roofY(px), fp32Y(px)})
                EXPECT_FALSE(y > r.top() && y < r.bottom())
                    << "a label at " << r.left() << "," << r.top() << " crosses a roof at x " << px;
        }
}

TEST(Charts, ComparisonModeShowsEachMetricAgainstTheFirstRun) {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto ids = testing::writeFixtureStore(path);
    Store store(path);
    // A run against itself: every metric is there, and none is faster or slower.
    auto runs = analyzeRuns(store, {ids.decoderOk, ids.decoderOk, ids.kernelFailed});
    ASSERT_TRUE(runs[1].againstFirst.has_value());
    EXPECT_FALSE(runs[0].againstFirst.has_value());
    for (const auto& m : runs[1].againstFirst->latency)
        EXPECT_NE(m.verdict, Verdict::Faster) << m.metric;
    ComparisonChart chart;
    chart.setRuns(runs);
    EXPECT_EQ(chart.bars(), 6);  // the GEMM run has no tokens to compare
    chart.setRuns({runs[0]});
    EXPECT_EQ(chart.bars(), 0);
}

TEST(Charts, RooflineByRangeToggleShowsARunsRangePoints) {
    // Sample run 18: the decoder with hardware counters, per-operation ranges.
    testing::TempDir dir;
    auto db = dir.file("samples.wsdb");
    std::filesystem::copy_file(WARPSCOPE_SOURCE_DIR "/resources/samples/h200-captures.wsdb", db);
    Store store(db);
    auto analysis = analyzeRun(store, 18);
    ASSERT_GE(analysis.rangeRoofline.points.size(), 3u);
    ChartsPanel panel;
    panel.resize(1200, 400);
    panel.show();
    panel.setRuns({analysis});
    auto* chart = panel.findChild<RooflineChart*>();
    auto* toggle = panel.findChild<QCheckBox*>();
    ASSERT_TRUE(chart && toggle);
    EXPECT_FALSE(toggle->isVisible());  // only on the Roofline tab
    panel.setCurrentWidget(chart);
    EXPECT_TRUE(toggle->isVisible());
    const int perKernel = chart->points();
    toggle->setChecked(true);
    EXPECT_EQ(chart->points(), int(analysis.rangeRoofline.points.size()));
    EXPECT_NE(chart->points(), perKernel);
    toggle->setChecked(false);
    EXPECT_EQ(chart->points(), perKernel);
    // A run without counters has no range points: no toggle.
    panel.setRuns(fixtureAnalyses());
    EXPECT_FALSE(toggle->isVisible());
}

TEST(Charts, DashboardIsOneFileWithEveryChart) {
    ChartsPanel panel;
    panel.setRuns(fixtureAnalyses());
    testing::TempDir dir;
    QString png = QString::fromStdString(dir.file("dashboard.png"));
    ASSERT_TRUE(panel.exportDashboard(png, 400, 300).isEmpty());
    QImage image(png);
    EXPECT_EQ(image.size(), QSize(800, 1200));  // seven charts, two per row
    QString pdf = QString::fromStdString(dir.file("dashboard.pdf"));
    ASSERT_TRUE(panel.exportDashboard(pdf).isEmpty());
    QFile f(pdf);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_TRUE(f.read(4) == "%PDF");
    EXPECT_FALSE(panel.exportDashboard(QString::fromStdString(dir.file("d.gif"))).isEmpty());
}

TEST(Charts, ExportWritesValidFilesOfTheRequestedSize) {
    ChartsPanel panel;
    panel.setRuns(fixtureAnalyses());
    testing::TempDir dir;
    QString out = QString::fromStdString(dir.path().string());
    QString error;
    auto png = panel.exportAll(out, "png", 1000, 600, &error);
    ASSERT_EQ(png.size(), 7) << error.toStdString();
    QImage image(png[0]);
    EXPECT_EQ(image.size(), QSize(1000, 600));
    auto svg = panel.exportAll(out, "svg", 800, 500, &error);
    ASSERT_EQ(svg.size(), 7) << error.toStdString();
    auto svgText = testing::readFile(svg[1].toStdString());
    EXPECT_NE(svgText.find("<svg"), std::string::npos);
    EXPECT_NE(svgText.find("width=\"800\""), std::string::npos) << svgText.substr(0, 400);
    auto pdf = panel.exportAll(out, "pdf", 800, 500, &error);
    ASSERT_EQ(pdf.size(), 7) << error.toStdString();
    EXPECT_EQ(testing::readFile(pdf[0].toStdString()).substr(0, 5), "%PDF-");
    EXPECT_TRUE(panel.exportAll(out, "bmp", 800, 500, &error).isEmpty());
    EXPECT_TRUE(error.contains("unknown format"));
}

}  // namespace
}  // namespace ws::ui
