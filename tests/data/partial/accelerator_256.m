// 256 PEs, as MAESTRO's data/hw/accelerator_1.m
num_pes: 256
l1_size_cstr: 100
l2_size_cstr: 3000
noc_bw_cstr: 1000
offchip_bw_cstr: 50
