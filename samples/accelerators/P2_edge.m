// Marvel platform P2 (edge) as a MAESTRO hardware file: 1024 PEs, 200 MHz, NoC 25.6 GB/s,
// L1 512 B per PE, L2 108 KB, 8-bit data (1 byte per element, MAESTRO's implicit unit).
// NoC 25.6e9 B/s / 200e6 cycles/s = 128 elements per cycle. The off-chip bandwidth is set so large
// that it never limits the on-chip analysis (the paper's setting). Same parameters as P2_edge.json.
num_pes: 1024
l1_size_cstr: 512
l2_size_cstr: 110592
noc_bw_cstr: 128
offchip_bw_cstr: 1000000
