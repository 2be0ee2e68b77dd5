// A read-only table of figures for the summary tables beside the kernel table
// (NVTX ranges, CUDA API, memory copies, the per-kernel diff): each cell has
// what is shown and the unformatted value that sorts and exports (ns, bytes).
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QVariant>
#include <utility>
#include <vector>

namespace ws::ui {

struct SummaryColumn {
    SummaryColumn(QString header_, QString key_, bool numeric_ = true, QString tip_ = {})
        : header(std::move(header_)),
          key(std::move(key_)),
          numeric(numeric_),
          tip(std::move(tip_)) {}
    QString header;  // "Total"
    QString key;     // "total_ns": the export's key
    bool numeric = true;
    QString tip;  // the header's tooltip: what the column counts
};

struct SummaryCell {
    QVariant shown;  // "1.23 ms"
    QVariant value;  // 1230000.0 (sorting, export); shown when null
    QString tip;
};

struct SummaryTable {
    std::vector<SummaryColumn> columns;
    std::vector<std::vector<SummaryCell>> rows;
};

class SummaryTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Roles { SortRole = Qt::UserRole + 1 };
    explicit SummaryTableModel(QObject* parent = nullptr);
    void setTable(SummaryTable table);
    const SummaryTable& table() const { return table_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    SummaryTable table_;
};

}  // namespace ws::ui
