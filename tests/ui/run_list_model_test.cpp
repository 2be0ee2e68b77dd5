#include <gtest/gtest.h>

#include <QAbstractItemModelTester>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "store/run_queries.h"
#include "store/store.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"
#include "viewmodels/run_list_model.h"
#include "viewmodels/table_export.h"

namespace ws::ui {
namespace {

std::vector<RunInfo> fixtureRuns() {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    testing::writeFixtureStore(path);
    Store store(path);
    return listRuns(store);
}

TEST(RunListModel, PassesModelTesterWhileResetAndShowsColumns) {
    RunListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setRuns(fixtureRuns());
    ASSERT_EQ(model.rowCount(), 4);
    EXPECT_EQ(model.columnCount(), RunListModel::ColumnCount);
    auto at = [&](int row, int col) { return model.index(row, col).data().toString(); };
    EXPECT_EQ(at(0, RunListModel::Status), "ok");
    EXPECT_EQ(at(0, RunListModel::Label), "llama-3.2-1b optimized");
    EXPECT_EQ(at(0, RunListModel::Workload), "llama-3.2-1b-bf16");
    EXPECT_EQ(at(0, RunListModel::Device), "NVIDIA H200");
    EXPECT_EQ(at(0, RunListModel::Duration), "2.50 s");
    EXPECT_EQ(at(3, RunListModel::Duration), QStringLiteral("—"));
    EXPECT_EQ(at(1, RunListModel::Status), "failed");
    EXPECT_EQ(model.index(1, RunListModel::Status).data(Qt::ToolTipRole).toString(), "exit code 3");
    EXPECT_EQ(model.index(2, RunListModel::Status).data(Qt::ToolTipRole).toString(), "signal 9");
    EXPECT_EQ(model.index(0, 0).data(RunListModel::RunIdRole).toLongLong(), 1);
    EXPECT_EQ(model.index(0, RunListModel::Duration).data(RunListModel::SortRole).toLongLong(),
              2'500'000'000LL);
    EXPECT_EQ(model.rowOfRun(3), 2);
    model.setRuns({});
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(TableExport, RunsTableAsCsvAndJsonWithUnformattedValues) {
    RunListModel model;
    model.setRuns(fixtureRuns());
    QString csv = tableToCsv(model);
    auto lines = csv.split('\n', Qt::SkipEmptyParts);
    ASSERT_EQ(lines.size(), 5);  // header + 4 runs
    EXPECT_EQ(lines[0], "id,status,label,workload,device,started_at_ns,duration_ns,tags");
    EXPECT_TRUE(lines[1].startsWith("1,ok,llama-3.2-1b optimized,llama-3.2-1b-bf16,NVIDIA H200,"));
    // Tags as stored (comma-separated, quoted by CSV), not as shown ("a, b").
    EXPECT_TRUE(lines[1].endsWith(",2500000000,\"baseline,bf16\"")) << lines[1].toStdString();
    auto json = QJsonDocument::fromJson(tableToJson(model)).array();
    ASSERT_EQ(json.size(), 4);
    EXPECT_EQ(json[1].toObject()["status"].toString(), "failed");
    EXPECT_EQ(json[0].toObject()["duration_ns"].toDouble(), 2.5e9);

    testing::TempDir dir;
    EXPECT_TRUE(exportTable(model, QString::fromStdString(dir.file("runs.json"))).isEmpty());
    EXPECT_NE(exportTable(model, QString::fromStdString(dir.file("runs.xlsx"))), QString());
}

}  // namespace
}  // namespace ws::ui
