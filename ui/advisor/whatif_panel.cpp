#include "advisor/whatif_panel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <stdexcept>

#include "util/format.h"
#include "viewmodels/store_loader.h"

namespace ws::ui {

namespace {

QString number(double v, int digits) {
    return QString::number(v, 'f', digits);
}

// "1.096 (-20.2 %)", the interval in its tooltip: a narrow dock keeps the
// figures that decide and gives the spread on hover.
QTableWidgetItem* predictedItem(const PredictedValue* v, int digits) {
    if (!v) return new QTableWidgetItem(QStringLiteral("—"));
    auto* item = new QTableWidgetItem(QStringLiteral("%1 (%2%3 %)")
                                          .arg(number(v->predicted, digits),
                                               v->change() >= 0 ? QStringLiteral("+") : QString(),
                                               number(100 * v->change(), 1)));
    item->setToolTip(v->hasInterval
                         ? QObject::tr("recorded %1; predicted %2, 95 % interval [%3, %4] over "
                                       "the run's requests")
                               .arg(number(v->recorded, digits), number(v->predicted, digits),
                                    number(v->ciLow, digits), number(v->ciHigh, digits))
                         : QObject::tr("recorded %1; predicted %2; no interval: one request")
                               .arg(number(v->recorded, digits), number(v->predicted, digits)));
    return item;
}

// WHAT@roof (the kernels at their roofline floor, their work counted in the
// run itself) or WHAT@roof:RUN (counted in RUN), else WHAT=N% or WHAT=Nx.
void addChange(const QString& text, WhatIfScenario& scenario) {
    static const QRegularExpression atRoof(QStringLiteral("^(.+)@roof(?::(\\d+))?$"));
    const auto m = atRoof.match(text);
    if (!m.hasMatch()) {
        scenario.faster.push_back(parseKernelChange(text.toStdString()));
        return;
    }
    // One counters run for every at-roof change: the run's own (plain @roof,
    // 0 here) or RUN's.
    bool ok = true;
    const RunId counters = m.captured(2).isEmpty() ? 0 : m.captured(2).toLongLong(&ok);
    if (!ok || (!m.captured(2).isEmpty() && counters <= 0))
        throw std::invalid_argument("'" + text.toStdString() + "': no run " +
                                    m.captured(2).toStdString());
    const bool anyAtRoof = std::any_of(scenario.faster.begin(), scenario.faster.end(),
                                       [](const KernelChange& c) { return c.atRoof; });
    if (anyAtRoof && scenario.countersRun.value_or(0) != counters)
        throw std::invalid_argument("'" + text.toStdString() +
                                    "': the at-roof changes take their counters from one run");
    scenario.faster.push_back(kernelAtRoof(m.captured(1).trimmed().toStdString()));
    if (counters > 0) scenario.countersRun = counters;
}

}  // namespace

WhatIfPanel::WhatIfPanel(QWidget* parent)
    : QWidget(parent),
      summary_(new QLabel(this)),
      faster_(new QLineEdit(this)),
      noLaunchGaps_(new QCheckBox(tr("No launch gaps"), this)),
      predict_(new QPushButton(tr("Predict"), this)),
      table_(new QTableWidget(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    layout->addWidget(summary_);
    auto* changeRow = new QHBoxLayout;
    changeRow->addWidget(new QLabel(tr("Faster:"), this));
    faster_->setPlaceholderText(tr("matmul=30%, attention=2x, gemv@roof"));
    faster_->setToolTip(
        tr("Kernel classes (matmul, attention, elementwise, sampling, collective, copy, other) "
           "or part of a kernel name, each with N% less time or Nx as fast, or @roof: at its "
           "roofline floor, its work counted in this run (@roof:RUN: in run RUN, a record "
           "--metrics roofline of the same program); separated by commas"));
    changeRow->addWidget(faster_, 1);
    layout->addLayout(changeRow);
    auto* actionRow = new QHBoxLayout;
    noLaunchGaps_->setToolTip(tr("As if each step were one CUDA graph launch of 10 µs"));
    actionRow->addWidget(noLaunchGaps_);
    actionRow->addStretch(1);
    actionRow->addWidget(predict_);
    layout->addLayout(actionRow);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(22);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table_, 1);
    connect(predict_, &QPushButton::clicked, this, &WhatIfPanel::predict);
    connect(faster_, &QLineEdit::returnPressed, this, &WhatIfPanel::predict);
    setRun(0);
}

void WhatIfPanel::setRun(RunId run) {
    run_ = run;
    table_->clear();
    table_->setRowCount(0);
    table_->setColumnCount(0);
    predict_->setEnabled(run != 0);
    summary_->setText(run ? tr("Run %1: replaying its timeline for each option…").arg(run)
                          : tr("Select a run with tokens to see what the next optimization "
                               "would buy."));
}

QString WhatIfPanel::summaryText() const {
    return summary_->text();
}

void WhatIfPanel::predict() {
    if (run_ == 0) return;
    WhatIfScenario scenario;
    try {
        for (const auto& part : faster_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (auto text = part.trimmed(); !text.isEmpty()) addChange(text, scenario);
    } catch (const std::invalid_argument& e) {
        summary_->setText(QString::fromStdString(e.what()));
        return;
    }
    scenario.replay.noLaunchGaps = noLaunchGaps_->isChecked();
    if (scenario.faster.empty() && !scenario.replay.noLaunchGaps) {
        summary_->setText(tr("Give a change: kernels faster (e.g. matmul=30%) or no launch gaps."));
        return;
    }
    summary_->setText(tr("Run %1: replaying its timeline with %2…")
                          .arg(run_)
                          .arg(QString::fromStdString(scenario.describe())));
    emit predictRequested(run_, scenario);
}

void WhatIfPanel::setAnswer(const WhatIfAnswer& a) {
    if (a.run != run_) return;  // an answer for a run no longer selected
    if (!a.note.empty()) {
        table_->setRowCount(0);
        summary_->setText(tr("Run %1: %2").arg(a.run).arg(QString::fromStdString(a.note)));
        return;
    }
    if (a.prediction) {
        summary_->setText(tr("Run %1 if %2. Intervals: 95 % over the run's requests, not the "
                             "model's error (docs/advisor.md states the model).")
                              .arg(a.run)
                              .arg(QString::fromStdString(a.scenario)));
        showPrediction(*a.prediction);
        return;
    }
    summary_->setText(
        a.options.empty()
            ? tr("Run %1 suggests no option: no kernel class holds 5 % of the GPU time while "
                 "requests were served, and its kernels are not launched one by one.")
                  .arg(a.run)
            : tr("Run %1: each option replayed from its own timeline, best first. Type a change "
                 "above to predict another.")
                  .arg(a.run));
    showOptions(a.options);
}

void WhatIfPanel::showOptions(const std::vector<RankedOption>& options) {
    table_->clear();
    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels(
        {tr("option"), tr("TPOT mean ms"), tr("TPOT p99 ms"), tr("TTFT mean ms"), tr("GPU share")});
    table_->setRowCount(static_cast<int>(options.size()));
    for (int row = 0; row < static_cast<int>(options.size()); ++row) {
        const auto& o = options[static_cast<std::size_t>(row)];
        auto* name = new QTableWidgetItem(QString::fromStdString(o.change));
        name->setToolTip(QStringLiteral("warpscope-cli whatif %1 %2")
                             .arg(run_)
                             .arg(QString::fromStdString(o.flags)));
        table_->setItem(row, 0, name);
        table_->setItem(row, 1, predictedItem(o.value("tpot", "mean"), 3));
        table_->setItem(row, 2, predictedItem(o.value("tpot", "p99"), 3));
        table_->setItem(row, 3, predictedItem(o.value("ttft", "mean"), 3));
        table_->setItem(row, 4,
                        new QTableWidgetItem(o.gpuShare > 0 ? number(100 * o.gpuShare, 1) + " %"
                                                            : QStringLiteral("—")));
    }
}

void WhatIfPanel::showPrediction(const WhatIfPrediction& p) {
    table_->clear();
    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels(
        {tr("metric"), tr("statistic"), tr("recorded"), tr("predicted"), tr("95 % interval")});
    table_->setRowCount(static_cast<int>(p.values.size()));
    for (int row = 0; row < static_cast<int>(p.values.size()); ++row) {
        const auto& v = p.values[static_cast<std::size_t>(row)];
        const int digits = v.metric == "output throughput" ? 1 : 3;
        const QString metric =
            QString::fromStdString(v.metric) +
            (v.metric == "output throughput" ? QString() : QStringLiteral(" ms"));
        table_->setItem(row, 0, new QTableWidgetItem(metric));
        table_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(v.statistic)));
        table_->setItem(row, 2, new QTableWidgetItem(number(v.recorded, digits)));
        table_->setItem(row, 3, predictedItem(&v, digits));
        table_->setItem(row, 4,
                        new QTableWidgetItem(v.hasInterval ? QStringLiteral("[%1, %2]")
                                                                 .arg(number(v.ciLow, digits),
                                                                      number(v.ciHigh, digits))
                                                           : tr("— (one request)")));
    }
}

}  // namespace ws::ui
