// The runs dock: a notice banner, the filter and the runs table with its
// context menu (baseline, rename, tags, report, delete). It only says what
// the user asked for; the window does the store work.
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "model/records.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace ws::ui {

class RunListModel;

class RunsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RunsPanel(RunListModel* model, QWidget* parent = nullptr);

    QTableView* view() const { return view_; }
    // Selected runs in the order they are listed.
    std::vector<RunId> selectedRuns() const;
    // The run shown in detail: the current row when it is selected, else the
    // first selected one.
    std::optional<RunId> focusedRun() const;
    // Selects `ids`; the first becomes the focused run.
    void selectRuns(const std::vector<RunId>& ids);
    void selectFirstRow();
    void focusFilter();

    // The banner over the list: an error (plain text), or a hint with links.
    void showError(const QString& message);
    void showHint(const QString& richText);
    void clearNotice();
    QString noticeText() const;
    bool noticeShown() const;

  signals:
    void selectionChanged();
    void baselineRequested(std::optional<ws::RunId> run);
    void renameRequested(ws::RunId run, const QString& label);
    void tagsRequested(ws::RunId run, const QString& tags);
    void reportRequested(ws::RunId run);
    void deleteRequested(const std::vector<ws::RunId>& runs);
    void linkActivated(const QString& link);

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    // The label gets what the other columns leave, but never less than it
    // takes to tell variants apart (the other columns scroll out instead).
    void fitLabelColumn();

    void showContextMenu(const QPoint& at);
    void askRename(RunId id);
    void askTags(RunId id);
    void askDelete(const std::vector<RunId>& ids);
    void setBannerStyle(bool error);

    RunListModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* banner_;
    QLineEdit* filter_;
    QTableView* view_;
};

}  // namespace ws::ui
