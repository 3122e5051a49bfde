#!/usr/bin/env bash
# A real single-node Slurm cluster for tests and for developers: munged, slurmctld and slurmd started in the
# foreground under setsid, with a private munge socket, private ports and every path under SCRATCH, so it leaves any
# other munged or Slurm on the machine alone (docs/batch-slurm.md, "The test cluster, for developers").
#
#   tests/slurm/cluster.sh start SCRATCH   start it (a running one in SCRATCH is stopped first); exit 77 without Slurm
#                                          or without root
#   tests/slurm/cluster.sh stop SCRATCH    cancel its jobs, stop the daemons it started (by their recorded PIDs only)
#   tests/slurm/cluster.sh env SCRATCH     print `export SLURM_CONF=...` for a shell: eval "$(cluster.sh env S)"
#   tests/slurm/cluster.sh status SCRATCH  exit 0 when it answers (sinfo says idle or mixed or allocated)
#
# Needs Debian's slurmctld, slurmd, slurm-client and munge (packaging/install-build-deps.sh installs them). Every
# wait has a deadline and every Slurm command a timeout, so a broken cluster fails the set-up instead of hanging it.
set -euo pipefail

SKIP=77
usage() { sed -n '6,11p' "$0" >&2; exit 2; }
[[ $# == 2 ]] || usage
ACTION=$1
mkdir -p "$2"
SCRATCH=$(cd "$2" && pwd)
CONF=$SCRATCH/slurm.conf
PIDS=$SCRATCH/pids  # one "name pid" per line, for the daemons this script started

log() { echo "cluster.sh: $*" >&2; }

# A TCP port on loopback that nothing listens on now (the kernel's pick, released at once).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# True when every directory from / down to DIR lets others through (the x bit for "other").
searchable_by_all() {
  local dir
  dir=$(readlink -f -- "$1") || return 1
  while [[ $dir != / ]]; do
    [[ $(stat -c %A -- "$dir") == *[xt] ]] || return 1
    dir=$(dirname -- "$dir")
  done
}

# Waits up to $1 seconds for the command after it to succeed, every 0.2 s.
wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# Like wait_for, but gives up as soon as the daemon with PID $2 has exited: waits up to $1 seconds for the command
# after them to succeed.
wait_while_alive() {
  local deadline=$((SECONDS + $1)) pid=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) && ! has_exited "$pid" || return 1
    sleep 0.2
  done
}

# Whether PID $2 is alive and still the daemon $1 started with this SCRATCH (its command line names SCRATCH's files),
# so a PID the kernel has given to another process since is never signalled.
is_ours() {
  local cmdline
  [[ -r /proc/$2/cmdline ]] || return 1
  cmdline=$(tr '\0' ' ' </proc/"$2"/cmdline 2>/dev/null) || return 1
  [[ $cmdline == *"$1"* && $cmdline == *"$SCRATCH"* ]]
}

# Whether PID $1 has exited (gone, or a zombie its parent has not reaped yet).
has_exited() {
  local state
  state=$(awk '{print $3}' /proc/"$1"/stat 2>/dev/null) || return 0
  [[ -z $state || $state == Z ]]
}

# Starts a daemon in the foreground under setsid, logging to SCRATCH/log/NAME.out, and records its PID. `setsid`
# without --fork execs in place when the caller is not a process-group leader (a background job of this
# non-interactive shell is not), so $! is the daemon itself once it has exec'd. Until then $! is still a copy of this
# shell, which on a busy machine can last well past a fixed short sleep: wait (up to 10 s) for the daemon's own
# command line, or for its end. A daemon writes why it stopped to its own log file (NAME.log), not to NAME.out: both
# are shown.
start_daemon() {
  local name=$1; shift
  setsid "$@" </dev/null >>"$SCRATCH/log/$name.out" 2>&1 &
  local pid=$!
  echo "$name $pid" >>"$PIDS"
  local deadline=$((SECONDS + 10))
  until is_ours "$name" "$pid"; do
    if has_exited "$pid" || ((SECONDS >= deadline)); then
      log "$name did not start (see $SCRATCH/log/$name.out and $name.log):"
      show_logs "$name"
      return 1
    fi
    sleep 0.05
  done
}

# The last lines of a daemon's own log and of its captured output.
show_logs() {
  local f
  for f in "$SCRATCH/log/$1.log" "$SCRATCH/log/$1.out"; do
    [[ -s $f ]] && { echo "--- $f" >&2; tail -8 "$f" >&2; }
  done
  return 0
}

stop_cluster() {
  [[ -f $PIDS ]] || return 0
  # Jobs first: their steps run under slurmstepd processes that outlive slurmd, and only slurmctld can end them.
  if [[ -f $CONF ]] && grep -q '^slurmctld ' "$PIDS"; then
    SLURM_CONF=$CONF timeout 10 scancel --user="$(id -u)" >/dev/null 2>&1 || true
    wait_for 15 bash -c '[[ -z $(SLURM_CONF='"'$CONF'"' timeout 5 squeue -h -o %i 2>/dev/null) ]]' ||
      log "jobs still listed after scancel"
  fi
  # The reverse order of starting: slurmd, slurmctld, then munged, which the other two need to the end.
  stop_daemons slurmd slurmctld munged
  rm -f "$PIDS"
}

# Stops the recorded daemons of the names given, in that order: TERM, then KILL after 20 s.
stop_daemons() {
  local name n pid
  for name in "$@"; do
    while read -r n pid; do
      [[ $n == "$name" ]] || continue
      if is_ours "$name" "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        if ! wait_for 20 has_exited "$pid"; then
          is_ours "$name" "$pid" && kill -KILL "$pid" 2>/dev/null || true
        fi
      fi
    done <"$PIDS"
  done
}

# Writes slurm.conf for a private single-node cluster on two fresh loopback ports (uses host, node_line and socket of
# start_cluster).
write_conf() {
  local ctld_port slurmd_port
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  while [[ $slurmd_port == "$ctld_port" ]]; do slurmd_port=$(free_port); done
  cat >"$CONF" <<EOF
# Written by tests/slurm/cluster.sh: a private single-node cluster, everything under $SCRATCH.
ClusterName=roo-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$SCRATCH/state
SlurmdSpoolDir=$SCRATCH/spool
SlurmctldPidFile=$SCRATCH/run/slurmctld.pid
SlurmdPidFile=$SCRATCH/run/slurmd.pid
SlurmctldLogFile=$SCRATCH/log/slurmctld.log
SlurmdLogFile=$SCRATCH/log/slurmd.log
# cgroups are not usable on these machines: every step would fail with proctrack/cgroup.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$SCRATCH/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Without a default memory request a job is given the whole node, and a throttled array runs one task at a time.
DefMemPerCPU=512
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
# Finished jobs stay visible to scontrol for an hour (there is no accounting to ask).
MinJobAge=3600
ReturnToService=2
MailProg=/bin/true
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 $node_line State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start_cluster() {
  local tool
  for tool in munged mungekey slurmctld slurmd sbatch squeue sinfo srun scontrol; do
    if ! command -v "$tool" >/dev/null 2>&1 && [[ ! -x /usr/sbin/$tool ]]; then
      log "no $tool: Slurm or munge is not installed (packaging/install-build-deps.sh installs them); skipped"
      exit $SKIP
    fi
  done
  if [[ $(id -u) != 0 ]]; then
    # slurmd starts each job's processes as the job's user, which only root can do.
    log "not root: a Slurm cluster of one's own needs root; skipped"
    exit $SKIP
  fi
  PATH=$PATH:/usr/sbin
  stop_cluster
  rm -rf "$SCRATCH/munge" "$SCRATCH/state" "$SCRATCH/spool" "$SCRATCH/log" "$SCRATCH/run"
  mkdir -p "$SCRATCH/munge/key" "$SCRATCH/state" "$SCRATCH/spool" "$SCRATCH/log" "$SCRATCH/run"
  # munged refuses a key directory others can read and a socket directory others cannot search.
  chmod 0700 "$SCRATCH/munge/key"
  local socket_dir=$SCRATCH/munge/run
  # A Unix socket's path has at most 107 bytes, and munged also refuses a socket directory below one that others cannot
  # search (a checkout inside `mktemp -d`, mode 0700): either way the socket gets a private directory under /tmp.
  if ((${#socket_dir} > 80)) || ! searchable_by_all "$SCRATCH"; then
    socket_dir=$(mktemp -d /tmp/roo-munge.XXXXXX)
    echo "$socket_dir" >"$SCRATCH/munge/socket-dir"
  else
    mkdir -p "$socket_dir"
  fi
  chmod 0755 "$socket_dir" "$SCRATCH/munge"
  local socket=$socket_dir/munge.socket
  mungekey -c -k "$SCRATCH/munge/key/munge.key"

  local host node_line
  host=$(hostname -s)
  # The node's CPUs, sockets, cores, threads and memory as slurmd sees them (`slurmd -C`'s first line, less its name).
  node_line=$(timeout 10 slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
  write_conf
  export SLURM_CONF=$CONF

  start_daemon munged munged -F --socket="$socket" --key-file="$SCRATCH/munge/key/munge.key" \
    --pid-file="$SCRATCH/run/munged.pid" --log-file="$SCRATCH/log/munged.log" --seed-file="$SCRATCH/munge/seed"
  if ! wait_for 15 bash -c "munge -n -S '$socket' | unmunge -S '$socket'"; then
    log "munged does not answer on $socket"; show_logs munged
    stop_cluster; exit 1
  fi
  # A port the kernel called free can be taken before slurmctld binds it, and slurmctld then stops at once: up to three
  # tries, each with fresh ports, and each failure's log shown.
  local try
  for try in 1 2 3; do
    if start_daemon slurmctld slurmctld -D -f "$CONF"; then
      wait_while_alive 30 "$(awk '$1 == "slurmctld" {pid = $2} END {print pid}' "$PIDS")" \
        bash -c "timeout 5 scontrol ping | grep -q UP" && break
      log "slurmctld does not answer"; show_logs slurmctld
    fi
    stop_daemons slurmctld
    ((try < 3)) || { stop_cluster; exit 1; }
    log "slurmctld: try $((try + 1)) of 3, with fresh ports"
    write_conf
  done
  start_daemon slurmd slurmd -D -N "$host" -f "$CONF" || { stop_cluster; exit 1; }
  if ! wait_for 30 bash -c "timeout 5 sinfo -h -o %T | grep -qx idle"; then
    log "the node never came up idle"; show_logs slurmd
    stop_cluster; exit 1
  fi
  if ! timeout 30 srun -N1 true; then
    log "srun -N1 true failed"; show_logs slurmd
    stop_cluster; exit 1
  fi
  log "up: SLURM_CONF=$CONF ($(grep -E '^Slurm(ctld|d)Port=' "$CONF" | tr '\n' ' '))"
}

case $ACTION in
  start) start_cluster ;;
  stop)
    stop_cluster
    if [[ -f $SCRATCH/munge/socket-dir ]]; then
      rm -rf -- "$(cat "$SCRATCH/munge/socket-dir")"
      rm -f "$SCRATCH/munge/socket-dir"
    fi
    ;;
  env) printf 'export SLURM_CONF=%q\n' "$CONF" ;;
  status)
    [[ -f $CONF ]] || exit 1
    SLURM_CONF=$CONF timeout 10 sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' ;;
  *) usage ;;
esac
