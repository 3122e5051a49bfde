#!/bin/sh
# Installs the Debian (bookworm) packages roo-ingest needs to build, test and rebuild its fixtures.
# Runs apt-get as root, or through sudo when run as another user.
set -eu
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# slurmctld, slurmd, slurm-client and munge: the single-node cluster the batch tests start (tests/slurm/cluster.sh).
$SUDO apt-get install -y -q --no-install-recommends \
  build-essential cmake pkg-config git ca-certificates \
  libtsk-dev sleuthkit libewf-dev ewf-tools \
  rapidjson-dev libsqlite3-dev sqlite3 libssl-dev libcli11-dev libhowardhinnant-date-dev tzdata \
  googletest libgtest-dev python3 python3-jsonschema python3-yaml chromium \
  clang libclang-rt-14-dev \
  dpkg-dev file man-db jython \
  e2fsprogs ntfs-3g ntfs-3g-dev mtools dosfstools gdisk \
  slurmctld slurmd slurm-client munge
