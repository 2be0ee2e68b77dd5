// The join of a served run's client and server sides, as a table: its slowest
// ITLs (at or above p99), what the engine steps they spanned held, and where
// their time went. Activating a row asks for that interval on the timeline.
#pragma once

#include <QWidget>
#include <optional>

#include "analysis/itl_outliers.h"

class QLabel;
class QTableView;

namespace ws::ui {

class ItlOutlierModel;

class ItlOutliersPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ItlOutliersPanel(QWidget* parent = nullptr);
    // Nothing for a run without engine steps or tokens: the panel says why.
    void setRun(RunId run, const std::optional<ItlOutlierReport>& report);
    ItlOutlierModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QString summaryText() const;
    // Emits intervalActivated for the outlier in the view's row `row`.
    void activateRow(int row);

  signals:
    void intervalActivated(ws::RunId run, std::int64_t beginNs, std::int64_t endNs);

  private:
    QLabel* summary_;
    QTableView* view_;
    ItlOutlierModel* model_;
    RunId run_ = 0;
};

}  // namespace ws::ui
