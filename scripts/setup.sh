#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, only when something is missing.
set -euo pipefail
pkgs=(cmake ninja-build g++ ccache nlohmann-json3-dev libzstd-dev liblz4-dev libsnappy-dev zlib1g-dev
      libgtest-dev libgmock-dev libbenchmark-dev libedit-dev libroaring-dev python3 tzdata
      libjemalloc-dev libabsl-dev libssl-dev libcurl4-openssl-dev libxxhash-dev python3-xxhash libpcre2-dev
      libflatbuffers-dev flatbuffers-compiler
      clang-format postgresql-client openssl python3-psycopg python3-asyncpg
      openjdk-17-jdk-headless libpostgresql-jdbc-java)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
