// The Collectives tab: shown for a run whose GPU work comes from two ranks,
// a point per matched collective coloured by the rank that came last.
#include <gtest/gtest.h>

#include <QSignalSpy>

#include "charts/charts_panel.h"
#include "charts/collectives_chart.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/distributed_run.h"
#include "support/temp_dir.h"
#include "viewmodels/store_loader.h"

namespace ws::ui {
namespace {

// Rank 1 (pid 901) comes 200 µs late to 30 of 40 all-reduces, rank 0 to 10.
RunId writeTwoRanks(Store& store) {
    testing::TwoRankRun shape;
    shape.collectives = 40;
    shape.lateNs = 200'000;
    shape.latePid = [](int i) { return i % 4 != 0 ? 901u : 900u; };
    return testing::writeTwoRankRun(store, shape);
}

TEST(CollectivesChart, ADistributedRunGetsItsTabAndAPointPerCollective) {
    testing::TempDir dir;
    const std::string path = dir.file("runs.wsdb");
    RunId run = 0, single = 0;
    {
        Store store(path);
        run = writeTwoRanks(store);
        single = store.beginRun({});
        StoreWriter w(store, single);
        KernelRecord k;
        k.startNs = 5;
        k.endNs = 10;
        k.name = "gemm";
        w.add(k);
    }
    StoreLoader loader;
    QSignalSpy loaded(&loader, &StoreLoader::collectivesLoaded);
    loader.loadCollectives(QString::fromStdString(path), run);
    ASSERT_TRUE(loaded.wait(10'000));
    auto report = loaded.last().at(1).value<std::shared_ptr<const CollectiveReport>>();
    ASSERT_TRUE(report);
    EXPECT_EQ(report->instances.size(), 40u);

    ChartsPanel panel;
    panel.resize(1200, 500);
    EXPECT_FALSE(panel.collectivesShown());
    panel.setCollectives(run, report, loaded.last().at(2).value<qint64>());
    EXPECT_TRUE(panel.collectivesShown());
    auto* chart = panel.collectivesChart();
    EXPECT_EQ(chart->plottedPoints(), 40);
    EXPECT_EQ(chart->graphCount(), 2);            // both ranks came last sometimes
    EXPECT_EQ(chart->graph(1)->dataCount(), 30);  // rank 1, 30 times
    EXPECT_DOUBLE_EQ(chart->graph(1)->data()->at(0)->value, 200.0);  // µs
    (void)chart->grab();

    // One process: nothing is read, the tab goes.
    loader.loadCollectives(QString::fromStdString(path), single);
    ASSERT_TRUE(loaded.wait(10'000));
    EXPECT_FALSE(loaded.last().at(1).value<std::shared_ptr<const CollectiveReport>>());
    panel.setCollectives(single, nullptr, 0);
    EXPECT_FALSE(panel.collectivesShown());
}

}  // namespace
}  // namespace ws::ui
