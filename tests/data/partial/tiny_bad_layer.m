// A MAESTRO model file whose second layer has a filter larger than its input.
Network tiny_bad_layer {
	Layer c1 {
		Type: CONV
		Dimensions { K: 8, C: 4, R: 3, S: 3, Y: 10, X: 10 }
	}
	Layer too_small {
		Type: CONV
		Dimensions { K: 8, C: 4, R: 5, S: 5, Y: 3, X: 3 }
	}
	Layer fc {
		Type: GEMM
		Dimensions { M: 1, N: 10, K: 64 }
	}
}
