#include "host/safetensors.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ws {

namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

}  // namespace

int safetensorsDtypeSize(const std::string& dtype) {
    if (dtype == "BF16" || dtype == "F16" || dtype == "I16" || dtype == "U16") return 2;
    if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
    if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
    if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" ||
        dtype == "F8_E5M2")
        return 1;
    return 0;
}

SafetensorsFile::SafetensorsFile(std::string path) : path_(std::move(path)) {
    auto fail = [&](const std::string& why) { throw SafetensorsError(path_ + ": " + why); };
    std::error_code ec;
    fileSize_ = std::filesystem::file_size(path_, ec);
    if (ec) fail("cannot open: " + ec.message());
    std::ifstream in(path_, std::ios::binary);
    if (!in) fail("cannot open for reading");
    if (fileSize_ < 8) fail("truncated: " + std::to_string(fileSize_) + " bytes, no header length");
    unsigned char lenBytes[8];
    in.read(reinterpret_cast<char*>(lenBytes), 8);
    std::uint64_t headerLen = 0;
    for (int i = 7; i >= 0; --i)
        headerLen = (headerLen << 8) | lenBytes[i];
    if (headerLen > fileSize_ - 8)
        fail("truncated: header says " + std::to_string(headerLen) + " bytes, the file has " +
             std::to_string(fileSize_ - 8) + " after the length");
    std::string header(headerLen, '\0');
    in.read(header.data(), std::streamsize(headerLen));
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(header);
    } catch (const std::exception& e) {
        fail(std::string("header is not JSON: ") + e.what());
    }
    if (!j.is_object()) fail("header is not a JSON object");
    std::uint64_t dataStart = 8 + headerLen, dataSize = fileSize_ - dataStart;
    for (const auto& [name, info] : j.items()) {
        if (name == "__metadata__") continue;
        const std::string& tensorName = name;  // clang 14: a lambda cannot capture a binding
        auto bad = [&](const std::string& why) { fail("tensor '" + tensorName + "': " + why); };
        if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") ||
            !info.contains("data_offsets"))
            bad("needs dtype, shape and data_offsets");
        SafetensorsTensor t;
        t.name = name;
        try {
            t.dtype = info.at("dtype").get<std::string>();
            t.shape = info.at("shape").get<std::vector<std::int64_t>>();
            auto offsets = info.at("data_offsets").get<std::vector<std::uint64_t>>();
            if (offsets.size() != 2) bad("data_offsets must be [begin, end]");
            if (offsets[0] > offsets[1] || offsets[1] > dataSize)
                bad("data_offsets [" + std::to_string(offsets[0]) + ", " +
                    std::to_string(offsets[1]) + "] lie outside the " + std::to_string(dataSize) +
                    "-byte data section (truncated file?)");
            t.offset = dataStart + offsets[0];
            t.bytes = offsets[1] - offsets[0];
        } catch (const nlohmann::json::exception& e) {
            bad(std::string("malformed entry: ") + e.what());
        }
        int size = safetensorsDtypeSize(t.dtype);
        if (size == 0) bad("unknown dtype '" + t.dtype + "'");
        std::uint64_t elements = 1;
        for (auto d : t.shape) {
            if (d < 0) bad("negative dimension");
            elements *= std::uint64_t(d);
        }
        if (elements * std::uint64_t(size) != t.bytes)
            bad("shape " + shapeText(t.shape) + " of " + t.dtype + " needs " +
                std::to_string(elements * size) + " bytes, data_offsets span " +
                std::to_string(t.bytes));
        tensors_.push_back(std::move(t));
    }
}

const SafetensorsTensor* SafetensorsFile::find(const std::string& name) const {
    for (const auto& t : tensors_)
        if (t.name == name) return &t;
    return nullptr;
}

const SafetensorsTensor& SafetensorsFile::require(const std::string& name, const std::string& dtype,
                                                  const std::vector<std::int64_t>& shape) const {
    const auto* t = find(name);
    if (!t) throw SafetensorsError(path_ + ": missing tensor '" + name + "'");
    if (t->dtype != dtype)
        throw SafetensorsError(path_ + ": tensor '" + name + "' is " + t->dtype + ", expected " +
                               dtype);
    if (t->shape != shape)
        throw SafetensorsError(path_ + ": tensor '" + name + "' has shape " + shapeText(t->shape) +
                               ", expected " + shapeText(shape));
    return *t;
}

void SafetensorsFile::read(const SafetensorsTensor& t, void* dst) const {
    std::ifstream in(path_, std::ios::binary);
    in.seekg(std::streamoff(t.offset));
    in.read(static_cast<char*>(dst), std::streamsize(t.bytes));
    if (!in || std::uint64_t(in.gcount()) != t.bytes)
        throw SafetensorsError(path_ + ": tensor '" + t.name + "': short read");
}

}  // namespace ws
