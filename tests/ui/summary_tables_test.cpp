// The Tables tab: nsys stats' NVTX, CUDA API and memory-copy summaries beside
// the kernel table, and the per-kernel diff of a run against the baseline.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTableView>

#include "analysis/run_analysis.h"
#include "charts/summary_tables_page.h"
#include "store/store.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"
#include "viewmodels/summary_tables.h"
#include "viewmodels/table_export.h"

namespace ws::ui {
namespace {

class SummaryTablesTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto path = dir.file("runs.wsdb");
        ids = testing::writeFixtureStore(path);
        Store store(path);
        runs = analyzeRuns(store, {ids.decoderOk, ids.kernelFailed}, {}, parseWindowChoice("run"));
    }
    QString cell(const SummaryTablesPage& page, int row, const QString& key) {
        const auto& model = page.shownModel();
        for (int c = 0; c < model.columnCount(); ++c)
            if (model.headerData(c, Qt::Horizontal, ExportKeyRole).toString() == key)
                return model.index(row, c).data().toString();
        return QStringLiteral("<no column %1>").arg(key);
    }
    testing::TempDir dir;
    testing::FixtureRuns ids;
    std::vector<RunAnalysis> runs;
};

TEST_F(SummaryTablesTest, RangesApiAndCopiesAsNsysStatsListsThem) {
    SummaryTablesPage page;
    page.resize(1200, 400);
    page.setRuns(runs);
    EXPECT_EQ(page.shownTable(), SummaryTablesPage::Table::Kernels);
    EXPECT_TRUE(page.caption().startsWith("Kernels over — run 1: whole run"))
        << page.caption().toStdString();

    page.showTable(SummaryTablesPage::Table::Ranges);
    ASSERT_GE(page.shownModel().rowCount(), 2);
    // Largest total first: four decode steps (640 µs) before one prefill (200 µs).
    EXPECT_EQ(cell(page, 0, "name"), "decode_step");
    EXPECT_EQ(cell(page, 0, "count"), "4");
    EXPECT_EQ(cell(page, 0, "total_ns"), "640 µs");
    EXPECT_EQ(cell(page, 0, "gpu_busy_percent"), "92 %");
    EXPECT_EQ(cell(page, 1, "name"), "prefill");

    page.showTable(SummaryTablesPage::Table::Api);
    ASSERT_GE(page.shownModel().rowCount(), 1);
    EXPECT_EQ(cell(page, 0, "name"), "cudaLaunchKernel");
    EXPECT_EQ(cell(page, 0, "count"), "4");
    EXPECT_EQ(cell(page, 0, "errors"), "0");

    page.showTable(SummaryTablesPage::Table::Memcpys);
    ASSERT_GE(page.shownModel().rowCount(), 2);
    EXPECT_EQ(cell(page, 0, "total_bytes"), "48.0 MiB");
    // Exported as numbers in base units, keyed as the CLI's JSON.
    auto json = QJsonDocument::fromJson(tableToJson(page.shownModel())).array();
    ASSERT_GE(json.size(), 2);
    EXPECT_EQ(json[0].toObject()["total_bytes"].toDouble(), 48.0 * 1024 * 1024);
    EXPECT_EQ(json[0].toObject()["total_ns"].toDouble(), 120000.0);
}

TEST_F(SummaryTablesTest, KernelDiffListsEachKernelOfTheLaterRunAgainstTheFirst) {
    SummaryTablesPage page;
    page.resize(1400, 400);
    page.setRuns({runs[0]});
    page.showTable(SummaryTablesPage::Table::KernelDiff);
    EXPECT_EQ(page.shownModel().rowCount(), 0);
    EXPECT_TRUE(page.caption().startsWith("Select two or more runs"));

    page.setRuns(runs);  // run 2 against run 1: no kernel in common
    ASSERT_TRUE(runs[1].againstFirst.has_value());
    const auto& deltas = runs[1].againstFirst->kernels;
    ASSERT_EQ(page.shownModel().rowCount(), static_cast<int>(deltas.size()));
    EXPECT_TRUE(page.caption().startsWith("Against run 1")) << page.caption().toStdString();
    int gone = 0, added = 0;
    for (int row = 0; row < page.shownModel().rowCount(); ++row) {
        QString verdict = cell(page, row, "total_verdict");
        gone += verdict == "gone";
        added += verdict == "new";
        EXPECT_EQ(cell(page, row, "base_run"), "1");
        EXPECT_EQ(cell(page, row, "run"), "2");
    }
    EXPECT_EQ(gone, 4);   // the decoder's kernels
    EXPECT_EQ(added, 1);  // the GEMM
}

TEST(SummaryTables, ChangeCellsCarryTheSignAndTheShareOfTheBaseline) {
    RunAnalysis base, candidate;
    base.run.id = 1;
    candidate.run.id = 2;
    Comparison c;
    c.base = 1;
    KernelDelta k;
    k.name = "gemv";
    k.baseLaunches = k.candidateLaunches = 10;
    k.baseTotalNs = 2'000'000;
    k.candidateTotalNs = 1'500'000;
    k.baseMeanNs = 200'000;
    k.candidateMeanNs = 150'000;
    k.totalCiLow = -600'000;
    k.totalCiHigh = -400'000;
    k.totalVerdict = Verdict::Faster;
    k.perLaunchVerdict = Verdict::Faster;
    c.kernels.push_back(k);
    candidate.againstFirst = c;
    auto table = kernelDiffTable({base, candidate});
    ASSERT_EQ(table.rows.size(), 1u);
    const auto& row = table.rows[0];
    EXPECT_EQ(row[7].shown.toString(), QStringLiteral("−500 µs (−25.0 %)"));
    EXPECT_EQ(row[7].value.toDouble(), -500'000.0);
    EXPECT_TRUE(row[7].tip.contains("-600.00 µs to -400.00 µs")) << row[7].tip.toStdString();
    EXPECT_EQ(row[8].value.toString(), "faster");
}

}  // namespace
}  // namespace ws::ui
