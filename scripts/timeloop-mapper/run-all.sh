#!/bin/sh
# Marvel's search against Timeloop's own mapper (doc/timeloop.md, "Against Timeloop's mapper"): every run
# single-threaded under nice -n 19 (CPU seconds are reported). Needs TIMELOOP_HOME (a Timeloop build,
# ../shared/guides/timeloop-oracle.md) and a built build/app/marvel; results go to OUT (default
# timeloop-mapper-runs under the system's temporary folder).
set -e
D=$(dirname "$0")
# The mapper on the export's own arch/problem/ERT: bypass allowed ("same"), every tensor kept ("keep").
nice -n 19 /usr/bin/python3 "$D/run_compare.py" --variants same,keep
# A longer mapper search, no bypass: victory 3000, timeout 50000, stopped after 100 CPU seconds.
nice -n 19 /usr/bin/python3 "$D/run_compare.py" --variants keep --victory 3000 --timeout 50000 \
    --search-size 0 --cpu-cap 100 --tag=-long
# Energy first: our --objective energy against the mapper's [energy, delay].
nice -n 19 /usr/bin/python3 "$D/run_compare.py" --objective energy --metrics energy,delay --variants keep,same \
    --only P1_eyeriss:res2a_branch2a,P1_eyeriss:CONV2,edge1024_dram:res3a_branch2b,edge1024_dram:bert_ffn1
nice -n 19 /usr/bin/python3 "$D/make_table.py" mapper-delay-energy-same mapper-delay-energy-keep \
    mapper-delay-energy-long-keep mapper-energy-delay-keep-energy mapper-energy-delay-same-energy
