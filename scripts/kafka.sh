#!/usr/bin/env bash
# scripts/kafka.sh: a real single-node Apache Kafka broker (KRaft, combined broker+controller) on
# loopback for tests and benchmarks. The jars come from Maven Central through Maven and are cached
# under $OCPPGW_KAFKA_CACHE (default ~/.cache/ocppgw/kafka) so later runs start without network.
#
#   scripts/kafka.sh start  <dir>   format <dir> on first use, start, wait until ready;
#                                   <dir>/port holds the PLAINTEXT port (kept across restarts)
#   scripts/kafka.sh stop   <dir>   SIGTERM (controlled shutdown), SIGKILL after a timeout
#   scripts/kafka.sh status <dir>   exit 0 and print "running <port>" when up
#   scripts/kafka.sh fetch          only populate the jar cache
#
# Restarting a stopped <dir> reuses its data and port: the outage tests stop and start the same
# broker while the gateway keeps its bootstrap address.
# Env: OCPPGW_KAFKA_VERSION (default 4.1.1), OCPPGW_KAFKA_PARTITIONS (default 4),
#      KAFKA_HEAP_OPTS (default -Xms256m -Xmx768m), OCPPGW_KAFKA_START_TIMEOUT (s, default 90).
set -euo pipefail

KAFKA_VERSION="${OCPPGW_KAFKA_VERSION:-4.1.1}"
LOG4J_VERSION="2.24.3"
CACHE_ROOT="${OCPPGW_KAFKA_CACHE:-${HOME}/.cache/ocppgw/kafka}"
LIBS="${CACHE_ROOT}/${KAFKA_VERSION}/libs"
START_TIMEOUT="${OCPPGW_KAFKA_START_TIMEOUT:-90}"

die() { echo "kafka.sh: $*" >&2; exit 1; }

fetch() {
  [[ -f "${LIBS}/.complete" ]] && return 0
  command -v mvn >/dev/null || die "maven (mvn) is required to fetch the Kafka jars"
  local work
  work="$(mktemp -d)"
  # A throwaway pom whose only purpose is to resolve the broker's runtime classpath.
  cat >"${work}/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>ocppgw.test</groupId>
  <artifactId>kafka-broker-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${KAFKA_VERSION}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.16</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>${LOG4J_VERSION}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j2-impl</artifactId><version>${LOG4J_VERSION}</version></dependency>
  </dependencies>
</project>
EOF
  echo "kafka.sh: fetching Apache Kafka ${KAFKA_VERSION} jars into ${LIBS}" >&2
  mkdir -p "${LIBS}"
  if ! mvn -B -q -f "${work}/pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="${LIBS}" -DincludeScope=runtime >"${work}/mvn.log" 2>&1; then
    cat "${work}/mvn.log" >&2
    rm -rf "${work}"
    die "maven could not fetch Kafka ${KAFKA_VERSION}"
  fi
  rm -rf "${work}"
  touch "${LIBS}/.complete"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

pid_alive() { [[ -f "$1/pid" ]] && kill -0 "$(cat "$1/pid")" 2>/dev/null; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

java_cmd() {
  local dir="$1"; shift
  # The JVM flags favour a quick start: this broker lives for one test run.
  exec_java=(java ${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m} -XX:+UseParallelGC -XX:TieredStopAtLevel=1
    -Djava.awt.headless=true -Dlog4j2.configurationFile="${dir}/log4j2.properties"
    -Dkafka.logs.dir="${dir}/logs" -cp "${LIBS}/*")
  "${exec_java[@]}" "$@"
}

write_config() {
  local dir="$1" port="$2" cport="$3"
  mkdir -p "${dir}/data" "${dir}/logs"
  cat >"${dir}/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${cport}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${cport}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${dir}/data
num.partitions=${OCPPGW_KAFKA_PARTITIONS:-4}
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.segment.bytes=268435456
EOF
  cat >"${dir}/log4j2.properties" <<EOF
appender.file.type=File
appender.file.name=file
appender.file.fileName=${dir}/logs/server.log
appender.file.layout.type=PatternLayout
appender.file.layout.pattern=[%d] %p %m (%c)%n
rootLogger.level=INFO
rootLogger.appenderRef.file.ref=file
logger.kafka.name=kafka
logger.kafka.level=INFO
logger.apache.name=org.apache.kafka
logger.apache.level=INFO
EOF
}

start() {
  local dir="$1"
  mkdir -p "${dir}"
  dir="$(cd "${dir}" && pwd)"
  if pid_alive "${dir}"; then
    echo "kafka.sh: already running on port $(cat "${dir}/port")" >&2
    return 0
  fi
  fetch
  if [[ ! -f "${dir}/data/meta.properties" ]]; then
    local port cport cluster_id
    port="$(free_port)"
    cport="$(free_port)"
    while [[ "${cport}" == "${port}" ]]; do cport="$(free_port)"; done
    write_config "${dir}" "${port}" "${cport}"
    echo "${port}" >"${dir}/port"
    echo "${cport}" >"${dir}/controller_port"
    # A KRaft cluster id is 16 random bytes in URL-safe base64 without padding.
    cluster_id="$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
    echo "${cluster_id}" >"${dir}/cluster_id"
    java_cmd "${dir}" kafka.tools.StorageTool format -t "${cluster_id}" \
      -c "${dir}/server.properties" >"${dir}/logs/format.log" 2>&1 ||
      { cat "${dir}/logs/format.log" >&2; die "storage format failed"; }
  fi
  local port cport
  port="$(cat "${dir}/port")"
  cport="$(cat "${dir}/controller_port")"
  if port_open "${port}" || port_open "${cport}"; then
    die "port ${port} or ${cport} is taken by another process; remove ${dir} to start afresh"
  fi
  : >"${dir}/logs/server.log"
  # setsid: the broker must not share the caller's process group (test drivers kill theirs).
  setsid bash -c "$(declare -f java_cmd); LIBS='${LIBS}' KAFKA_HEAP_OPTS='${KAFKA_HEAP_OPTS:-}' \
    java_cmd '${dir}' kafka.Kafka '${dir}/server.properties'" \
    >"${dir}/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"${dir}/pid"
  local deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! pid_alive "${dir}"; then
      tail -n 40 "${dir}/logs/stdout.log" "${dir}/logs/server.log" >&2 || true
      die "broker exited during start-up"
    fi
    if grep -q "Kafka Server started" "${dir}/logs/server.log" 2>/dev/null && port_open "${port}"; then
      echo "kafka.sh: broker ready on 127.0.0.1:${port}" >&2
      return 0
    fi
    sleep 0.2
  done
  stop "${dir}" || true
  die "broker not ready after ${START_TIMEOUT}s (see ${dir}/logs)"
}

stop() {
  local dir="$1"
  [[ -f "${dir}/pid" ]] || return 0
  local pid
  pid="$(cat "${dir}/pid")"
  if kill -0 "${pid}" 2>/dev/null; then
    # The pid is the setsid'd bash whose child is the JVM; signal the whole session group.
    kill -TERM -- "-${pid}" 2>/dev/null || kill -TERM "${pid}" 2>/dev/null || true
    local deadline=$((SECONDS + 30))
    while kill -0 "${pid}" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    if kill -0 "${pid}" 2>/dev/null; then
      echo "kafka.sh: broker did not stop in 30s, killing" >&2
      kill -KILL -- "-${pid}" 2>/dev/null || kill -KILL "${pid}" 2>/dev/null || true
    fi
  fi
  rm -f "${dir}/pid"
  echo "kafka.sh: broker stopped" >&2
}

status() {
  local dir="$1"
  if pid_alive "${dir}" && port_open "$(cat "${dir}/port")"; then
    echo "running $(cat "${dir}/port")"
    return 0
  fi
  echo "stopped"
  return 1
}

case "${1:-}" in
  start) [[ $# -eq 2 ]] || die "usage: $0 start <dir>"; start "$2" ;;
  stop) [[ $# -eq 2 ]] || die "usage: $0 stop <dir>"; stop "$2" ;;
  status) [[ $# -eq 2 ]] || die "usage: $0 status <dir>"; status "$2" ;;
  fetch) fetch ;;
  *) die "usage: $0 start|stop|status <dir> | fetch" ;;
esac
