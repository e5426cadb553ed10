num_pes: 0
noc_bw_cstr: 12
