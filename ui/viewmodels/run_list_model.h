// The runs of a store as a table: status, label, workload, device, date,
// duration. Filled from RunInfo values loaded off the GUI thread.
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <optional>
#include <vector>

#include "model/records.h"

namespace ws::ui {

class RunListModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Id, Status, Label, Workload, Device, Started, Duration, Tags, ColumnCount };
    enum Roles {
        RunIdRole = Qt::UserRole + 1,
        StatusRole,  // RunStatus as int
        SortRole,    // numeric value for ordering by date or duration
        WorkloadRole,
    };
    Q_ENUM(Roles)

    explicit RunListModel(QObject* parent = nullptr);

    void setRuns(std::vector<RunInfo> runs);
    // The run comparisons are made against (pinned from the runs list's
    // context menu); its label says so. A run not in the list is dropped.
    void setBaseline(std::optional<RunId> run);
    std::optional<RunId> baseline() const { return baseline_; }
    const RunInfo* runAt(int row) const;
    int rowOfRun(RunId id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    std::vector<RunInfo> runs_;
    std::optional<RunId> baseline_;
};

// Colour that marks a run status everywhere in the UI.
QColor statusColor(RunStatus status);

}  // namespace ws::ui
