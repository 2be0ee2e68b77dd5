#include "recent_stores.h"

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

void RecentStores::remember(const QString& path) {
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
    QStringList recent = QSettings().value(kKey).toStringList();
    for (const QString& path : recent)
        menu_->addAction(path, this, [this, path] { emit openRequested(path); });
    menu_->setEnabled(!recent.isEmpty());
}

}  // namespace ws::ui
