// The timeline toolbar with its Lanes button fits the timeline area of a
// 1366 px wide window (about 800 px). With WARPSCOPE_SCREENSHOTS set to a
// folder, the bar, the view, the Lanes menu and the matches list are saved
// there as PNGs to look at.
#include <gtest/gtest.h>

#include <QLineEdit>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>

#include "timeline/lane_menu.h"
#include "timeline/search_matches_list.h"
#include "timeline/timeline_toolbar.h"
#include "timeline/timeline_view.h"
#include "timeline_test_data.h"

namespace ws::ui {
namespace {

void save(QWidget& w, const char* name) {
    QString dir = qEnvironmentVariable("WARPSCOPE_SCREENSHOTS");
    if (!dir.isEmpty()) w.grab().save(dir + QStringLiteral("/") + QString::fromUtf8(name));
}

TEST(TimelineToolbar, FitsTheTimelineAreaOfA1366PxWindow) {
    QWidget area;
    auto* layout = new QVBoxLayout(&area);
    auto* toolbar = new TimelineToolbar(&area);
    auto* view = new TimelineView(&area);
    layout->addWidget(toolbar);
    layout->addWidget(view, 1);
    toolbar->setTimelineView(view);
    area.resize(800, 360);
    area.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
    view->setData(testing::smallTimeline());
    view->setSearch("gemv");
    view->setLaneHidden(1, true);
    view->selectRange(testing::kTimelineBeginNs + 120'000, testing::kTimelineBeginNs + 420'000);
    toolbar->setInfo("gemv_bf16 · GPU 0 · Stream 7 · start 300 µs after run start");
    QTest::qWait(20);  // the layout follows the Lanes button's new text
    EXPECT_LE(toolbar->minimumSizeHint().width(), 800 - 2 * layout->contentsMargins().left());
    // Every button shows whole: none clipped or squeezed under its size hint.
    const auto buttons = toolbar->findChildren<QToolButton*>(Qt::FindDirectChildrenOnly);
    ASSERT_EQ(buttons.size(), 5);  // ◀ ▶ Fit Lanes Stack
    bool lanesSaysHowMany = false;
    for (auto* button : buttons) {
        lanesSaysHowMany |= button->text() == "Lanes 3/4 ▾";
        EXPECT_GE(button->width(), button->minimumSizeHint().width())
            << button->text().toStdString();
        EXPECT_LE(button->geometry().right(), toolbar->width()) << button->text().toStdString();
    }
    EXPECT_TRUE(lanesSaysHowMany);
    save(area, "timeline-800.png");

    LaneMenu* menu = toolbar->laneMenu();
    menu->popup(area.mapToGlobal(QPoint(300, 30)));
    QTest::qWait(50);
    menu->filterField()->setText("gpu");
    QTest::qWait(20);
    save(*menu, "lane-menu.png");
    menu->close();

    SearchMatchesList list;
    list.resize(600, 220);
    list.show();
    list.setMatches(*view);
    save(list, "search-matches.png");
}

}  // namespace
}  // namespace ws::ui
