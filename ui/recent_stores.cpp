#include "recent_stores.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStringList>

namespace ws::ui {

namespace {
constexpr int kMaxRecent = 8;
const QString kKey = QStringLiteral("stores/recent");
}  // namespace

RecentStores::RecentStores(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) {
    rebuild();
}

// Absolute paths: a store opened as "runs.wsdb" from one folder is found again
// from any other. Files that are gone are dropped from the menu.
void RecentStores::remember(const QString& given) {
    const QString path = QFileInfo(given).absoluteFilePath();
    QSettings settings;
    QStringList recent = settings.value(kKey).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(kKey, recent);
    rebuild();
}

void RecentStores::rebuild() {
    menu_->clear();
    QSettings settings;
    QStringList recent;
    for (const QString& path : settings.value(kKey).toStringList())
        if (QFileInfo(path).isAbsolute() && QFileInfo::exists(path) && !recent.contains(path))
            recent << path;
    settings.setValue(kKey, recent);
    for (const QString& path : recent)
        menu_->addAction(path, this, [this, path] { emit openRequested(path); });
    menu_->setEnabled(!recent.isEmpty());
}

}  // namespace ws::ui
