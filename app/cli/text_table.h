// A plain-text table for the CLI: each column as wide as its widest cell, so
// a long value ("45 min 34 s") never runs into its neighbour. Numbers align
// right; the last column (a name) is left-aligned and never padded.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ws::cli {

class TextTable {
  public:
    explicit TextTable(std::vector<std::string> header);
    void add(std::vector<std::string> row);  // as many cells as the header
    void print(std::ostream& out) const;

  private:
    std::vector<std::vector<std::string>> rows_;  // header first
};

}  // namespace ws::cli
