// ShareGPT and JSON Lines datasets for bench serve, parsed with nlohmann_json;
// every error names the file, the entry or line, and the field.
#include "record/serve_file_dataset.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

namespace ws {

namespace {

using json = nlohmann::json;

std::ifstream openDataset(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DatasetError("dataset " + path + ": cannot be read");
    return in;
}

// One token per four bytes: the usual estimate of a BPE tokenizer on English.
int estimatedTokens(const std::string& text) {
    return std::max(1, static_cast<int>((text.size() + 3) / 4));
}

FileDataset repeated(std::vector<ServePrompt> distinct, int count, const std::string& path) {
    if (distinct.empty()) throw DatasetError("dataset " + path + ": holds no usable prompt");
    FileDataset out;
    out.usable = static_cast<int>(distinct.size());
    out.prompts.reserve(static_cast<std::size_t>(std::max(count, 0)));
    for (int i = 0; i < count; ++i)
        out.prompts.push_back(distinct[static_cast<std::size_t>(i) % distinct.size()]);
    return out;
}

const std::string& turnValue(const json& turns, std::size_t i, const std::string& where) {
    const json& turn = turns[i];
    const std::string field = "conversations[" + std::to_string(i) + "]";
    if (!turn.is_object()) throw DatasetError(where + ": " + field + " is not an object");
    auto v = turn.find("value");
    if (v == turn.end()) throw DatasetError(where + ": " + field + " has no \"value\"");
    if (!v->is_string()) throw DatasetError(where + ": " + field + ".value is not a string");
    return v->get_ref<const std::string&>();
}

}  // namespace

FileDataset readShareGptDataset(const std::string& path, int count, std::uint64_t seed,
                                std::optional<int> outputLen) {
    auto in = openDataset(path);
    json doc;
    try {
        doc = json::parse(in);
    } catch (const json::parse_error& e) {
        throw DatasetError("dataset " + path + ": not JSON (byte " + std::to_string(e.byte) +
                           "): " + e.what());
    }
    if (!doc.is_array())
        throw DatasetError("dataset " + path + ": a ShareGPT file is a JSON array of entries");
    std::vector<ServePrompt> distinct;
    int skipped = 0;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const json& entry = doc[i];
        const std::string where = "dataset " + path + ": entry " + std::to_string(i);
        if (!entry.is_object()) throw DatasetError(where + " is not an object");
        auto turns = entry.find("conversations");
        if (turns == entry.end()) throw DatasetError(where + " has no \"conversations\"");
        if (!turns->is_array()) throw DatasetError(where + ": \"conversations\" is not an array");
        if (turns->size() < 2) {
            ++skipped;
            continue;
        }
        ServePrompt p;
        p.text = turnValue(*turns, 0, where);
        p.outputLen = outputLen ? *outputLen : estimatedTokens(turnValue(*turns, 1, where));
        distinct.push_back(std::move(p));
    }
    std::mt19937_64 rng(seed);
    std::shuffle(distinct.begin(), distinct.end(), rng);
    FileDataset out = repeated(std::move(distinct), count, path);
    out.skipped = skipped;
    return out;
}

FileDataset readJsonlDataset(const std::string& path, int count, int defaultOutputLen,
                             std::optional<int> outputLen) {
    auto in = openDataset(path);
    std::vector<ServePrompt> distinct;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = "dataset " + path + ": line " + std::to_string(number);
        json j = json::parse(line, nullptr, false);
        if (j.is_discarded()) throw DatasetError(where + ": not JSON");
        if (!j.is_object()) throw DatasetError(where + ": not a JSON object");
        auto prompt = j.find("prompt");
        if (prompt == j.end()) throw DatasetError(where + ": no \"prompt\"");
        if (!prompt->is_string()) throw DatasetError(where + ": \"prompt\" is not a string");
        ServePrompt p;
        p.text = prompt->get<std::string>();
        p.outputLen = defaultOutputLen;
        if (auto len = j.find("output_len"); len != j.end()) {
            if (!len->is_number_integer() || len->get<long long>() < 1 ||
                len->get<long long>() > 10'000'000)
                throw DatasetError(where + ": \"output_len\" is not a positive integer");
            p.outputLen = len->get<int>();
        }
        if (outputLen) p.outputLen = *outputLen;
        distinct.push_back(std::move(p));
    }
    return repeated(std::move(distinct), count, path);
}

}  // namespace ws
