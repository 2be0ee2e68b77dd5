#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "host/safetensors.h"
#include "support/temp_dir.h"

namespace ws {
using testing::TempDir;
namespace {

// Writes a .safetensors file; `cut` bytes are dropped from the end.
std::string writeTensors(const std::string& path, const nlohmann::json& header,
                         const std::string& data, std::size_t cut = 0) {
    std::string h = header.dump();
    std::string bytes(8, '\0');
    std::uint64_t n = h.size();
    for (int i = 0; i < 8; ++i)
        bytes[i] = char((n >> (8 * i)) & 0xff);
    bytes += h + data;
    bytes.resize(bytes.size() - cut);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

nlohmann::json twoTensors() {
    return {{"__metadata__", {{"format", "pt"}}},
            {"a", {{"dtype", "BF16"}, {"shape", {2, 3}}, {"data_offsets", {0, 12}}}},
            {"b", {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {12, 16}}}}};
}

TEST(Safetensors, ReadsTensorsByName) {
    TempDir dir;
    std::string data = "abcdefghijkl";
    float one = 1.0f;
    data.append(reinterpret_cast<const char*>(&one), 4);
    SafetensorsFile f(writeTensors(dir.file("m.safetensors"), twoTensors(), data));
    ASSERT_EQ(f.tensors().size(), 2u);
    const auto& a = f.require("a", "BF16", {2, 3});
    std::string out(12, '\0');
    f.read(a, out.data());
    EXPECT_EQ(out, "abcdefghijkl");
    float b = 0;
    f.read(f.require("b", "F32", {1}), &b);
    EXPECT_EQ(b, 1.0f);
}

TEST(Safetensors, NamesTheFileTensorAndProblem) {
    TempDir dir;
    std::string data(16, 'x');
    auto path = writeTensors(dir.file("m.safetensors"), twoTensors(), data);
    SafetensorsFile f(path);
    auto message = [&](auto fn) {
        try {
            fn();
        } catch (const SafetensorsError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] { f.require("missing", "BF16", {1}); }),
              path + ": missing tensor 'missing'");
    EXPECT_EQ(message([&] {
                  f.require("a", "F16", {2, 3});
              }),
              path + ": tensor 'a' is BF16, expected F16");
    EXPECT_EQ(message([&] {
                  f.require("a", "BF16", {3, 2});
              }),
              path + ": tensor 'a' has shape [2, 3], expected [3, 2]");

    auto truncated = writeTensors(dir.file("t.safetensors"), twoTensors(), data, 3);
    EXPECT_NE(message([&] {
                  SafetensorsFile t(truncated);
              }).find("tensor 'b': data_offsets [12, 16] lie outside"),
              std::string::npos);
    auto header = twoTensors();
    header["a"]["shape"] = {4, 3};
    auto badShape = writeTensors(dir.file("s.safetensors"), header, data);
    EXPECT_NE(
        message([&] { SafetensorsFile t(badShape); }).find("shape [4, 3] of BF16 needs 24 bytes"),
        std::string::npos);
    std::ofstream(dir.file("short.safetensors")) << "abc";
    EXPECT_NE(message([&] { SafetensorsFile t(dir.file("short.safetensors")); }).find("truncated"),
              std::string::npos);
    std::ofstream(dir.file("long.safetensors"), std::ios::binary)
        << std::string("\xff\xff\x00\x00\x00\x00\x00\x00{}", 10);
    EXPECT_NE(message([&] {
                  SafetensorsFile t(dir.file("long.safetensors"));
              }).find("header says 65535 bytes"),
              std::string::npos);
    EXPECT_NE(
        message([&] { SafetensorsFile t(dir.file("absent.safetensors")); }).find("cannot open"),
        std::string::npos);
}

}  // namespace
}  // namespace ws
