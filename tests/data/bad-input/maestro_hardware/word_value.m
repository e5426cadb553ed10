num_pes: many
