#!/usr/bin/env bash
# A real single-node Slurm cluster on localhost: installs Debian's slurm-wlm and
# munge when missing, starts munged, slurmctld and slurmd from a temporary
# folder, submits a spec's profile as a job array through
# `hashbench slurm --submit --wait` (a preparation job, the shards, a merge
# job), and checks that the merged metrics.csv and curves.csv equal a
# single-machine run's byte for byte. Stops only the daemons it started, by
# the pids they wrote.
#
#   scripts/slurm-test.sh                      splh-fig3's ci profile in 4 shards
#   scripts/slurm-test.sh --rehearsal SPEC [PROFILE [SHARDS]]
#                                              SPEC's rehearsal (paper profile) at
#                                              full size on synthetic data, each task
#                                              given every CPU of the node, so
#                                              one runs at a time
#
# HASHBENCH names another build of the CLI (default target/debug/hashbench).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
hashbench="${HASHBENCH:-$root/target/debug/hashbench}"
spec=experiments/splh/fig3.toml
profile=ci
shards=4
rehearsal=()
# a paper-scale task may want most of the node's memory: one at a time
per_task=()
if [ "${1:-}" = "--rehearsal" ]; then
    rehearsal=(--rehearsal)
    spec=${2:?"--rehearsal needs a spec"}
    profile=${3:-paper}
    shards=${4:-4}
    per_task=(--cpus-per-task "$(nproc)")
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    echo "slurm-test: installing slurm-wlm and munge (Debian packages)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null; }
fi

tmp=$(mktemp -d)
stop() {
    for daemon in slurmd slurmctld munged; do
        if [ -f "$tmp/$daemon.pid" ]; then
            kill "$(cat "$tmp/$daemon.pid")" 2>/dev/null || true
        fi
    done
    sleep 1
    rm -rf "$tmp"
}
trap stop EXIT
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log"

mungekey --create --keyfile="$tmp/munge.key"
chmod 600 "$tmp/munge.key"
munged --force --socket="$tmp/munge.socket" --key-file="$tmp/munge.key" \
    --pid-file="$tmp/munged.pid" --seed-file="$tmp/munged.seed" --log-file="$tmp/log/munged.log"

host=$(hostname -s)
cat >"$tmp/slurm.conf" <<EOF
ClusterName=hashbench-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
    if sinfo --noheader --states=idle 2>/dev/null | grep -q idle; then break; fi
    sleep 1
done
sinfo --noheader --states=idle | grep -q idle || { echo "slurm-test: the node never came up"; tail -n 20 "$tmp"/log/*.log; exit 1; }
echo "slurm-test: single-node cluster up ($(sinfo --version))"

# a rehearsal's results live under <results>/rehearsal
under=${rehearsal:+rehearsal/}
start=$SECONDS
"$hashbench" "${rehearsal[@]}" --results "$tmp/single" --threads 1 run "$spec" --profile "$profile" >/dev/null
echo "slurm-test: single-machine run in $((SECONDS - start)) s"
start=$SECONDS
if ! "$hashbench" "${rehearsal[@]}" --results "$tmp/cluster" slurm "$spec" --profile "$profile" --shards "$shards" "${per_task[@]}" --submit --wait; then
    echo "slurm-test: the sharded run failed; job outputs:"
    tail -n 20 "$tmp"/cluster/"$under"*/"$profile"/slurm/*.out
    exit 1
fi
echo "slurm-test: sharded run in $((SECONDS - start)) s"
# The spec's own id is its first top-level key; claims further down have ids too.
id=$(sed -n 's/^id = "\(.*\)"/\1/p' "$spec" | head -n 1)
single="$tmp/single/$under$id/$profile"
merged="$tmp/cluster/$under$id/$profile"
manifests=$(ls "$merged/shards" | wc -l)
if [ "$manifests" -ne "$shards" ]; then
    echo "slurm-test: $manifests shard manifests, expected $shards"
    exit 1
fi
for table in metrics.csv curves.csv; do
    cmp "$single/$table" "$merged/$table"
done
echo "slurm-test: $shards array tasks of $id [$profile]${rehearsal:+ (rehearsal)} merged into a metrics.csv ($(wc -l <"$merged/metrics.csv") lines) and curves.csv identical to the single-machine run's"
