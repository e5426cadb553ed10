num_pes: 168
noc_bw_cstr:
