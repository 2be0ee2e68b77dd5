// File ▸ Open Recent: the last stores opened, kept in the settings, newest
// first.
#pragma once

#include <QObject>
#include <QString>

class QMenu;

namespace ws::ui {

class RecentStores : public QObject {
    Q_OBJECT
  public:
    // Fills `menu` now and whenever the list changes.
    explicit RecentStores(QMenu* menu, QObject* parent = nullptr);
    void remember(const QString& path);

  signals:
    void openRequested(const QString& path);

  private:
    void rebuild();
    QMenu* menu_;
};

}  // namespace ws::ui
