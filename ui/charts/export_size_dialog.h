// Asks for the pixel size of an exported chart (or of each chart of the
// dashboard); remembers the last choice.
#pragma once

#include <QDialog>
#include <QSize>

class QComboBox;
class QSpinBox;

namespace ws::ui {

class ExportSizeDialog : public QDialog {
    Q_OBJECT
  public:
    explicit ExportSizeDialog(const QString& what, QWidget* parent = nullptr);
    void setChosenSize(QSize size);  // clamped to 100 … 20000 pixels a side
    QSize chosenSize() const;
    // Shows the dialog; the size on OK (and remembered for next time), or an
    // empty size on Cancel.
    static QSize ask(const QString& what, QWidget* parent);

  private:
    void showMatchingPreset();
    QComboBox* presets_;
    QSpinBox* width_;
    QSpinBox* height_;
};

}  // namespace ws::ui
