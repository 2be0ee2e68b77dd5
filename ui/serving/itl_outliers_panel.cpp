#include "serving/itl_outliers_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "viewmodels/itl_outlier_model.h"

namespace ws::ui {

ItlOutliersPanel::ItlOutliersPanel(QWidget* parent)
    : QWidget(parent),
      summary_(new QLabel(this)),
      view_(new QTableView(this)),
      model_(new ItlOutlierModel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::PlainText);
    layout->addWidget(summary_);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model_);
    proxy->setSortRole(ItlOutlierModel::SortRole);
    view_->setModel(proxy);
    view_->setSortingEnabled(true);
    view_->sortByColumn(ItlOutlierModel::ItlMs, Qt::DescendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(22);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(view_, 1);
    connect(view_, &QTableView::activated, this,
            [this](const QModelIndex& index) { activateRow(index.row()); });
    setRun(0, std::nullopt);
}

void ItlOutliersPanel::setRun(RunId run, const std::optional<ItlOutlierReport>& report) {
    run_ = run;
    model_->setReport(report.value_or(ItlOutlierReport{}));
    view_->setVisible(report.has_value());
    if (!report) {
        summary_->setText(
            run ? tr("Run %1 holds no engine steps beside its tokens. Record a server with "
                     "`warpscope-cli bench serve --server -- CMD` (its engine marking each step "
                     "with an NVTX range engine.step, docs/serving.md): its slowest ITLs then "
                     "appear here with what the engine did meanwhile.")
                      .arg(run)
                : tr("Select a served run to see its slowest inter-token latencies."));
        return;
    }
    const auto& r = *report;
    QString text = tr("Run %1: %2 ITLs over %3 engine steps, p50 %4 ms, p99 %5 ms.\n"
                      "Every ITL: %6.\nThe %7 at or above p99: %8.\n"
                      "Double-click a row to see it on the timeline.")
                       .arg(run)
                       .arg(r.itlCount)
                       .arg(r.engineSteps)
                       .arg(r.p50Ms, 0, 'f', 3)
                       .arg(r.p99Ms, 0, 'f', 3)
                       .arg(describeSplit(r.allTotal))
                       .arg(r.outlierCount)
                       .arg(describeSplit(r.outlierTotal));
    if (!r.stepsDescribed)
        text += tr("\nThe steps carry no prefill counts: prefill is not told apart.");
    summary_->setText(text);
}

QString ItlOutliersPanel::summaryText() const {
    return summary_->text();
}

void ItlOutliersPanel::activateRow(int row) {
    auto* proxy = static_cast<QSortFilterProxyModel*>(view_->model());
    auto source = proxy->mapToSource(proxy->index(row, 0));
    if (!source.isValid()) return;
    view_->selectRow(row);
    const auto& o = model_->interval(source.row());
    emit intervalActivated(run_, o.startNs, o.endNs);
}

}  // namespace ws::ui
