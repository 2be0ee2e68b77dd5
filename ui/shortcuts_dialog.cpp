#include "shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ws::ui {

namespace {

QString plain(QString menuText) {
    return menuText.remove(QLatin1Char('&')).remove(QStringLiteral("…"));
}

void collect(const QMenu& menu, const QString& path,
             std::vector<std::pair<QString, QString>>& out) {
    for (QAction* action : menu.actions()) {
        if (action->menu()) {
            collect(*action->menu(), path + QStringLiteral(" ▸ ") + plain(action->text()), out);
            continue;
        }
        if (action->isSeparator() || action->shortcut().isEmpty()) continue;
        out.emplace_back(action->shortcut().toString(QKeySequence::NativeText),
                         path + QStringLiteral(" ▸ ") + plain(action->text()));
    }
}

// What the mouse and keys do in the timeline and charts; the source of truth
// is TimelineView::keyPressEvent and the gestures in timeline_view.h.
const std::vector<std::pair<const char*, const char*>> kGestures = {
    {"Drag", "Timeline: pan (also vertically)"},
    {"Wheel", "Timeline: zoom at the cursor"},
    {"Shift+Wheel", "Timeline: scroll the lanes"},
    {"Right-drag", "Timeline: zoom to the dragged span"},
    {"Shift+Drag", "Timeline: select a time range; the tables and charts cover it"},
    {"Esc", "Timeline: clear the selected time range"},
    {"Click", "Timeline: select a kernel, copy, range or call"},
    {"Double-click, Home", "Timeline: fit the whole run"},
    {"+ / − (W / S)", "Timeline: zoom in / out"},
    {"← / → (A / D)", "Timeline: pan"},
    {"F3 / Shift+F3", "Timeline: next / previous search match"},
    {"Right-click a lane name", "Timeline: hide that lane"},
    {"Wheel, drag", "Charts: zoom at the cursor, pan"},
    {"Click a point", "Roofline: find its kernel in the timeline; Latency: show its request"},
    {"Right-click a run", "Runs: baseline, rename, tags, report, delete"},
};

}  // namespace

std::vector<std::pair<QString, QString>> menuShortcuts(const QMenuBar& menus) {
    std::vector<std::pair<QString, QString>> out;
    for (QAction* top : menus.actions())
        if (top->menu()) collect(*top->menu(), plain(top->text()), out);
    return out;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar& menus, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Keyboard Shortcuts"));
    auto* tree = new QTreeWidget(this);
    tree->setColumnCount(2);
    tree->setHeaderLabels({tr("Keys"), tr("Does")});
    tree->setRootIsDecorated(true);
    auto* keys = new QTreeWidgetItem(tree, {tr("Menus")});
    for (const auto& [shortcut, action] : menuShortcuts(menus)) {
        new QTreeWidgetItem(keys, {shortcut, action});
        lines_ << shortcut + QStringLiteral(" — ") + action;
    }
    auto* mouse = new QTreeWidgetItem(tree, {tr("Timeline, charts and runs")});
    for (const auto& [gesture, action] : kGestures) {
        new QTreeWidgetItem(mouse, {tr(gesture), tr(action)});
        lines_ << tr(gesture) + QStringLiteral(" — ") + tr(action);
    }
    tree->expandAll();
    tree->resizeColumnToContents(0);
    tree->header()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tree);
    layout->addWidget(buttons);
    resize(620, 560);
}

}  // namespace ws::ui
