# Real engines (make test-farm, not part of make test): a single-node Slurm on this
# machine (munged, slurmctld and slurmd started here from a slurm.conf in a temporary
# folder, on ports 16817-16818, and stopped at the end) runs the shipped recipes with
# sbatch: examples/slurm-array.sh as --array=0-3, whose tasks' manifests in chunk order
# must list the whole run's --hash lines; a PNG sequence rendered by --array=0-3 with
# --chunk, whose files must be the whole run's; and examples/slurm-sweep.sh over a
# params file, whose tools/sweep-table rows must hold the MD5 of a run's --hash made
# here. Needs the Debian packages slurm-wlm and munge (sh .ci/deps.sh farm).
. tests/cli/lib.sh
repo=$PWD
for c in munged slurmctld slurmd sbatch; do
    command -v $c > /dev/null || { fail "$c" "missing: install slurm-wlm and munge (sh .ci/deps.sh farm)"; finish; exit; }
done
D=$T/slurm; J=$T/job
mkdir -p "$D/state" "$D/spool" "$D/log" "$J/bin" "$J/out/array"
ln -s "$RR" "$J/bin/ripplerender"
ln -s "$repo/examples" "$J/examples"
pids=""
# stop: the daemons this test started, by their process ids, then waits for them
stop() { for p in $pids; do kill "$p" 2>/dev/null; done; for p in $pids; do wait "$p" 2>/dev/null; done; pids=""; }
trap 'stop; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null; chmod 400 "$D/munge.key"
munged -F -f --socket="$D/munge.sock" --key-file="$D/munge.key" --pid-file="$D/munged.pid" \
    --log-file="$D/log/munged.log" --seed-file="$D/munged.seed" > "$D/log/munged.out" 2>&1 &
pids="$pids $!"
host=$(hostname -s) user=$(id -un)
cat > "$D/slurm.conf" <<CONF
ClusterName=rrtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=10 State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
# The daemons authenticate through munged's socket: started once it is there.
k=0; while [ ! -S "$D/munge.sock" ] && [ $k -lt 600 ] && kill -0 $pids 2> /dev/null; do sleep 0.1; k=$((k + 1)); done
check munged-socket [ -S "$D/munge.sock" ]
if [ ! -S "$D/munge.sock" ]; then tail -n 5 "$D"/log/munged.*; finish; exit; fi
slurmctld -D -i -f "$SLURM_CONF" > "$D/log/slurmctld.out" 2>&1 & pids="$pids $!"
slurmd -D -f "$SLURM_CONF" > "$D/log/slurmd.out" 2>&1 & pids="$pids $!"
# The node registers within seconds; the bound is for a slow, busy machine.
up=no
for i in $(seq 1 120); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && { up=yes; break; }
    sleep 1
done
check slurm-node-idle [ $up = yes ]
if [ $up != yes ]; then tail -n 5 "$D"/log/*; finish; exit; fi

small_scene "$J/scene.json"      # 10 frames: chunks of 2, 3, 2 and 3
cd "$J" || exit 1
"$RR" scene.json --hash -j 2 -q > "$T/whole.hash"
# sub NAME SBATCH-ARGS...: submits and waits for the whole array (5 minutes at most: the
# tasks take seconds, and sbatch --wait looks at the job every few seconds)
sub() { name=$1; shift; timeout 300 sbatch --wait --export="ALL,PATH=$J/bin:$PATH" --cpus-per-task=1 "$@" \
            > "$T/$name.sbatch" 2>&1; s=$?; [ $s -eq 0 ] || cat "$T/$name.sbatch"; check "$name-sbatch-exit-0" [ $s -eq 0 ]; }

# --- examples/slurm-array.sh: four chunks --------------------------------------------------------------
sub array --array=0-3 examples/slurm-array.sh scene.json
python3 -c 'import json, sys
for p in sys.argv[1:]:
    for f in json.load(open(p))["frames"]: print(f["frame"], f["md5"])' out/part-0.json out/part-1.json \
    out/part-2.json out/part-3.json > "$T/array.hash"
check array-tasks-equal-whole-run cmp -s "$T/whole.hash" "$T/array.hash"
check array-logs-free [ -z "$(cat out/slurm-*_*.log)" ]
check array-four-logs [ "$(ls out/slurm-*_*.log | wc -l)" -eq 4 ]

# --- a PNG sequence in four chunks ------------------------------------------------------------------
mkdir whole png
"$RR" scene.json -q -o whole/f%05d.png
sub png --array=0-3 --output=/dev/null --wrap 'ripplerender scene.json --chunk -j 1 -q -o png/f%05d.png'
check png-10-files [ "$(ls png | wc -l)" -eq 10 ]
check png-equal-whole-run diff -r whole png

# --- examples/slurm-sweep.sh: one task per parameter set -------------------------------------------
printf 'solver.damping drops.0.radius\n0.98 2\n0.98 5\n0.995 2\n0.995 5\n' > params.txt
sub sweep --array=0-3 examples/slurm-sweep.sh scene.json params.txt
"$repo/tools/sweep-table" out/array/task-*.json > table.csv
check sweep-table-rows [ "$(wc -l < table.csv)" -eq 5 ]
i=0
for set in "0.98 2" "0.98 5" "0.995 2" "0.995 5"; do
    d=${set% *} r=${set#* }
    want=$("$RR" scene.json -s solver.damping=$d -s drops.0.radius=$r --hash -q | md5sum | cut -d' ' -f1)
    check "sweep-task-$i-row" [ "$(sed -n "$((i + 2))p" table.csv | cut -d, -f2,3,9)" = "$d,$r,$want" ]
    i=$((i + 1))
done
cd "$repo" || exit 1
stop
finish
