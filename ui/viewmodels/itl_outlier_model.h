// The slowest ITLs of a served run as a table (analysis/itl_outliers.h): a row
// per outlier with the steps it spanned and where its time went.
#pragma once

#include <QAbstractTableModel>

#include "analysis/itl_outliers.h"

namespace ws::ui {

class ItlOutlierModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Request,
        Token,
        ItlMs,
        VsMedian,
        Steps,
        PrefillTokens,
        Batch,
        Prefill,
        Kernels,
        LaunchGap,
        HostGap,
        ColumnCount
    };
    enum Roles { SortRole = Qt::UserRole + 1 };

    explicit ItlOutlierModel(QObject* parent = nullptr);
    void setReport(const ItlOutlierReport& report);
    const ItlOutlierReport& report() const { return report_; }
    const ItlInterval& interval(int row) const { return report_.outliers.at(row); }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    ItlOutlierReport report_;
};

// "prefill 97 %, kernels 1 %, launch gap 0 %, host gap 2 %"
QString describeSplit(const ItlSplit& split);

}  // namespace ws::ui
