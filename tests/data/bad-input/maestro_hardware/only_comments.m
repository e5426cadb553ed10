// 256 PEs, someday
