num_pes: 168
pe_count: 168
