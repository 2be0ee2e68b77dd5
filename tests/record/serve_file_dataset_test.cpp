// bench serve's file datasets: ShareGPT JSON and JSON Lines, read as vLLM
// reads them, and every malformed file refused with the file, the entry or
// line and the field named.
#include <gtest/gtest.h>

#include <set>

#include "record/serve_file_dataset.h"
#include "support/temp_dir.h"

namespace ws::testing {
namespace {

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const DatasetError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(ShareGptDataset, TakesTheFirstTurnAsPromptAndTheSecondsLengthAsOutput) {
    TempDir dir;
    std::string path = dir.file("sg.json");
    writeFile(path, R"([{"id":"a","conversations":[{"from":"human","value":"hello there"},)"
                    R"({"from":"gpt","value":"0123456789abcdef"}]},)"
                    R"({"id":"short","conversations":[{"from":"human","value":"alone"}]},)"
                    R"({"id":"b","conversations":[{"from":"human","value":"second"},)"
                    R"({"from":"gpt","value":"xyz"},{"from":"human","value":"more"}]}])");
    auto d = readShareGptDataset(path, 5, 1, std::nullopt);
    EXPECT_EQ(d.usable, 2);
    EXPECT_EQ(d.skipped, 1);          // fewer than two turns, as vLLM
    ASSERT_EQ(d.prompts.size(), 5u);  // repeated up to the count
    std::set<std::string> texts;
    for (const auto& p : d.prompts) {
        texts.insert(p.text);
        EXPECT_TRUE(p.tokenIds.empty());                          // sent as text
        EXPECT_EQ(p.inputLen, 0);                                 // the server's usage says
        EXPECT_EQ(p.outputLen, p.text == "hello there" ? 4 : 1);  // 16 bytes / 4; at least 1
    }
    EXPECT_EQ(texts, (std::set<std::string>{"hello there", "second"}));
    for (const auto& p : readShareGptDataset(path, 2, 1, 7).prompts)
        EXPECT_EQ(p.outputLen, 7);  // --output-len wins
    // The seed decides the order.
    EXPECT_EQ(readShareGptDataset(path, 2, 1, 7).prompts[0].text,
              readShareGptDataset(path, 2, 1, 7).prompts[0].text);
}

TEST(ShareGptDataset, MalformedFilesNameTheEntryAndField) {
    TempDir dir;
    auto check = [&](const std::string& content, const std::string& expected) {
        std::string path = dir.file("bad.json");
        writeFile(path, content);
        auto message = errorOf([&] { readShareGptDataset(path, 1, 0, std::nullopt); });
        EXPECT_NE(message.find(path), std::string::npos) << message;
        EXPECT_NE(message.find(expected), std::string::npos) << message;
    };
    check("[{\"conversations\": [", "not JSON");
    check("{\"conversations\": []}", "JSON array");
    check("[{\"conversations\":[{\"value\":\"a\"},{\"value\":\"b\"}]}, 3]",
          "entry 1 is not an object");
    check("[{\"id\": 1}]", "entry 0 has no \"conversations\"");
    check("[{\"conversations\": \"hi\"}]", "entry 0: \"conversations\" is not an array");
    check("[{\"conversations\":[{\"value\":\"a\"},{\"from\":\"gpt\"}]}]",
          "entry 0: conversations[1] has no \"value\"");
    check("[{\"conversations\":[{\"value\":5},{\"value\":\"b\"}]}]",
          "entry 0: conversations[0].value is not a string");
    check("[{\"conversations\":[{\"value\":\"a\"}]}]", "holds no usable prompt");
    auto missing = errorOf([&] { readShareGptDataset(dir.file("none.json"), 1, 0, 1); });
    EXPECT_NE(missing.find("none.json: cannot be read"), std::string::npos) << missing;
}

TEST(JsonlDataset, ReadsPromptsAndOutputLengthsInFileOrder) {
    TempDir dir;
    std::string path = dir.file("p.jsonl");
    writeFile(path,
              "{\"prompt\": \"one\", \"output_len\": 3}\n\n{\"prompt\": \"two\"}\r\n"
              "{\"prompt\": \"three\", \"output_len\": 9, \"extra\": true}\n");
    auto d = readJsonlDataset(path, 4, 50, std::nullopt);
    EXPECT_EQ(d.usable, 3);
    ASSERT_EQ(d.prompts.size(), 4u);
    EXPECT_EQ(d.prompts[0].text, "one");
    EXPECT_EQ(d.prompts[0].outputLen, 3);
    EXPECT_EQ(d.prompts[1].text, "two");
    EXPECT_EQ(d.prompts[1].outputLen, 50);  // the default
    EXPECT_EQ(d.prompts[2].outputLen, 9);
    EXPECT_EQ(d.prompts[3].text, "one");  // repeated
    for (const auto& p : readJsonlDataset(path, 3, 50, 2).prompts)
        EXPECT_EQ(p.outputLen, 2);  // --output-len wins
}

TEST(JsonlDataset, MalformedLinesNameTheLineAndField) {
    TempDir dir;
    auto check = [&](const std::string& content, const std::string& expected) {
        std::string path = dir.file("bad.jsonl");
        writeFile(path, content);
        auto message = errorOf([&] { readJsonlDataset(path, 1, 10, std::nullopt); });
        EXPECT_NE(message.find(path), std::string::npos) << message;
        EXPECT_NE(message.find(expected), std::string::npos) << message;
    };
    check("{\"prompt\": \"a\"}\n{\"prompt\": \"b\"\n", "line 2: not JSON");
    check("{\"prompt\": \"a\"}\n\n[1, 2]\n", "line 3: not a JSON object");
    check("{\"text\": \"a\"}\n", "line 1: no \"prompt\"");
    check("{\"prompt\": 12}\n", "line 1: \"prompt\" is not a string");
    check("{\"prompt\": \"a\", \"output_len\": 0}\n", "line 1: \"output_len\" is not a positive");
    check("{\"prompt\": \"a\", \"output_len\": \"5\"}\n", "\"output_len\" is not a positive");
    check("{\"prompt\": \"a\", \"output_len\": 2.5}\n", "\"output_len\" is not a positive");
    check("\n\n", "holds no usable prompt");
}

}  // namespace
}  // namespace ws::testing
