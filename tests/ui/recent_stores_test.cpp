// File ▸ Open Recent: absolute paths, newest first, gone files dropped.
#include "recent_stores.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QSettings>

#include "support/temp_dir.h"

namespace ws::ui {
namespace {

QStringList entries(const QMenu& menu) {
    QStringList out;
    for (auto* a : menu.actions())
        out << a->text();
    return out;
}

TEST(RecentStores, KeepsAbsolutePathsAndDropsFilesThatAreGone) {
    QSettings().remove(QStringLiteral("stores/recent"));
    testing::TempDir dir;
    const QString folder = QString::fromStdString(dir.path().string());
    for (const char* name : {"a.wsdb", "b.wsdb"}) {
        QFile f(QDir(folder).filePath(QString::fromLatin1(name)));
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    }
    const QString before = QDir::currentPath();
    QDir::setCurrent(folder);
    QMenu menu;
    RecentStores recent(&menu);
    recent.remember(QStringLiteral("a.wsdb"));  // relative, as typed after --db
    recent.remember(QDir(folder).filePath(QStringLiteral("b.wsdb")));
    QDir::setCurrent(before);
    QStringList shown = entries(menu);
    ASSERT_EQ(shown.size(), 2);
    EXPECT_EQ(shown[0], QDir(folder).filePath(QStringLiteral("b.wsdb")));  // newest first
    EXPECT_EQ(shown[1], QDir(folder).filePath(QStringLiteral("a.wsdb")));
    // A store removed since is not offered again (nor kept in the settings).
    QFile::remove(QDir(folder).filePath(QStringLiteral("a.wsdb")));
    QMenu again;
    RecentStores reread(&again);
    EXPECT_EQ(entries(again), QStringList{QDir(folder).filePath(QStringLiteral("b.wsdb"))});
    EXPECT_EQ(QSettings().value(QStringLiteral("stores/recent")).toStringList().size(), 1);
    QSettings().remove(QStringLiteral("stores/recent"));
}

}  // namespace
}  // namespace ws::ui
