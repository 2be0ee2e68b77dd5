// The bar above the timeline: find kernels or ranges by name and step through
// the matches, fit the run, stack two selected runs aligned at a range name,
// and a line describing the selected event.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;

namespace ws::ui {

class TimelineToolbar : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineToolbar(QWidget* parent = nullptr);

    QString searchText() const;
    void setSearchText(const QString& text);
    void focusSearch();  // focus and select the search field (Ctrl+K)
    bool stacked() const;
    void setStacked(bool on);  // emits stackChanged when it changes
    QString alignAt() const;
    void setAlignAt(const QString& rangeName);
    // The line beside the buttons: the selected event, a match count, a note.
    void setInfo(const QString& text);

  signals:
    void searchChanged(const QString& text);
    void findNext(bool backwards);
    void fitRequested();
    // Stack toggled, or the alignment range confirmed while stacked.
    void stackChanged();

  private:
    QLineEdit* search_;
    QToolButton* stack_;
    QLineEdit* alignAt_;
    QLabel* info_;
};

}  // namespace ws::ui
