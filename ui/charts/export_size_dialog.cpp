#include "charts/export_size_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSettings>
#include <QSpinBox>

namespace ws::ui {

namespace {
const QSize kPresets[] = {{1600, 900}, {1920, 1080}, {1200, 675}, {3840, 2160}, {1000, 1000}};
}

ExportSizeDialog::ExportSizeDialog(const QString& what, QWidget* parent)
    : QDialog(parent),
      presets_(new QComboBox(this)),
      width_(new QSpinBox(this)),
      height_(new QSpinBox(this)) {
    setWindowTitle(tr("Export Size"));
    for (auto* box : {width_, height_}) {
        box->setRange(100, 20000);
        box->setSuffix(tr(" px"));
        connect(box, &QSpinBox::valueChanged, this, &ExportSizeDialog::showMatchingPreset);
    }
    presets_->addItem(tr("Custom"));
    for (const QSize& s : kPresets)
        presets_->addItem(tr("%1 × %2").arg(s.width()).arg(s.height()), s);
    connect(presets_, &QComboBox::activated, this, [this](int i) {
        if (i > 0) setChosenSize(presets_->itemData(i).toSize());
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* form = new QFormLayout(this);
    form->addRow(what, presets_);
    form->addRow(tr("Width"), width_);
    form->addRow(tr("Height"), height_);
    form->addRow(buttons);
    setChosenSize(QSize(1600, 900));
}

void ExportSizeDialog::setChosenSize(QSize size) {
    width_->setValue(size.width());
    height_->setValue(size.height());
}

void ExportSizeDialog::showMatchingPreset() {
    int match = presets_->findData(chosenSize());
    presets_->setCurrentIndex(match < 0 ? 0 : match);
}

QSize ExportSizeDialog::chosenSize() const {
    return {width_->value(), height_->value()};
}

QSize ExportSizeDialog::ask(const QString& what, QWidget* parent) {
    ExportSizeDialog dialog(what, parent);
    QSettings settings;
    dialog.setChosenSize(settings.value(QStringLiteral("export/size"), QSize(1600, 900)).toSize());
    if (dialog.exec() != QDialog::Accepted) return {};
    settings.setValue(QStringLiteral("export/size"), dialog.chosenSize());
    return dialog.chosenSize();
}

}  // namespace ws::ui
