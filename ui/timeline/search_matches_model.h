// The rows of a SearchMatchesList, one search match each: its start (ms from
// the timeline's beginning), duration, lane and name. SortRole gives each
// column's raw value (ns, text), LaneRole and EventRole the match itself.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <cstdint>
#include <vector>

namespace ws::ui {

struct SearchMatchRow {
    int lane = -1;
    long event = -1;
    std::int64_t startNs = 0;  // from the timeline's beginNs
    std::int64_t durationNs = 0;
    QString laneName;  // "GPU 0 · Stream 7"
    QString name;
};

class SearchMatchesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { StartColumn, DurationColumn, LaneColumn, NameColumn, ColumnCount };
    enum Roles { SortRole = Qt::UserRole, LaneRole, EventRole };

    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<SearchMatchRow> rows);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    std::vector<SearchMatchRow> rows_;
};

}  // namespace ws::ui
