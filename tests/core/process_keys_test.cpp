// Processes read back from run properties, and the short names lanes use.
#include <gtest/gtest.h>

#include "model/process_keys.h"

namespace ws {
namespace {

TEST(ProcessKeys, ReadBackFromProperties) {
    std::map<std::string, std::string> props = {
        {process_keys::parent(812), "800"},
        {process_keys::command(812), "/usr/bin/python3 worker.py --rank 1"},
        {process_keys::end(812), "lost"},
        {process_keys::endNs(812), "123"},
        {process_keys::parent(800), "1"},
        {process_keys::rank(812), "3"},
        {process_keys::localRank(812), "1"},
        {process_keys::worldSize(812), "8"},
        {process_keys::rank(800), "x"},  // not a number: no rank
        {"process.x.parent", "9"},       // not a pid: ignored
        {"processes.count", "2"},        // another key
        {"capture.pids", "800(1)"}};
    auto list = processesFromProperties(props);
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].pid, 800u);
    EXPECT_EQ(list[0].parent, 1u);
    EXPECT_TRUE(list[0].end.empty());
    EXPECT_EQ(list[1].pid, 812u);
    EXPECT_EQ(list[1].parent, 800u);
    EXPECT_EQ(list[1].end, "lost");
    EXPECT_EQ(list[1].endNs, 123);
    EXPECT_EQ(list[1].rank, 3);
    EXPECT_EQ(list[1].localRank, 1);
    EXPECT_EQ(list[1].worldSize, 8);
    EXPECT_EQ(list[0].rank, -1);
}

TEST(ProcessKeys, ShortCommandNamesTheScriptNotTheInterpreter) {
    EXPECT_EQ(shortCommand("/usr/bin/python3 worker.py --rank 1"), "worker.py");
    EXPECT_EQ(shortCommand("python3 -u -m vllm.entrypoints.openai.api_server --port 8000"),
              "vllm.entrypoints.openai.api_server");
    EXPECT_EQ(shortCommand("/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; "
                           "spawn_main(tracker_fd=5, pipe_handle=7) --multiprocessing-fork"),
              "python3 (spawned worker)");
    EXPECT_EQ(shortCommand("python3 -c print(1)"), "python3 -c");
    EXPECT_EQ(shortCommand("/opt/app/bin/warpscope-workload serve x.toml"), "warpscope-workload");
    EXPECT_EQ(shortCommand("bash"), "bash");
    EXPECT_EQ(shortCommand(""), "");
}

}  // namespace
}  // namespace ws
