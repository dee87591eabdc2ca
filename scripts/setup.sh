#!/usr/bin/env bash
# Installs everything testgen's build, tests, demo and benchmarks need on a fresh
# Debian 12 machine. Idempotent: quiet when everything is present; runs
# `apt-get update` only when a package is missing; works as root without sudo.
set -euo pipefail

# What each package is for is in ARCHITECTURE.md ("Toolchain and setup").
packages=(
  make pkg-config
  time  # /usr/bin/time: CPU time and peak memory in `make bench`
  openjdk-17-jdk-headless maven gradle
  libz3-dev
  junit4 libhamcrest-java junit5
  libjacoco-java libasm-java
  libmaven-plugin-tools-java libmaven3-core-java maven-repo-helper maven-debian-helper
  libsurefire-java libmaven-compiler-plugin-java libmaven-jar-plugin-java
  libmaven-resources-plugin-java libmaven-install-plugin-java
  libcommons-cli-java libcommons-codec-java libcommons-csv-java libcommons-collections4-java
  libcommons-io-java libgoogle-gson-java
  chromium  # headless, for tests/report_html.rs: renders testgen-report.html
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then as_root=(); else as_root=(sudo); fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Rust toolchain comes with the machine (rustup's; it cannot be fetched
# offline, and Debian's rustc is too old): check it, say what is missing.
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo is not on PATH; testgen needs Rust 1.89 or newer (rustup)" >&2
  exit 1
fi
rust_minor=$(cargo --version | sed -n 's/^cargo 1\.\([0-9]*\)\..*/\1/p')
if [ -n "$rust_minor" ] && [ "$rust_minor" -lt 89 ]; then
  echo "setup: $(cargo --version) is too old; testgen needs Rust 1.89 or newer (std's file locks)" >&2
  exit 1
fi
