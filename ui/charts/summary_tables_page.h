// The "Tables" tab: the kernel table (as nsys stats' cuda_gpu_kern_sum) and,
// chosen above it, NVTX ranges, CUDA API calls, memory copies, and the
// per-kernel diff of each selected run against the baseline.
#pragma once

#include <QWidget>
#include <vector>

#include "analysis/run_analysis.h"

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QAbstractItemModel;

namespace ws::ui {

class KernelTableModel;
class SummaryTableModel;

class SummaryTablesPage : public QWidget {
    Q_OBJECT
  public:
    enum class Table { Kernels, Ranges, Api, Memcpys, KernelDiff };
    explicit SummaryTablesPage(QWidget* parent = nullptr);
    void setRuns(const std::vector<RunAnalysis>& runs);
    void showTable(Table table);
    Table shownTable() const;
    KernelTableModel* kernelTable() const { return kernels_; }
    // What is shown, sorted as shown: what Export saves.
    const QAbstractItemModel& shownModel() const;
    QTableView* view() const { return view_; }
    QString caption() const;

  private:
    void refresh();
    void fitColumns();

    QComboBox* choice_;
    QLabel* caption_;
    QTableView* view_;
    QSortFilterProxyModel* proxy_;
    KernelTableModel* kernels_;
    SummaryTableModel* summary_;
    std::vector<RunAnalysis> runs_;
};

}  // namespace ws::ui
