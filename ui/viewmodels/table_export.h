// Any table the GUI shows, saved as CSV (RFC 4180) or JSON (an array of
// objects, one per row), as the user sees it (sorted and filtered).
#pragma once

#include <QAbstractItemModel>
#include <QByteArray>
#include <QString>

namespace ws::ui {

// Roles a table model answers for export: a cell's unformatted value
// (numbers in base units: ns, bytes) and a column's key ("total_ns"). Models
// without them export what they display, keyed by the header text.
inline constexpr int ExportValueRole = Qt::UserRole + 100;
inline constexpr int ExportKeyRole = Qt::UserRole + 101;

QString tableToCsv(const QAbstractItemModel& model);
QByteArray tableToJson(const QAbstractItemModel& model);
// By the file's extension, .csv or .json; returns an error message, or empty.
QString exportTable(const QAbstractItemModel& model, const QString& path);

}  // namespace ws::ui
