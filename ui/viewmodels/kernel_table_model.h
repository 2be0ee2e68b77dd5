// The kernel summary of the selected runs as a table (nsys stats columns),
// one row per kernel and run, with counter columns where the run has counters;
// exported to CSV or JSON from the GUI (models/table_export.h).
#pragma once

#include <QAbstractTableModel>

#include "analysis/run_analysis.h"

namespace ws::ui {

class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Run,
        TimePercent,
        Total,
        Instances,
        Mean,
        Median,
        Min,
        Max,
        StdDev,
        DramGBs,            // from counters (record --metrics); empty otherwise
        Tflops,             // likewise
        AchievedOccupancy,  // likewise
        Name,
        Signature,  // the demangled name
        ColumnCount
    };
    enum Roles { SortRole = Qt::UserRole + 1 };

    explicit KernelTableModel(QObject* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    struct Row {
        RunId run;
        KernelStat stat;
    };
    std::vector<Row> rows_;
};

}  // namespace ws::ui
