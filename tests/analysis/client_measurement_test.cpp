#include "analysis/client_measurement.h"

#include <gtest/gtest.h>

namespace ws {
namespace {

TEST(ClientMeasurement, SaysHowChunksWereTimedAndWhatTheClientAdded) {
    std::map<std::string, std::string> p;
    EXPECT_FALSE(clientMeasurementLine(p));  // not a bench serve run
    p["bench.endpoint"] = "http://127.0.0.1:8000";
    EXPECT_EQ(*clientMeasurementLine(p),
              "client: chunk arrivals are read times (before the client said); the server did "
              "not stamp its writes, so what the client added is not measured");
    p["client.chunk_time"] = "kernel receive time (SO_TIMESTAMPING) for every read";
    p["client.emit_delay_first_p50_ns"] = "9600";
    p["client.emit_delay_first_p99_ns"] = "41200";
    p["client.emit_delay_itl_p50_ns"] = "300";
    EXPECT_NE(clientMeasurementLine(p)->find("not measured"), std::string::npos);  // one missing
    p["client.emit_delay_itl_p99_ns"] = "22400";
    EXPECT_EQ(*clientMeasurementLine(p),
              "client: chunk arrivals are kernel receive time (SO_TIMESTAMPING) for every read; "
              "against the server's own write times the client and the network added 10 µs to "
              "TTFT and 0 µs to ITL at the median (p99 41 µs and 22 µs)");
    p["client.chunks_read"] = "2000";
    p["client.chunks_sharing_a_read"] = "0";
    EXPECT_EQ(clientMeasurementLine(p)->find("came in one read"), std::string::npos);
    p["client.chunks_sharing_a_read"] = "30";
    EXPECT_NE(clientMeasurementLine(p)->find("; 30 of 2000 chunks (1.5 %) came in one read with "
                                             "another and carry the time of the read's last bytes"),
              std::string::npos);
    p["client.emit_delay_itl_p99_ns"] = "22 µs";  // not a count of ns
    EXPECT_NE(clientMeasurementLine(p)->find("not measured"), std::string::npos);
}

}  // namespace
}  // namespace ws
