// The What-if dock on the shipped H200 runs: selecting the eager 1B decode
// ranks its options (no launch gaps first: the step waits on the host), and a
// change typed into the panel is predicted by the same replay as `whatif`.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <filesystem>

#include "advisor/whatif_panel.h"
#include "main_window.h"
#include "support/temp_dir.h"
#include "viewmodels/store_loader.h"

namespace ws::ui {
namespace {

constexpr RunId kEagerDecode = 6;  // llama-3.2-1b-optimized, launched kernel by kernel

class WhatIfWindow : public ::testing::Test {
  protected:
    void SetUp() override {
        db = dir.file("samples.wsdb");
        std::filesystem::copy_file(
            std::filesystem::path(WARPSCOPE_SOURCE_DIR) / "resources/samples/h200-captures.wsdb",
            db);
        window.resize(1366, 768);
        QSignalSpy loaded(&window, &MainWindow::storeLoaded);
        window.openStore(QString::fromStdString(db));
        ASSERT_TRUE(loaded.count() > 0 || loaded.wait(20000));
    }
    // Waits for an answer (a ranking or a prediction) about `run`: one about
    // a run selected before (the store's first) may come first.
    static bool answered(QSignalSpy& spy, RunId run) {
        for (int seen = 0;; ++seen) {
            while (spy.count() <= seen)
                if (!spy.wait(60000)) return false;
            if (spy.at(seen).at(0).value<WhatIfAnswer>().run == run) return true;
        }
    }
    testing::TempDir dir;
    std::string db;
    MainWindow window;
};

TEST_F(WhatIfWindow, RanksTheOptionsOfTheSelectedRunAndPredictsATypedChange) {
    auto* panel = window.whatIf();
    auto* loader = window.findChild<StoreLoader*>();
    ASSERT_NE(loader, nullptr);
    QSignalSpy answers(loader, &StoreLoader::whatIfAnswered);
    window.selectRun(kEagerDecode);
    ASSERT_TRUE(answered(answers, kEagerDecode));
    auto* table = panel->table();
    ASSERT_GE(table->rowCount(), 2) << panel->summaryText().toStdString();
    EXPECT_TRUE(table->item(0, 0)->text().startsWith("no launch gaps"))
        << table->item(0, 0)->text().toStdString();
    EXPECT_TRUE(table->item(0, 1)->text().contains("(-2"))
        << table->item(0, 1)->text().toStdString();
    bool matmul = false;
    for (int row = 0; row < table->rowCount(); ++row)
        matmul = matmul || table->item(row, 0)->text() == "matmul 30 % faster";
    EXPECT_TRUE(matmul);

    answers.clear();
    panel->fasterEdit()->setText("matmul=2x");
    panel->predictButton()->click();
    ASSERT_TRUE(answered(answers, kEagerDecode));
    ASSERT_GT(table->rowCount(), 0) << panel->summaryText().toStdString();
    EXPECT_EQ(table->item(0, 0)->text(), "ttft ms");
    EXPECT_TRUE(panel->summaryText().contains("'matmul'")) << panel->summaryText().toStdString();

    // A change that matches no kernel is said in the panel, not as a failure.
    answers.clear();
    panel->fasterEdit()->setText("flashattn=30%");
    panel->predictButton()->click();
    ASSERT_TRUE(answered(answers, kEagerDecode));
    EXPECT_TRUE(panel->summaryText().contains("no kernel of the run has 'flashattn'"))
        << panel->summaryText().toStdString();
    // And one that does not parse never leaves the panel.
    answers.clear();
    panel->fasterEdit()->setText("matmul=fast");
    panel->predictButton()->click();
    EXPECT_TRUE(panel->summaryText().contains("not a number"))
        << panel->summaryText().toStdString();
    EXPECT_EQ(answers.count(), 0);
}

// Kernels at their roofline floor: the work counted in another run of the
// same program (run 18, the eager decode's counter pass), or a sentence
// saying the run has no counters of its own.
TEST_F(WhatIfWindow, PutsKernelsAtTheirRooflineFloorWithTheCountersOfAnotherRun) {
    auto* panel = window.whatIf();
    QSignalSpy answers(window.findChild<StoreLoader*>(), &StoreLoader::whatIfAnswered);
    window.selectRun(kEagerDecode);
    ASSERT_TRUE(answered(answers, kEagerDecode));

    answers.clear();
    panel->fasterEdit()->setText("gemv@roof:18");
    panel->predictButton()->click();
    ASSERT_TRUE(answered(answers, kEagerDecode));
    ASSERT_GT(panel->table()->rowCount(), 0) << panel->summaryText().toStdString();
    EXPECT_TRUE(panel->summaryText().contains("'gemv' at the roofline"))
        << panel->summaryText().toStdString();

    answers.clear();
    panel->fasterEdit()->setText("gemv@roof");
    panel->predictButton()->click();
    ASSERT_TRUE(answered(answers, kEagerDecode));
    EXPECT_TRUE(panel->summaryText().contains("run 6 has no hardware counters"))
        << panel->summaryText().toStdString();
    EXPECT_EQ(panel->table()->rowCount(), 0);

    // One counters run for all: two runs, or the run's own beside another's, are refused.
    for (const char* mixed : {"gemv@roof:18, matmul@roof:9", "gemv@roof, matmul@roof:18"}) {
        answers.clear();
        panel->fasterEdit()->setText(mixed);
        panel->predictButton()->click();
        EXPECT_TRUE(panel->summaryText().contains("counters from one run"))
            << mixed << ": " << panel->summaryText().toStdString();
        EXPECT_EQ(answers.count(), 0);
    }
}

TEST_F(WhatIfWindow, ARunWithoutTokensSaysWhy) {
    QSignalSpy answers(window.findChild<StoreLoader*>(), &StoreLoader::whatIfAnswered);
    window.selectRun(15);  // the GEMM ladder: kernels, no tokens
    ASSERT_TRUE(answered(answers, 15));
    EXPECT_EQ(window.whatIf()->table()->rowCount(), 0);
    EXPECT_TRUE(window.whatIf()->summaryText().contains("no tokens"))
        << window.whatIf()->summaryText().toStdString();
}

}  // namespace
}  // namespace ws::ui
