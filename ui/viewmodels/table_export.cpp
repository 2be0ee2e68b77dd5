#include "viewmodels/table_export.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace ws::ui {

namespace {

QString keyOf(const QAbstractItemModel& model, int column) {
    QVariant key = model.headerData(column, Qt::Horizontal, ExportKeyRole);
    if (key.isValid()) return key.toString();
    return model.headerData(column, Qt::Horizontal, Qt::DisplayRole)
        .toString()
        .toLower()
        .replace(QLatin1Char(' '), QLatin1Char('_'));
}

// A model that names its columns for export answers ExportValueRole, where an
// invalid value means "none" (null in JSON, empty in CSV).
bool answersExportRoles(const QAbstractItemModel& model) {
    return model.columnCount() > 0 && model.headerData(0, Qt::Horizontal, ExportKeyRole).isValid();
}

QVariant valueOf(const QAbstractItemModel& model, int row, int column, bool exportRoles) {
    QModelIndex index = model.index(row, column);
    return model.data(index, exportRoles ? ExportValueRole : Qt::DisplayRole);
}

QString csvField(QString v) {
    if (!v.contains(QLatin1Char(',')) && !v.contains(QLatin1Char('"')) &&
        !v.contains(QLatin1Char('\n')) && !v.contains(QLatin1Char('\r')))
        return v;
    return QLatin1Char('"') + v.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
           QLatin1Char('"');
}

QString csvText(const QVariant& v) {
    // Full precision for numbers: the export is for further analysis.
    if (v.typeId() == QMetaType::Double) return QString::number(v.toDouble(), 'g', 17);
    return v.toString();
}

}  // namespace

QString tableToCsv(const QAbstractItemModel& model) {
    QString out;
    int columns = model.columnCount();
    for (int c = 0; c < columns; ++c)
        out += (c ? QStringLiteral(",") : QString()) + csvField(keyOf(model, c));
    out += QLatin1Char('\n');
    bool exportRoles = answersExportRoles(model);
    for (int r = 0; r < model.rowCount(); ++r) {
        for (int c = 0; c < columns; ++c)
            out += (c ? QStringLiteral(",") : QString()) +
                   csvField(csvText(valueOf(model, r, c, exportRoles)));
        out += QLatin1Char('\n');
    }
    return out;
}

QByteArray tableToJson(const QAbstractItemModel& model) {
    QJsonArray rows;
    int columns = model.columnCount();
    bool exportRoles = answersExportRoles(model);
    for (int r = 0; r < model.rowCount(); ++r) {
        QJsonObject row;
        for (int c = 0; c < columns; ++c) {
            QVariant v = valueOf(model, r, c, exportRoles);
            row.insert(keyOf(model, c), v.isValid() ? QJsonValue::fromVariant(v) : QJsonValue());
        }
        rows.append(row);
    }
    return QJsonDocument(rows).toJson(QJsonDocument::Indented);
}

QString exportTable(const QAbstractItemModel& model, const QString& path) {
    QString ext = QFileInfo(path).suffix().toLower();
    QByteArray bytes;
    if (ext == QLatin1String("csv"))
        bytes = tableToCsv(model).toUtf8();
    else if (ext == QLatin1String("json"))
        bytes = tableToJson(model);
    else
        return QObject::tr("%1: unknown format '%2' (csv or json)").arg(path, ext);
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        return QObject::tr("%1: could not be written").arg(path);
    return {};
}

}  // namespace ws::ui
