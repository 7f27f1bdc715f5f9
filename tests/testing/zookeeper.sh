#!/usr/bin/env bash
# A real ZooKeeper for tests: one standalone server of the Debian package
# (`zookeeper`: /usr/share/java/zookeeper.jar and the jars its manifest
# names) on 127.0.0.1, in a directory of the caller's.
#
#   zookeeper.sh start DIR [PORT]   start it (a free port unless PORT), wait
#                                   until it answers `ruok`, print the port
#   zookeeper.sh stop DIR           stop it (SIGKILL; the data stays in DIR)
#   zookeeper.sh restart DIR        stop, then start on the same port and data
#   zookeeper.sh wipe DIR           stop, delete the data, start on the same
#                                   port: every session is lost (expired)
#
# DIR holds zoo.cfg, data/, zookeeper.log, pid and port. ZK_ADDRESS (default
# 127.0.0.1) is the address it listens on (the multi-host test runs it in
# a network namespace of its own). Exit 77 when
# ZooKeeper or Java is not installed (scripts/install-deps.sh installs
# both), unless CI=true: then 1, as a missing dependency is a failure there.
# Used by the shell tests and, through tests/testing/zookeeper_server.h, by
# the C++ ones. tickTime is 200 ms, so sessions of 400 ms to 4 s are allowed.
set -euo pipefail

jar=/usr/share/java/zookeeper.jar
address=${ZK_ADDRESS:-127.0.0.1}
missing() {
  echo "zookeeper.sh: $1" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
}

answers() {  # PORT: the server says imok
  local reply
  reply=$(timeout 2 bash -c 'exec 3<>"/dev/tcp/$2/$1" && printf ruok >&3 && cat <&3' _ "$1" "$address" 2>/dev/null || true)
  [ "$reply" = imok ]
}

# Ports below the kernel's ephemeral range: one in it can be taken, between
# our check and ZooKeeper's bind, by an outgoing connection or a
# `serve --listen :0` of a test running beside this one.
free_port() {
  local port low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 21000 ] 2>/dev/null || low=32768
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % (low - 20000)))
    ss -ltnH "sport = :$port" 2>/dev/null | grep -q . || { echo "$port"; return 0; }
  done
  echo "zookeeper.sh: no free port found" >&2
  return 1
}

# launch DIR PORT: starts ZooKeeper on PORT and waits until it answers.
# 0 when it does; 2 when its process ended first or another process
# answers on the port (as when the port was taken after our check); 1
# when nothing answered.
launch() {
  local dir=$1 port=$2
  cat >"$dir/zoo.cfg" <<EOF
tickTime=200
minSessionTimeout=400
maxSessionTimeout=30000
dataDir=$dir/data
clientPort=$port
clientPortAddress=$address
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr
EOF
  java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dzookeeper.admin.enableServer=false \
    -cp "$jar" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" \
    >>"$dir/zookeeper.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  echo "$port" >"$dir/port"
  local pid
  pid=$(cat "$dir/pid")
  for _ in $(seq 300); do
    # Answered, and by ours: another test's ZooKeeper on the same port
    # would answer too while ours fails to bind. (ss names a listener's
    # process only to its owner or root: unnamed, it is taken as ours.)
    if answers "$port"; then
      local listener
      listener=$(ss -ltnpH "sport = :$port" 2>/dev/null)
      [[ $listener != *users:* || $listener == *"pid=$pid,"* ]] && return 0
      return 2
    fi
    kill -0 "$pid" 2>/dev/null || return 2
    sleep 0.1
  done
  return 1
}

start() {
  local dir=$1 port=${2:-} try="" rc
  [ -r "$jar" ] || missing "$jar not found: install the zookeeper package (scripts/install-deps.sh)"
  command -v java >/dev/null || missing "java not found: install default-jre-headless (scripts/install-deps.sh)"
  mkdir -p "$dir/data"
  # A port we chose can still be lost to a race: then another, up to five
  # tries. A port the caller gave (restart, wipe) is kept.
  for _ in 1 2 3 4 5; do
    try=$port
    [ -n "$try" ] || try=$(free_port)
    rc=0
    launch "$dir" "$try" || rc=$?
    if [ "$rc" = 0 ]; then
      echo "$try"
      return 0
    fi
    stop "$dir"
    { [ "$rc" = 2 ] && [ -z "$port" ]; } || break
    echo "zookeeper.sh: ZooKeeper did not take port $try (ended, or another answers there); trying another port" >>"$dir/zookeeper.log"
  done
  echo "zookeeper.sh: ZooKeeper did not answer on $address:$try (log: $dir/zookeeper.log)" >&2
  return 1
}

stop() {
  local dir=$1 pid
  [ -f "$dir/pid" ] || return 0
  pid=$(cat "$dir/pid")
  kill -9 "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$dir/pid"
}

case "${1:-}" in
  start) start "$2" "${3:-}" ;;
  stop) stop "$2" ;;
  restart) stop "$2"; start "$2" "$(cat "$2/port")" ;;
  wipe) stop "$2"; rm -rf "$2/data"; start "$2" "$(cat "$2/port")" ;;
  *) echo "usage: zookeeper.sh start DIR [PORT] | stop DIR | restart DIR | wipe DIR" >&2; exit 2 ;;
esac
