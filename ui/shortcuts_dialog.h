// Help ▸ Keyboard Shortcuts: every menu action that has a shortcut (read from
// the window's menus, so the list cannot drift from them) and the timeline's
// and charts' mouse and key gestures.
#pragma once

#include <QDialog>
#include <QStringList>
#include <utility>
#include <vector>

class QMenuBar;

namespace ws::ui {

// (shortcut, what it does) for each action under `menus` with a shortcut,
// named by its menu path: "View ▸ Dashboard".
std::vector<std::pair<QString, QString>> menuShortcuts(const QMenuBar& menus);

class ShortcutsDialog : public QDialog {
    Q_OBJECT
  public:
    ShortcutsDialog(const QMenuBar& menus, QWidget* parent = nullptr);
    // Everything listed, one "keys — action" line each (tests, copying).
    QStringList lines() const { return lines_; }

  private:
    QStringList lines_;
};

}  // namespace ws::ui
