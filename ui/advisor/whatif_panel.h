// What the next optimization buys, for the selected run: the options it
// suggests ranked by predicted TPOT, and any change the user types (kernels
// faster, no launch gaps) predicted by replaying the run's own timeline, as
// `warpscope-cli whatif` does.
#pragma once

#include <QWidget>

#include "analysis/whatif.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace ws::ui {

struct WhatIfAnswer;

class WhatIfPanel : public QWidget {
    Q_OBJECT
  public:
    explicit WhatIfPanel(QWidget* parent = nullptr);
    // A run was selected (0: none): its options are on their way.
    void setRun(RunId run);
    void setAnswer(const WhatIfAnswer& answer);
    RunId run() const { return run_; }
    QTableWidget* table() const { return table_; }
    QLineEdit* fasterEdit() const { return faster_; }
    QCheckBox* noLaunchGaps() const { return noLaunchGaps_; }
    QPushButton* predictButton() const { return predict_; }
    QString summaryText() const;

  signals:
    // Predict was pressed with a change that parsed.
    void predictRequested(ws::RunId run, const ws::WhatIfScenario& scenario);

  private:
    void predict();
    void showOptions(const std::vector<RankedOption>& options);
    void showPrediction(const WhatIfPrediction& prediction);

    QLabel* summary_;
    QLineEdit* faster_;
    QCheckBox* noLaunchGaps_;
    QPushButton* predict_;
    QTableWidget* table_;
    RunId run_ = 0;
};

}  // namespace ws::ui
