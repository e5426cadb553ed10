l1_size_cstr: 512
l2_size_cstr: 108000
noc_bw_cstr: 12
