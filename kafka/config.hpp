// kafka/config.hpp: the librdkafka configuration built from a KafkaConfig (private to kafka/;
// KafkaConfig itself is declared in publisher.hpp and defined in config.cpp).
// Threading: build_conf is a pure function of its argument, callable from any thread.
#pragma once

#include <string>

#include <librdkafka/rdkafka.h>

#include "kafka/publisher.hpp"

namespace ocppgw::kafka {

// Builds a librdkafka config from the publisher's defaults (idempotent, acks=all, no local
// message timeout, gapless, Java-compatible partitioner) followed by the user's properties,
// which may override any default. On error returns null and sets *error naming the property;
// on success the caller owns the result (rd_kafka_new or rd_kafka_conf_destroy).
rd_kafka_conf_t* build_conf(const KafkaConfig& c, std::string* error);

}  // namespace ocppgw::kafka
