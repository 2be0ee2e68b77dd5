#include "cli/text_table.h"

#include <algorithm>
#include <stdexcept>

namespace ws::cli {
namespace {

// Columns a UTF-8 string takes on a terminal ("µs" is two, not three).
std::size_t columns(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header) {
    rows_.push_back(std::move(header));
}

void TextTable::add(std::vector<std::string> row) {
    if (row.size() != rows_.front().size())
        throw std::logic_error("TextTable: a row of " + std::to_string(row.size()) +
                               " cells under a header of " + std::to_string(rows_.front().size()));
    rows_.push_back(std::move(row));
}

void TextTable::print(std::ostream& out) const {
    const std::size_t n = rows_.front().size();
    std::vector<std::size_t> width(n, 0);
    for (const auto& row : rows_)
        for (std::size_t c = 0; c + 1 < n; ++c)
            width[c] = std::max(width[c], columns(row[c]));
    for (const auto& row : rows_) {
        for (std::size_t c = 0; c + 1 < n; ++c)
            out << std::string(2 + width[c] - columns(row[c]), ' ') << row[c];
        out << "  " << row.back() << '\n';
    }
}

}  // namespace ws::cli
